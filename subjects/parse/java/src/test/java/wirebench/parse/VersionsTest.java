package wirebench.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.URISyntaxException;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import wirebench.formats.codec.Libraries;

/**
 * The libraries on this server's classpath are the versions the formats lab pins (and reports):
 * the Spring Boot parent manages Jackson and the MongoDB driver too, and pom.xml overrides it.
 */
class VersionsTest {
    @Test
    void formatLibrariesAreTheFormatsLabsVersions() throws IOException, URISyntaxException {
        assertEquals(Libraries.library("jackson-databind"),
                "jackson-databind@" + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION);
        assertEquals(Libraries.library("bson4jackson"), "bson4jackson@" + bundleVersion(de.undercouch.bson4jackson.BsonFactory.class));
        assertEquals(Libraries.library("bson"), "bson@" + bundleVersion(org.bson.RawBsonDocument.class));
    }

    private static String bundleVersion(Class<?> type) throws IOException, URISyntaxException {
        try (JarFile jar = new JarFile(new java.io.File(type.getProtectionDomain().getCodeSource().getLocation().toURI()))) {
            return jar.getManifest().getMainAttributes().getValue("Bundle-Version");
        }
    }
}
