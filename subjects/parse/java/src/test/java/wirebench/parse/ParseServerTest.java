package wirebench.parse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import wirebench.formats.codec.Codecs;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.DummyObject;
import wirebench.formats.dataset.Generator;
import wirebench.formats.dataset.NumericObject;

/**
 * The API of {@code subjects/parse/README.md} against the running server on a random port: the
 * provider's answers decode to the formats lab's objects, bad parameters are 400s, and the server
 * consumes from itself (good and malformed bytes) and reports its process statistics.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ParseServerTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper BSON = new ObjectMapper(new BsonFactory());

    @LocalServerPort
    int port;

    private String base() {
        return "http://127.0.0.1:" + port;
    }

    private HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base() + path)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> post(String path, String body) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base() + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private JsonNode consume(int status, Map<String, Object> request) throws IOException, InterruptedException {
        HttpResponse<byte[]> answer = post("/consume", JSON.writeValueAsString(request));
        JsonNode body = JSON.readTree(answer.body());
        assertEquals(status, answer.statusCode(), body.toString());
        return body;
    }

    private static Map<String, Object> request(String provider, String object, String format, int n, boolean batch, String parser) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("provider", provider);
        request.put("object", object);
        request.put("format", format);
        request.put("n", n);
        request.put("batch", batch);
        request.put("parser", parser);
        return request;
    }

    private static Object expected(String object, long i) {
        List<?> objects = (List<?>) Generator.generate(DatasetKind.fromId(object).orElseThrow()).root();
        return objects.get((int) (i % objects.size()));
    }

    private static Class<?> type(String object) {
        return object.equals("numeric") ? NumericObject.class : DummyObject.class;
    }

    static Stream<Arguments> objectsAndFormats() {
        return Stream.of("numeric", "dummy").flatMap(o -> Stream.of("json", "bson").map(f -> Arguments.of(o, f)));
    }

    @ParameterizedTest
    @MethodSource("objectsAndFormats")
    void oneObjectIsTheObjectItself(String object, String format) throws Exception {
        for (long start : new long[] {0, 1, 98, 250}) {
            HttpResponse<byte[]> answer = get("/objects/" + object + "?format=" + format + "&count=1&start=" + start);
            assertEquals(200, answer.statusCode());
            assertEquals("application/" + format, answer.headers().firstValue("Content-Type").orElseThrow());
            assertEquals("*", answer.headers().firstValue("Access-Control-Allow-Origin").orElseThrow());
            ObjectMapper mapper = format.equals("json") ? JSON : BSON;
            assertEquals(expected(object, start), mapper.readValue(answer.body(), type(object)), "start " + start);
        }
    }

    @ParameterizedTest
    @MethodSource("objectsAndFormats")
    void fiveObjectsAreTheFormatsLabsListLayout(String object, String format) throws Exception {
        HttpResponse<byte[]> answer = get("/objects/" + object + "?format=" + format + "&count=5&start=98");
        assertEquals(200, answer.statusCode());
        List<Object> want = new ArrayList<>();
        for (long i = 98; i < 103; i++) {
            want.add(expected(object, i));
        }
        DatasetKind kind = DatasetKind.fromId(object).orElseThrow();
        assertEquals(want, Codecs.byId(format).orElseThrow().decode(answer.body(), kind).root());
        if (format.equals("bson")) {
            // One object alone is the same document as in the list: same field types (int32, int64, double).
            List<?> items = new RawBsonDocument(answer.body()).getArray("items");
            for (int k = 0; k < 5; k++) {
                ByteBuf element = ((RawBsonDocument) items.get(k)).getByteBuffer();
                byte[] bytes = new byte[element.remaining()];
                element.get(bytes);
                assertArrayEquals(bytes, get("/objects/" + object + "?format=bson&start=" + (98 + k)).body());
            }
        } else {
            assertEquals('[', answer.body()[0]);
        }
    }

    @Test
    void formatCountAndStartHaveDefaults() throws Exception {
        HttpResponse<byte[]> answer = get("/objects/numeric");
        assertEquals("application/json", answer.headers().firstValue("Content-Type").orElseThrow());
        assertEquals(expected("numeric", 0), JSON.readValue(answer.body(), NumericObject.class));
    }

    @Test
    void badProviderParametersAre400s() throws Exception {
        for (String path : List.of("/objects/users?format=json", "/objects/nope?format=json", "/objects/numeric?format=xml",
                "/objects/numeric?format=json&count=0", "/objects/numeric?format=json&count=100001",
                "/objects/numeric?format=json&count=x", "/objects/dummy?format=bson&start=-1",
                "/bad/objects/nope?format=json", "/bad/objects/numeric?format=cbor")) {
            HttpResponse<byte[]> answer = get(path);
            assertEquals(400, answer.statusCode(), path);
            String text = new String(answer.body(), StandardCharsets.UTF_8);
            assertEquals(1, text.lines().count(), text);
            assertTrue(answer.headers().firstValue("Content-Type").orElseThrow().startsWith("text/plain"), path);
        }
    }

    static Stream<Arguments> consumeCases() {
        List<Arguments> cases = new ArrayList<>();
        for (String object : List.of("numeric", "dummy")) {
            for (boolean batch : List.of(false, true)) {
                cases.add(Arguments.of(object, "json", "default", batch));
                cases.add(Arguments.of(object, "bson", "default", batch));
                cases.add(Arguments.of(object, "bson", "raw", batch));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("consumeCases")
    void consumesFromItself(String object, String format, String parser, boolean batch) throws Exception {
        int n = 150;
        JsonNode done = consume(200, request(base(), object, format, n, batch, parser));
        assertEquals(parser.equals("raw") ? "java-raw" : "java", done.get("parser").asText());
        assertEquals(object, done.get("object").asText());
        assertEquals(format, done.get("format").asText());
        assertEquals(n, done.get("n").asInt());
        assertEquals(batch, done.get("batch").asBoolean());
        assertEquals(batch ? 1 : n, done.get("requests").asLong());
        assertTrue(done.get("bytes").asLong() > 0, done.toString());
        double parse = done.get("parse_us").asDouble();
        assertTrue(parse > 0, done.toString());
        assertTrue(done.get("total_us").asDouble() >= parse, done.toString());
    }

    @ParameterizedTest
    @MethodSource("consumeCases")
    void malformedObjectsAre502sAndTheServerKeepsServing(String object, String format, String parser, boolean batch)
            throws Exception {
        JsonNode failed = consume(502, request(base() + "/bad", object, format, 3, batch, parser));
        String error = failed.get("error").asText();
        assertFalse(error.contains("\n"), error);
        assertTrue(error.startsWith(batch ? "the batch of 3 objects: " : "object 0: "), error);
        if (format.equals("json") && !batch) {
            assertTrue(error.contains("missing field `index`"), error);
        }
        if (format.equals("bson") && parser.equals("default") && !batch) {
            assertTrue(error.contains("unexpected end of input"), error);
        }
        consume(200, request(base(), object, format, 3, batch, parser));
    }

    @Test
    void aMissingFieldIsFoundWhereverItIs() throws Exception {
        // Object 0's `index` is 0 and every dummy's first friend's `id` is 0: Jackson leaves a
        // missing field at that default, so equality alone would not see these holes.
        byte[] body = get("/bad/objects/numeric?format=json").body();
        assertEquals("object 0: malformed json: missing field `index`",
                Wire.missingField(DatasetKind.NUMERIC, Wire.Format.JSON, body, false, 0).orElseThrow());
        com.fasterxml.jackson.databind.node.ObjectNode dummy = JSON.valueToTree(expected("dummy", 7));
        ((com.fasterxml.jackson.databind.node.ObjectNode) dummy.get("friends").get(0)).remove("id");
        byte[] list = BSON.writeValueAsBytes(Map.of("items", List.of(JSON.valueToTree(expected("dummy", 6)), dummy)));
        assertEquals("object 7: malformed bson: missing field `friends[0].id`",
                Wire.missingField(DatasetKind.DUMMY, Wire.Format.BSON, list, true, 6).orElseThrow());
    }

    @Test
    void unreachableOrFailingProvidersAre502s() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        String error = consume(502, request("http://127.0.0.1:" + closed, "numeric", "json", 2, false, "default"))
                .get("error").asText();
        assertTrue(error.startsWith("object 0: cannot fetch"), error);
        error = consume(502, request(base() + "/nowhere", "numeric", "json", 2, false, "default")).get("error").asText();
        assertTrue(error.startsWith("object 0: ") && error.endsWith("answered 404"), error);
    }

    @Test
    void badConsumeBodiesAre400s() throws Exception {
        String good = "\"provider\": \"" + base() + "\", \"object\": \"numeric\", \"format\": \"json\"";
        for (String body : List.of("", "nope", "{}", "[1]",
                "{" + good + "}",
                "{" + good + ", \"n\": 1, \"colour\": \"red\"}",
                "{" + good.replace("numeric", "users") + ", \"n\": 1}",
                "{" + good.replace("\"json\"", "\"xml\"") + ", \"n\": 1}",
                "{" + good + ", \"n\": 0}",
                "{" + good + ", \"n\": 100001}",
                "{" + good + ", \"n\": 1.5}",
                "{" + good + ", \"n\": \"5\"}",
                "{" + good + ", \"n\": 1, \"parser\": \"lazy\"}",
                "{" + good + ", \"n\": 1, \"parser\": \"raw\"}",
                "{" + good.replace("http://", "ftp://") + ", \"n\": 1}",
                "{" + good.replace("http://127.0.0.1", "http://bad host") + ", \"n\": 1}")) {
            HttpResponse<byte[]> answer = post("/consume", body);
            assertEquals(400, answer.statusCode(), body);
            String error = JSON.readTree(answer.body()).get("error").asText();
            assertFalse(error.isEmpty() || error.contains("\n"), error);
        }
        // The defaults: batch false, parser default.
        JsonNode done = JSON.readTree(post("/consume", "{" + good + ", \"n\": 2}").body());
        assertEquals("java", done.get("parser").asText());
        assertFalse(done.get("batch").asBoolean());
    }

    @Test
    void healthAndStats() throws Exception {
        HttpResponse<byte[]> health = get("/health");
        assertEquals(200, health.statusCode());
        assertEquals("ok", new String(health.body(), StandardCharsets.UTF_8).trim());
        JsonNode stats = JSON.readTree(get("/stats").body());
        assertTrue(stats.get("cpu_s").asDouble() > 0, stats.toString());
        assertTrue(stats.get("rss_kb").asLong() > 0, stats.toString());
    }
}
