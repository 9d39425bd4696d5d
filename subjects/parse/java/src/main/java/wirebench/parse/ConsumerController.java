package wirebench.parse;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import wirebench.formats.codec.BsonRawCodec;
import wirebench.formats.codec.CodecException;
import wirebench.formats.codec.Codecs;
import wirebench.formats.dataset.DatasetKind;
import wirebench.parse.Wire.Format;

/**
 * The consumer role: {@code POST /consume} fetches {@code n} objects from a provider (one request
 * per object on one keep-alive HTTP/1.1 connection, or one request for all of them), reads every
 * answer into memory, then times with one {@link System#nanoTime} window only the decoding of all
 * {@code n} objects: Jackson / bson4jackson binding into the formats lab's POJOs
 * ({@code parser: default}), or {@code new RawBsonDocument(bytes)} per object ({@code raw}, BSON
 * only, the study's lazy variant). After the timer every object is checked: (raw) every field
 * read out of the raw document, every field present in the bytes, the value equal to
 * {@code dataset[i % 100]}. A provider that fails or a body that does not check is a 502, a bad
 * request body a 400, each {@code {"error": "<one line>"}}.
 */
@RestController
class ConsumerController {
    /** The request body, read strictly: unknown fields, floats for {@code n}, quoted numbers fail. */
    record ConsumeRequest(String provider, String object, String format, Integer n, Boolean batch, String parser) {}

    /** The answer of a consume call. */
    record Consumed(String parser, String object, String format, int n, boolean batch, long requests, long bytes,
            double parse_us, double total_us) {}

    /** A failed call: its status and the one line of its {@code {"error": ...}}. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final HttpStatus status;

        Failure(HttpStatus status, String message) {
            super(message.replaceAll("\\s*\\R\\s*", " "), null, false, false);
            this.status = status;
        }
    }

    private record Ask(URI[] uris, DatasetKind kind, Format format, int n, boolean batch, boolean raw) {}

    private static final ObjectMapper REQUESTS = JsonMapper.builder()
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();

    /** One client for every call, so its keep-alive connections are reused. */
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    @PostMapping("/consume")
    ResponseEntity<Object> consume(@RequestBody(required = false) byte[] body) {
        try {
            return ResponseEntity.ok(consume(ask(body)));
        } catch (Failure f) {
            return ResponseEntity.status(f.status).body(Map.of("error", f.getMessage()));
        }
    }

    private static Ask ask(byte[] body) throws Failure {
        ConsumeRequest req;
        try {
            req = REQUESTS.readValue(body == null ? new byte[0] : body, ConsumeRequest.class);
        } catch (IOException e) {
            String message = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw bad("the body is not a consume request: " + message);
        }
        if (req == null) {
            throw bad("the body is not a consume request: empty");
        }
        DatasetKind kind = Wire.object(req.object())
                .orElseThrow(() -> bad("unknown object `" + req.object() + "`; known: numeric, dummy"));
        Format format = Format.fromId(req.format())
                .orElseThrow(() -> bad("unknown format `" + req.format() + "`; known: json, bson"));
        if (req.n() == null || req.n() < 1 || req.n() > Wire.MAX_COUNT) {
            throw bad("n must be 1..=" + Wire.MAX_COUNT + ", got " + req.n());
        }
        String parser = req.parser() == null ? "default" : req.parser();
        boolean raw = switch (parser) {
            case "default" -> false;
            case "raw" -> true;
            default -> throw bad("unknown parser `" + parser + "`; known: default, raw");
        };
        if (raw && format != Format.BSON) {
            throw bad("parser `raw` is RawBsonDocument: BSON only, not " + format.id);
        }
        if (req.provider() == null || !req.provider().startsWith("http://")) {
            throw bad("provider must be an http:// URL, got `" + req.provider() + "`");
        }
        boolean batch = Boolean.TRUE.equals(req.batch());
        int n = req.n();
        String base = req.provider().replaceAll("/+$", "") + "/objects/" + kind.id() + "?format=" + format.id;
        URI[] uris = new URI[batch ? 1 : n];
        try {
            for (int i = 0; i < uris.length; i++) {
                uris[i] = URI.create(base + "&count=" + (batch ? n : 1) + "&start=" + (batch ? 0 : i));
            }
        } catch (IllegalArgumentException e) {
            throw bad("provider is not a URL: " + e.getMessage());
        }
        return new Ask(uris, kind, format, n, batch, raw);
    }

    private Consumed consume(Ask ask) throws Failure {
        long started = System.nanoTime();
        byte[][] bodies = fetch(ask.uris);

        long parseStarted = System.nanoTime();
        Object[] decoded = new Object[ask.n];
        String failure = ask.raw ? wrap(ask, bodies, decoded) : bind(ask, bodies, decoded);
        long parseEnded = System.nanoTime();
        if (failure != null) {
            throw provider(failure);
        }

        Object[] objects = ask.raw ? readRaw(ask, bodies, decoded) : decoded;
        for (int b = 0; b < bodies.length; b++) {
            Optional<String> missing;
            try {
                missing = Wire.missingField(ask.kind, ask.format, bodies[b], ask.batch, b);
            } catch (IOException e) {
                missing = Optional.of("object " + b + ": malformed " + ask.format.id + ": " + e.getMessage());
            }
            if (missing.isPresent()) {
                throw provider(missing.get());
            }
        }
        for (int i = 0; i < ask.n; i++) {
            if (!Wire.canonical(ask.kind, i).equals(objects[i])) {
                throw provider("object " + i + " decoded to a value that differs from " + ask.kind.id()
                        + "[" + i % 100 + "]");
            }
        }
        long bytes = 0;
        for (byte[] body : bodies) {
            bytes += body.length;
        }
        return new Consumed(ask.raw ? "java-raw" : "java", ask.kind.id(), ask.format.id, ask.n, ask.batch,
                bodies.length, bytes, (parseEnded - parseStarted) / 1e3, (parseEnded - started) / 1e3);
    }

