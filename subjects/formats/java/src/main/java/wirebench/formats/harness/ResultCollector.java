package wirebench.formats.harness;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.format.OutputFormat;

/**
 * JMH's output, intercepted: every benchmark result is turned into a {@link Timing} (reported
 * once both operations of a dataset are done), JMH's own text goes to {@code text}.
 *
 * <p>A time is the median of the measurement iterations' scores (ns per operation); an
 * allocation the median of the iterations' {@code gc.alloc.rate.norm} (bytes per operation,
 * from JMH's GC profiler).
 */
final class ResultCollector implements OutputFormat {
    static final String SERIALIZE = "serialize";
    static final String DESERIALIZE = "deserialize";
    private static final String ALLOC_NORM = "gc.alloc.rate.norm";

    private final OutputFormat text;
    private final Consumer<Timing> onResult;
    private final Map<String, Map<String, BenchmarkResult>> byDataset = new HashMap<>();
    private final Map<String, String> failures = new HashMap<>();
    private String current;
    private boolean inFailure;

    ResultCollector(OutputFormat text, Consumer<Timing> onResult) {
        this.text = text;
        this.onResult = onResult;
    }

    @Override
    public void startBenchmark(BenchmarkParams params) {
        current = params.getParam("dataset") + "/" + operation(params);
        inFailure = false;
        text.startBenchmark(params);
    }

    @Override
    public void endBenchmark(BenchmarkResult result) {
        text.endBenchmark(result);
        if (result == null || result.getIterationResults().isEmpty()) {
            return;
        }
        String dataset = result.getParams().getParam("dataset");
        Map<String, BenchmarkResult> done = byDataset.computeIfAbsent(dataset, d -> new HashMap<>());
        done.put(operation(result.getParams()), result);
        BenchmarkResult ser = done.get(SERIALIZE);
        BenchmarkResult de = done.get(DESERIALIZE);
        if (ser != null && de != null) {
            onResult.accept(new Timing(dataset, null, medianScore(ser), medianScore(de),
                    medianAllocation(ser), medianAllocation(de)));
        }
    }

    /** Reports an error for every dataset of {@code datasets} that has no timing: its benchmark failed. */
    void reportMissing(List<String> datasets) {
        for (String dataset : datasets) {
            Map<String, BenchmarkResult> done = byDataset.getOrDefault(dataset, Map.of());
            if (done.containsKey(SERIALIZE) && done.containsKey(DESERIALIZE)) {
                continue;
            }
            String why = failures.getOrDefault(dataset + "/" + DESERIALIZE,
                    failures.getOrDefault(dataset + "/" + SERIALIZE, "no result (see stderr)"));
            onResult.accept(Timing.failed(dataset, "benchmark failed: " + why));
        }
    }

    private static String operation(BenchmarkParams params) {
        String benchmark = params.getBenchmark();
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }

    private static double medianScore(BenchmarkResult result) {
        List<Double> scores = new ArrayList<>();
        for (IterationResult iteration : result.getIterationResults()) {
            scores.add(iteration.getPrimaryResult().getScore());
        }
        return Harness.median(scores);
    }

    private static Double medianAllocation(BenchmarkResult result) {
        List<Double> norms = new ArrayList<>();
        for (IterationResult iteration : result.getIterationResults()) {
            // JMH's GC profiler names it "gc.alloc.rate.norm" (older JMH: "·gc.alloc.rate.norm").
            iteration.getSecondaryResults().forEach((name, secondary) -> {
                if (name.endsWith(ALLOC_NORM)) {
                    norms.add(secondary.getScore());
                }
            });
        }
        return norms.isEmpty() ? null : Harness.median(norms);
    }

    /** JMH prints a failing benchmark's exception after a "<failure>" line; keep its first line. */
    @Override
    public void println(String line) {
        text.println(line);
        if (line.contains("<failure>")) {
            inFailure = true;
        } else if (inFailure && !line.isBlank() && current != null && !failures.containsKey(current)) {
            failures.put(current, line.trim());
        }
    }

    @Override
    public void iteration(BenchmarkParams benchmarkParams, IterationParams params, int iteration) {
        text.iteration(benchmarkParams, params, iteration);
    }

    @Override
    public void iterationResult(BenchmarkParams benchmarkParams, IterationParams params, int iteration,
            IterationResult result) {
        text.iterationResult(benchmarkParams, params, iteration, result);
    }

    @Override
    public void startRun() {
        text.startRun();
    }

    @Override
    public void endRun(Collection<RunResult> results) {
        text.endRun(results);
    }

    @Override
    public void print(String s) {
        text.print(s);
    }

    @Override
    public void flush() {
        text.flush();
    }

    @Override
    public void close() {
        text.close();
    }

    @Override
    public void verbosePrintln(String s) {
        text.verbosePrintln(s);
    }

    @Override
    public void write(int b) {
        text.write(b);
    }

    @Override
    public void write(byte[] b) throws IOException {
        text.write(b);
    }
}
