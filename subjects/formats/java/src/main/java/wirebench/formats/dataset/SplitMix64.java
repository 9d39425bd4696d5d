package wirebench.formats.dataset;

import java.util.List;

/**
 * The splitmix64 generator and the draw helpers exactly as {@code datasets.json} spells them
 * out. All arithmetic is unsigned 64-bit on a {@code long}: {@code >>>} for shifts and
 * {@link Long#remainderUnsigned} for {@code mod}.
 */
public final class SplitMix64 {
    private long state;

    public SplitMix64(long seed) {
        this.state = seed;
    }

    public long next() {
        state += 0x9E3779B97F4A7C15L;
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * {@code below(n)}: {@code next() mod n}, unsigned. The modulo bias is part of the spec, not
     * a defect: every language reproduces it exactly.
     */
    public long below(long n) {
        return Long.remainderUnsigned(next(), n);
    }

    /** {@code int(lo, hi)}: an integer in {@code [lo, hi]}. */
    public long integer(long lo, long hi) {
        return lo + below(hi - lo + 1);
    }

    /** {@code fixed(lo, hi, scale)}: one IEEE-754 division of two exact integers. */
    public double fixed(long lo, long hi, long scale) {
        return (double) integer(lo, hi) / (double) scale;
    }

    public boolean bool() {
        return below(2) == 1;
    }

    public String pick(List<String> list) {
        return list.get((int) below(list.size()));
    }

    /** {@code hex64()}: 16 lowercase hexadecimal digits, zero-padded. */
    public String hex64() {
        String hex = Long.toHexString(next());
        return "0".repeat(16 - hex.length()) + hex;
    }

    /** {@code object_id()}: 24 hex digits from two draws. */
    public String objectId() {
        return hex64() + hex64().substring(0, 8);
    }

    /** {@code guid()}: 32 hex digits from two draws, grouped 8-4-4-4-12. */
    public String guid() {
        String h = hex64() + hex64();
        return h.substring(0, 8) + '-' + h.substring(8, 12) + '-' + h.substring(12, 16) + '-'
                + h.substring(16, 20) + '-' + h.substring(20, 32);
    }
}
