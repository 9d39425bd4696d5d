package wirebench.formats.codec;

import com.fasterxml.jackson.databind.ObjectMapper;

/** JSON through jackson-databind: compact, fields in declaration order. */
final class JsonCodec extends JacksonCodec {
    JsonCodec() {
        super("json", Libraries.library("jackson-databind"), new ObjectMapper(), false);
    }
}
