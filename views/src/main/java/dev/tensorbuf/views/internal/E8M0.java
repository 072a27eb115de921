package dev.tensorbuf.views.internal;

/**
 * f8e8m0fnu, the MX scale type: an unsigned power of two {@code 2^(pattern - 127)}, with no zero,
 * no infinity and one NaN ({@code 0xff}).
 *
 * <p>As ml_dtypes, which works on the {@code float} bits (the biases agree): the pattern is the
 * float's exponent field, plus one when the float's mantissa is at least one half (so ties round
 * up; a subnormal float above {@code 2^-127} becomes {@code 2^-126}, one below it {@code 2^-127}); zero, negative
 * values, infinities, NaN and values that round past {@code 2^127} give NaN. A {@code double} is
 * rounded once, as XLA does ({@code 1.5 - 2^-30} gives 1, where ml_dtypes, through {@code float},
 * gives 2), except below {@code float}'s normal range, where it is first rounded to {@code float}
 * as ml_dtypes does (XLA follows no rule there we could pin down).
 */
public final class E8M0 implements FloatCodec {
    static final E8M0 INSTANCE = new E8M0();

    private static final int NAN = 0xff;

    private E8M0() {
    }

    @Override
    public int bits() {
        return 8;
    }

    @Override
    public int encode(float x) {
        if (!(x > 0) || Float.isInfinite(x)) {
            return NAN;
        }
        int bits = Float.floatToRawIntBits(x);
        int mantissa = bits & 0x7f_ffff;
        if (bits >>> 23 == 0) {
            // Subnormal float: 2^-127 itself is pattern 0, anything above it goes up to 2^-126.
            return mantissa > 0x40_0000 ? 1 : 0;
        }
        int pattern = (bits >>> 23) + (mantissa >= 0x40_0000 ? 1 : 0);
        return Math.min(pattern, NAN);
    }

    @Override
    public int encode(double x) {
        return encode(Math.abs(x) >= 0x1p-126 ? FloatCodec.roundToOdd(x) : (float) x);
    }

    @Override
    public float decode(int pattern) {
        int p = pattern & 0xff;
        return p == NAN ? Float.intBitsToFloat(0x7fc0_0000) : Math.scalb(1.0f, p - 127);
    }

    @Override
    public String toString() {
        return "f8e8m0fnu";
    }
}
