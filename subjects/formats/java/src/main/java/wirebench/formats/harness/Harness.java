package wirebench.formats.harness;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import wirebench.formats.codec.Codec;
import wirebench.formats.codec.LazyDecoder;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.Generator;

/**
 * Verifies every (dataset, format) pair, then times the verified ones repeat by repeat and
 * prints one measurement line per pair and repeat. Repeats are the outer loop, so slow drift of
 * the machine spreads over all formats instead of landing on whichever ran last.
 */
public final class Harness {
    private Harness() {}

    /** A verified pair: its sizes are known and it may be timed. */
    private record Subject(DatasetKind kind, int objects, long size, long gzipSize, long zstdSize) {}

    /**
     * Runs the whole measurement, printing and flushing each line as soon as it exists, so an
     * interrupted run keeps what it measured. Returns how many pairs failed verification.
     */
    public static int run(BenchOptions opts, Timer timer, PrintStream out) {
        Map<Codec, Map<DatasetKind, Subject>> verified = new LinkedHashMap<>();
        opts.codecs().forEach(codec -> verified.put(codec, new LinkedHashMap<>()));
        int failed = 0;
        for (DatasetKind kind : opts.datasets()) {
            Dataset data = Generator.generate(kind);
            for (Codec codec : opts.codecs()) {
                try {
                    verified.get(codec).put(kind, verify(codec, data));
                } catch (Exception e) {
                    failed++;
                    print(out, Measurement.line(opts, kind.id(), data.objects(), codec.id(), codec.library(), 0,
                            message(e), Map.of()));
                }
            }
        }
        for (int repeat = 1; repeat <= opts.repeats(); repeat++) {
            for (Map.Entry<Codec, Map<DatasetKind, Subject>> entry : verified.entrySet()) {
                Codec codec = entry.getKey();
                Map<DatasetKind, Subject> subjects = entry.getValue();
                if (subjects.isEmpty()) {
                    continue;
                }
                int thisRepeat = repeat;
                Set<DatasetKind> pending = new LinkedHashSet<>(subjects.keySet());
                timer.time(opts, codec, List.copyOf(subjects.keySet()), repeat, timing -> {
                    DatasetKind kind = DatasetKind.fromId(timing.dataset()).orElse(null);
                    if (kind == null || !pending.remove(kind)) {
                        return; // not asked for, or reported twice: the first report stands
                    }
                    print(out, line(opts, codec, subjects.get(kind), thisRepeat, timing));
                });
                for (DatasetKind kind : pending) {
                    Subject subject = subjects.get(kind);
                    print(out, Measurement.line(opts, kind.id(), subject.objects(), codec.id(), codec.library(),
                            repeat, codec.id() + ": no timing for " + kind.id() + ": the measuring JVM ended early",
                            Map.of()));
                }
            }
        }
        return failed;
    }

    /**
     * Verify before timing: the encoding decodes to a value equal to the input (all strings
     * materialised), and a lazy decoder reads it too.
     */
    private static Subject verify(Codec codec, Dataset data) throws Exception {
        byte[] encoded = codec.encode(data);
        Dataset decoded = codec.decode(encoded, data.kind());
        if (!Objects.equals(decoded, data)) {
            throw new IllegalStateException(codec.id() + ": decoded " + data.kind().id() + " differs from the input");
        }
        if (codec instanceof LazyDecoder lazy) {
            lazy.decodeLazily(encoded, data.kind());
        }
        return new Subject(data.kind(), data.objects(), encoded.length,
                Compression.gzipLength(encoded), Compression.zstdLength(encoded));
    }

    private static String line(BenchOptions opts, Codec codec, Subject subject, int repeat, Timing timing) {
        String dataset = subject.kind().id();
        if (timing.error() != null) {
            return Measurement.line(opts, dataset, subject.objects(), codec.id(), codec.library(), repeat,
                    timing.error(), Map.of());
        }
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("serialize_ns", timing.serializeNs());
        metrics.put("deserialize_ns", timing.deserializeNs());
        metrics.put("size_bytes", subject.size());
        metrics.put("size_gzip_bytes", subject.gzipSize());
        metrics.put("size_zstd_bytes", subject.zstdSize());
        if (timing.serializeAllocBytes() != null) {
            metrics.put("serialize_alloc_bytes", Math.round(timing.serializeAllocBytes()));
        }
        if (timing.deserializeAllocBytes() != null) {
            metrics.put("deserialize_alloc_bytes", Math.round(timing.deserializeAllocBytes()));
        }
        return Measurement.line(opts, dataset, subject.objects(), codec.id(), codec.library(), repeat, null, metrics);
    }

    private static String message(Exception e) {
        String message = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        return message.replaceAll("\\s*\\R\\s*", " ");
    }

    private static void print(PrintStream out, String line) {
        out.println(line);
        out.flush();
    }

    /** Median of a non-empty list (mean of the middle two for an even length). */
    public static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int mid = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
    }
}
