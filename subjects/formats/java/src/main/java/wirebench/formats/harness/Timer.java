package wirebench.formats.harness;

import java.util.List;
import java.util.function.Consumer;
import wirebench.formats.codec.Codec;
import wirebench.formats.dataset.DatasetKind;

/**
 * Times one format's verified datasets for one repeat. The harness's only source of times:
 * {@link ForkedTimer} measures, tests substitute a timer that reports fixed numbers.
 */
public interface Timer {
    /**
     * Reports each dataset's {@link Timing} through {@code onResult} as soon as it is known, on the
     * calling thread. A dataset it never reports is printed as a failed line by the harness.
     */
    void time(BenchOptions opts, Codec codec, List<DatasetKind> datasets, int repeat, Consumer<Timing> onResult);
}
