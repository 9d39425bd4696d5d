// The containers' own refusals (a request target they will not route, a header block too large,
// an HTTP version they do not speak) in the contract's shape: {"error": "<reason>"} as
// application/json, naming no server. Their default pages were HTML that named the container and
// its version ("Powered by Jetty:// 12.1.14", "Apache Tomcat/11.0.27"), which tells a visitor
// which advisories apply.
package wirebench.restcache;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.util.Callback;

final class JsonErrors {
    private JsonErrors() {}

    /** Jetty's error handler for the server and the servlet context. */
    static final class Jetty extends org.eclipse.jetty.server.handler.ErrorHandler {
        @Override
        protected void generateResponse(org.eclipse.jetty.server.Request request,
                org.eclipse.jetty.server.Response response, int code, String message, Throwable cause,
                Callback callback) throws IOException {
            String reason = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
            byte[] body = RestCacheServlet.errorBody(reason);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
            response.write(true, ByteBuffer.wrap(body), callback);
        }
    }

    /** Tomcat's error report valve (the Host's errorReportValveClass). */
    public static final class Tomcat extends ErrorReportValve {
        @Override
        protected void report(Request request, Response response, Throwable throwable) {
            int status = response.getStatus();
            // As ErrorReportValve: only errors, and only when nothing was written yet.
            if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
                return;
            }
            try {
                byte[] body = RestCacheServlet.errorBody(status == 400 ? "bad request" : "status " + status);
                response.setContentType("application/json");
                response.setContentLength(body.length);
                response.getOutputStream().write(body);
                response.finishResponse();
            } catch (IOException | IllegalStateException e) {
                // the client is gone; nothing to tell it
            }
        }
    }
}
