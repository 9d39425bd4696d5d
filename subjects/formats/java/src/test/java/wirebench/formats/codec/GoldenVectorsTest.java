package wirebench.formats.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import wirebench.formats.Paths;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.Generator;

/**
 * The golden vectors the Rust harness wrote (vectors/<dataset>.<format>): every codec decodes
 * them to the dataset generated here, and where the bytes are expected equal across libraries,
 * its own encoding equals them byte for byte.
 */
class GoldenVectorsTest {
    /**
     * Formats whose encoding is expected to equal the vector byte for byte (the README's table).
     * avro: fixed by schema and value. protobuf: protobuf-java and prost both write fields in
     * number order and omit proto3 defaults. bson, bson-raw: the same number types (int32,
     * int64, double), fields in the same order.
     */
    static final Set<String> EXPECTED_EQUAL_BYTES = Set.of("avro", "protobuf", "bson", "bson-raw");

    /**
     * Formats the README does not expect to match but whose bytes equal the vectors for these
     * datasets, asserted so a change shows (for xml it also proves the element layout is the
     * vectors' one). json: Jackson and serde_json print every double here alike, though not every
     * double in general (Java writes 1.0E-4 where Rust writes 0.0001, and JDK 17's
     * Double.toString is not always the shortest form). xml: the same numbers, and Jackson with
     * defaultUseWrapper(false) lays elements out as quick-xml does. msgpack: msgpack-java and
     * rmp-serde both pick the shortest integer form and float64. If one of these fails after a
     * dataset change, look at the value that differs and move the format out of this set.
     */
    static final Set<String> FOUND_EQUAL_BYTES = Set.of("json", "xml", "msgpack");

    /*
     * cbor is in neither: ciborium writes definite-length maps and each float in the narrowest
     * exact width, Jackson writes indefinite-length maps (one break byte more per object) and
     * 8-byte doubles. The values are equal (decodesTheVectorToTheGeneratedDataset).
     */

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("wirebench.formats.codec.CodecsTest#codecsAndDatasets")
    void decodesTheVectorToTheGeneratedDataset(String id, DatasetKind kind) throws IOException, CodecException {
        Codec codec = CodecsTest.codec(id);
        Dataset data = Generator.generate(kind);
        assertEquals(data, codec.decode(vector(codec, kind), kind));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("wirebench.formats.codec.CodecsTest#codecsAndDatasets")
    void encodesTheVectorsBytesWhereExpected(String id, DatasetKind kind) throws IOException, CodecException {
        Codec codec = CodecsTest.codec(id);
        byte[] encoded = codec.encode(Generator.generate(kind));
        byte[] vector = vector(codec, kind);
        boolean equal = Arrays.equals(encoded, vector);
        if (!equal) {
            System.out.printf("%s %s: %d bytes, the vector %d%n", id, kind.id(), encoded.length, vector.length);
        }
        if (EXPECTED_EQUAL_BYTES.contains(id) || FOUND_EQUAL_BYTES.contains(id)) {
            assertArrayEquals(vector, encoded, id + " " + kind.id());
        }
    }

    static byte[] vector(Codec codec, DatasetKind kind) throws IOException {
        return Files.readAllBytes(Paths.vectors().resolve(kind.id() + "." + codec.vectorFormat()));
    }
}
