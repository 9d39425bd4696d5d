package wirebench.formats.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.WarmupMode;

/** The JMH settings the measuring JVM runs with. */
class MeasureMainTest {
    @Test
    void warmupIsHalfTheFlagPerIterationWithAFloorForTheBulkPhase() {
        // Three datasets: 6 benchmarks x 4 iterations x 100 ms = 2.4 s of bulk warm-up already.
        assertEquals(100_000, MeasureMain.warmupIterationMicros(6, 200));
        // One dataset: lengthened to 300 ms so the bulk phase still lasts 2.4 s.
        assertEquals(300_000, MeasureMain.warmupIterationMicros(2, 200));
        assertEquals(1_000_000, MeasureMain.warmupIterationMicros(6, 2000));
    }

    @Test
    void optionsMapTheFlags() {
        Options o = MeasureMain.options("cbor", List.of("users", "dummy"), 7, 3, 200);
        assertEquals(0, o.getForkCount().get());
        assertEquals(7, o.getMeasurementIterations().get());
        assertEquals(3, o.getMeasurementTime().get().convertTo(TimeUnit.MILLISECONDS));
        assertEquals(MeasureMain.WARMUP_ITERATIONS, o.getWarmupIterations().get());
        assertEquals(WarmupMode.BULK_INDI, o.getWarmupMode().get());
        assertEquals(List.of("users", "dummy"), List.copyOf(o.getParameter("dataset").get()));
        assertEquals(0, MeasureMain.options("cbor", List.of("users"), 7, 3, 0).getWarmupIterations().get());
    }
}
