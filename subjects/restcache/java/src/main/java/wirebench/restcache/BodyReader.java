// A request's body, read before the servlet routes it, without a thread: a ReadListener collects
// it (at most MAX_BODY_BYTES + 1 kept, up to DRAIN_BYTES read) and the answer is made when it has
// all arrived, on whichever container thread delivers the end. Read on the request thread, a body
// sent one byte a second held that thread: 250 such connections took both containers' 200-thread
// pools, and no other request was answered while they dripped, with no API key needed (Go and
// Rust, whose connections cost no thread, were unaffected).
//
// Why every body is read before answering, even one the answer does not need (an unknown API
// key): a container may close the connection after an answer whose body it left unread (Jetty
// does with a large one), and closed while the client still sends, the kernel answers the
// client's data with a reset that can discard the answer before the client reads it (Java's
// HttpClient now and then saw "header parser received no bytes" for a 3 MiB POST to Jetty). Go's
// server avoids the same by half-closing and waiting 500 ms (its rstAvoidanceDelay); Tomcat
// swallows up to 2 MiB (maxSwallowSize).
package wirebench.restcache;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

final class BodyReader implements ReadListener, AsyncListener {
    /** Request attribute: the body read (its first MAX_BODY_BYTES + 1 bytes). */
    private static final String BODY = "restcache.body";

    /** What answers once the body has arrived. */
    interface Then {
        void answer(HttpServletRequest req, HttpServletResponse resp) throws IOException;
    }

    private final AsyncContext async;
    private final HttpServletRequest req;
    private final HttpServletResponse resp;
    private final ServletInputStream in;
    private final Then then;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final byte[] buffer = new byte[16 * 1024];
    private long read;
    /** Set by whichever of the end, an error or the deadline comes first: it alone answers. */
    private final AtomicBoolean answered = new AtomicBoolean();

    private BodyReader(AsyncContext async, HttpServletRequest req, HttpServletResponse resp, Then then)
            throws IOException {
        this.async = async;
        this.req = req;
        this.resp = resp;
        this.in = req.getInputStream();
        this.then = then;
    }

    /** Reads `req`'s body, then calls `then` (or answers 408 after BODY_TIMEOUT_MS, 400 when the
     *  body cannot be read). */
    static void start(HttpServletRequest req, HttpServletResponse resp, Then then) throws IOException {
        AsyncContext async = req.startAsync();
        async.setTimeout(RestCacheServlet.BODY_TIMEOUT_MS);
        BodyReader reader = new BodyReader(async, req, resp, then);
        async.addListener(reader);
        reader.in.setReadListener(reader);
    }

    /** The body `start` read; empty for a request without one. */
    static byte[] body(HttpServletRequest req) {
        return req.getAttribute(BODY) instanceof byte[] b ? b : new byte[0];
    }

    @Override
    public void onDataAvailable() throws IOException {
        while (in.isReady()) {
            int n = in.read(buffer);
            if (n < 0) {
                return; // onAllDataRead follows
            }
            read += n;
            int room = RestCacheServlet.MAX_BODY_BYTES + 1 - kept.size();
            kept.write(buffer, 0, Math.max(0, Math.min(n, room)));
            if (read > RestCacheServlet.DRAIN_BYTES) {
                // Too much to drop: answer from what is kept (over 1 MiB: 413, or what an earlier
                // check says) and close.
                resp.setHeader("Connection", "close");
                finish(null);
                return;
            }
        }
    }

    @Override
    public void onAllDataRead() {
        finish(null);
    }

    @Override
    public void onError(Throwable t) { // a broken upload: bad chunking, cut short
        finish(new RestCacheServlet.Answer(400, Map.of("error", "cannot read the body")));
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        // RFC 9110 §15.5.9: the server SHOULD close the connection after a 408.
        resp.setHeader("Connection", "close");
        finish(new RestCacheServlet.Answer(408, Map.of("error", "the body took over "
                + RestCacheServlet.BODY_TIMEOUT_MS / 1000 + " s")));
    }

    /** Answers once: routes the body read (`failed` null) or writes `failed`, then completes. */
    private void finish(RestCacheServlet.Answer failed) {
        if (!answered.compareAndSet(false, true)) {
            return;
        }
        try {
            if (failed == null) {
                req.setAttribute(BODY, kept.toByteArray());
                then.answer(req, resp);
            } else {
                resp.setHeader("Connection", "close");
                RestCacheServlet.write(resp, failed);
            }
        } catch (IOException | RuntimeException e) {
            // the client is gone, or the answer could not be written: nothing more to tell it
        } finally {
            async.complete();
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {}

    @Override
    public void onError(AsyncEvent event) {
        finish(new RestCacheServlet.Answer(400, Map.of("error", "cannot read the body")));
    }

    @Override
    public void onStartAsync(AsyncEvent event) {}
}
