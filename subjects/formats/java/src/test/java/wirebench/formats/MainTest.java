package wirebench.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import wirebench.formats.codec.Codecs;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.harness.BenchOptions;
import wirebench.formats.harness.MeasurementSchema;
import wirebench.formats.harness.Timer;

/** The program as a runner starts it: flags, defaults, one-line errors with exit code 2, and a real short bench. */
class MainTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Result(int status, String out, String err) {}

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Timer never = (opts, codec, datasets, repeat, onResult) -> {
            throw new AssertionError("a usage error must not measure");
        };
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), never);
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "bench --repeats 1 --run-id r --format yaml",
        "bench --repeats 1 --run-id r --dataset people",
        "bench --repeats zero --run-id r",
        "bench --repeats 0 --run-id r",
        "bench --run-id r",
        "bench --repeats 1",
        "bench --repeats 1 --run-id",
        "bench --repeats 1 --run-id r --samples 0",
        "bench --repeats 1 --run-id r --warmup-ms -1",
        "bench --repeats 1 --run-id r --bogus 1",
        "bench --repeats 1 --repeats 2 --run-id r",
        "bench --repeats 1 --run-id r stray",
        "frobnicate",
        ""
    })
    void badFlagsFailOnOneLineWithExitCode2(String line) {
        Result r = run(line.isEmpty() ? new String[0] : line.split(" "));
        assertEquals(2, r.status(), line + ": " + r.err());
        assertEquals(1, r.err().strip().lines().count(), line + ": " + r.err());
        assertTrue(r.err().startsWith("error: "), r.err());
        assertEquals("", r.out());
    }

    @Test
    void anUnknownFormatListsTheFormats() {
        String err = run("bench", "--repeats", "1", "--run-id", "r", "--format", "yaml").err();
        assertTrue(err.contains("[possible values: json, xml, protobuf, msgpack, avro, bson, bson-raw, cbor, all]"), err);
    }

    @Test
    void helpGoesToStdout() {
        Result r = run("--help");
        assertEquals(0, r.status());
        assertTrue(r.out().startsWith("Usage: formats-java bench"), r.out());
    }

    @Test
    void flagsAndDefaults() throws Cli.UsageException {
        BenchOptions o = ((Cli.Command.Bench) Cli.parse("bench --repeats 3 --run-id r1".split(" "))).options();
        assertEquals(List.of(3, 15, 1, 200), List.of(o.repeats(), o.samples(), o.minSampleMs(), o.warmupMs()));
        assertEquals(List.of(DatasetKind.values()), o.datasets());
        assertEquals(Codecs.ALL, o.codecs());
        o = ((Cli.Command.Bench) Cli.parse(new String[] {"bench", "--repeats=1", "--run-id", "r", "--dataset", "dummy",
                "--format", "bson-raw", "--samples", "5", "--warmup-ms", "0"})).options();
        assertEquals(List.of(DatasetKind.DUMMY), o.datasets());
        assertEquals("bson-raw", o.codecs().get(0).id());
        assertEquals(List.of(1, 5, 0), List.of(o.repeats(), o.samples(), o.warmupMs()));
    }

    /**
     * The real thing, as a child process: verification, a measuring JVM running JMH, and two
     * valid measurement lines on stdout (and nothing else there).
     */
    @Test
    void aShortBenchPrintsMeasurementLines() throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "bench", "--repeats", "2", "--run-id",
                "cli-test", "--dataset", "numeric", "--format", "cbor", "--samples", "3", "--warmup-ms", "0");
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "bench did not finish");
        assertEquals(0, process.exitValue(), stdout);
        List<JsonNode> rows = new ArrayList<>();
        for (String line : stdout.strip().split("\n")) {
            rows.add(JSON.readTree(line));
        }
        assertEquals(2, rows.size(), stdout);
        JsonNode schema = JSON.readTree(Path.of("../../../schemas/measurement.schema.json").toFile());
        for (int i = 0; i < rows.size(); i++) {
            JsonNode row = rows.get(i);
            MeasurementSchema.check(schema, row);
            assertEquals("numeric-cbor-java", row.path("scenario").asText());
            assertEquals(i + 1, row.path("repeat").asInt());
            assertEquals("ok", row.path("status").asText(), row.toString());
            assertTrue(row.path("metrics").path("serialize_ns").asDouble() > 0, row.toString());
            assertTrue(row.path("metrics").path("deserialize_ns").asDouble() > 0, row.toString());
            assertTrue(row.path("metrics").path("deserialize_alloc_bytes").asLong() > 0, row.toString());
            assertTrue(row.path("params").path("library").asText().startsWith("jackson-dataformat-cbor@"));
        }
    }
}
