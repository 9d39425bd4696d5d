package wirebench.formats.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.runner.options.WarmupMode;
import org.openjdk.jmh.runner.format.OutputFormatFactory;

/**
 * Entry point of the measuring JVM that {@link ForkedTimer} starts for one (repeat, format):
 * runs {@link FormatBenchmark} for the format's datasets through JMH, in this JVM, and writes
 * each dataset's {@link Timing} to stdout as a line {@code RESULT <json>}. JMH's own output goes
 * to stderr. The arguments come from {@link ForkedTimer}, not from a person.
 */
public final class MeasureMain {
    /** Prefix of a result line on stdout; any other stdout line is passed on to stderr. */
    static final String RESULT_PREFIX = "RESULT ";

    /**
     * Warm-up of a benchmark, in iterations of half --warmup-ms, in each of JMH's two warm-up
     * phases (WarmupMode.BULK_INDI): first every benchmark of this JVM is warmed in turn, so the
     * JIT has compiled the format's whole code path (both operations, every dataset) before
     * anything is measured, then each benchmark is warmed again just before its measurement. A
     * benchmark thus gets 2 x 2 x --warmup-ms of warm-up (800 ms by default): with --warmup-ms
     * alone, as the Rust harness uses it, a cold JVM's times still drifted by 1.5-2x between
     * runs (C2 had not finished with Jackson's and the libraries' large methods).
     */
    static final int WARMUP_ITERATIONS = 4;

    /**
     * The bulk phase lasts at least this long in total (iterations are lengthened when few
     * benchmarks share the JVM): a cold JVM needs about two seconds of a code path before its
     * time settles (BsonBinaryWriter on users: 8 ms per encode at first, 0.9 ms after 2 s), and
     * one dataset alone would otherwise give it 0.8 s.
     */
    static final int MIN_BULK_WARMUP_MS = 2400;

    private static final ObjectMapper JSON = new ObjectMapper();

    private MeasureMain() {}

    public static void main(String[] args) throws RunnerException {
        Map<String, String> flags = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            flags.put(args[i], args[i + 1]);
        }
        String format = flags.get("--format");
        List<String> datasets = Arrays.asList(flags.get("--datasets").split(","));
        int samples = Integer.parseInt(flags.get("--samples"));
        int minSampleMs = Integer.parseInt(flags.get("--min-sample-ms"));
        int warmupMs = Integer.parseInt(flags.get("--warmup-ms"));

        PrintStream stdout = System.out;
        // Whatever else prints to stdout (a library) must not mix with the result lines.
        System.setOut(System.err);
        ResultCollector collector = new ResultCollector(
                OutputFormatFactory.createFormatInstance(System.err, verbosity()),
                timing -> report(stdout, timing));
        new Runner(options(format, datasets, samples, minSampleMs, warmupMs), collector).run();
        collector.reportMissing(datasets);
    }

    /** JMH's own report on stderr: none, unless FORMATS_JMH_VERBOSE is set (to look at iterations). */
    private static VerboseMode verbosity() {
        return System.getenv("FORMATS_JMH_VERBOSE") == null ? VerboseMode.SILENT : VerboseMode.NORMAL;
    }

    static Options options(String format, List<String> datasets, int samples, int minSampleMs, int warmupMs) {
        OptionsBuilder options = new OptionsBuilder();
        options.include("^" + Pattern.quote(FormatBenchmark.class.getName()) + "\\.(serialize|deserialize)$")
                .param("format", format)
                .param("dataset", datasets.toArray(String[]::new))
                .mode(Mode.AverageTime)
                .timeUnit(TimeUnit.NANOSECONDS)
                .warmupMode(WarmupMode.BULK_INDI)
                .warmupIterations(warmupMs == 0 ? 0 : WARMUP_ITERATIONS)
                .warmupTime(TimeValue.microseconds(warmupIterationMicros(datasets.size() * 2, warmupMs)))
                .measurementIterations(samples)
                .measurementTime(TimeValue.milliseconds(minSampleMs))
                // This JVM is the fork: ForkedTimer starts a fresh one per (repeat, format).
                .forks(0)
                .threads(1)
                .shouldFailOnError(false)
                .addProfiler(GCProfiler.class);
        return options.build();
    }

    /** Half --warmup-ms, lengthened so the bulk phase over {@code benchmarks} lasts {@link #MIN_BULK_WARMUP_MS}. */
    static long warmupIterationMicros(int benchmarks, int warmupMs) {
        long half = warmupMs * 1000L / 2;
        long floor = MIN_BULK_WARMUP_MS * 1000L / ((long) benchmarks * WARMUP_ITERATIONS);
        return Math.max(1L, Math.max(half, floor));
    }

    private static void report(PrintStream stdout, Timing timing) {
        try {
            stdout.println(RESULT_PREFIX + JSON.writeValueAsString(timing));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        stdout.flush();
    }
}
