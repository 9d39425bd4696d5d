package wirebench.parse;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;

/**
 * The parse lab's Java server: {@code java -Xmx1g -jar parse-java.jar --port N} serves the API of
 * {@code subjects/parse/README.md} on {@code 127.0.0.1:N} until stopped. {@code --port N} becomes
 * Spring's {@code server.port}; the loopback address, Tomcat's unlimited keep-alive and the quiet
 * logging are in {@code application.properties}. A bad flag prints one line on stderr and exits 2.
 */
@SpringBootApplication
public class App {
    public static void main(String[] args) {
        List<String> springArgs;
        try {
            springArgs = springArgs(args);
        } catch (IllegalArgumentException e) {
            System.err.println("parse-java: " + e.getMessage());
            System.exit(2);
            return;
        }
        SpringApplication app = new SpringApplication(App.class);
        app.addListeners((ApplicationListener<WebServerInitializedEvent>) event ->
                System.err.println("parse-java: serving on 127.0.0.1:" + event.getWebServer().getPort()));
        app.run(springArgs.toArray(String[]::new));
    }

    /** {@code --port N} or {@code --port=N} → {@code --server.port=N}; nothing else is accepted. */
    static List<String> springArgs(String[] args) {
        String port = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                port = args[++i];
            } else if (args[i].startsWith("--port=")) {
                port = args[i].substring("--port=".length());
            } else {
                throw new IllegalArgumentException("unexpected argument `" + args[i] + "`; usage: parse-java --port N");
            }
        }
        if (port == null) {
            throw new IllegalArgumentException("--port N is required");
        }
        try {
            int n = Integer.parseInt(port);
            if (n < 0 || n > 65535) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--port must be 0..65535, got `" + port + "`");
        }
        List<String> out = new ArrayList<>();
        out.add("--server.port=" + port);
        return out;
    }
}
