// The command line of both launchers, each in a JVM of its own: bad usage exits 2, a store that
// cannot be opened or a port that cannot be taken exits 1, each with one line on stderr and no
// stack trace; --help exits 0; SIGTERM stops a running service promptly.
package wirebench.restcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CliTest {
    @TempDir
    Path dir;

    record Exit(int code, String stdout, String stderr) {}

    Exit run(Launch.Container container, String... args) throws Exception {
        Path err = Files.createTempFile(dir, "cli-", ".stderr");
        Process p = Launch.spawn(container, err, args);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "did not exit: " + List.of(args));
        return new Exit(p.exitValue(), out, Files.readString(err));
    }

    static void assertOneLine(Exit exit, int code, String start) {
        assertEquals(code, exit.code(), exit.stderr());
        assertTrue(exit.stderr().startsWith(start), exit.stderr());
        assertEquals(1, exit.stderr().lines().count(), "one line on stderr: " + exit.stderr());
        assertEquals("", exit.stdout());
    }

    @Test
    void badUsageExits2() throws Exception {
        String db = "sqlite:" + dir.resolve("x.db");
        List<List<String>> bad = List.of(
                List.of(),
                List.of("--store", db),
                List.of("--port", "8080"),
                List.of("--port", "x", "--store", db),
                List.of("--port", "65536", "--store", db),
                List.of("--port", "-1", "--store", db),
                List.of("--port", "0", "--store", db, "--pool", "0"),
                List.of("--port", "0", "--store", db, "--pool", "many"),
                List.of("--port", "0", "--store", "mysql://root@localhost/db"),
                List.of("--port", "0", "--store", "sqlite:"),
                List.of("--port", "0", "--store", "sqlite::memory:"),
                List.of("--port", "0", "--store", "postgres://"),
                List.of("--port", "0", "--store", "postgres://user@/db"),
                List.of("--port", "0", "--store", db, "--bogus", "1"),
                List.of("--port", "0", "--store", db, "extra"),
                List.of("--port", "0", "--port", "1", "--store", db),
                List.of("--port", "0", "--store"));
        for (List<String> args : bad) {
            assertOneLine(run(Launch.Container.JETTY, args.toArray(String[]::new)), 2, "restcache-java: ");
        }
        assertOneLine(run(Launch.Container.TOMCAT), 2, "restcache-java: missing --port");
    }

    @Test
    void helpExits0() throws Exception {
        Exit exit = run(Launch.Container.TOMCAT, "--help");
        assertEquals(0, exit.code());
        assertTrue(exit.stdout().startsWith("usage: "), exit.stdout());
    }

    @ParameterizedTest
    @EnumSource(Launch.Container.class)
    void unreachableStoreExits1(Launch.Container container) throws Exception {
        assertOneLine(run(container, "--port", "0", "--store", "sqlite:" + dir.resolve("missing/dir/x.db")),
                1, "restcache-java: cannot open store sqlite:");
        int port; // a port nothing listens on
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        assertOneLine(run(container, "--port", "0", "--store", "postgres://nobody:secret@127.0.0.1:" + port + "/db"),
                1, "restcache-java: cannot open store postgres://nobody:***@127.0.0.1:" + port + "/db: ");
    }

    @ParameterizedTest
    @EnumSource(Launch.Container.class)
    void takenPortExits1(Launch.Container container) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertOneLine(run(container, "--port", String.valueOf(taken.getLocalPort()), "--store", "sqlite:" + dir.resolve("p.db")),
                    1, "restcache-java: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ");
        }
    }

    @ParameterizedTest
    @EnumSource(Launch.Container.class)
    void sigtermStopsPromptly(Launch.Container container) throws Exception {
        Launch service = Launch.start(container, "sqlite:" + dir.resolve("t.db"), dir);
        System.out.println(container + ": " + service.startedLine + " (/health 200 after " + service.startupMillis + " ms)");
        long millis = service.stop();
        assertTrue(millis >= 0 && millis < 5_000, container + " took " + millis + " ms to stop");
        assertEquals(143, service.process.exitValue(), "exit status after SIGTERM");
        assertEquals("", service.stderr());
    }
}
