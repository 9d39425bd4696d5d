// The service in embedded Tomcat 11: one HTTP/1.1 NIO Connector (keep-alive) and a root Context
// holding RestCacheServlet at "/". Everything is Tomcat's default, the thread pool too (the
// connector's own executor, at most 200 threads): the study did not state its container
// settings. Two exceptions. maxKeepAliveRequests is unlimited (-1) instead of 100, as Jetty, Go
// and Rust keep a connection for as long as the client does: the load keeps its connections, as
// wrk and JMeter's keep-alive do, so Tomcat alone would pay a reconnect every 100 requests. And an
// encoded backslash (%5C) in a key is passed through (encodedReverseSolidusHandling=passthrough) instead
// of refused, since the servlet routes on the raw URI and the contract makes such keys data; an
// encoded slash (%2F) is still refused (400), as the contract allows. Tomcat's base directory (it keeps a
// work folder there) is a temporary one, removed at stop. Tomcat's own error pages answer in the
// contract's JSON and name no version (JsonErrors); an HTTP/0.9 request gets nothing
// (RestCacheServlet). Tomcat logs through java.util.logging,
// held here to warnings.
// Run: java -jar target/restcache-tomcat.jar --port 8080 --store sqlite:/tmp/restcache.db
package wirebench.restcache;

import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.util.ServerInfo;

public final class TomcatMain implements Launcher.Container {
    /** Held so the level stays set (java.util.logging keeps loggers weakly). */
    private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

    private final Tomcat tomcat = new Tomcat();
    private Path base;

    public static void main(String[] args) {
        TOMCAT_LOG.setLevel(Level.WARNING);
        Launcher.run(args, new TomcatMain());
    }

    @Override
    public String name() {
        return "tomcat " + ServerInfo.getServerNumber();
    }

    @Override
    public int start(String host, int port, HttpServlet servlet) throws Exception {
        base = Files.createTempDirectory("restcache-tomcat");
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector(); // HTTP/1.1, NIO
        connector.setProperty("address", host);
        connector.setPort(port);
        connector.setThrowOnFailure(true);
        connector.setEncodedReverseSolidusHandling("passthrough");
        connector.setProperty("maxKeepAliveRequests", "-1");
        // As Jetty's: a 1024-character key may be 12 KiB percent-encoded; the default 8 KiB limit
        // answered it with Tomcat's own HTML 400 page.
        connector.setProperty("maxHttpHeaderSize", Integer.toString(Launcher.MAX_HEADER_BYTES));
        tomcat.setConnector(connector);
        ((StandardHost) tomcat.getHost()).setErrorReportValveClass(JsonErrors.Tomcat.class.getName());
        Context context = tomcat.addContext("", base.toString());
        Tomcat.addServlet(context, "restcache", servlet).setAsyncSupported(true); // BodyReader
        context.addServletMapping("/", "restcache");
        tomcat.start();
        return connector.getLocalPort();
    }

    @Override
    public void stop() {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            System.err.println("restcache-java: stopping tomcat: " + StoreException.oneLine(e));
        }
        if (base != null) {
            try (Stream<Path> files = Files.walk(base)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temporary folder left behind
            }
        }
    }
}
