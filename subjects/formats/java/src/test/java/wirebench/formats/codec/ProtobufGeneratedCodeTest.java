package wirebench.formats.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import wirebench.formats.Paths;

/**
 * The committed protobuf classes (src/generated/java) are what protoc of the pinned version
 * generates from schema/datasets.proto today. The pom's {@code protoc} profile fetches that protoc
 * from Maven Central on linux-x86_64; elsewhere this test is skipped. Fix a failure with
 * {@code ./regenerate-protobuf.sh}.
 */
class ProtobufGeneratedCodeTest {
    @Test
    void committedGeneratedCodeIsUpToDate(@TempDir Path out) throws IOException, InterruptedException {
        String protocPath = System.getProperty("formats.protoc", "");
        Assumptions.assumeTrue(!protocPath.isEmpty() && Files.isRegularFile(Path.of(protocPath)),
                "no protoc at '" + protocPath + "' (the pom's protoc profile provides it on linux-x86_64)");
        Path protoc = out.resolve("protoc");
        Files.copy(Path.of(protocPath), protoc, StandardCopyOption.REPLACE_EXISTING);
        assertTrue(protoc.toFile().setExecutable(true));
        Path generated = Files.createDirectory(out.resolve("java"));
        Path schema = Paths.schema();
        Process process = new ProcessBuilder(protoc.toString(), "--proto_path=" + schema,
                "--java_out=" + generated, schema.resolve("datasets.proto").toString())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "protoc did not finish");
        assertEquals(0, process.exitValue(), "protoc: " + output);
        Map<String, String> want = files(generated);
        Map<String, String> have = files(Path.of("src/generated/java"));
        List<String> stale = new ArrayList<>();
        for (String name : new TreeSet<>(union(want.keySet(), have.keySet()))) {
            if (!Objects.equals(want.get(name), have.get(name))) {
                stale.add(name + (have.containsKey(name) ? (want.containsKey(name) ? " differs" : " is extra") : " is missing"));
            }
        }
        assertEquals(List.of(), stale, "src/generated/java is stale: run ./regenerate-protobuf.sh");
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }

    /** Relative path → content of every file under {@code root}. */
    private static Map<String, String> files(Path root) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(file).toString(), Files.readString(file));
            }
        }
        return files;
    }
}
