// The main both launchers share: flags, the store, the container's start, the one line on stdout,
// and the SIGTERM path (a shutdown hook stops the container, then closes the pool). Failures are
// one line on stderr and an exit code: 2 for a bad command line, 1 when the service cannot start.
package wirebench.restcache;

import jakarta.servlet.http.HttpServlet;
import java.util.concurrent.CountDownLatch;

final class Launcher {
    /** Request line and headers a container accepts: room for a 1024-character key, percent-encoded. */
    static final int MAX_HEADER_BYTES = 16 * 1024;

    static final int EXIT_USAGE = 2;
    static final int EXIT_FAILED = 1;

    /** An embedded servlet container serving one servlet at "/". */
    interface Container {
        /** Name and version, for the started line ("jetty 12.1.14"). */
        String name();

        /** Starts listening on host:port (0: any free port) and answers the port taken. */
        int start(String host, int port, HttpServlet servlet) throws Exception;

        /** Stops, whatever state start left it in. */
        void stop();
    }

    private Launcher() {}

    static void run(String[] args, Container container) {
        if (Options.wantsHelp(args)) {
            System.out.println(Options.USAGE);
            System.exit(0);
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (Options.UsageException e) {
            System.err.println("restcache-java: " + e.getMessage() + " (" + Options.USAGE + ")");
            System.exit(EXIT_USAGE);
            return;
        }
        Store store;
        try {
            store = Store.open(options.store, options.pool);
        } catch (StoreException e) {
            System.err.println("restcache-java: cannot open store " + options.storeForDisplay() + ": " + e.oneLine());
            System.exit(EXIT_FAILED);
            return;
        }
        int port;
        try {
            port = container.start(options.host, options.port, new RestCacheServlet(store));
        } catch (Exception e) {
            container.stop();
            store.close();
            System.err.println("restcache-java: cannot listen on " + options.host + ":" + options.port + ": "
                    + StoreException.oneLine(e));
            System.exit(EXIT_FAILED);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            container.stop();
            store.close();
            stopped.countDown();
        }, "restcache-shutdown"));
        String host = options.host.contains(":") ? "[" + options.host + "]" : options.host;
        System.out.println("restcache-java: " + container.name() + " listening on http://" + host + ":" + port
                + " (store " + options.storeForDisplay() + ", pool " + options.pool + ")");
        System.out.flush();
        try {
            stopped.await(); // until SIGTERM/SIGINT; the hook ends the JVM
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
