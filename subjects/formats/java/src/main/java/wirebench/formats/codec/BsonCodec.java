package wirebench.formats.codec;

import com.fasterxml.jackson.databind.ObjectMapper;
import de.undercouch.bson4jackson.BsonFactory;
import wirebench.formats.dataset.DatasetKind;

/**
 * BSON through bson4jackson, bound eagerly into the dataset types by Jackson. {@code users} is a
 * document already; the list datasets are wrapped as {@code {"items": [...]}} because a BSON file
 * must be a document. {@code int} fields become BSON int32, {@code long} int64, {@code double}
 * double, as in the vectors.
 */
final class BsonCodec extends JacksonCodec {
    BsonCodec() {
        super("bson", Libraries.library("bson4jackson"), new ObjectMapper(new BsonFactory()), true);
    }

    @Override
    void precheck(byte[] bytes, DatasetKind kind) throws CodecException {
        BsonLength.check(id(), bytes, kind);
    }
}
