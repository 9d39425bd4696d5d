package wirebench.formats.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.Generator;

/** Every registered codec: its id and library, round trips of every dataset, and clean refusals. */
class CodecsTest {
    static Stream<Arguments> codecsAndDatasets() {
        return Codecs.ALL.stream()
                .flatMap(codec -> Stream.of(DatasetKind.values()).map(kind -> Arguments.of(codec.id(), kind)));
    }

    static Codec codec(String id) {
        return Codecs.byId(id).orElseThrow();
    }

    @Test
    void idsAreUniqueAndLowercase() {
        Set<String> ids = new HashSet<>();
        for (Codec codec : Codecs.ALL) {
            assertTrue(codec.id().matches("[a-z0-9]+(-[a-z0-9]+)*"), codec.id());
            assertTrue(ids.add(codec.id()), "duplicate id " + codec.id());
        }
        assertTrue(Codecs.byId("msgpack").isPresent());
        assertTrue(Codecs.byId("nope").isEmpty());
    }

    @Test
    void librariesCarryTheirVersion() {
        for (Codec codec : Codecs.ALL) {
            String[] parts = codec.library().split("@");
            assertEquals(2, parts.length, codec.library());
            assertTrue(parts[1].matches("\\d+\\.\\d+.*"), codec.library());
        }
        // Where a library reports its own version, it is the one the pom pins.
        assertEquals(Libraries.library("jackson-databind"),
                "jackson-databind@" + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION);
        assertEquals(Libraries.library("jackson-dataformat-xml"),
                "jackson-dataformat-xml@" + com.fasterxml.jackson.dataformat.xml.PackageVersion.VERSION);
        assertEquals(Libraries.library("jackson-dataformat-cbor"),
                "jackson-dataformat-cbor@" + com.fasterxml.jackson.dataformat.cbor.PackageVersion.VERSION);
        com.google.protobuf.RuntimeVersion.validateProtobufGencodeVersion(
                com.google.protobuf.RuntimeVersion.RuntimeDomain.PUBLIC,
                versionPart("protobuf-java", 0), versionPart("protobuf-java", 1), versionPart("protobuf-java", 2),
                "", "the pinned protobuf-java version");
    }

    private static int versionPart(String artifact, int index) {
        return Integer.parseInt(Libraries.library(artifact).split("@")[1].split("\\.")[index]);
    }

    /** Full size and with one object: decode(encode(d)) == d, and encoding twice gives the same bytes. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("codecsAndDatasets")
    void roundTrips(String id, DatasetKind kind) throws CodecException {
        Codec codec = codec(id);
        for (Dataset data : List.of(Generator.generate(kind), Generator.generate(kind, 1))) {
            byte[] bytes = codec.encode(data);
            assertEquals(data, codec.decode(bytes, kind), id + " " + kind.id() + " (" + data.objects() + " objects)");
            assertArrayEquals(bytes, codec.encode(data), id + " " + kind.id() + ": encoding is not repeatable");
        }
    }

    /**
     * Formats whose decoder accepts another dataset's bytes. protobuf: protobuf-java keeps a field
     * whose wire type does not match the schema as an unknown field instead of failing (prost
     * fails), and every dataset's root is field 1, so each decodes as any other into an
     * all-default value.
     */
    static final Set<String> ACCEPT_OTHER_DATASETS = Set.of("protobuf");

    /** Users is a record and dummy a list: no format may take one for the other, or accept trailing bytes. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("codecsAndDatasets")
    void wrongDatasetsAndTrailingBytesFailCleanly(String id, DatasetKind kind) throws CodecException {
        Codec codec = codec(id);
        Dataset data = Generator.generate(kind, 2);
        byte[] bytes = codec.encode(data);
        for (DatasetKind other : DatasetKind.values()) {
            if (other == kind) {
                continue;
            }
            String what = id + ": " + kind.id() + " as " + other.id();
            if (ACCEPT_OTHER_DATASETS.contains(id)) {
                assertNotEquals(data, codec.decode(bytes, other), what);
            } else {
                assertThrows(CodecException.class, () -> codec.decode(bytes, other), what);
            }
        }
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        longer[bytes.length] = '0';
        assertThrows(CodecException.class, () -> codec.decode(longer, kind), id + ": a trailing byte");
    }

    /** A lazy decoder reads the verified bytes and returns the root list's size. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("codecsAndDatasets")
    void lazyDecodersReadTheRootList(String id, DatasetKind kind) throws CodecException {
        if (codec(id) instanceof LazyDecoder lazy) {
            Dataset data = Generator.generate(kind);
            assertEquals(data.objects(), lazy.decodeLazily(codec(id).encode(data), kind));
            assertTrue(!lazy.lazyAccess().isBlank());
        }
    }
}
