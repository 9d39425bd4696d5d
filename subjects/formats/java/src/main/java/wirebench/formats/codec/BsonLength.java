package wirebench.formats.codec;

import wirebench.formats.dataset.DatasetKind;

/** The framing check both BSON codecs make before reading a document. */
final class BsonLength {
    private BsonLength() {}

    /** Smallest document: int32 length and the terminating NUL. */
    private static final int MIN_DOCUMENT = 5;

    /**
     * A BSON file is exactly one document: its int32 length prefix must equal the input length,
     * so a forged prefix fails before a library sizes anything by it, and trailing bytes fail too.
     */
    static void check(String format, byte[] bytes, DatasetKind kind) throws CodecException {
        if (bytes.length < MIN_DOCUMENT) {
            throw CodecException.decode(format, kind, bytes.length + " bytes are shorter than any BSON document");
        }
        int declared = (bytes[0] & 0xff) | (bytes[1] & 0xff) << 8 | (bytes[2] & 0xff) << 16 | (bytes[3] & 0xff) << 24;
        if (declared != bytes.length) {
            throw CodecException.decode(format, kind,
                    "document length prefix " + Integer.toUnsignedString(declared) + " != input length " + bytes.length);
        }
    }
}
