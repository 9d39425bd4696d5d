package wirebench.formats.codec;

import wirebench.formats.dataset.DatasetKind;

/** A clean failure of a codec: the bytes are not a valid encoding of the dataset, or a value cannot be encoded. */
public final class CodecException extends Exception {
    private static final long serialVersionUID = 1L;

    private CodecException(String message, Throwable cause) {
        super(message, cause);
    }

    public static CodecException encode(String format, DatasetKind kind, Throwable cause) {
        return new CodecException(format + ": cannot encode " + kind.id() + ": " + describe(cause), cause);
    }

    public static CodecException decode(String format, DatasetKind kind, Throwable cause) {
        return new CodecException(format + ": cannot decode as " + kind.id() + ": " + describe(cause), cause);
    }

    public static CodecException decode(String format, DatasetKind kind, String message) {
        return new CodecException(format + ": cannot decode as " + kind.id() + ": " + message, null);
    }

    /** The cause's message on one line (library messages can span several). */
    private static String describe(Throwable cause) {
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return message.replaceAll("\\s*\\R\\s*", " ");
    }
}
