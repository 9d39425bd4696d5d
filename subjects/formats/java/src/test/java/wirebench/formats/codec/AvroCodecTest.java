package wirebench.formats.codec;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;
import wirebench.formats.dataset.DatasetKind;

/** The limits AvroCodec sets on Avro's length prefixes are in force. */
class AvroCodecTest {
    /** Avro's zig-zag varint encoding of a long. */
    private static byte[] zigzag(long n) {
        long v = (n << 1) ^ (n >> 63);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
        return out.toByteArray();
    }

    @Test
    void aForgedArrayCountWithinJavaLimitsIsRefusedBeforeAllocating() {
        // 2^24 users: under Avro's own VM limit (about 2^31), over the codec's 2^20.
        CodecException e = assertThrows(CodecException.class,
                () -> Codecs.byId("avro").orElseThrow().decode(zigzag(1 << 24), DatasetKind.USERS));
        assertTrue(e.getMessage().contains("16777216"), e.getMessage());
    }

    @Test
    void aForgedStringLengthIsRefused() {
        // numeric: one element whose id claims 2^30 bytes (under 2^31, over the codec's 16 MiB).
        byte[] one = zigzag(1);
        byte[] length = zigzag(1L << 30);
        byte[] input = new byte[one.length + length.length + 1];
        System.arraycopy(one, 0, input, 0, one.length);
        System.arraycopy(length, 0, input, one.length, length.length);
        input[input.length - 1] = 'x';
        assertThrows(CodecException.class, () -> Codecs.byId("avro").orElseThrow().decode(input, DatasetKind.NUMERIC));
    }
}
