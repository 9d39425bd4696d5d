package wirebench.formats.codec;

import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;

/**
 * One serialization format as one library implements it.
 *
 * <p>Contract: {@code decode(encode(d), d.kind())} equals {@code d}; {@code encode} of equal values
 * gives equal bytes; {@code decode} of any bytes returns a dataset or throws {@link CodecException}
 * (the library's own error types are wrapped; anything else escaping is a library defect that
 * the bad-input test reports), without looping forever and without allocating more than a small
 * multiple of the input. Implementations are stateless and safe to share between threads.
 */
public interface Codec {
    /** The format id used in flags, file names and measurements ({@code msgpack}). */
    String id();

    /** The library and version that does the work ({@code jackson-dataformat-msgpack@0.9.11}). */
    String library();

    byte[] encode(Dataset data) throws CodecException;

    Dataset decode(byte[] bytes, DatasetKind kind) throws CodecException;

    /**
     * The golden vector this codec reads: {@code vectors/<dataset>.<vectorFormat()>}. Two codecs
     * of one format (the two BSON libraries) share the format's vectors.
     */
    default String vectorFormat() {
        return id();
    }
}
