package wirebench.formats.codec;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import java.nio.charset.StandardCharsets;
import wirebench.formats.dataset.DatasetKind;

/**
 * XML through jackson-dataformat-xml (Woodstox underneath). The root element is named after the
 * dataset ({@code <users>}, {@code <numeric>}, {@code <dummy>}); every field is a child element
 * with the field's name, a list is its element repeated (no wrapper element), and a list
 * dataset's elements are {@code <items>}. No declaration, no attributes, no whitespace.
 */
final class XmlCodec extends JacksonCodec {
    XmlCodec() {
        super("xml", Libraries.library("jackson-dataformat-xml"),
                XmlMapper.builder().defaultUseWrapper(false).build(), true);
    }

    @Override
    ObjectWriter configure(ObjectWriter writer, DatasetKind kind) {
        return writer.withRootName(kind.id());
    }

    /**
     * Jackson ignores the root element's name, so a {@code <numeric>} document would decode as
     * {@code dummy} whenever the shapes happen to fit: check it first.
     */
    @Override
    void precheck(byte[] bytes, DatasetKind kind) throws CodecException {
        String root = rootName(bytes);
        if (!kind.id().equals(root)) {
            throw CodecException.decode(id(), kind,
                    "root element is <" + (root == null ? "none" : root) + ">, not <" + kind.id() + ">");
        }
    }

    /** The name of the first element, skipping a declaration, comments and a DOCTYPE; null if none. */
    static String rootName(byte[] bytes) {
        int i = 0;
        while (true) {
            while (i < bytes.length && bytes[i] != '<') {
                i++;
            }
            if (++i >= bytes.length) {
                return null;
            }
            if (bytes[i] == '?' || bytes[i] == '!') {
                continue;
            }
            int start = i;
            while (i < bytes.length && bytes[i] != '>' && bytes[i] != '/' && bytes[i] > ' ') {
                i++;
            }
            return i < bytes.length ? new String(bytes, start, i - start, StandardCharsets.UTF_8) : null;
        }
    }
}
