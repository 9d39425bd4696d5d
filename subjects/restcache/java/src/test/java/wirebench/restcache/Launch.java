// Test helper: one container running the service in a JVM of its own, as the runner starts it
// (its main, --port 0, the started line on stdout, /health), with the test classpath less the
// other container's jars (the two do not share a classpath: see pom.xml). Stopping it is SIGTERM.
package wirebench.restcache;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

final class Launch implements AutoCloseable {
    /** The two launchers and the jars (by file-name prefix) each must not see. */
    enum Container {
        JETTY("wirebench.restcache.JettyMain", "tomcat-"),
        TOMCAT("wirebench.restcache.TomcatMain", "jetty-", "jakarta.servlet-api-");

        final String main;
        final List<String> excluded;

        Container(String main, String... excluded) {
            this.main = main;
            this.excluded = List.of(excluded);
        }

        String classpath() {
            return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                    .filter(entry -> excluded.stream().noneMatch(Path.of(entry).getFileName().toString()::startsWith))
                    .collect(Collectors.joining(File.pathSeparator));
        }
    }

    private static final Pattern STARTED = Pattern.compile("listening on http://\\S+:(\\d+) ");

    final Process process;
    final URI base;
    final long startupMillis;
    final String startedLine;
    private final Path stderr;

    private Launch(Process process, URI base, long startupMillis, String startedLine, Path stderr) {
        this.process = process;
        this.base = base;
        this.startupMillis = startupMillis;
        this.startedLine = startedLine;
        this.stderr = stderr;
    }

    /** Starts the container's main with {@code args}; its stderr goes to a file. */
    static Process spawn(Container container, Path stderr, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", container.classpath(), container.main));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    }

    /** Starts the service on a free port over {@code store} and waits until /health answers 200. */
    static Launch start(Container container, String store, Path dir) throws Exception {
        Path stderr = Files.createTempFile(dir, container.name().toLowerCase() + "-", ".stderr");
        long t0 = System.nanoTime();
        Process process = spawn(container, stderr, "--port", "0", "--store", store);
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        try {
            line = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    return null;
                }
            }).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            throw new AssertionError(container + " did not start: " + Files.readString(stderr), e);
        }
        Matcher m = line == null ? null : STARTED.matcher(line);
        if (m == null || !m.find()) {
            process.destroyForcibly();
            throw new AssertionError(container + " printed " + line + "; stderr: " + Files.readString(stderr));
        }
        URI base = URI.create("http://127.0.0.1:" + m.group(1));
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest health = HttpRequest.newBuilder(base.resolve("/health")).timeout(Duration.ofSeconds(5)).build();
        while (true) {
            try {
                if (client.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    break;
                }
            } catch (IOException e) {
                // not yet
            }
            if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(60) || !process.isAlive()) {
                process.destroyForcibly();
                throw new AssertionError(container + ": /health never answered 200; stderr: " + Files.readString(stderr));
            }
            Thread.sleep(20);
        }
        return new Launch(process, base, (System.nanoTime() - t0) / 1_000_000, line, stderr);
    }

    /** What the service wrote on stderr so far. */
    String stderr() throws IOException {
        return Files.readString(stderr);
    }

    /** SIGTERM; answers the milliseconds until the JVM was gone (-1: killed after 20 s). */
    long stop() throws InterruptedException {
        long t0 = System.nanoTime();
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            return -1;
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                stop();
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
