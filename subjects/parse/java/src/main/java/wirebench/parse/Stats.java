package wirebench.parse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /stats}: this process's CPU time so far (user + system, fields 14 and 15 of
 * {@code /proc/self/stat}, in clock ticks of 1/100 s: Linux's USER_HZ, which {@code getconf
 * CLK_TCK} reports on every architecture this runs on) and its resident set ({@code VmRSS} of
 * {@code /proc/self/status}). The driver reads it before and after each call.
 */
@RestController
class Stats {
    /** Linux's USER_HZ: the unit of the times in {@code /proc/<pid>/stat}. */
    private static final double TICKS_PER_SECOND = 100.0;

    record Usage(double cpu_s, long rss_kb) {}

    @GetMapping("/stats")
    Usage stats() throws IOException {
        return new Usage(cpuSeconds(Files.readString(Path.of("/proc/self/stat"))),
                rssKb(Files.readString(Path.of("/proc/self/status"))));
    }

    /** utime + stime of a {@code stat} line; the command name in parentheses may hold spaces. */
    static double cpuSeconds(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // fields[0] is field 3 (state), so utime (14) and stime (15) are fields[11] and fields[12].
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
    }

    /** {@code VmRSS:   123456 kB} of a {@code status} file. */
    static long rssKb(String status) {
        return status.lines()
                .filter(line -> line.startsWith("VmRSS:"))
                .map(line -> Long.parseLong(line.substring("VmRSS:".length()).trim().split("\\s+")[0]))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("/proc/self/status has no VmRSS line"));
    }
}
