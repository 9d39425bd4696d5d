package wirebench.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The launcher's flags, and the /proc parsing of {@link Stats}. */
class AppTest {
    @Test
    void portBecomesServerPort() {
        assertEquals(List.of("--server.port=8123"), App.springArgs(new String[] {"--port", "8123"}));
        assertEquals(List.of("--server.port=0"), App.springArgs(new String[] {"--port=0"}));
    }

    @Test
    void badFlagsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> App.springArgs(new String[] {}));
        assertThrows(IllegalArgumentException.class, () -> App.springArgs(new String[] {"--port"}));
        assertThrows(IllegalArgumentException.class, () -> App.springArgs(new String[] {"--port", "x"}));
        assertThrows(IllegalArgumentException.class, () -> App.springArgs(new String[] {"--port", "70000"}));
        assertThrows(IllegalArgumentException.class, () -> App.springArgs(new String[] {"--port", "1", "--debug"}));
    }

    @Test
    void statsParseProcFiles() {
        // A command name with spaces and parentheses; utime 250 and stime 50 ticks.
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 30 0 1 2 3";
        assertEquals(3.0, Stats.cpuSeconds(stat), 1e-9);
        assertEquals(123456L, Stats.rssKb("Name:\tjava\nVmPeak:\t 999 kB\nVmRSS:\t  123456 kB\nThreads: 30\n"));
    }
}
