package wirebench.formats.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import wirebench.formats.codec.Codec;
import wirebench.formats.dataset.DatasetKind;

/**
 * Times in a fresh JVM per (repeat, format) running {@link MeasureMain}: the JIT compiles and
 * profiles one format's code only, so no format's numbers depend on which formats ran before it
 * in the same JVM (Jackson's parser and generator call sites are shared by five of the codecs),
 * and each repeat starts cold, as a JMH fork does.
 */
public final class ForkedTimer implements Timer {
    /**
     * Flags of the measuring JVM: a fixed 1 GiB heap (no resizing during a measurement; the
     * largest encode or decode allocates a few MB) and the default collector, named so a JDK
     * with another default measures the same thing.
     */
    public static final List<String> JVM_ARGS = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC");

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public void time(BenchOptions opts, Codec codec, List<DatasetKind> datasets, int repeat, Consumer<Timing> onResult) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_ARGS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), MeasureMain.class.getName(),
                "--format", codec.id(),
                "--datasets", String.join(",", datasets.stream().map(DatasetKind::id).toList()),
                "--samples", Integer.toString(opts.samples()),
                "--min-sample-ms", Integer.toString(opts.minSampleMs()),
                "--warmup-ms", Integer.toString(opts.warmupMs())));
        Set<String> reported = new HashSet<>();
        Consumer<Timing> report = timing -> {
            reported.add(timing.dataset());
            onResult.accept(timing);
        };
        String ended;
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            process.getOutputStream().close();
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.startsWith(MeasureMain.RESULT_PREFIX)) {
                        report.accept(JSON.readValue(line.substring(MeasureMain.RESULT_PREFIX.length()), Timing.class));
                    } else {
                        System.err.println(line);
                    }
                }
            }
            int status = process.waitFor();
            ended = "the measuring JVM exited with status " + status;
        } catch (IOException e) {
            ended = "measuring JVM: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ended = "interrupted";
        }
        for (DatasetKind kind : datasets) {
            if (!reported.contains(kind.id())) {
                onResult.accept(Timing.failed(kind.id(), codec.id() + ": no timing for " + kind.id() + ": " + ended));
            }
        }
    }
}
