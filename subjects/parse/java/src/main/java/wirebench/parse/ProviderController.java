package wirebench.parse;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import wirebench.formats.dataset.DatasetKind;
import wirebench.parse.Wire.Format;

/**
 * The provider role: {@code GET /objects/{object}?format=json|bson&count=N&start=S} answers
 * objects {@code start .. start + count} ({@link Wire#encode}); {@code GET /bad/objects/{object}}
 * answers malformed bytes whatever count and start ({@link Wire#malformed}), so
 * {@code http://127.0.0.1:P/bad} is a provider whose every object is bad. {@code format}
 * defaults to json, {@code count} to 1, {@code start} to 0; anything else wrong is a 400 with one
 * line of text. Every answer allows any origin, for the browser page. Also {@code GET /health}.
 */
@RestController
class ProviderController {
    /** A bad parameter: the one-line text of the 400. */
    private static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message, null, false, false);
        }
    }

    private record Asked(DatasetKind kind, Format format, long start, int count) {}

    ProviderController() {
        Wire.load();
    }

    @GetMapping("/health")
    String health() {
        return "ok\n";
    }

    @GetMapping("/objects/{object}")
    ResponseEntity<byte[]> objects(@PathVariable String object, @RequestParam(required = false) String format,
            @RequestParam(required = false) String count, @RequestParam(required = false) String start) {
        try {
            Asked a = asked(object, format, count, start);
            return answer(HttpStatus.OK, a.format.contentType, Wire.encode(a.kind, a.format, a.start, a.count));
        } catch (BadRequest e) {
            return text(HttpStatus.BAD_REQUEST, e.getMessage());
        }
    }

    @GetMapping("/bad/objects/{object}")
    ResponseEntity<byte[]> bad(@PathVariable String object, @RequestParam(required = false) String format,
            @RequestParam(required = false) String count, @RequestParam(required = false) String start) {
        try {
            Asked a = asked(object, format, count, start);
            return answer(HttpStatus.OK, a.format.contentType, Wire.malformed(a.kind, a.format));
        } catch (BadRequest e) {
            return text(HttpStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private static Asked asked(String object, String format, String count, String start) throws BadRequest {
        DatasetKind kind = Wire.object(object)
                .orElseThrow(() -> new BadRequest("unknown object `" + object + "`; known: numeric, dummy"));
        String formatId = format == null ? "json" : format;
        Format f = Format.fromId(formatId)
                .orElseThrow(() -> new BadRequest("unknown format `" + formatId + "`; known: json, bson"));
        long n = number(count, 1, "count");
        if (n < 1 || n > Wire.MAX_COUNT) {
            throw new BadRequest("count must be 1..=" + Wire.MAX_COUNT + ", got " + count);
        }
        long s = number(start, 0, "start");
        if (s < 0) {
            throw new BadRequest("start must be >= 0, got " + start);
        }
        return new Asked(kind, f, s, (int) n);
    }

    private static long number(String value, long absent, String name) throws BadRequest {
        if (value == null) {
            return absent;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new BadRequest(name + " must be an integer, got `" + value + "`");
        }
    }

    private static ResponseEntity<byte[]> answer(HttpStatus status, String contentType, byte[] body) {
        return ResponseEntity.status(status)
                .header(HttpHeaders.CONTENT_TYPE, contentType)
                .header(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, "*")
                .body(body);
    }

    private static ResponseEntity<byte[]> text(HttpStatus status, String line) {
        String oneLine = Optional.ofNullable(line).orElse("").replaceAll("\\s*\\R\\s*", " ");
        return answer(status, MediaType.TEXT_PLAIN_VALUE + ";charset=utf-8", (oneLine + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
