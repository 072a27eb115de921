package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.DType;
import java.util.List;

/**
 * Bit-exact conversions between {@code float}/{@code double} and the narrow binary floating-point
 * formats (f16, bf16, f8, f6, f4), with the results ml_dtypes and NumPy give.
 *
 * <p>One parametrised codec serves every format: a sign bit, {@code e}
 * exponent bits with {@code bias}, {@code m} stored mantissa bits, and a rule for the top of
 * the range ({@link Top}). Encoding a {@code float} rounds to nearest, ties to even pattern, from
 * the exact value. A {@code double} is rounded once, as XLA rounds it into the f8, f6 and f4
 * formats ({@code 1 + 2^-4 + 2^-30} gives the f8e4m3fn pattern of {@code 1.125}; ml_dtypes, which
 * goes through {@code float}, gives {@code 1.0}) and NumPy into f16; bf16 alone goes through
 * {@code float}, as XLA, ml_dtypes and torch all take it. Overflow gives
 * infinity where the format has one, NaN where it has NaN but no infinity (ml_dtypes'
 * non-saturating conversion), and the largest finite value where it has neither (f6, f4).
 *
 * <p>NaN: a format with NaN encodes every NaN as its canonical quiet NaN with the input's sign
 * (bf16 {@code 0x7fc0}, f8e5m2 {@code 0x7e}, f8e4m3fn {@code 0x7f}, fnuz {@code 0x80}); f16
 * keeps the top ten payload bits and sets the quiet bit, as x86's conversion does (the one XLA
 * and {@link Float#floatToFloat16}'s intrinsic use, so every copy path gives the same bits);
 * NumPy keeps a signalling NaN signalling. f6 and f4 have no NaN: ml_dtypes maps NaN to a
 * zero whose sign is the NaN's sign inverted, and so do we. Decoding a NaN gives the canonical
 * {@code float} quiet NaN with the pattern's sign, except bf16, which keeps the payload (a
 * signalling one too, as its conversion is a shift), f16, which keeps it quieted (x86 again;
 * NumPy keeps it signalling), and the fnuz formats, whose one NaN (the negative-zero pattern)
 * decodes positive, as XLA and torch take it (ml_dtypes gives {@code -NaN}).
 */
public final class MiniFloat implements FloatCodec {
    /** How a format spends the patterns at the top of its exponent range. */
    public enum Top {
        /** IEEE 754: all-ones exponent is infinity (mantissa 0) or NaN. */
        IEEE,
        /** "fn": no infinity; only the all-ones pattern (either sign) is NaN. */
        FN,
        /** "fnuz": no infinity, no negative zero; the negative-zero pattern is the one NaN. */
        FNUZ,
        /** No infinity and no NaN (f6, f4): overflow saturates. */
        NONE
    }

    /**
     * The f8e5m2 pattern XLA gives a NaN converted from f16, bf16 or a one-byte float, whatever
     * its sign (jaxlib 0.10.2, every pattern); from f32 and f64 it gives the quiet NaN with the
     * sign, as {@link #encode} does. torch gives {@code 0x7f} with the sign, ml_dtypes {@code 0x7e}.
     * The copy engine and {@code run}'s convert both follow it.
     */
    public static final int E5M2_NAN_FROM_NARROW = 0x7f;

    /** {@return whether XLA converts a NaN of type {@code from} to f8e5m2 as {@link #E5M2_NAN_FROM_NARROW}} */
    public static boolean e5m2NanFromNarrow(DType from) {
        return from.kind() == DType.Kind.FLOAT && from != DType.F32
                && from != DType.F64;
    }

