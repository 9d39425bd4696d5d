package wirebench.formats;

import java.nio.file.Path;

/** Where the tests find the lab's shared files (set by surefire in pom.xml; defaults for an IDE run from this directory). */
public final class Paths {
    private Paths() {}

    /** {@code subjects/formats/vectors}: the golden vectors and {@code bad/}. */
    public static Path vectors() {
        return Path.of(System.getProperty("formats.vectors", "../vectors"));
    }

    /** {@code subjects/formats/schema}. */
    public static Path schema() {
        return Path.of(System.getProperty("formats.schema", "../schema"));
    }
}
