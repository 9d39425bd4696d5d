package wirebench.formats.harness;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One output line of the harness, in the shape of {@code schemas/measurement.schema.json}
 * (version 1) and in the key order the Rust harness writes: the runner ingests these lines like
 * its own measurements.
 */
public final class Measurement {
    public static final int SCHEMA_VERSION = 1;
    public static final String SUITE = "formats";
    public static final String LANG = "java";
    public static final String SUBJECT = "formats-" + LANG;

    private static final ObjectMapper JSON = new ObjectMapper();

    private Measurement() {}

    /** {@code <dataset>-<format>-java}. */
    public static String scenario(String dataset, String format) {
        return dataset + "-" + format + "-" + LANG;
    }

    /**
     * The line as JSON (no newline).
     *
     * @param repeat 1-based; 0 for a failure found before any repeat ran (verification)
     * @param error null for status ok
     * @param metrics in order; empty for a failed row. Every value is a number.
     */
    public static String line(BenchOptions opts, String dataset, int objects, String format, String library,
            int repeat, String error, Map<String, Number> metrics) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("dataset", dataset);
        params.put("objects", objects);
        params.put("samples", opts.samples());
        params.put("library", library);
        params.put("min_sample_ms", opts.minSampleMs());
        params.put("warmup_ms", opts.warmupMs());
        params.put("gzip_level", Compression.GZIP_LEVEL);
        params.put("zstd_level", Compression.ZSTD_LEVEL);

        Map<String, Object> row = new LinkedHashMap<>();
        row.put("schema_version", SCHEMA_VERSION);
        row.put("run_id", opts.runId());
        row.put("suite", SUITE);
        row.put("scenario", scenario(dataset, format));
        row.put("subject", SUBJECT);
        row.put("lang", LANG);
        row.put("format", format);
        row.put("params", params);
        row.put("repeat", repeat);
        row.put("status", error == null ? "ok" : "failed");
        row.put("error", error);
        row.put("metrics", metrics);
        try {
            return JSON.writeValueAsString(row);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("a map of strings and numbers always serializes", e);
        }
    }
}