    public static final MiniFloat F16 = new MiniFloat("f16", 5, 10, 15, Top.IEEE);
    public static final MiniFloat BF16 = new MiniFloat("bf16", 8, 7, 127, Top.IEEE);
    public static final MiniFloat F8E5M2 = new MiniFloat("f8e5m2", 5, 2, 15, Top.IEEE);
    public static final MiniFloat F8E4M3 = new MiniFloat("f8e4m3", 4, 3, 7, Top.IEEE);
    public static final MiniFloat F8E3M4 = new MiniFloat("f8e3m4", 3, 4, 3, Top.IEEE);
    public static final MiniFloat F8E4M3FN = new MiniFloat("f8e4m3fn", 4, 3, 7, Top.FN);
    public static final MiniFloat F8E4M3FNUZ = new MiniFloat("f8e4m3fnuz", 4, 3, 8, Top.FNUZ);
    public static final MiniFloat F8E4M3B11FNUZ = new MiniFloat("f8e4m3b11fnuz", 4, 3, 11, Top.FNUZ);
    public static final MiniFloat F8E5M2FNUZ = new MiniFloat("f8e5m2fnuz", 5, 2, 16, Top.FNUZ);
    public static final MiniFloat F6E3M2FN = new MiniFloat("f6e3m2fn", 3, 2, 3, Top.NONE);
    public static final MiniFloat F6E2M3FN = new MiniFloat("f6e2m3fn", 2, 3, 1, Top.NONE);
    public static final MiniFloat F4E2M1FN = new MiniFloat("f4e2m1fn", 2, 1, 1, Top.NONE);
    /** Every format above. */
    public static final List<MiniFloat> ALL = List.of(F16, BF16, F8E5M2, F8E4M3, F8E3M4, F8E4M3FN, F8E4M3FNUZ,
            F8E4M3B11FNUZ, F8E5M2FNUZ, F6E3M2FN, F6E2M3FN, F4E2M1FN);

    private static final int FLOAT_QUIET_NAN = 0x7fc0_0000;

    private final String name;
    private final int e;
    private final int m;
    private final int bias;
    private final Top top;
    private final int signBit;
    private final int maxFinite;
    private final int canonicalNan;
    private final Rounding rounding;

    /**
     * The constants {@link #encode(float)} rounds with, for loops that encode many values at once
     * (the copy engine's vector kernel): the float bits of the smallest normal value, the shift
     * from float's 23 mantissa bits to {@code m}, half a quantum less one, the exponent-bias
     * difference already shifted into place, the subnormal magic (a power of two whose float ulp
     * is the subnormal quantum), the largest finite pattern and the sign bit.
     */
    public record Rounding(int minNormalBits, int shift, int roundHalf, int rebias, float subnormalMagic,
                           int maxFinite, int signBit) {
    }

    private MiniFloat(String name, int e, int m, int bias, Top top) {
        this.name = name;
        this.e = e;
        this.m = m;
        this.bias = bias;
        this.top = top;
        this.signBit = 1 << (e + m);
        int magnitudeMask = signBit - 1;
        this.maxFinite = switch (top) {
            case IEEE -> (((1 << e) - 1) << m) - 1;
            case FN -> magnitudeMask - 1;
            case FNUZ, NONE -> magnitudeMask;
        };
        this.canonicalNan = switch (top) {
            case IEEE -> (((1 << e) - 1) << m) | (1 << (m - 1));
            case FN -> magnitudeMask;
            case FNUZ -> signBit;
            case NONE -> -1;
        };
        int emin = 1 - bias;
        this.rounding = new Rounding(Float.floatToRawIntBits(Math.scalb(1f, emin)), 23 - m, (1 << (22 - m)) - 1,
                (127 - bias) << m, Math.scalb(1f, emin - m + 23), maxFinite, signBit);
    }

    /** {@return the constants {@link #encode(float)} rounds with} */
    public Rounding rounding() {
        return rounding;
    }

    /** {@return the format's name, e.g. {@code "f8e4m3fn"}} */
    public String name() {
        return name;
    }

    /** {@return the bits of one element, sign included} */
    @Override
    public int bits() {
        return 1 + e + m;
    }

    /**
     * {@return the bit pattern nearest to {@code x}, in the low {@link #bits()} bits}
     *
     * <p>Integer arithmetic on the float's bits, about 1 ns where the double arithmetic of
     * {@code encodeExact} takes 10. The two agree on all 2^32 patterns of every format
     * ({@code MiniFloatEncodeTest}, exhaustive with {@code -Dtensorbuf.exhaustive=true}).
     */
    @Override
    public int encode(float x) {
        int fb = Float.floatToRawIntBits(x);
        int a = fb & 0x7fff_ffff;
        if (a > 0x7f80_0000) {
            return encodeNan(fb < 0, (fb & 0x007f_ffff) >>> 13);
        }
        Rounding r = rounding;
        int pattern;
        if (a >= r.minNormalBits) {
            // Round the mantissa to m bits, ties to even; a carry moves into the exponent, as it should.
            pattern = ((a + r.roundHalf + ((a >>> r.shift) & 1)) >>> r.shift) - r.rebias;
        } else {
            // Below the normal range, where the quantum is fixed: adding a power of two whose ulp is
            // that quantum makes the FPU round to it, and the bits above it count quanta.
            pattern = Float.floatToRawIntBits(Float.intBitsToFloat(a) + r.subnormalMagic)
                    - Float.floatToRawIntBits(r.subnormalMagic);
        }
        int sign = fb < 0 ? signBit : 0;
        if (pattern > maxFinite) {
            return overflow(sign); // infinity lands here too
        }
        return pattern == 0 && top == Top.FNUZ ? 0 : sign | pattern;
    }

