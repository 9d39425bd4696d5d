// The HTTP API of ../openapi.yaml as one servlet at "/": routing on the raw request URI, the
// contract's checks in its order (API key and key well formed -> API key issued -> body -> item),
// JSON in and out (Jackson), and the status codes. Store failures answer 500 and one line on
// stderr; nothing a client sends reaches them.
package wirebench.restcache;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

public final class RestCacheServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Bodies over this many bytes are answered 413. */
    static final int MAX_BODY_BYTES = 1 << 20;
    /** A body is read (and past MAX_BODY_BYTES dropped) up to this many bytes before answering;
     *  past it the answer closes the connection (BodyReader). */
    static final long DRAIN_BYTES = 16L << 20;
    /** A body must have arrived this long after the request's head: 408 otherwise, as the Rust
     *  implementation's 30 s (openapi.yaml). */
    static final long BODY_TIMEOUT_MS = 30_000;
    /** Keys over this many bytes of UTF-8 are answered 400. */
    static final int MAX_KEY_BYTES = 1024;
    /** Bodies nested deeper (objects and arrays, the outer one included) are answered 400: the
     *  contract's one limit (RFC 8259 §9 lets a parser set one; Jackson's own is 1,000). */
    static final int MAX_DEPTH = 100;

    private static final String JSON_TYPE = "application/json";
    private static final String ALLOW_READ = "GET, HEAD";
    private static final String ALLOW_ITEM = "GET, HEAD, POST, PUT, DELETE";
    /** Trailing tokens after the document ({"value":"a"} x) make a body malformed; characters
     *  beyond U+FFFF are written as 4 bytes of UTF-8, not as an escaped surrogate pair; a number
     *  beside the value may be as long as the body (Jackson's default refuses 1,000 digits, the
     *  Go and Rust implementations take any). */
    private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(MAX_BODY_BYTES).build())
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();

    private final transient Store store;

    public RestCacheServlet(Store store) {
        this.store = store;
    }

    /** An answer other than success, raised by a check: its status and {"error": message}. */
    private static final class Reject extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;

        Reject(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    /** What to answer: a status and a JSON body (none for 204). */
    record Answer(int status, Object body) {}

    /**
     * Routes every method itself (HEAD is answered as GET, the containers drop the body). The path
     * is the raw request URI, split at '/' and each segment percent-decoded here: so an encoded
     * character stays data (";" and "%3B" alike) and a segment is checked as bytes of UTF-8.
     */
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (req.getProtocol().isEmpty()) {
            // HTTP/0.9 (Tomcat alone passes it on, with no setting to refuse it): its answer has no
            // status line, so any body would read as the document asked for. Nothing is sent and
            // the connection closes; Jetty answers 505.
            resp.setStatus(505);
            resp.setHeader("Connection", "close");
            return;
        }
        boolean declared = req.getContentLengthLong() > 0 || req.getHeader("Transfer-Encoding") != null;
        if (declared) {
            BodyReader.start(req, resp, this::answer);
        } else {
            answer(req, resp);
        }
    }

    /** Routes a request whose body, if any, is read, and writes the answer. */
    private void answer(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Answer answer;
        try {
            answer = route(req, resp);
        } catch (Reject r) {
            answer = new Answer(r.status, Map.of("error", r.getMessage()));
        } catch (StoreException e) {
            System.err.println("restcache-java: store error: " + e.oneLine());
            answer = new Answer(500, Map.of("error", "store error"));
        } catch (RuntimeException e) { // a bug or a driver's unchecked failure: still one line
            System.err.println("restcache-java: internal error: " + StoreException.oneLine(e));
            answer = new Answer(500, Map.of("error", "internal error"));
        }
        write(resp, answer);
    }

    static void write(HttpServletResponse resp, Answer answer) throws IOException {
        resp.setStatus(answer.status());
        if (answer.body() != null) {
            byte[] bytes = JSON.writeValueAsBytes(answer.body());
            resp.setContentType(JSON_TYPE);
            resp.setContentLength(bytes.length);
            resp.getOutputStream().write(bytes);
        }
    }

    /** An error body of the contract: {"error": message}. */
    static byte[] errorBody(String message) {
        try {
            return JSON.writeValueAsBytes(Map.of("error", message));
        } catch (IOException e) {
            throw new IllegalStateException(e); // a one-entry map of strings always serializes
        }
    }

    private Answer route(HttpServletRequest req, HttpServletResponse resp) throws Reject, StoreException {
        String method = req.getMethod();
        String[] seg = req.getRequestURI().split("/", -1); // "/api/k" -> "", "api", "k"
        if (seg.length == 2 && seg[0].isEmpty() && seg[1].equals("health")) {
            allow(method, ALLOW_READ, resp);
            return health();
        } else if (seg.length == 3 && seg[0].isEmpty() && seg[1].equals("api") && seg[2].isEmpty()) {
            allow(method, ALLOW_READ, resp);
            String api = UUID.randomUUID().toString(); // version 4, lower case
            store.addApiKey(api);
            return new Answer(200, Map.of("apiKey", api));
        } else if (seg.length == 3 && seg[0].isEmpty() && seg[1].equals("api")) {
            allow(method, ALLOW_READ, resp);
            String api = apiKey(seg[2]);
            known(api);
            return new Answer(200, store.list(api));
        } else if (seg.length == 4 && seg[0].isEmpty() && seg[1].equals("api") && !seg[2].isEmpty() && !seg[3].isEmpty()) {
            allow(method, ALLOW_ITEM, resp);
            return item(method, apiKey(seg[2]), key(seg[3]), req);
        }
        throw new Reject(404, "no such path");
    }

    private Answer item(String method, String api, String key, HttpServletRequest req) throws Reject, StoreException {
        known(api);
        switch (method) {
            case "GET", "HEAD" -> {
                String value = store.get(api, key);
                if (value == null) {
                    throw noItem();
                }
                return new Answer(200, new Store.Item(key, value));
            }
            case "POST" -> {
                String value = value(req);
                if (!store.create(api, key, value)) {
                    throw new Reject(409, "the item exists: update it with PUT");
                }
                return new Answer(201, new Store.Item(key, value));
            }
            case "PUT" -> {
                String value = value(req);
                if (!store.update(api, key, value)) {
                    throw noItem();
                }
                return new Answer(200, new Store.Item(key, value));
            }
            case "DELETE" -> {
                if (!store.delete(api, key)) {
                    throw noItem();
                }
                return new Answer(204, null);
            }
            default -> throw new IllegalStateException(method); // allow() let only these through
        }
    }

    private Answer health() {
        try {
            store.ping();
        } catch (StoreException e) {
            System.err.println("restcache-java: health: " + e.oneLine());
            return new Answer(503, Map.of("error", "the store does not answer"));
        }
        return new Answer(200, Map.of("status", "ok"));
    }

    private static void allow(String method, String allowed, HttpServletResponse resp) throws Reject {
        if (!(", " + allowed + ",").contains(", " + method + ",")) {
            resp.setHeader("Allow", allowed);
            throw new Reject(405, method + " is not allowed here (allowed: " + allowed + ")");
        }
    }

    private void known(String api) throws Reject, StoreException {
        if (!store.hasApiKey(api)) {
            throw new Reject(404, "unknown API key: get one from GET /api/");
        }
    }

    private static Reject noItem() {
        return new Reject(404, "no such item");
    }

    /** A path segment as an API key: a canonical UUID (8-4-4-4-12 hex digits, either case), in
     *  lower case. Other spellings UUID.fromString would take (no dashes, short groups) are 400. */
    static String apiKey(String segment) throws Reject {
        String text;
        try {
            text = decode(segment);
        } catch (CharacterCodingException | IllegalArgumentException e) {
            text = "";
        }
        boolean canonical = text.length() == 36;
        for (int i = 0; canonical && i < 36; i++) {
            char c = text.charAt(i);
            canonical = i == 8 || i == 13 || i == 18 || i == 23 ? c == '-' : Character.digit(c, 16) >= 0 && c < 128;
        }
        if (!canonical) {
            throw new Reject(400, "malformed API key: expected a UUID");
        }
        return text.toLowerCase(Locale.ROOT);
    }

    /** A path segment as an item key: percent-decoded, 1 to 1024 bytes of UTF-8, no U+0000 and no
     *  '/' (an encoded slash, if a container lets one through). */
    static String key(String segment) throws Reject {
        byte[] bytes;
        String key;
        try {
            bytes = percentDecode(segment);
            key = utf8(bytes);
        } catch (CharacterCodingException | IllegalArgumentException e) {
            throw new Reject(400, "malformed key: not percent-encoded UTF-8");
        }
        if (bytes.length > MAX_KEY_BYTES) {
            throw new Reject(400, "key longer than " + MAX_KEY_BYTES + " bytes");
        }
        if (key.indexOf('\0') >= 0 || key.indexOf('/') >= 0) {
            throw new Reject(400, "a key may not hold U+0000 or '/'");
        }
        return key;
    }

    static String decode(String segment) throws CharacterCodingException {
        return utf8(percentDecode(segment));
    }

    /** Percent-decoding of a raw path segment into bytes ('+' stays '+'); characters other than
     *  ASCII, which a container may pass through raw, count as their UTF-8. */
    static byte[] percentDecode(String s) {
        byte[] out = new byte[s.length() * 3];
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            char c = s.charAt(i);
            if (c == '%') {
                int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
                int lo = i + 2 < s.length() ? Character.digit(s.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0 || s.charAt(i + 1) > 127 || s.charAt(i + 2) > 127) {
                    throw new IllegalArgumentException("bad percent-encoding");
                }
                out[n++] = (byte) (hi << 4 | lo);
                i += 3;
            } else if (c < 128) {
                out[n++] = (byte) c;
                i++;
            } else {
                int end = i;
                while (end < s.length() && s.charAt(end) >= 128) {
                    end++;
                }
                byte[] raw = s.substring(i, end).getBytes(StandardCharsets.UTF_8);
                System.arraycopy(raw, 0, out, n, raw.length);
                n += raw.length;
                i = end;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** Strict UTF-8: malformed input (overlong forms, surrogates, stray bytes) is an error. */
    static String utf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes))
                .toString();
    }

    /** The body's string "value": 413 over 1 MiB (BodyReader keeps at most 1 MiB + 1 bytes),
     *  400 for anything but a JSON object holding one, and 400 for a value no store can hold
     *  (U+0000, or a lone surrogate from an escape such as "\\ud800"). */
    static String value(HttpServletRequest req) throws Reject {
        byte[] body = BodyReader.body(req);
        if (body.length > MAX_BODY_BYTES) {
            throw new Reject(413, "body over " + MAX_BODY_BYTES + " bytes");
        }
        return value(body);
    }

    static String value(byte[] body) throws Reject {
        // RFC 8259 §8.1: UTF-8 without a byte order mark. From bytes, Jackson would guess UTF-16
        // or UTF-32 from the first four and skip a BOM; Go and serde_json refuse both.
        if (body.length >= 3 && (body[0] & 0xFF) == 0xEF && (body[1] & 0xFF) == 0xBB && (body[2] & 0xFF) == 0xBF) {
            throw new Reject(400, "body starts with a byte order mark");
        }
        JsonNode doc;
        try {
            doc = JSON.readTree(utf8(body));
        } catch (IOException e) { // CharacterCodingException too
            throw new Reject(400, "body is not UTF-8 JSON");
        }
        if (!wellFormed(body)) {
            throw new Reject(400, "body nested over " + MAX_DEPTH + " levels or holds a lone surrogate");
        }
        JsonNode value = doc == null ? null : doc.get("value");
        if (doc == null || !doc.isObject() || value == null || !value.isTextual()) {
            throw new Reject(400, "body needs a JSON object with a string \"value\"");
        }
        String text = value.textValue();
        if (!storable(text)) {
            throw new Reject(400, "value holds U+0000 or a lone surrogate");
        }
        return text;
    }

    /** The contract's limits on a JSON text (already known to parse) beyond its grammar: nesting
     *  at most MAX_DEPTH deep, and no \\u escape of a lone surrogate anywhere (I-JSON, RFC 7493
     *  §2.1; Jackson decodes one into a String without a word). The same scan as the Go and Rust
     *  implementations'. */
    static boolean wellFormed(byte[] json) {
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < json.length; i++) {
            byte b = json[i];
            if (inString) {
                if (b == '"') {
                    inString = false;
                } else if (b == '\\') {
                    int u = unit(json, i);
                    if (u >= 0xD800 && u <= 0xDBFF) {
                        int low = unit(json, i + 6);
                        if (low < 0xDC00 || low > 0xDFFF) {
                            return false;
                        }
                        i += 11;
                    } else if (u >= 0xDC00 && u <= 0xDFFF) {
                        return false;
                    } else if (u >= 0) {
                        i += 5;
                    } else {
                        i++; // a one-character escape: skip what it escapes
                    }
                }
                continue;
            }
            if (b == '"') {
                inString = true;
            } else if (b == '{' || b == '[') {
                if (++depth > MAX_DEPTH) {
                    return false;
                }
            } else if (b == '}' || b == ']') {
                depth--;
            }
        }
        return true;
    }

    /** The code unit of the \\uXXXX at i (its backslash), or -1. */
    private static int unit(byte[] json, int i) {
        if (i + 6 > json.length || json[i] != '\\' || json[i + 1] != 'u') {
            return -1;
        }
        try {
            return Integer.parseInt(new String(json, i + 2, 4, StandardCharsets.US_ASCII), 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Well-formed UTF-16 (every surrogate paired) without U+0000: text both stores keep as is. */
    static boolean storable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\0' || Character.isLowSurrogate(c)) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }
}
