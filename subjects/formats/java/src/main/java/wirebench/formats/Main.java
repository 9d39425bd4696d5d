package wirebench.formats;

import java.io.PrintStream;
import wirebench.formats.harness.ForkedTimer;
import wirebench.formats.harness.Harness;
import wirebench.formats.harness.Timer;

/** Entry point: parse the command line, then measure. */
public final class Main {
    /** A usage error: bad flag or value, nothing was run. */
    static final int EXIT_USAGE = 2;
    /** The run could not do its job. */
    static final int EXIT_FAILURE = 1;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, new ForkedTimer()));
    }

    /** The whole program with its streams and timer passed in, so tests run it in-process. */
    static int run(String[] args, PrintStream out, PrintStream err, Timer timer) {
        Cli.Command command;
        try {
            command = Cli.parse(args);
        } catch (Cli.UsageException e) {
            err.println("error: " + e.getMessage());
            return EXIT_USAGE;
        }
        if (command instanceof Cli.Command.Help) {
            out.println(Cli.USAGE);
            return 0;
        }
        try {
            int failed = Harness.run(((Cli.Command.Bench) command).options(), timer, out);
            if (failed > 0) {
                // The failures are in the output as status "failed" rows; say so where a person looks.
                err.println("formats-java: " + failed
                        + " (dataset, format) pairs failed verification: see the \"failed\" rows");
            }
            return 0;
        } catch (RuntimeException e) {
            err.println("formats-java: " + e);
            return EXIT_FAILURE;
        }
    }
}
