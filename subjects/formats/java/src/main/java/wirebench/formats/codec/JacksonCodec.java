package wirebench.formats.codec;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.IOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.DummyObject;
import wirebench.formats.dataset.NumericObject;
import wirebench.formats.dataset.UsersDocument;

/**
 * The shared body of the formats Jackson data-binds (json, xml, msgpack, cbor, bson): an
 * {@link ObjectReader} and {@link ObjectWriter} per dataset, built once for the root type, so a
 * timed encode or decode does no type lookup. Strict as serde is: trailing data fails and so
 * does an unknown field (Jackson's default).
 */
abstract class JacksonCodec implements Codec {
    private final String id;
    private final String library;
    private final boolean wrapLists;
    private final Map<DatasetKind, ObjectReader> readers = new EnumMap<>(DatasetKind.class);
    private final Map<DatasetKind, ObjectWriter> writers = new EnumMap<>(DatasetKind.class);

    /**
     * @param wrapLists whether list datasets travel as {@link Items} ({@code {"items": [...]}})
     *     because the format's top level must be a record
     */
    JacksonCodec(String id, String library, ObjectMapper mapper, boolean wrapLists) {
        this.id = id;
        this.library = library;
        this.wrapLists = wrapLists;
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        for (DatasetKind kind : DatasetKind.values()) {
            TypeReference<?> type = rootType(kind, wrapLists);
            readers.put(kind, configure(mapper.readerFor(type), kind));
            writers.put(kind, configure(mapper.writerFor(type), kind));
        }
    }

    private static TypeReference<?> rootType(DatasetKind kind, boolean wrapLists) {
        return switch (kind) {
            case USERS -> new TypeReference<UsersDocument>() {};
            case NUMERIC -> wrapLists
                    ? new TypeReference<Items<NumericObject>>() {}
                    : new TypeReference<List<NumericObject>>() {};
            case DUMMY -> wrapLists
                    ? new TypeReference<Items<DummyObject>>() {}
                    : new TypeReference<List<DummyObject>>() {};
        };
    }

    /** A format's per-dataset reader settings (XML names its root element after the dataset). */
    ObjectReader configure(ObjectReader reader, DatasetKind kind) {
        return reader;
    }

    ObjectWriter configure(ObjectWriter writer, DatasetKind kind) {
        return writer;
    }

    /** Reads the root value; a format whose parser cannot check for trailing bytes does so here. */
    Object readRoot(ObjectReader reader, byte[] bytes) throws IOException {
        return reader.readValue(bytes);
    }

    /** Checks a format needs before Jackson sees the bytes; throws to reject them. */
    void precheck(byte[] bytes, DatasetKind kind) throws CodecException {}

    /**
     * Whether an unchecked exception is one of the library's documented decode errors (and so a
     * clean failure). Jackson reports through {@link IOException}; some format modules use
     * runtime exceptions of their own.
     */
    boolean isDecodeError(RuntimeException e) {
        return false;
    }

    @Override
    public final String id() {
        return id;
    }

    @Override
    public final String library() {
        return library;
    }

    @Override
    public final byte[] encode(Dataset data) throws CodecException {
        Object root = data.root();
        if (wrapLists && !(data instanceof Dataset.Users)) {
            root = new Items<>((List<?>) root);
        }
        try {
            return writers.get(data.kind()).writeValueAsBytes(root);
        } catch (IOException e) {
            throw CodecException.encode(id, data.kind(), e);
        }
    }

    @Override
    public final Dataset decode(byte[] bytes, DatasetKind kind) throws CodecException {
        precheck(bytes, kind);
        Object root;
        try {
            root = readRoot(readers.get(kind), bytes);
        } catch (IOException e) {
            throw CodecException.decode(id, kind, e);
        } catch (RuntimeException e) {
            if (isDecodeError(e)) {
                throw CodecException.decode(id, kind, e);
            }
            throw e;
        }
        if (root instanceof Items<?> items) {
            root = items.items;
        }
        if (root == null) {
            throw CodecException.decode(id, kind, "no " + kind.id() + " value (null or empty)");
        }
        return Dataset.of(kind, root);
    }
}