    /** {@return the bit pattern nearest to {@code x}, in the low {@link #bits()} bits} */
    @Override
    public int encode(double x) {
        if (this == BF16) {
            return encode((float) x);
        }
        // An f16 NaN keeps the double's top payload bits, which the float may not hold.
        return this == F16 && x != x ? encodeExact(x) : encode(FloatCodec.roundToOdd(x));
    }

    // Package-private for MiniFloatEncodeTest, which holds encode(float) to it.
    int encodeExact(double x) {
        long db = Double.doubleToRawLongBits(x);
        boolean negative = db < 0;
        if (Double.isNaN(x)) {
            return encodeNan(negative, (int) ((db & 0x000f_ffff_ffff_ffffL) >>> 42));
        }
        int sign = negative ? signBit : 0;
        double a = Math.abs(x);
        if (a == 0) {
            return top == Top.FNUZ ? 0 : sign;
        }
        int exp = Math.getExponent(a);
        int emin = 1 - bias;
        if (Double.isInfinite(a) || exp > (1 << e) - bias) {
            return overflow(sign);
        }
        // Quantum of the target at this binade; subnormal targets share the quantum of emin.
        int q = Math.max(exp, emin) - m;
        double scaled = Math.scalb(a, -q);
        double floor = Math.floor(scaled);
        double rest = scaled - floor;
        int pattern = ((Math.max(exp, emin) + bias - 1) << m) + (int) floor;
        if (rest > 0.5 || (rest == 0.5 && (pattern & 1) == 1)) {
            pattern++;
        }
        if (pattern > maxFinite) {
            return overflow(sign);
        }
        if (pattern == 0 && top == Top.FNUZ) {
            return 0;
        }
        return sign | pattern;
    }

    private int overflow(int sign) {
        return switch (top) {
            case IEEE -> sign | (((1 << e) - 1) << m);
            case FN -> sign | canonicalNan;
            case FNUZ -> canonicalNan;
            case NONE -> sign | maxFinite;
        };
    }

    /** @param payload10 the top ten bits of the input's NaN payload (used by f16 only) */
    private int encodeNan(boolean negative, int payload10) {
        int sign = negative ? signBit : 0;
        if (this == F16) {
            // The payload's top bits, quieted: what the hardware conversion behind the dense copies gives.
            return sign | 0x7e00 | payload10;
        }
        return switch (top) {
            case IEEE, FN -> sign | canonicalNan;
            case FNUZ -> canonicalNan;
            case NONE -> negative ? 0 : signBit;
        };
    }

    /** {@return the value of the low {@link #bits()} bits of {@code pattern}; higher bits are ignored} */
    @Override
    public float decode(int pattern) {
        int p = pattern & ((signBit << 1) - 1);
        boolean negative = (p & signBit) != 0;
        int magnitude = p & (signBit - 1);
        int expField = magnitude >>> m;
        int mantissa = magnitude & ((1 << m) - 1);
        boolean nan = switch (top) {
            case IEEE -> expField == (1 << e) - 1 && mantissa != 0;
            case FN -> magnitude == signBit - 1;
            case FNUZ -> p == signBit;
            case NONE -> false;
        };
        if (nan) {
            if (this == BF16) {
                return Float.intBitsToFloat(p << 16);
            }
            int sign = negative && top != Top.FNUZ ? 0x8000_0000 : 0;
            if (this == F16) {
                return Float.intBitsToFloat(sign | FLOAT_QUIET_NAN | (mantissa << 13));
            }
            return Float.intBitsToFloat(sign | FLOAT_QUIET_NAN);
        }
        if (top == Top.IEEE && expField == (1 << e) - 1) {
            return negative ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
        }
        double value = expField == 0
                ? Math.scalb((double) mantissa, 1 - bias - m)
                : Math.scalb((double) ((1 << m) | mantissa), expField - bias - m);
        return (float) (negative ? -value : value);
    }

    @Override
    public String toString() {
        return name;
    }
}
