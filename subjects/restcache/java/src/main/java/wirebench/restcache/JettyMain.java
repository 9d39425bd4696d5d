// The service in embedded Jetty 12.1 (ee10 servlet environment): a Server with one ServerConnector
// (HTTP/1.1, keep-alive) and a ServletContextHandler holding RestCacheServlet at "/".
// Everything is Jetty's default, the thread pool too (a QueuedThreadPool of at most 200 threads):
// the study did not state its container settings. One exception, the URI compliance: Jetty's
// DEFAULT refuses (400) any URI it deems ambiguous, among them a key holding '%' (sent as %25),
// '\\' or a control character (%5C, %09: "suspicious") or one that is "." or ".." (%2E). The
// servlet routes on the raw URI and decodes each segment itself, so those checks (which guard
// path-based lookups: static files, security constraints) guard nothing here, and the contract
// makes such keys data; they are let through. An encoded slash (%2F) and an empty segment ("//")
// are still refused, as the contract allows. The container's own refusals answer in the contract's
// JSON and no answer names Jetty or its version (JsonErrors).
// Run: java -jar target/restcache-jetty.jar --port 8080 --store sqlite:/tmp/restcache.db
package wirebench.restcache;

import jakarta.servlet.http.HttpServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Jetty;

public final class JettyMain implements Launcher.Container {
    private final Server server = new Server(); // default QueuedThreadPool

    public static void main(String[] args) {
        Launcher.run(args, new JettyMain());
    }

    @Override
    public String name() {
        return "jetty " + Jetty.VERSION;
    }

    @Override
    public int start(String host, int port, HttpServlet servlet) throws Exception {
        HttpConfiguration http = new HttpConfiguration();
        http.setUriCompliance(UriCompliance.DEFAULT.with("RESTCACHE",
                UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING,
                UriCompliance.Violation.AMBIGUOUS_PATH_SEGMENT,
                UriCompliance.Violation.SUSPICIOUS_PATH_CHARACTERS));
        // A key of 1024 four-byte characters is 12 KiB percent-encoded: above the default 8 KiB
        // request header limit, which refused keys the contract accepts (414).
        http.setRequestHeaderSize(Launcher.MAX_HEADER_BYTES);
        http.setSendServerVersion(false); // no Server: Jetty(12.1.14) on every answer
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        ServletHolder holder = new ServletHolder("restcache", servlet);
        holder.setAsyncSupported(true); // bodies are read without a thread (BodyReader)
        context.addServlet(holder, "/");
        server.setHandler(context);
        server.setErrorHandler(new JsonErrors.Jetty());
        context.setErrorHandler(new JsonErrors.Jetty());
        server.start();
        return connector.getLocalPort();
    }

    @Override
    public void stop() {
        try {
            server.stop();
        } catch (Exception e) {
            System.err.println("restcache-java: stopping jetty: " + StoreException.oneLine(e));
        }
    }
}
