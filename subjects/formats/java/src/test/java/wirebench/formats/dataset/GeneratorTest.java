package wirebench.formats.dataset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import wirebench.formats.Paths;

/** The generator against datasets.json: its PRNG check values, helpers, counts and the reference vectors/<dataset>.json. */
class GeneratorTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void splitmixMatchesTheCheckValuesInTheSpec() {
        JsonNode check = Spec.get().json().path("generator").path("check");
        SplitMix64 rng = new SplitMix64(check.path("seed").asLong());
        assertEquals(3, check.path("next_hex").size());
        for (JsonNode want : check.path("next_hex")) {
            assertEquals(want.asText(), rng.hex64());
        }
    }

    @Test
    void unsignedArithmeticWraps() {
        // A draw above 2^63 is negative as a long; below() must still use the unsigned value.
        SplitMix64 rng = new SplitMix64(1);
        long first = rng.next();
        assertTrue(first < 0, "the first draw of seed 1 (0x910a...) is above 2^63");
        assertEquals(Long.remainderUnsigned(first, 1000), new SplitMix64(1).below(1000));
    }

    @Test
    void helpersFollowTheirExamples() {
        assertEquals("$1,234.56", Generator.dollars(123_456));
        assertEquals("$1,000.00", Generator.dollars(100_000));
        assertEquals("$999.01", Generator.dollars(99_901));
        assertEquals("0042", Generator.pad(42, 4));
        assertEquals("12345", Generator.pad(12345, 3));
        SplitMix64 rng = new SplitMix64(7);
        assertEquals(36, rng.guid().length());
        assertEquals(24, rng.objectId().length());
        for (int i = 0; i < 1000; i++) {
            long v = rng.integer(-3, 3);
            assertTrue(v >= -3 && v <= 3, "int(-3, 3) gave " + v);
        }
        Generator g = Generator.forTest(7);
        assertEquals("Ab ab.", g.paragraph(List.of("ab"), 5));
        assertEquals("Ab ab ab.", g.paragraph(List.of("ab"), 6));
    }

    @ParameterizedTest
    @EnumSource(DatasetKind.class)
    void generationIsDeterministicAndCountsFollowTheSpec(DatasetKind kind) {
        Dataset data = Generator.generate(kind);
        assertEquals(data, Generator.generate(kind));
        assertEquals(Spec.get().json().path("datasets").path(kind.id()).path("count").asInt(), data.objects());
        assertEquals(kind, data.kind());
        // A prefix is the same objects, so the small bad-input bases stay related to the vectors.
        Dataset small = Generator.generate(kind, 2);
        Object fullRoot = data.root();
        List<?> full = fullRoot instanceof UsersDocument doc ? doc.users : (List<?>) fullRoot;
        Object smallRoot = small.root();
        List<?> prefix = smallRoot instanceof UsersDocument doc ? doc.users : (List<?>) smallRoot;
        assertEquals(full.subList(0, 2), prefix);
    }

    /** The values decoded from vectors/<dataset>.json (written by the Rust harness) equal the generated dataset. */
    @ParameterizedTest
    @EnumSource(DatasetKind.class)
    void generatedDatasetsEqualTheReferenceJson(DatasetKind kind) throws IOException {
        byte[] reference = Files.readAllBytes(Paths.vectors().resolve(kind.id() + ".json"));
        Object root = switch (kind) {
            case USERS -> JSON.readValue(reference, UsersDocument.class);
            case NUMERIC -> JSON.readValue(reference, JSON.getTypeFactory().constructCollectionType(List.class, NumericObject.class));
            case DUMMY -> JSON.readValue(reference, JSON.getTypeFactory().constructCollectionType(List.class, DummyObject.class));
        };
        assertEquals(Dataset.of(kind, root), Generator.generate(kind));
        // And as JSON trees (both parsed from text), so a field the Java types lacked, which
        // Jackson would have refused, or one they add shows up here too.
        assertEquals(JSON.readTree(reference), JSON.readTree(JSON.writeValueAsBytes(Generator.generate(kind).root())));
    }

    @Test
    void stringsAreAsciiAndAboutIsLongEnough() throws IOException {
        String json = JSON.writeValueAsString(Generator.generate(DatasetKind.DUMMY).root());
        assertTrue(json.chars().allMatch(c -> c < 128));
        for (DummyObject d : ((Dataset.Dummy) Generator.generate(DatasetKind.DUMMY)).items()) {
            assertTrue(d.about.length() >= 500 && d.about.length() < 520, d.about);
        }
    }

    /**
     * Holds the Java types to datasets.json: every type's fields, in order, with their JSON kinds
     * and list lengths, are what the spec lists (Jackson writes public fields in declaration order).
     */
    @ParameterizedTest
    @EnumSource(DatasetKind.class)
    void typesMatchTheSpec(DatasetKind kind) {
        JsonNode spec = Spec.get().json();
        JsonNode node = JSON.valueToTree(Generator.generate(kind, 3).root());
        checkNode(spec, kind.id(), spec.path("datasets").path(kind.id()).path("root").asText(), node);
    }

    private static void checkNode(JsonNode spec, String path, String type, JsonNode node) {
        if (type.startsWith("[") && type.endsWith("]")) {
            String[] parts = type.substring(1, type.length() - 1).split("; ");
            assertTrue(node.isArray(), path + " is not a list");
            if (!parts[1].equals("count")) {
                assertEquals(Integer.parseInt(parts[1]), node.size(), path + ": length");
            }
            node.forEach(item -> checkNode(spec, path, parts[0], item));
            return;
        }
        switch (type) {
            case "i32" -> assertTrue(node.isInt(), path + ": " + node + " is not an i32");
            case "i64" -> assertTrue(node.isIntegralNumber(), path + ": " + node + " is not an i64");
            case "f64" -> assertTrue(node.isDouble(), path + ": " + node + " is not an f64");
            case "bool" -> assertTrue(node.isBoolean(), path + ": " + node + " is not a bool");
            case "string" -> assertTrue(node.isTextual(), path + ": " + node + " is not a string");
            default -> checkObject(spec, type, node);
        }
    }

    private static void checkObject(JsonNode spec, String typeName, JsonNode node) {
        JsonNode fields = spec.path("types").path(typeName).path("fields");
        assertTrue(fields.isArray() && node instanceof ObjectNode, typeName + " is not an object");
        List<String> want = new ArrayList<>();
        fields.forEach(field -> want.add(field.path("name").asText()));
        List<String> names = new ArrayList<>();
        node.properties().forEach(entry -> names.add(entry.getKey()));
        assertEquals(want, names, typeName + ": field names and order");
        for (JsonNode field : fields) {
            String name = field.path("name").asText();
            checkNode(spec, typeName + "." + name, field.path("type").asText(), node.path(name));
        }
    }
}
