package wirebench.formats.harness;

import java.util.List;
import wirebench.formats.codec.Codec;
import wirebench.formats.dataset.DatasetKind;

/**
 * What {@code bench} measures and how.
 *
 * @param samples measurement iterations; the reported time is their median
 * @param minSampleMs duration of one measurement iteration: JMH repeats the operation until it
 *     has passed (always at least once) and reports the time per operation
 * @param warmupMs warm-up of one benchmark before it is measured (see {@link FormatBenchmark})
 */
public record BenchOptions(
        String runId,
        int repeats,
        List<DatasetKind> datasets,
        List<Codec> codecs,
        int samples,
        int minSampleMs,
        int warmupMs) {

    public static final int DEFAULT_SAMPLES = 15;
    public static final int DEFAULT_MIN_SAMPLE_MS = 1;
    public static final int DEFAULT_WARMUP_MS = 200;
}
