package wirebench.formats.codec;

import wirebench.formats.dataset.DatasetKind;

/**
 * A codec whose library is meant to be read lazily: the harness times {@link #decodeLazily}
 * as its deserialization instead of {@link Codec#decode}, which verification still runs in full
 * beforehand (the bytes decode to the dataset).
 */
public interface LazyDecoder {
    /** What {@link #decodeLazily} reads, for the README and the measurement's readers. */
    String lazyAccess();

    /** Wraps the bytes and reads only what {@link #lazyAccess()} says; returns something derived from it. */
    Object decodeLazily(byte[] bytes, DatasetKind kind) throws CodecException;
}
