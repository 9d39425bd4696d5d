package wirebench.formats.codec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** {@code name@version} of the libraries, with the versions pom.xml pins (see libraries.properties). */
public final class Libraries {
    private static final String RESOURCE = "/wirebench/formats/libraries.properties";
    private static final Properties VERSIONS = load();

    private Libraries() {}

    /** {@code artifactId@version}, e.g. {@code avro@1.12.2}. */
    public static String library(String artifactId) {
        String version = VERSIONS.getProperty(artifactId);
        if (version == null || version.isEmpty() || version.contains("${")) {
            throw new IllegalStateException(RESOURCE + " has no version for " + artifactId + ": build with mvn");
        }
        return artifactId + "@" + version;
    }

    private static Properties load() {
        Properties properties = new Properties();
        try (InputStream in = Libraries.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath: build with mvn");
            }
            properties.load(in);
            return properties;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
