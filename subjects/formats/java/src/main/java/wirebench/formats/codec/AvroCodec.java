package wirebench.formats.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SystemLimitException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.reflect.ReflectData;
import org.apache.avro.reflect.ReflectDatumReader;
import org.apache.avro.reflect.ReflectDatumWriter;
import wirebench.formats.dataset.Coordinate;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.DummyFriend;
import wirebench.formats.dataset.DummyObject;
import wirebench.formats.dataset.Metadata;
import wirebench.formats.dataset.NumericObject;
import wirebench.formats.dataset.User;
import wirebench.formats.dataset.UsersDocument;

/**
 * Avro through Apache Avro, as raw binary datums against {@code schema/avro/<dataset>.avsc} (no
 * object-container header or sync marker: a container adds the schema text and a random 16-byte
 * marker per file, which would make the bytes differ on every run and measure framing rather
 * than encoding). Arrays are written as one block.
 *
 * <p>Avro's reflect API reads and writes the dataset types directly, by field name, the way
 * apache-avro's serde path does in Rust: no generated twin classes, no generic records to copy
 * from. Strings get the schema property {@code avro.java.string=String} in memory (read as
 * {@link String}, not Avro's {@code Utf8}; the wire is unchanged), and arrays are read into
 * {@link ArrayList}s, not Avro's own list type.
 */
final class AvroCodec implements Codec {
    private static final String ID = "avro";

    /**
     * Avro sizes strings and arrays by their length prefixes. Its default limits (about 2^31)
     * let a forged prefix ask for gigabytes; every dataset here is far below these. System
     * properties are read once, when Avro first checks a limit, so this runs before any decode.
     */
    static {
        limit(SystemLimitException.MAX_STRING_LENGTH_PROPERTY, 16L << 20);
        limit(SystemLimitException.MAX_BYTES_LENGTH_PROPERTY, 16L << 20);
        limit(SystemLimitException.MAX_COLLECTION_LENGTH_PROPERTY, 1L << 20);
    }

    private static void limit(String property, long value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, Long.toString(value));
        }
    }

    /** Maps the schemas' record names to the dataset types (Avro would look for classes named like the records). */
    private static final class DatasetReflectData extends ReflectData {
        private static final Map<String, Class<?>> RECORDS = Map.of(
                "wirebench.formats.UsersDocument", UsersDocument.class,
                "wirebench.formats.User", User.class,
                "wirebench.formats.Metadata", Metadata.class,
                "wirebench.formats.NumericObject", NumericObject.class,
                "wirebench.formats.Coordinate", Coordinate.class,
                "wirebench.formats.DummyObject", DummyObject.class,
                "wirebench.formats.DummyFriend", DummyFriend.class);

        @Override
        @SuppressWarnings("rawtypes")
        public Class getClass(Schema schema) {
            if (schema.getType() == Schema.Type.RECORD) {
                Class<?> type = RECORDS.get(schema.getFullName());
                if (type != null) {
                    return type;
                }
            }
            return super.getClass(schema);
        }
    }

    /** Reads arrays into {@link ArrayList}s, sized by the block count only up to a small bound (the count is untrusted). */
    private static final class DatasetDatumReader extends ReflectDatumReader<Object> {
        private static final int MAX_PRESIZE = 1024;

        DatasetDatumReader(Schema schema, ReflectData data) {
            super(schema, schema, data);
        }

        @Override
        protected Object newArray(Object old, int size, Schema schema) {
            return new ArrayList<>(Math.min(Math.max(size, 0), MAX_PRESIZE));
        }
    }

    private record Prepared(ReflectDatumWriter<Object> writer, ReflectDatumReader<Object> reader) {}

    /** Schemas, writers and readers, built once: a program keeps them, so the harness does not time building them. */
    private final Map<DatasetKind, Prepared> prepared = new EnumMap<>(DatasetKind.class);

    AvroCodec() {
        ReflectData data = new DatasetReflectData();
        for (DatasetKind kind : DatasetKind.values()) {
            Schema schema = schema(kind);
            prepared.put(kind, new Prepared(
                    new ReflectDatumWriter<>(schema, data), new DatasetDatumReader(schema, data)));
        }
    }

    /** Classpath location of {@code schema/avro/<dataset>.avsc} (the build copies it into the jar). */
    static String schemaResource(DatasetKind kind) {
        return "/wirebench/formats/schema/avro/" + kind.id() + ".avsc";
    }

    private static Schema schema(DatasetKind kind) {
        try (InputStream in = AvroCodec.class.getResourceAsStream(schemaResource(kind))) {
            if (in == null) {
                throw new IllegalStateException(schemaResource(kind) + " is not on the classpath: build with mvn");
            }
            Schema schema = new Schema.Parser().parse(in);
            addJavaTypes(schema);
            return schema;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void addJavaTypes(Schema schema) {
        switch (schema.getType()) {
            case STRING -> schema.addProp("avro.java.string", "String");
            case ARRAY -> addJavaTypes(schema.getElementType());
            case RECORD -> schema.getFields().forEach(field -> addJavaTypes(field.schema()));
            default -> {}
        }
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String library() {
        return Libraries.library("avro");
    }

    @Override
    public byte[] encode(Dataset data) throws CodecException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        try {
            prepared.get(data.kind()).writer().write(data.root(), encoder);
            encoder.flush();
        } catch (IOException | AvroRuntimeException e) {
            throw CodecException.encode(ID, data.kind(), e);
        }
        return out.toByteArray();
    }

    @Override
    public Dataset decode(byte[] bytes, DatasetKind kind) throws CodecException {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, null);
        Object root;
        try {
            root = prepared.get(kind).reader().read(null, decoder);
            // A datum has no length of its own: without this a longer input (or another
            // dataset's bytes) could decode from its prefix.
            if (!decoder.isEnd()) {
                throw CodecException.decode(ID, kind, "trailing bytes after the datum");
            }
        } catch (IOException | AvroRuntimeException | UnsupportedOperationException e) {
            // Avro documents UnsupportedOperationException for a collection too large for any
            // Java array (SystemLimitException.checkMaxCollectionLength): a forged block count.
            throw CodecException.decode(ID, kind, e);
        }
        return Dataset.of(kind, root);
    }
}
