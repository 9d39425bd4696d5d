// The command line both launchers share: --port and --store (required), --host, --pool; what is
// wrong with it, as a UsageException (the launchers exit 2).
package wirebench.restcache;

import java.util.HashMap;
import java.util.Map;

public final class Options {
    public static final String USAGE = "usage: restcache-java --port N --store sqlite:PATH|postgres://user@host:port/db"
            + " [--host ADDR (127.0.0.1)] [--pool N (16)]";
    public static final int DEFAULT_POOL = 16;
    public static final int MAX_POOL = 1000;

    /** The address to listen on. */
    public final String host;
    /** The port to listen on; 0 takes a free one (the started line says which). */
    public final int port;
    /** The --store URL as given. */
    public final String store;
    /** Connections in the store's pool. */
    public final int pool;

    private Options(String host, int port, String store, int pool) {
        this.host = host;
        this.port = port;
        this.store = store;
        this.pool = pool;
    }

    /** A command line that cannot be run; the message says why. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** Whether the command line asks for the usage (--help or -h). */
    public static boolean wantsHelp(String... args) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    /** Parses --flag VALUE and --flag=VALUE; every flag at most once. */
    public static Options parse(String... args) throws UsageException {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name;
            String value;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else {
                name = arg;
                value = i + 1 < args.length ? args[i + 1] : null;
                i++;
            }
            switch (name) {
                case "--host", "--port", "--store", "--pool" -> {}
                default -> throw new UsageException(arg.startsWith("-")
                        ? "unknown flag " + name : "unexpected argument '" + arg + "'");
            }
            if (value == null) {
                throw new UsageException(name + " needs a value");
            }
            if (given.put(name, value) != null) {
                throw new UsageException(name + " given twice");
            }
        }
        String host = given.getOrDefault("--host", "127.0.0.1");
        if (host.isEmpty()) {
            throw new UsageException("--host is empty");
        }
        int port = number(given, "--port", null, 0, 65535);
        int pool = number(given, "--pool", DEFAULT_POOL, 1, MAX_POOL);
        String store = given.get("--store");
        if (store == null) {
            throw new UsageException("missing --store");
        }
        checkStore(store);
        return new Options(host, port, store, pool);
    }

    private static int number(Map<String, String> given, String name, Integer byDefault, int min, int max)
            throws UsageException {
        String text = given.get(name);
        if (text == null) {
            if (byDefault == null) {
                throw new UsageException("missing " + name);
            }
            return byDefault;
        }
        try {
            int n = Integer.parseInt(text);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new UsageException(name + " wants a number from " + min + " to " + max + ", not '" + text + "'");
    }

    private static void checkStore(String store) throws UsageException {
        if (store.startsWith(SqliteStore.PREFIX)) {
            String path = store.substring(SqliteStore.PREFIX.length());
            if (path.isEmpty()) {
                throw new UsageException("--store sqlite: needs a file path (sqlite:PATH)");
            }
            if (path.equals(":memory:") || path.contains("mode=memory")) {
                throw new UsageException("--store: an in-memory SQLite database is not shared by the pool's connections");
            }
            return;
        }
        try {
            PostgresStore.Target.parse(store);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--store: " + e.getMessage());
        }
    }

    /** The store URL for messages, without a password. */
    public String storeForDisplay() {
        return store.replaceFirst("^(postgres(?:ql)?://[^:@/]*):[^@/]*@", "$1:***@");
    }
}
