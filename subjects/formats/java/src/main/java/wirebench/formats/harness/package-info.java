/**
 * The measurement: verify every (dataset, format) pair, then time encode and decode with JMH,
 * repeat by repeat, and write one measurement line per pair and repeat.
 *
 * <p>{@link wirebench.formats.harness.Harness} runs in the process the runner starts: it
 * verifies, computes the sizes and prints the lines. Timing happens in a fresh JVM per
 * (repeat, format), started by {@link wirebench.formats.harness.ForkedTimer} with
 * {@link wirebench.formats.harness.ForkedTimer#JVM_ARGS}, where
 * {@link wirebench.formats.harness.MeasureMain} runs {@link wirebench.formats.harness.FormatBenchmark}
 * for that format's datasets through JMH.
 */
package wirebench.formats.harness;
