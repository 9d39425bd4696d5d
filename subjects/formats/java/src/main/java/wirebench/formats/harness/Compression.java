package wirebench.formats.harness;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;

/** Compressed sizes of an encoding, at the levels the Rust harness uses. */
public final class Compression {
    /** gzip level of {@code size_gzip_bytes} (zlib's default, as {@code gzip} without flags). */
    public static final int GZIP_LEVEL = 6;
    /** zstd level of {@code size_zstd_bytes} (the zstd CLI's default). */
    public static final int ZSTD_LEVEL = 3;

    private Compression() {}

    /** Length of {@code bytes} gzipped with java.util.zip (zlib) at {@link #GZIP_LEVEL}. */
    public static long gzipLength(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new LeveledGzip(out)) {
            gzip.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip into memory", e);
        }
        return out.size();
    }

    /** Length of {@code bytes} compressed with zstd-jni (the reference C library) at {@link #ZSTD_LEVEL}. */
    public static long zstdLength(byte[] bytes) {
        return Zstd.compress(bytes, ZSTD_LEVEL).length;
    }

    /** GZIPOutputStream has no level parameter; its Deflater is protected. */
    private static final class LeveledGzip extends GZIPOutputStream {
        LeveledGzip(ByteArrayOutputStream out) throws IOException {
            super(out);
            def.setLevel(GZIP_LEVEL);
        }
    }
}
