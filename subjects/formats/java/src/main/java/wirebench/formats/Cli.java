package wirebench.formats;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import wirebench.formats.codec.Codec;
import wirebench.formats.codec.Codecs;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.harness.BenchOptions;

/**
 * The command line: {@code bench} and its flags, with the Rust harness's names, ranges and
 * defaults. The {@code --format} and {@code --dataset} values come from the codec table and the
 * dataset list.
 */
public final class Cli {
    /** Value of {@code --format} and {@code --dataset} that selects every one. */
    static final String ALL = "all";

    static final String USAGE = String.join("\n",
            "Usage: formats-java bench --repeats N --run-id ID [--dataset " + datasetValues() + "]",
            "                          [--format " + formatValues() + "]",
            "                          [--samples N] [--min-sample-ms M] [--warmup-ms W]",
            "",
            "Verifies every (dataset, format) pair, then times encode and decode with JMH in a fresh JVM per",
            "(repeat, format); one JSON measurement per line on stdout.",
            "  --repeats N         repeats of every measurement (>= 1)",
            "  --run-id ID         id of the run, copied into every line",
            "  --dataset D         dataset to measure (default all)",
            "  --format F          format to measure (default all)",
            "  --samples N         measurement iterations; the time is their median (default "
                    + BenchOptions.DEFAULT_SAMPLES + ")",
            "  --min-sample-ms M   duration of one iteration, ms (default " + BenchOptions.DEFAULT_MIN_SAMPLE_MS + ")",
            "  --warmup-ms W       warm-up of each benchmark, ms, in each of two phases (default "
                    + BenchOptions.DEFAULT_WARMUP_MS + ")");

    /** A command line that cannot run; the message is one line, for stderr. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** What the command line asks for: help, or a measurement. */
    public sealed interface Command {
        record Help() implements Command {}

        record Bench(BenchOptions options) implements Command {}
    }

    private Cli() {}

    public static Command parse(String[] args) throws UsageException {
        if (args.length == 0) {
            throw new UsageException("a subcommand is required: bench (see --help)");
        }
        if (List.of("--help", "-h", "help").contains(args[0])) {
            return new Command.Help();
        }
        if (!args[0].equals("bench")) {
            throw new UsageException("unknown subcommand '" + args[0] + "': the only one is bench (see --help)");
        }
        Map<String, String> flags = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                return new Command.Help();
            }
            if (!arg.startsWith("--")) {
                throw new UsageException("unexpected argument '" + arg + "'");
            }
            String name;
            String value;
            int eq = arg.indexOf('=');
            if (eq >= 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else {
                name = arg;
                if (i + 1 >= args.length) {
                    throw new UsageException("a value is required for '" + name + "'");
                }
                value = args[++i];
            }
            if (!List.of("--repeats", "--run-id", "--dataset", "--format", "--samples", "--min-sample-ms",
                    "--warmup-ms").contains(name)) {
                throw new UsageException("unexpected argument '" + name + "' (see --help)");
            }
            if (flags.put(name, value) != null) {
                throw new UsageException("the argument '" + name + "' cannot be used more than once");
            }
        }
        String runId = required(flags, "--run-id");
        if (runId.isEmpty()) {
            throw new UsageException("--run-id must not be empty");
        }
        int repeats = number(flags, "--repeats", null, 1, 1_000_000);
        List<DatasetKind> datasets = select(flags.getOrDefault("--dataset", ALL), "--dataset",
                List.of(DatasetKind.values()), DatasetKind::id, datasetValues());
        List<Codec> codecs = select(flags.getOrDefault("--format", ALL), "--format", Codecs.ALL, Codec::id,
                formatValues());
        return new Command.Bench(new BenchOptions(runId, repeats, datasets, codecs,
                number(flags, "--samples", BenchOptions.DEFAULT_SAMPLES, 1, 100_000),
                number(flags, "--min-sample-ms", BenchOptions.DEFAULT_MIN_SAMPLE_MS, 1, 60_000),
                number(flags, "--warmup-ms", BenchOptions.DEFAULT_WARMUP_MS, 0, 600_000)));
    }

    private static String required(Map<String, String> flags, String name) throws UsageException {
        String value = flags.get(name);
        if (value == null) {
            throw new UsageException("the following required argument was not provided: " + name);
        }
        return value;
    }

    private static int number(Map<String, String> flags, String name, Integer fallback, int min, int max)
            throws UsageException {
        String text = fallback == null ? required(flags, name) : flags.get(name);
        if (text == null) {
            return fallback;
        }
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below with the accepted range
        }
        throw new UsageException("invalid value '" + text + "' for '" + name + "': expected an integer in " + min
                + ".." + max);
    }

    private static <T> List<T> select(String value, String name, List<T> all,
            Function<T, String> id, String accepted) throws UsageException {
        if (value.equals(ALL)) {
            return all;
        }
        List<T> chosen = all.stream().filter(item -> id.apply(item).equals(value)).toList();
        if (chosen.isEmpty()) {
            throw new UsageException("invalid value '" + value + "' for '" + name + "' [possible values: "
                    + accepted.replace("|", ", ") + "]");
        }
        return chosen;
    }

    private static String datasetValues() {
        return Stream.concat(Stream.of(DatasetKind.values()).map(DatasetKind::id), Stream.of(ALL))
                .collect(Collectors.joining("|"));
    }

    private static String formatValues() {
        return Stream.concat(Codecs.ALL.stream().map(Codec::id), Stream.of(ALL)).collect(Collectors.joining("|"));
    }
}
