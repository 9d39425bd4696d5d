// The contract (../openapi.yaml) over HTTP as one table of cases, run against the service in both
// containers on SQLite (a temporary file) and, when RESTCACHE_TEST_POSTGRES holds a
// postgres://user@host:port/db URL, on PostgreSQL too. Each run works under API keys of its own.
package wirebench.restcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ContractTest {
    static final String POSTGRES_ENV = "RESTCACHE_TEST_POSTGRES";
    static final ObjectMapper JSON = new ObjectMapper();
    static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    static Stream<Arguments> targets() {
        return Stream.of(
                Arguments.of(Launch.Container.JETTY, "sqlite"),
                Arguments.of(Launch.Container.TOMCAT, "sqlite"),
                Arguments.of(Launch.Container.JETTY, "postgres"),
                Arguments.of(Launch.Container.TOMCAT, "postgres"));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("targets")
    void contract(Launch.Container container, String storeKind) throws Exception {
        String store;
        if (storeKind.equals("postgres")) {
            String url = System.getenv(POSTGRES_ENV);
            Assumptions.assumeTrue(url != null && !url.isBlank(),
                    POSTGRES_ENV + " is not set (postgres://user@host:port/db): PostgreSQL cases skipped");
            store = url;
        } else {
            store = "sqlite:" + dir.resolve(container.name().toLowerCase() + ".db");
        }
        try (Launch service = Launch.start(container, store, dir)) {
            Client client = new Client(service.base);
            List<String> failures = new ArrayList<>();
            for (Case c : cases(client)) {
                c.run(client, failures);
            }
            concurrentCreates(client, failures);
            assertTrue(failures.isEmpty(), container + " on " + storeKind + ": " + failures.size()
                    + " cases failed:\n" + String.join("\n", failures));
            long stopMillis = service.stop();
            assertTrue(stopMillis >= 0 && stopMillis < 10_000, "SIGTERM took " + stopMillis + " ms");
            assertEquals("", service.stderr(), "stderr of a run without store errors");
        }
    }

    // ---- the table ------------------------------------------------------------------------

    /** Keys a store or a router could mistake for syntax; each is stored verbatim. */
    static final List<String> VERBATIM_KEYS = List.of(
            "'; DROP TABLE cache; --", "\" OR 1=1 --", "%", "_", "100%_sure", "it's", "\"quoted\"",
            "a b", "+", "*", ";", "back\\slash", "?q=1&r=2", "#frag", ".", "..", "tab\there",
            "ключ", "键", "emoji 😀", "\uFF21 (U+FF21, after U+FFFF's surrogates in UTF-16 order)",
            "NULL", "$1", "{\"value\": 1}", "%2F", "%00");

    static List<Case> cases(Client client) throws Exception {
        String a = client.issue();
        String b = client.issue();
        String v = client.issue();
        String l = client.issue();
        String unknown = UUID.randomUUID().toString(); // well formed, never issued
        String notJson = "not json";
        byte[] over = big(MIB + 1);
        List<Case> t = new ArrayList<>();

        // Success codes and bodies.
        t.add(new Case("health", "GET", "/health", null, 200).json("{\"status\":\"ok\"}"));
        t.add(new Case("HEAD health", "HEAD", "/health", null, 200).noBody());
        t.add(new Case("new key lists nothing", "GET", "/api/" + a, null, 200).json("[]"));
        t.add(new Case("create", "POST", item(a, "k1"), body("v1"), 201).json(itemJson("k1", "v1")));
        t.add(new Case("read", "GET", item(a, "k1"), null, 200).json(itemJson("k1", "v1")));
        t.add(new Case("create again", "POST", item(a, "k1"), body("other"), 409));
        t.add(new Case("update", "PUT", item(a, "k1"), body("v2"), 200).json(itemJson("k1", "v2")));
        t.add(new Case("upper-case API key", "GET", item(a.toUpperCase(), "k1"), null, 200).json(itemJson("k1", "v2")));
        t.add(new Case("create under upper case", "POST", item(a.toUpperCase(), "k2"), body(""), 201).json(itemJson("k2", "")));
        t.add(new Case("list", "GET", "/api/" + a, null, 200).json("[" + itemJson("k1", "v2") + "," + itemJson("k2", "") + "]"));
        t.add(new Case("delete", "DELETE", item(a, "k2"), null, 204).noBody());
        t.add(new Case("read deleted", "GET", item(a, "k2"), null, 404));
        t.add(new Case("delete deleted", "DELETE", item(a, "k2"), null, 404));
        t.add(new Case("update missing", "PUT", item(a, "missing"), body("x"), 404));
        t.add(new Case("read missing", "GET", item(a, "missing"), null, 404));
        t.add(new Case("HEAD item", "HEAD", item(a, "k1"), null, 200).noBody());

        // API keys: malformed (400) on every call, unknown (404) on every call.
        List<String> malformed = List.of("not-a-uuid", a.replace("-", ""), a.substring(0, 35) + "g", "%7B" + a + "%7D",
                a + "0", a.substring(1), a.substring(0, 8) + a.substring(9, 14) + "-" + a.substring(14), "urn:uuid:" + a,
                "%20" + a.substring(1));
        for (String bad : malformed) {
            t.add(new Case("list, API key " + bad, "GET", "/api/" + bad, null, 400));
            t.add(new Case("GET, API key " + bad, "GET", "/api/" + bad + "/k", null, 400));
            t.add(new Case("POST, API key " + bad, "POST", "/api/" + bad + "/k", body("v"), 400));
            t.add(new Case("PUT, API key " + bad, "PUT", "/api/" + bad + "/k", body("v"), 400));
            t.add(new Case("DELETE, API key " + bad, "DELETE", "/api/" + bad + "/k", null, 400));
        }
        String nonV4 = "00000000-0000-1000-8000-000000000000";
        for (String u : List.of(unknown, nonV4, unknown.toUpperCase())) {
            t.add(new Case("list, unknown API key " + u, "GET", "/api/" + u, null, 404));
            t.add(new Case("GET, unknown API key " + u, "GET", item(u, "k1"), null, 404));
            t.add(new Case("POST, unknown API key " + u, "POST", item(u, "k1"), body("v"), 404));
            t.add(new Case("PUT, unknown API key " + u, "PUT", item(u, "k1"), body("v"), 404));
            t.add(new Case("DELETE, unknown API key " + u, "DELETE", item(u, "k1"), null, 404));
        }

        // The order of the checks: path (400), API key (404), body (400/413), item (409/404).
        t.add(new Case("malformed API key before a bad body", "POST", "/api/nope/k", bytes(notJson), 400));
        t.add(new Case("malformed API key before a big body", "POST", "/api/nope/k", over, 400));
        t.add(new Case("long key before an unknown API key", "PUT", item(unknown, "k".repeat(1025)), bytes(notJson), 400));
        t.add(new Case("unknown API key before a bad body", "POST", item(unknown, "k"), bytes(notJson), 404));
        t.add(new Case("unknown API key before a big body", "PUT", item(unknown, "k"), over, 404));
        t.add(new Case("bad body before an existing item", "POST", item(a, "k1"), bytes(notJson), 400));
        t.add(new Case("big body before an existing item", "POST", item(a, "k1"), over, 413));
        t.add(new Case("bad body before a missing item", "PUT", item(a, "missing"), bytes(notJson), 400));
        t.add(new Case("big body before a missing item", "PUT", item(a, "missing"), over, 413));

        // Bodies: anything but an object with a string value is 400, and stores nothing.
        List<byte[]> badBodies = List.of(bytes("{\"value\":null}"), bytes("{}"), bytes("{\"value\":1}"), bytes(notJson),
                bytes(""), bytes("[]"), bytes("\"v\""), bytes("null"), bytes("{\"value\":[\"a\"]}"),
                bytes("{\"value\":{\"a\":1}}"), bytes("{\"value\":true}"), bytes("{\"Value\":\"v\"}"),
                bytes("{\"value\":\"a\"} trailing"), bytes("{\"value\":\"a\""), bytes("{\"value\":\"a\\u0000b\"}"),
                bytes("{\"value\":\"\\ud800\"}"), bytes("{\"value\":\"\\udc00x\"}"),
                new byte[] {'{', '"', 'v', 'a', 'l', 'u', 'e', '"', ':', '"', (byte) 0xff, '"', '}'});
        for (byte[] bad : badBodies) {
            String shown = new String(bad, StandardCharsets.ISO_8859_1);
            t.add(new Case("POST of " + shown, "POST", item(a, "new"), bad, 400));
            t.add(new Case("PUT of " + shown, "PUT", item(a, "k1"), bad, 400));
        }
        t.add(new Case("bad bodies stored nothing", "GET", "/api/" + a, null, 200).json("[" + itemJson("k1", "v2") + "]"));
        t.add(new Case("other members are ignored", "PUT", item(a, "k1"), bytes("{\"value\":\"v3\",\"other\":[1,{}]}"), 200)
                .json(itemJson("k1", "v3")));
        String text = "line\nbreak \"quotes\" \\ tab\t ü 😀 \uFFFF";
        t.add(new Case("a value with escapes and non-ASCII", "PUT", item(a, "k1"), body(text), 200).json(itemJson("k1", text)));
        t.add(new Case("it reads back", "GET", item(a, "k1"), null, 200).json(itemJson("k1", text)));

        // Sizes: 1 MiB is fine, 1 MiB + 1 is 413, chunked too.
        byte[] exact = big(MIB);
        String exactValue = "x".repeat(MIB - "{\"value\":\"\"}".length());
        t.add(new Case("a body of exactly 1 MiB", "POST", item(a, "big"), exact, 201));
        t.add(new Case("a 1 MiB body reads back", "GET", item(a, "big"), null, 200).json(itemJson("big", exactValue)));
        t.add(new Case("POST of 1 MiB + 1", "POST", item(a, "huge"), over, 413));
        t.add(new Case("PUT of 1 MiB + 1", "PUT", item(a, "big"), over, 413));
        t.add(new Case("chunked POST of 1 MiB + 1", "POST", item(a, "huge"), over, 413).chunked());
        t.add(new Case("chunked POST of 1 KiB", "POST", item(a, "chunked"), body("c".repeat(1024)), 201).chunked());
        t.add(new Case("POST of 3 MiB", "POST", item(a, "huge"), big(3 * MIB), 413));
        t.add(new Case("nothing huge was stored", "GET", item(a, "huge"), null, 404));
        t.add(new Case("delete big", "DELETE", item(a, "big"), null, 204).noBody());

        // Isolation between two API keys.
        t.add(new Case("B reads A's item", "GET", item(b, "k1"), null, 404));
        t.add(new Case("B updates A's item", "PUT", item(b, "k1"), body("b's"), 404));
        t.add(new Case("B deletes A's item", "DELETE", item(b, "k1"), null, 404));
        t.add(new Case("B lists nothing", "GET", "/api/" + b, null, 200).json("[]"));
        t.add(new Case("B creates the same key", "POST", item(b, "k1"), body("b's"), 201).json(itemJson("k1", "b's")));
        t.add(new Case("A's item is A's", "GET", item(a, "k1"), null, 200).json(itemJson("k1", text)));
        t.add(new Case("A deletes its item", "DELETE", item(a, "k1"), null, 204).noBody());
        t.add(new Case("B's item stays", "GET", "/api/" + b, null, 200).json("[" + itemJson("k1", "b's") + "]"));

        // Keys: verbatim, listed in byte order of UTF-8.
        for (int i = 0; i < VERBATIM_KEYS.size(); i++) {
            String key = VERBATIM_KEYS.get(i);
            t.add(new Case("POST key " + key, "POST", item(v, key), body("v" + i), 201).json(itemJson(key, "v" + i)));
            t.add(new Case("GET key " + key, "GET", item(v, key), null, 200).json(itemJson(key, "v" + i)));
        }
        Map<String, String> sorted = new TreeMap<>(Comparator.comparing((String k) -> k.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
        for (int i = 0; i < VERBATIM_KEYS.size(); i++) {
            sorted.put(VERBATIM_KEYS.get(i), "v" + i);
        }
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        sorted.forEach((k, val) -> list.addObject().put("key", k).put("value", val));
        t.add(new Case("list of verbatim keys in byte order", "GET", "/api/" + v, null, 200).json(list.toString()));

        // Key limits: 1024 bytes fine, 1025 bytes, U+0000, bad UTF-8 refused; an encoded slash 400 or 404.
        String k1024 = "k".repeat(1024);
        String k1024x2 = "ж".repeat(512);
        t.add(new Case("a 1024-byte key", "POST", item(l, k1024), body("v"), 201));
        t.add(new Case("a 1024-byte key reads back", "GET", item(l, k1024), null, 200).json(itemJson(k1024, "v")));
        t.add(new Case("a 1024-byte key of 512 two-byte characters", "POST", item(l, k1024x2), body("v"), 201));
        t.add(new Case("a 1025-byte key", "POST", item(l, "k".repeat(1025)), body("v"), 400));
        t.add(new Case("a 1025-byte key, GET", "GET", item(l, "k".repeat(1025)), null, 400));
        t.add(new Case("a 1025-byte key of 512 two-byte characters and one", "POST", item(l, k1024x2 + "k"), body("v"), 400));
        t.add(new Case("a 1026-byte key of 513 two-byte characters", "PUT", item(l, "é".repeat(513)), body("v"), 400));
        t.add(new Case("a key with U+0000", "POST", item(l, "a\0b"), body("v"), 400).anyBody());
        t.add(new Case("a key of bad UTF-8", "POST", "/api/" + l + "/%FF", body("v"), 400).anyBody());
        t.add(new Case("a key of overlong UTF-8", "POST", "/api/" + l + "/%C0%AF", body("v"), 400).anyBody());
        t.add(new Case("a key of an encoded surrogate", "POST", "/api/" + l + "/%ED%A0%80", body("v"), 400).anyBody());
        t.add(new Case("a key with an encoded slash", "POST", item(l, "a/b"), body("v"), 400, 404).anyBody());
        t.add(new Case("a key with an encoded slash, lower case", "POST", "/api/" + l + "/a%2fb", body("v"), 400, 404).anyBody());
        t.add(Case.raw("bad percent-encoding", "GET /api/" + l + "/a%zz", 400, 404));
        t.add(Case.raw("truncated percent-encoding", "GET /api/" + l + "/a%4", 400, 404));
        t.add(Case.raw("a lone percent", "POST /api/" + l + "/%", 400, 404));
        t.add(Case.raw("a raw space", "GET /api/" + l + "/a b", 400, 404));
        t.add(new Case("refused keys stored nothing", "GET", "/api/" + l, null, 200)
                .json("[" + itemJson(k1024, "v") + "," + itemJson(k1024x2, "v") + "]"));

        // Methods and paths.
        t.add(new Case("PATCH an item", "PATCH", item(a, "k"), body("v"), 405).allow());
        t.add(new Case("OPTIONS an item", "OPTIONS", item(a, "k"), null, 405).allow());
        t.add(new Case("POST /api/", "POST", "/api/", bytes("{}"), 405).allow());
        t.add(new Case("DELETE /api/", "DELETE", "/api/", null, 405).allow());
        t.add(new Case("PUT a list", "PUT", "/api/" + a, body("v"), 405).allow());
        t.add(new Case("DELETE a list", "DELETE", "/api/" + a, null, 405).allow());
        t.add(new Case("POST /health", "POST", "/health", bytes("{}"), 405).allow());
        t.add(new Case("a wrong method on a malformed API key", "POST", "/api/nope", null, 405).allow());
        t.add(new Case("GET /", "GET", "/", null, 404));
        t.add(new Case("GET /api", "GET", "/api", null, 404));
        t.add(new Case("GET /nothing-here", "GET", "/nothing-here", null, 404));
        t.add(new Case("DELETE /nothing-here", "DELETE", "/nothing-here", null, 404));
        t.add(new Case("GET /health/", "GET", "/health/", null, 404));
        t.add(new Case("one segment too deep", "GET", item(a, "k") + "/more", null, 404));
        t.add(new Case("an empty key", "GET", "/api/" + a + "/", null, 404));
        t.add(new Case("an empty API key", "GET", "/api//k", null, 400, 404).anyBody());
        t.add(new Case("a query string is not part of the key", "GET", "/api/" + b + "/k1?x=1", null, 200).json(itemJson("k1", "b's")));
        return t;
    }

    /** 16 creates of one key at once: exactly one 201, the rest 409, one item stored. */
    static void concurrentCreates(Client client, List<String> failures) throws Exception {
        String api = client.issue();
        List<CompletableFuture<HttpResponse<byte[]>>> calls = IntStream.range(0, 16)
                .mapToObj(i -> client.http.sendAsync(client.request("POST", item(api, "race"), body("v" + i), false),
                        HttpResponse.BodyHandlers.ofByteArray()))
                .collect(Collectors.toList());
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<byte[]>> call : calls) {
            statuses.add(call.get().statusCode());
        }
        long created = statuses.stream().filter(s -> s == 201).count();
        if (created != 1 || !statuses.stream().allMatch(s -> s == 201 || s == 409)) {
            failures.add("concurrent creates answered " + statuses);
        }
        JsonNode list = JSON.readTree(client.send("GET", "/api/" + api, null, false).body());
        if (list.size() != 1) {
            failures.add("concurrent creates stored " + list);
        }
    }

    // ---- helpers ----------------------------------------------------------------------------

    /** /api/API/KEY with every byte of the key but letters and digits percent-encoded. */
    static String item(String api, String key) {
        StringBuilder path = new StringBuilder("/api/").append(api).append('/');
        for (byte x : key.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if (c < 128 && Character.isLetterOrDigit(c)) {
                path.append((char) c);
            } else {
                path.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return path.toString();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] body(String value) {
        return bytes(JsonNodeFactory.instance.objectNode().put("value", value).toString());
    }

    static String itemJson(String key, String value) {
        return JsonNodeFactory.instance.objectNode().put("key", key).put("value", value).toString();
    }

    /** {"value":"xxx…"} of exactly n bytes. */
    static byte[] big(int n) {
        byte[] body = new byte[n];
        Arrays.fill(body, (byte) 'x');
        byte[] head = bytes("{\"value\":\"");
        System.arraycopy(head, 0, body, 0, head.length);
        body[n - 2] = '"';
        body[n - 1] = '}';
        return body;
    }

    /** HTTP/1.1 calls to one service. */
    static final class Client {
        final URI base;
        final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();

        Client(URI base) {
            this.base = base;
        }

        HttpRequest request(String method, String path, byte[] body, boolean chunked) {
            HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                    : chunked ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                    : HttpRequest.BodyPublishers.ofByteArray(body);
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(30)).method(method, publisher);
            if (body != null) {
                builder.header("Content-Type", "application/json");
            }
            return builder.build();
        }

        HttpResponse<byte[]> send(String method, String path, byte[] body, boolean chunked)
                throws IOException, InterruptedException {
            return http.send(request(method, path, body, chunked), HttpResponse.BodyHandlers.ofByteArray());
        }

        /** The same on a connection of its own: a container that refuses a request target itself
         *  may close the connection after its 400 without saying so (Jetty does for %00), and the
         *  next request on a reused connection would find it closed. */
        HttpResponse<byte[]> sendAlone(String method, String path, byte[] body)
                throws IOException, InterruptedException {
            HttpClient alone = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            return alone.send(request(method, path, body, false), HttpResponse.BodyHandlers.ofByteArray());
        }

        /** GET /api/: a new API key, checked to be a lower-case version 4 UUID. */
        String issue() throws IOException, InterruptedException {
            HttpResponse<byte[]> r = send("GET", "/api/", null, false);
            assertEquals(200, r.statusCode(), "GET /api/");
            String key = JSON.readTree(r.body()).path("apiKey").asText("");
            assertTrue(key.matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"),
                    "not a lower-case v4 UUID: " + key);
            return key;
        }

        /** A request sent as raw bytes ("METHOD TARGET"), for targets java.net.URI refuses. */
        int raw(String requestLine) throws IOException {
            try (Socket socket = new Socket(base.getHost(), base.getPort())) {
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                out.write((requestLine + " HTTP/1.1\r\nHost: " + base.getAuthority() + "\r\nContent-Length: 0\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                InputStream in = socket.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                    head.write(c);
                }
                String[] status = head.toString(StandardCharsets.ISO_8859_1).split(" ");
                return status.length > 1 ? Integer.parseInt(status[1]) : -1;
            }
        }
    }

    /** One row of the table: a request and what must come back. */
    static final class Case {
        final String name;
        final String method;
        final String path;
        final byte[] body;
        final Set<Integer> statuses;
        String json; // the answer's exact JSON, when given
        boolean chunked;
        boolean noBody; // 204 and HEAD: no body
        boolean anyBody; // the container may answer itself (its own body and type)
        boolean allow; // 405: an Allow header
        boolean raw; // sent as raw bytes

        Case(String name, String method, String path, byte[] body, Integer... statuses) {
            this.name = name;
            this.method = method;
            this.path = path;
            this.body = body;
            this.statuses = Set.of(statuses);
        }

        static Case raw(String name, String requestLine, Integer... statuses) {
            int space = requestLine.indexOf(' ');
            Case c = new Case(name, requestLine.substring(0, space), requestLine.substring(space + 1), null, statuses);
            c.raw = true;
            c.anyBody = true;
            return c;
        }

        Case json(String expected) {
            json = expected;
            return this;
        }

        Case chunked() {
            chunked = true;
            return this;
        }

        Case noBody() {
            noBody = true;
            return this;
        }

        Case anyBody() {
            anyBody = true;
            return this;
        }

        Case allow() {
            allow = true;
            return this;
        }

        void run(Client client, List<String> failures) {
            String what = name + " (" + method + " " + (path.length() > 80 ? path.substring(0, 80) + "…" : path) + ")";
            try {
                if (raw) {
                    int status = client.raw(method + " " + path);
                    if (!statuses.contains(status)) {
                        failures.add(what + ": expected " + statuses + ", got " + status);
                    }
                    return;
                }
                HttpResponse<byte[]> r = anyBody ? client.sendAlone(method, path, body) : client.send(method, path, body, chunked);
                String got = new String(r.body(), StandardCharsets.UTF_8);
                String shown = got.length() > 200 ? got.substring(0, 200) + "…" : got;
                if (!statuses.contains(r.statusCode())) {
                    failures.add(what + ": expected " + statuses + ", got " + r.statusCode() + " " + shown);
                    return;
                }
                if (anyBody) {
                    return;
                }
                String type = r.headers().firstValue("Content-Type").orElse("");
                if (noBody) {
                    if (r.body().length != 0) {
                        failures.add(what + ": a body: " + shown);
                    }
                    return;
                }
                if (!type.startsWith("application/json")) {
                    failures.add(what + ": Content-Type " + type);
                    return;
                }
                JsonNode answer = JSON.readTree(r.body());
                if (r.statusCode() >= 400 && !answer.path("error").isTextual()) {
                    failures.add(what + ": not an {\"error\": ...} body: " + shown);
                }
                if (json != null && !answer.equals(JSON.readTree(json))) {
                    failures.add(what + ": answered " + shown);
                }
                if (allow && r.headers().firstValue("Allow").isEmpty()) {
                    failures.add(what + ": no Allow header");
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                failures.add(what + ": " + e);
            }
        }
    }
}
