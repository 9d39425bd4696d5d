package wirebench.formats.harness;

import java.util.Objects;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import wirebench.formats.codec.Codec;
import wirebench.formats.codec.CodecException;
import wirebench.formats.codec.Codecs;
import wirebench.formats.codec.LazyDecoder;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.Generator;

/**
 * The two timed operations of one (dataset, format): one encode of the whole dataset into a new
 * byte array, and one decode of those bytes into the typed dataset (or, for a
 * {@link LazyDecoder}, its lazy read). JMH consumes what each returns, so the work cannot be
 * optimised away. {@link MeasureMain} sets the parameters and the iteration settings.
 */
@State(Scope.Benchmark)
public class FormatBenchmark {
    @Param("users")
    public String dataset;

    @Param("json")
    public String format;

    private Codec codec;
    private LazyDecoder lazy;
    private DatasetKind kind;
    private Dataset data;
    private byte[] encoded;

    /** Generates and encodes once, and checks the bytes decode to the dataset before anything is timed. */
    @Setup(Level.Trial)
    public void setUp() throws CodecException {
        codec = Codecs.byId(format).orElseThrow(() -> new IllegalArgumentException("no format " + format));
        kind = DatasetKind.fromId(dataset).orElseThrow(() -> new IllegalArgumentException("no dataset " + dataset));
        lazy = codec instanceof LazyDecoder l ? l : null;
        data = Generator.generate(kind);
        encoded = codec.encode(data);
        if (!Objects.equals(codec.decode(encoded, kind), data)) {
            throw new IllegalStateException(format + ": decoded " + dataset + " differs from the input");
        }
    }

    @Benchmark
    public byte[] serialize() throws CodecException {
        return codec.encode(data);
    }

    @Benchmark
    public Object deserialize() throws CodecException {
        return lazy != null ? lazy.decodeLazily(encoded, kind) : codec.decode(encoded, kind);
    }
}