    /** Every answer's body, in order, one request after another; any failure names its request. */
    private byte[][] fetch(URI[] uris) throws Failure {
        byte[][] bodies = new byte[uris.length][];
        for (int i = 0; i < uris.length; i++) {
            HttpResponse<byte[]> answer;
            try {
                answer = client.send(HttpRequest.newBuilder(uris[i]).timeout(Duration.ofMinutes(2)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
            } catch (IOException e) {
                throw provider("object " + i + ": cannot fetch " + uris[i] + ": " + describe(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw provider("object " + i + ": interrupted fetching " + uris[i]);
            }
            if (answer.statusCode() != 200) {
                throw provider("object " + i + ": " + uris[i] + " answered " + answer.statusCode());
            }
            bodies[i] = answer.body();
        }
        return bodies;
    }

    /** Timed, {@code parser: default}: binds every object into its POJO; the failure, or null. */
    private static String bind(Ask ask, byte[][] bodies, Object[] out) {
        if (ask.batch) {
            List<?> items;
            try {
                items = (List<?>) ask.format.codec.decode(bodies[0], ask.kind).root();
            } catch (CodecException e) {
                return "the batch of " + ask.n + " objects: " + e.getMessage();
            } catch (RuntimeException e) {
                return "the batch of " + ask.n + " objects: malformed " + ask.format.id + ": " + describe(e);
            }
            if (items.size() != ask.n) {
                return "the batch holds " + items.size() + " objects, expected " + ask.n;
            }
            items.toArray(out);
            return null;
        }
        ObjectReader reader = Wire.reader(ask.kind, ask.format);
        for (int i = 0; i < ask.n; i++) {
            try {
                out[i] = reader.readValue(bodies[i]);
            } catch (IOException | RuntimeException e) {
                return "object " + i + ": malformed " + ask.format.id + ": " + describe(e);
            }
        }
        return null;
    }

    /** Timed, {@code parser: raw}: wraps every object in a {@link RawBsonDocument}; the failure, or null. */
    private static String wrap(Ask ask, byte[][] bodies, Object[] out) {
        if (ask.batch) {
            List<BsonDocument> items = new ArrayList<>(ask.n);
            try {
                for (BsonValue item : new RawBsonDocument(bodies[0]).getArray("items")) {
                    items.add(item.asDocument());
                }
            } catch (RuntimeException e) {
                return "the batch of " + ask.n + " objects: malformed bson: " + describe(e);
            }
            if (items.size() != ask.n) {
                return "the batch holds " + items.size() + " objects, expected " + ask.n;
            }
            items.toArray(out);
            return null;
        }
        for (int i = 0; i < ask.n; i++) {
            try {
                out[i] = new RawBsonDocument(bodies[i]);
            } catch (RuntimeException e) {
                return "object " + i + ": malformed bson: " + describe(e);
            }
        }
        return null;
    }

    /** After the timer, {@code parser: raw}: every field of every wrapped object, read into its POJO. */
    private static Object[] readRaw(Ask ask, byte[][] bodies, Object[] wrapped) throws Failure {
        if (ask.batch) {
            try {
                return ((List<?>) Codecs.byId("bson-raw").orElseThrow().decode(bodies[0], ask.kind).root()).toArray();
            } catch (CodecException e) {
                throw provider("the batch of " + ask.n + " objects: " + e.getMessage());
            }
        }
        Object[] objects = new Object[ask.n];
        for (int i = 0; i < ask.n; i++) {
            try {
                objects[i] = BsonRawCodec.decodeObject((RawBsonDocument) wrapped[i], ask.kind);
            } catch (CodecException e) {
                throw provider("object " + i + ": " + e.getMessage());
            }
        }
        return objects;
    }

    /** The decoder's message, without Jackson's source description, with where it failed. */
    private static String describe(Exception e) {
        if (e instanceof JsonProcessingException j) {
            String message = j.getCause() instanceof EOFException ? "unexpected end of input" : j.getOriginalMessage();
            if (j instanceof JsonMappingException m && !m.getPath().isEmpty()) {
                message += " at " + m.getPathReference();
            }
            if (j.getLocation() != null && j.getLocation().getByteOffset() >= 0) {
                message += " (byte " + j.getLocation().getByteOffset() + ")";
            }
            return message;
        }
        if (e instanceof EOFException) {
            return "unexpected end of input";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static Failure bad(String message) {
        return new Failure(HttpStatus.BAD_REQUEST, message);
    }

    private static Failure provider(String message) {
        return new Failure(HttpStatus.BAD_GATEWAY, message);
    }
}
