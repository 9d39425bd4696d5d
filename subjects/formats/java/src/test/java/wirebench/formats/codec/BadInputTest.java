package wirebench.formats.codec;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import wirebench.formats.Paths;
import wirebench.formats.dataset.DatasetKind;

/**
 * Every file of the bad-input corpus (vectors/bad/) through every decoder, as every dataset. A
 * decode must return a dataset or throw {@link CodecException}. It fails the test if it throws
 * anything else (a library bug: NullPointerException, StackOverflowError, OutOfMemoryError...),
 * is still running after {@link #DECODE_TIME_LIMIT}, or allocates more than
 * {@link #ALLOCATION_CAP_BYTES} in total. Surefire runs this JVM with a 256 MiB heap (pom.xml),
 * so a decoder that trusts a forged length prefix ends in OutOfMemoryError, reported here.
 */
class BadInputTest {
    /** Generous for a loaded 2-core machine; a real hang never finishes. */
    static final Duration DECODE_TIME_LIMIT = Duration.ofSeconds(20);

    /**
     * Total bytes one decode may allocate (the thread's own allocation counter). The inputs are at
     * most about 100 KB; decoders need their buffers and little more.
     */
    static final long ALLOCATION_CAP_BYTES = 16L << 20;

    /** Same stack as the Rust test's decode threads. */
    static final long STACK_BYTES = 8L << 20;

    /**
     * (file|codec) → why: inputs on which a library misbehaves in a way this code cannot fix.
     * They still run: each must still misbehave, so the entry fails (and asks to be removed) once
     * the library is fixed.
     */
    static final Map<String, String> KNOWN_DEFECTS = Map.of();

    sealed interface Outcome {
        record Decoded() implements Outcome {}

        record Refused(String message) implements Outcome {}

        record Crashed(Throwable error) implements Outcome {}
    }

    private record Run(Outcome outcome, long allocatedBytes) {}

    /** The heap pom.xml gives the test JVM; much more and a forged length could be honoured instead of failing. */
    static final long MAX_TEST_HEAP_BYTES = 512L << 20;

    @Test
    void noDecoderCrashesHangsOrOverAllocates() throws IOException, InterruptedException {
        assertTrue(Runtime.getRuntime().maxMemory() <= MAX_TEST_HEAP_BYTES,
                "run this test with a small heap (surefire's argLine -Xmx in pom.xml), not "
                        + (Runtime.getRuntime().maxMemory() >> 20) + " MiB");
        List<Path> files;
        try (Stream<Path> listing = Files.list(Paths.vectors().resolve("bad"))) {
            files = listing.filter(Files::isRegularFile).sorted().toList();
        }
        assertTrue(files.size() > 250, "corpus too small: " + files.size() + " files");
        List<String> failures = new ArrayList<>();
        List<String> fixed = new ArrayList<>();
        int decodes = 0;
        String[] largest = {"", "0"}; // the decode that allocated most, and how much
        for (Path file : files) {
            byte[] bytes = Files.readAllBytes(file);
            String name = "bad/" + file.getFileName();
            for (Codec codec : Codecs.ALL) {
                String known = KNOWN_DEFECTS.get(name + "|" + codec.id());
                boolean misbehaved = false;
                for (DatasetKind kind : DatasetKind.values()) {
                    decodes++;
                    String problem = problem(codec, bytes, kind, name, largest);
                    if (problem != null) {
                        misbehaved = true;
                        if (known == null) {
                            failures.add(name + " → " + codec.id() + " as " + kind.id() + ": " + problem);
                        }
                    }
                }
                if (known != null) {
                    System.out.println("known defect " + name + " → " + codec.id() + ": " + known);
                    if (!misbehaved) {
                        fixed.add(name + " → " + codec.id() + " no longer misbehaves: remove it from KNOWN_DEFECTS");
                    }
                }
            }
        }
        System.out.println("largest allocation of one decode: " + largest[1] + " bytes, " + largest[0]);
        assertTrue(decodes > 5000, "corpus too small: " + decodes + " decodes");
        failures.addAll(fixed);
        assertTrue(failures.isEmpty(),
                failures.size() + " of " + decodes + " decodes misbehaved:\n" + String.join("\n", failures));
    }

    /** Runs one decode on its own thread; null if it behaved, else what went wrong. */
    private static String problem(Codec codec, byte[] bytes, DatasetKind kind, String name, String[] largest)
            throws InterruptedException {
        CompletableFuture<Run> result = new CompletableFuture<>();
        Thread thread = new Thread(null, () -> result.complete(decode(codec, bytes, kind)),
                "decode " + codec.id() + " " + kind.id(), STACK_BYTES);
        thread.setDaemon(true); // a hung decode cannot be stopped; it must not keep the JVM alive
        thread.start();
        Run run;
        try {
            run = result.get(DECODE_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return "still running after " + DECODE_TIME_LIMIT.toSeconds() + " s";
        } catch (ExecutionException e) {
            return "harness error: " + e.getCause();
        }
        thread.join();
        if (run.allocatedBytes() > Long.parseLong(largest[1])) {
            largest[0] = name + " → " + codec.id() + " as " + kind.id();
            largest[1] = Long.toString(run.allocatedBytes());
        }
        if (run.outcome() instanceof Outcome.Crashed crashed) {
            return "threw " + crashed.error();
        }
        if (run.allocatedBytes() > ALLOCATION_CAP_BYTES) {
            return "allocated " + run.allocatedBytes() + " bytes (cap " + ALLOCATION_CAP_BYTES + ")";
        }
        return null;
    }

    private static Run decode(Codec codec, byte[] bytes, DatasetKind kind) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        Outcome outcome;
        try {
            codec.decode(bytes, kind);
            outcome = new Outcome.Decoded();
        } catch (CodecException e) {
            outcome = new Outcome.Refused(e.getMessage());
        } catch (Throwable e) { // everything else, Errors included, is the defect under test
            outcome = new Outcome.Crashed(e);
        }
        return new Run(outcome, threads.getCurrentThreadAllocatedBytes() - before);
    }
}
