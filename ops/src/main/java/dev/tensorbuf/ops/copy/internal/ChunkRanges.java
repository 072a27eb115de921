package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.internal.ChunkConvert.Chunks;
import dev.tensorbuf.views.DType;

/**
 * {@link ChunkConvert}'s step into an integer destination: the chunk checked against the
 * destination's range, and floating-point values truncated into it. A check is a min/max
 * reduction over the whole chunk, not a branch per element, so the loops vectorise; a chunk that
 * fails goes through {@link ValueMover}, which finds and names the value. {@link DenseConvert}'s
 * loops take their float bounds from here too, so both paths refuse the same values.
 */
final class ChunkRanges {
    private ChunkRanges() {
    }

    /** Checks {@code c.words} (at most 32 bits of value, u32 excepted) against {@code to}'s range. */
    static boolean wordsInRange(Chunks c, int m, DType to) {
        int lo = Integer.MAX_VALUE;
        int hi = Integer.MIN_VALUE;
        for (int i = 0; i < m; i++) {
            lo = Math.min(lo, c.words[i]);
            hi = Math.max(hi, c.words[i]);
        }
        return lo >= minOf(to) && hi <= maxOf(to);
    }

    /**
     * Checks {@code c.ints} against {@code to}'s range, as min/max reductions that vectorise. A
     * u64 source reads 2^63 and more as negative longs; no destination here holds those (u64 to
     * u64 is no conversion), so they fail the lower bound, which is at least 0 for it.
     */
    static boolean intsInRange(Chunks c, int m, DType to, boolean unsigned64) {
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (int i = 0; i < m; i++) {
            lo = Math.min(lo, c.ints[i]);
            hi = Math.max(hi, c.ints[i]);
        }
        long min = unsigned64 ? Math.max(0, minOf(to)) : minOf(to);
        return lo >= min && hi <= maxOf(to);
    }

    /**
     * Into {@code c.words}, for integers of up to 32 bits: truncated toward zero; false if a value
     * (NaN, infinite) truncates out of {@code to}'s range. A value truncates into the range when
     * it lies strictly between {@code min - 1} and {@code max + 1}; the bounds are rounded outward
     * to floats, which changes nothing since no float lies between a bound and its rounding.
     * NaN makes the min/max reductions NaN, which fails both comparisons.
     */
    static boolean singlesToWords(Chunks c, int m, DType to) {
        float above = truncatesAbove(to);
        float below = truncatesBelow(to);
        float lo = Float.POSITIVE_INFINITY;
        float hi = Float.NEGATIVE_INFINITY;
        float[] in = c.singles;
        if (c.vector && to != DType.U32) {
            return VectorChunks.truncate(in, c.words, m, above, below);
        }
        for (int i = 0; i < m; i++) {
            lo = Math.min(lo, in[i]);
            hi = Math.max(hi, in[i]);
            c.words[i] = (int) (long) in[i]; // through long for u32's upper half; the same bits as (int) below 2^31
        }
        return lo > above && hi < below;
    }

    /**
     * {@link #singlesToWords} from {@code c.floats}, whose bounds (at most 33 bits) are exact
     * doubles: the same loop on another primitive type.
     */
    static boolean doublesToWords(Chunks c, int m, DType to) {
        double above = minOf(to) - 1.0;
        double below = maxOf(to) + 1.0;
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        double[] in = c.floats;
        if (c.vector && to != DType.U32) {
            return VectorChunks.truncate(in, c.words, m, above, below);
        }
        for (int i = 0; i < m; i++) {
            lo = Math.min(lo, in[i]);
            hi = Math.max(hi, in[i]);
            c.words[i] = (int) (long) in[i]; // through long for u32's upper half; the same bits as (int) below 2^31
        }
        return lo > above && hi < below;
    }

    /** {@return the float that values truncating into {@code to}'s range lie above} See {@link #singlesToWords}. */
    static float truncatesAbove(DType to) {
        return outward(minOf(to) - 1.0, false);
    }

    /** {@return the float that values truncating into {@code to}'s range lie below} See {@link #singlesToWords}. */
    static float truncatesBelow(DType to) {
        return outward(maxOf(to) + 1.0, true);
    }

    /** {@return {@code x} rounded to a float: up if {@code up}, else down} */
    private static float outward(double x, boolean up) {
        float f = (float) x;
        if (up && f < x) {
            return Math.nextUp(f);
        }
        if (!up && f > x) {
            return Math.nextDown(f);
        }
        return f;
    }

    /** Into {@code c.ints}, for 64-bit integers: truncated toward zero; false if a value (NaN, infinite) truncates out of {@code to}'s range. */
    static boolean doublesToLongs(Chunks c, int m, DType to) {
        // Valid when above and below these, exclusive; NaN fails both comparisons.
        double above = to == DType.S64 ? Math.nextDown(-0x1p63) : -1.0;
        double below = to == DType.S64 ? 0x1p63 : 0x1p64;
        boolean ok = true;
        for (int i = 0; i < m; i++) {
            double v = c.floats[i];
            ok &= v > above && v < below;
            c.ints[i] = v >= 0x1p63 ? (long) (v - 0x1p63) ^ Long.MIN_VALUE : (long) v;
        }
        return ok;
    }

    private static long minOf(DType t) {
        return t.kind() == DType.Kind.UNSIGNED ? 0 : -1L << (t.bitWidth() - 1);
    }

    private static long maxOf(DType t) {
        return t.kind() == DType.Kind.UNSIGNED ? (t.bitWidth() == 64 ? Long.MAX_VALUE : (1L << t.bitWidth()) - 1)
                : (1L << (t.bitWidth() - 1)) - 1;
    }
}
