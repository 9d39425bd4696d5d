package wirebench.formats.harness;

/**
 * The timing of one dataset of one format in one repeat, as the measuring JVM reports it: either
 * an error, or the medians of the samples (times in ns per operation, allocations in bytes per
 * operation; an allocation is null when the JVM did not report it).
 */
public record Timing(
        String dataset,
        String error,
        Double serializeNs,
        Double deserializeNs,
        Double serializeAllocBytes,
        Double deserializeAllocBytes) {

    public static Timing failed(String dataset, String error) {
        return new Timing(dataset, error, null, null, null, null);
    }
}
