package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.DType;

/**
 * Bit-exact conversion between Java floating-point values and one narrow floating-point format,
 * agreeing with ml_dtypes (bf16, f8, f6, f4) and NumPy (f16) on every pattern.
 */
public sealed interface FloatCodec permits MiniFloat, E8M0 {
    /** {@return the bits of one element} */
    int bits();

    /** {@return the pattern nearest to {@code x} (round to nearest, ties to even), in the low {@link #bits()} bits} */
    int encode(float x);

    /** {@return the pattern nearest to {@code x}, rounded once from the exact double (bf16: through float, as XLA)} */
    int encode(double x);

    /**
     * {@return {@code x} rounded to float toward zero, with the lowest bit set if that lost
     * anything (round to odd)} A value rounded to odd with at least two bits more than the final
     * format rounds from there as it would from {@code x} itself: float has 24 against at most 11
     * in the narrow formats, so a double can go through float without rounding twice. An exact
     * value, an infinity and a NaN come back as {@code (float) x}.
     */
    static float roundToOdd(double x) {
        float f = (float) x;
        if (f == x || x != x) {
            return f;
        }
        int bits = Float.floatToRawIntBits(f);
        if (Math.abs((double) f) > Math.abs(x)) {
            bits--; // rounded away from zero: the float below in magnitude (from infinity: the largest finite)
        }
        return Float.intBitsToFloat(bits | 1);
    }

    /**
     * {@return the integer {@code v}, unsigned where {@code unsigned} says so, rounded to float as
     * {@link #roundToOdd(double)} rounds a double} A long past 2^53 cannot go through a double
     * without rounding once already.
     */
    static float roundToOdd(long v, boolean unsigned) {
        boolean negative = !unsigned && v < 0;
        long magnitude = negative ? -v : v;   // Long.MIN_VALUE stays itself: 2^63 unsigned
        int width = 64 - Long.numberOfLeadingZeros(magnitude);
        if (width <= 24) {
            return negative ? -(float) magnitude : (float) magnitude;
        }
        int drop = width - 24;
        long kept = magnitude >>> drop;
        if ((magnitude & ((1L << drop) - 1)) != 0) {
            kept |= 1;
        }
        float f = Math.scalb((float) kept, drop);
        return negative ? -f : f;
    }

    /** {@return the value of the low {@link #bits()} bits of {@code pattern}, exactly} */
    float decode(int pattern);

    /** {@return the codec of a narrow float type, or null for f32, f64 and every non-float type} */
    static FloatCodec of(DType type) {
        return switch (type) {
            case F16 -> MiniFloat.F16;
            case BF16 -> MiniFloat.BF16;
            case F8E5M2 -> MiniFloat.F8E5M2;
            case F8E4M3 -> MiniFloat.F8E4M3;
            case F8E4M3FN -> MiniFloat.F8E4M3FN;
            case F8E4M3B11FNUZ -> MiniFloat.F8E4M3B11FNUZ;
            case F8E3M4 -> MiniFloat.F8E3M4;
            case F8E5M2FNUZ -> MiniFloat.F8E5M2FNUZ;
            case F8E4M3FNUZ -> MiniFloat.F8E4M3FNUZ;
            case F8E8M0FNU -> E8M0.INSTANCE;
            case F6E3M2FN -> MiniFloat.F6E3M2FN;
            case F6E2M3FN -> MiniFloat.F6E2M3FN;
            case F4E2M1FN -> MiniFloat.F4E2M1FN;
            case PRED, S1, S2, S4, S8, S16, S32, S64, U1, U2, U4, U8, U16, U32, U64, F32, F64, C64, C128,
                 TOKEN, OPAQUE -> null;
        };
    }
}
