package wirebench.formats.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import org.bson.BsonValue;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.Generator;

/** {@link BsonRawCodec#decodeObject}: one list element as its own document (the parse lab's use). */
class BsonRawObjectTest {
    @ParameterizedTest
    @EnumSource(value = DatasetKind.class, names = {"NUMERIC", "DUMMY"})
    void readsEachElementOfTheListEncodingAsItsOwnDocument(DatasetKind kind) throws CodecException {
        Dataset data = Generator.generate(kind);
        List<BsonValue> elements = new RawBsonDocument(new BsonRawCodec().encode(data)).getArray("items");
        List<?> items = (List<?>) data.root();
        assertEquals(items.size(), elements.size());
        for (int i = 0; i < items.size(); i++) {
            byte[] element = bytes((RawBsonDocument) elements.get(i));
            assertEquals(items.get(i), BsonRawCodec.decodeObject(new RawBsonDocument(element), kind));
        }
    }

    @ParameterizedTest
    @EnumSource(value = DatasetKind.class, names = {"NUMERIC", "DUMMY"})
    void aTruncatedObjectIsACodecException(DatasetKind kind) {
        Dataset data = Generator.generate(kind, 1);
        byte[] element = bytes((RawBsonDocument) new RawBsonDocument(new BsonRawCodec().encode(data)).getArray("items").get(0));
        byte[] half = Arrays.copyOf(element, element.length / 2);
        assertThrows(CodecException.class, () -> BsonRawCodec.decodeObject(new RawBsonDocument(half), kind));
    }

    private static byte[] bytes(RawBsonDocument document) {
        ByteBuf buffer = document.getByteBuffer();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
