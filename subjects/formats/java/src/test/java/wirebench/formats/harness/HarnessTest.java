package wirebench.formats.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import wirebench.formats.codec.Codec;
import wirebench.formats.codec.CodecException;
import wirebench.formats.codec.Codecs;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.Generator;

/** The harness with a timer that reports fixed numbers, so whole runs can be checked exactly. */
class HarnessTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reports 2 ms / 3 ms per operation and 100 / 200 bytes for every dataset, and records what it was asked. */
    static final class FixedTimer implements Timer {
        final List<String> asked = new ArrayList<>();

        @Override
        public void time(BenchOptions opts, Codec codec, List<DatasetKind> datasets, int repeat,
                Consumer<Timing> onResult) {
            for (DatasetKind kind : datasets) {
                asked.add(codec.id() + "/" + kind.id() + "/" + repeat);
                onResult.accept(new Timing(kind.id(), null, 2_000_000.0, 3_000_000.0, 100.4, 200.0));
            }
        }
    }

    /** Encodes every dataset as an empty JSON list, which no dataset equals. */
    static final class Broken implements Codec {
        @Override
        public String id() {
            return "broken";
        }

        @Override
        public String library() {
            return "none@0";
        }

        @Override
        public byte[] encode(Dataset data) {
            return "[]".getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Dataset decode(byte[] bytes, DatasetKind kind) throws CodecException {
            return Codecs.byId("json").orElseThrow().decode(bytes, kind);
        }
    }

    static BenchOptions options(List<Codec> codecs, List<DatasetKind> datasets, int repeats) {
        return new BenchOptions("test-run", repeats, datasets, codecs, 3, 1, 0);
    }

    static List<JsonNode> lines(BenchOptions opts, Timer timer) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Harness.run(opts, timer, new PrintStream(out, true, StandardCharsets.UTF_8));
        List<JsonNode> rows = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isEmpty()) {
                rows.add(JSON.readTree(line));
            }
        }
        return rows;
    }

    @Test
    void aFixedTimerRunIsExact() throws Exception {
        Codec json = Codecs.byId("json").orElseThrow();
        FixedTimer timer = new FixedTimer();
        List<JsonNode> rows = lines(options(List.of(json), List.of(DatasetKind.NUMERIC), 2), timer);
        assertEquals(List.of("json/numeric/1", "json/numeric/2"), timer.asked);
        assertEquals(2, rows.size());
        long size = json.encode(Generator.generate(DatasetKind.NUMERIC)).length;
        for (int i = 0; i < rows.size(); i++) {
            JsonNode row = rows.get(i);
            assertEquals(i + 1, row.path("repeat").asInt());
            assertEquals("numeric-json-java", row.path("scenario").asText());
            assertEquals("formats-java", row.path("subject").asText());
            assertEquals("ok", row.path("status").asText());
            assertTrue(row.path("error").isNull());
            JsonNode m = row.path("metrics");
            assertEquals(List.of("serialize_ns", "deserialize_ns", "size_bytes", "size_gzip_bytes", "size_zstd_bytes",
                    "serialize_alloc_bytes", "deserialize_alloc_bytes"), names(m));
            assertEquals(2_000_000.0, m.path("serialize_ns").asDouble());
            assertEquals(3_000_000.0, m.path("deserialize_ns").asDouble());
            assertEquals(size, m.path("size_bytes").asLong());
            assertTrue(m.path("size_gzip_bytes").asLong() < size);
            assertTrue(m.path("size_zstd_bytes").asLong() < size);
            assertEquals(100, m.path("serialize_alloc_bytes").asLong());
            assertEquals(100, row.path("params").path("objects").asInt());
            assertEquals(json.library(), row.path("params").path("library").asText());
            assertEquals(List.of("dataset", "objects", "samples", "library", "min_sample_ms", "warmup_ms",
                    "gzip_level", "zstd_level"), names(row.path("params")));
        }
        assertEquals(List.of("schema_version", "run_id", "suite", "scenario", "subject", "lang", "format", "params",
                "repeat", "status", "error", "metrics"), names(rows.get(0)));
    }

    @Test
    void aPairThatFailsVerificationIsReportedOnceAndNeverTimed() throws Exception {
        FixedTimer timer = new FixedTimer();
        List<JsonNode> rows = lines(options(List.of(new Broken()), List.of(DatasetKind.DUMMY), 3), timer);
        assertTrue(timer.asked.isEmpty());
        assertEquals(1, rows.size());
        assertEquals("failed", rows.get(0).path("status").asText());
        assertEquals(0, rows.get(0).path("repeat").asInt());
        assertTrue(rows.get(0).path("error").asText().contains("differs from the input"));
        assertEquals(0, rows.get(0).path("metrics").size());
    }

    @Test
    void aDatasetTheTimerNeverReportsIsAFailedLineOfThatRepeat() throws Exception {
        Timer silent = (opts, codec, datasets, repeat, onResult) -> {};
        List<JsonNode> rows = lines(options(List.of(Codecs.byId("cbor").orElseThrow()), List.of(DatasetKind.USERS), 1),
                silent);
        assertEquals(1, rows.size());
        assertEquals(1, rows.get(0).path("repeat").asInt());
        assertEquals("failed", rows.get(0).path("status").asText());
        assertTrue(rows.get(0).path("error").asText().contains("ended early"));
    }

    /** Every line, ok and failed, of a run over every codec and dataset has the shape of measurement.schema.json. */
    @Test
    void everyLineMatchesTheMeasurementSchema() throws Exception {
        List<Codec> codecs = new ArrayList<>(Codecs.ALL);
        codecs.add(new Broken());
        List<JsonNode> rows = lines(options(codecs, List.of(DatasetKind.values()), 1), new FixedTimer());
        assertEquals(3 * Codecs.ALL.size() + 3, rows.size());
        JsonNode schema = JSON.readTree(Path.of("../../../schemas/measurement.schema.json").toFile());
        for (JsonNode row : rows) {
            MeasurementSchema.check(schema, row);
        }
    }

    @Test
    void medianOfOddAndEvenLists() {
        assertEquals(2.0, Harness.median(List.of(3.0, 1.0, 2.0)));
        assertEquals(2.5, Harness.median(List.of(4.0, 1.0, 3.0, 2.0)));
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
