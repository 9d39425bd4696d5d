package wirebench.formats.codec;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import org.msgpack.core.MessagePackException;
import org.msgpack.jackson.dataformat.MessagePackMapper;
import wirebench.formats.dataset.DatasetKind;

/**
 * MessagePack through jackson-dataformat-msgpack (msgpack-java): structs as maps keyed by field
 * name, like JSON, integers in their shortest form, doubles as float64.
 */
final class MsgpackCodec extends JacksonCodec {
    MsgpackCodec() {
        super("msgpack", Libraries.library("jackson-dataformat-msgpack"), new MessagePackMapper(), false);
    }

    /**
     * msgpack-java's parser throws "Unexpected EOF" where Jackson expects the end of input after
     * the root value, so Jackson's own trailing-token check would reject every input: the codec
     * checks the parser's position instead (it reports bytes read as the location's char offset).
     */
    @Override
    ObjectReader configure(ObjectReader reader, DatasetKind kind) {
        return reader.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    @Override
    Object readRoot(ObjectReader reader, byte[] bytes) throws IOException {
        try (JsonParser parser = reader.createParser(bytes)) {
            Object root = reader.readValue(parser);
            long end = parser.currentLocation().getCharOffset();
            if (end != bytes.length) {
                throw new JsonParseException(parser, (bytes.length - end) + " trailing bytes after the value");
            }
            return root;
        }
    }

    /** msgpack-core reports malformed input with its own runtime exceptions. */
    @Override
    boolean isDecodeError(RuntimeException e) {
        return e instanceof MessagePackException;
    }
}
