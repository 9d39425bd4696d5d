package wirebench.parse;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import wirebench.formats.codec.Codec;
import wirebench.formats.codec.CodecException;
import wirebench.formats.codec.Codecs;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.DummyObject;
import wirebench.formats.dataset.Generator;
import wirebench.formats.dataset.NumericObject;

/**
 * The lab's objects on the wire: the formats lab's {@code numeric} and {@code dummy} datasets
 * (100 objects each, {@link Generator}), object {@code i} being {@code dataset[i % 100]}. One
 * object travels as itself (a JSON object, one BSON document) through a Jackson mapper configured
 * as the formats lab's {@code JacksonCodec} (plain {@code ObjectMapper}, trailing data rejected;
 * bson4jackson writes {@code int} as int32 and {@code long} as int64, as the formats lab's BSON);
 * several travel in the formats lab's list layout through its own codecs ({@link Codecs}).
 */
final class Wire {
    private Wire() {}

    /** The most objects one answer or one consume call holds (the study's largest N). */
    static final int MAX_COUNT = 100_000;

    /** {@code json} or {@code bson}. */
    enum Format {
        JSON("json", "application/json", new ObjectMapper()),
        BSON("bson", "application/bson", new ObjectMapper(new BsonFactory()));

        final String id;
        final String contentType;
        final ObjectMapper mapper;
        /** The formats lab's codec of this format, for lists. */
        final Codec codec;
        /** Reads one element of a list into a tree: what follows it is no "trailing" token. */
        final ObjectReader element;

        Format(String id, String contentType, ObjectMapper mapper) {
            this.id = id;
            this.contentType = contentType;
            this.mapper = mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
            this.codec = Codecs.byId(id).orElseThrow();
            this.element = this.mapper.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        }

        static Optional<Format> fromId(String id) {
            return Arrays.stream(values()).filter(f -> f.id.equals(id)).findFirst();
        }
    }

    /** The objects a server provides: {@code numeric} and {@code dummy}. */
    static Optional<DatasetKind> object(String id) {
        return DatasetKind.fromId(id).filter(kind -> kind != DatasetKind.USERS);
    }

    private static final Map<DatasetKind, List<?>> CANONICAL = new EnumMap<>(DatasetKind.class);
    private static final Map<DatasetKind, List<JsonNode>> TREES = new EnumMap<>(DatasetKind.class);
    private static final Map<DatasetKind, Map<Format, ObjectReader>> READERS = new EnumMap<>(DatasetKind.class);

    static {
        for (DatasetKind kind : List.of(DatasetKind.NUMERIC, DatasetKind.DUMMY)) {
            List<?> objects = (List<?>) Generator.generate(kind).root();
            CANONICAL.put(kind, objects);
            TREES.put(kind, objects.stream().map(o -> (JsonNode) Format.JSON.mapper.valueToTree(o)).toList());
            Map<Format, ObjectReader> readers = new EnumMap<>(Format.class);
            for (Format format : Format.values()) {
                readers.put(format, format.mapper.readerFor(kind == DatasetKind.NUMERIC ? NumericObject.class : DummyObject.class));
            }
            READERS.put(kind, readers);
        }
    }

    /**
     * Generates the objects and builds the codecs and readers (this class's
     * initialisation): called when the server starts, so that no timed call pays for it.
     */
    static void load() {}

    /** Object {@code i}: {@code dataset[i % 100]}. */
    static Object canonical(DatasetKind kind, long i) {
        List<?> objects = CANONICAL.get(kind);
        return objects.get((int) (i % objects.size()));
    }

    /**
     * A provider's answer: object {@code start} itself when {@code count == 1}, else objects
     * {@code start .. start + count} in the formats lab's list layout (a JSON array, a BSON
     * {@code {"items": [...]}}).
     */
    static byte[] encode(DatasetKind kind, Format format, long start, int count) {
        if (count == 1) {
            // Serialized on every request, as the study's controller did and the Rust server does.
            return write(format, canonical(kind, start));
        }
        long first = start % CANONICAL.get(kind).size();
        List<Object> objects = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            objects.add(canonical(kind, first + i));
        }
        try {
            return format.codec.encode(Dataset.of(kind, objects));
        } catch (CodecException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * Deliberately malformed bytes, the same whatever the index: the BSON document of object 0
     * cut in half, or the JSON object 0 without its {@code index} field.
     */
    static byte[] malformed(DatasetKind kind, Format format) {
        byte[] good = encode(kind, format, 0, 1);
        if (format == Format.BSON) {
            return Arrays.copyOf(good, good.length / 2);
        }
        ObjectNode tree = TREES.get(kind).get(0).deepCopy();
        tree.remove("index");
        try {
            return Format.JSON.mapper.writeValueAsBytes(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Binds one object ({@link NumericObject} or {@link DummyObject}) eagerly from its own document. */
    static ObjectReader reader(DatasetKind kind, Format format) {
        return READERS.get(kind).get(format);
    }

    private static byte[] write(Format format, Object object) {
        try {
            return format.mapper.writeValueAsBytes(object);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The first field of a canonical object that a body lacks, as {@code "object k: malformed json:
     * missing field `friends[0].id`"} ({@code k} counted from {@code firstIndex}), or empty. Jackson binds public
     * fields and leaves a missing one at its default (it checks presence only for creator
     * properties), so the consumer checks presence here, after the timer, on the bytes it
     * received: every element of a {@code list} body (the list layout), else the body itself.
     * The body has decoded already, so its structure is the expected one.
     */
    static Optional<String> missingField(DatasetKind kind, Format format, byte[] body, boolean list, long firstIndex)
            throws IOException {
        List<JsonNode> trees = TREES.get(kind);
        try (JsonParser p = format.mapper.createParser(body)) {
            p.nextToken();
            if (list && format == Format.BSON) {
                p.nextToken(); // "items"
                p.nextToken(); // [
            }
            long k = firstIndex;
            if (list) {
                p.nextToken();
            }
            while (p.currentToken() == JsonToken.START_OBJECT) {
                JsonNode got = format.element.readTree(p);
                String missing = missing(got, trees.get((int) (k % trees.size())), "");
                if (missing != null) {
                    return Optional.of("object " + k + ": malformed " + format.id + ": missing field `" + missing + "`");
                }
                if (!list) {
                    break;
                }
                k++;
                p.nextToken();
            }
        }
        return Optional.empty();
    }

    private static String missing(JsonNode got, JsonNode want, String path) {
        if (want.isObject() && got.isObject()) {
            for (Map.Entry<String, JsonNode> field : want.properties()) {
                JsonNode value = got.get(field.getKey());
                String at = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
                if (value == null) {
                    return at;
                }
                String inner = missing(value, field.getValue(), at);
                if (inner != null) {
                    return inner;
                }
            }
        } else if (want.isArray() && got.isArray()) {
            for (int i = 0; i < Math.min(want.size(), got.size()); i++) {
                String inner = missing(got.get(i), want.get(i), path + "[" + i + "]");
                if (inner != null) {
                    return inner;
                }
            }
        }
        return null;
    }
}
