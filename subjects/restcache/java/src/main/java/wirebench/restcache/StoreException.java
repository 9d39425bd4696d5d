// The one exception at the store boundary: the database failed (cannot be opened, went away, or
// refused a statement the store did not expect to fail). Client input never causes it, since the
// servlet validates everything first; the servlet answers it with 500, the launchers with exit 1.
package wirebench.restcache;

public final class StoreException extends Exception {
    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The message and its causes' on one line, for stderr: "what: why: why". */
    public String oneLine() {
        return oneLine(this);
    }

    /** A throwable's message and its causes' on one line (repeats left out). */
    public static String oneLine(Throwable error) {
        StringBuilder line = new StringBuilder();
        String last = "";
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (!last.contains(m)) {
                line.append(line.length() == 0 ? "" : ": ").append(m);
            }
            last = m;
        }
        return line.toString().replaceAll("\\s+", " ").trim();
    }
}
