package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * Reads one float literal as XLA prints it ({@code 1.5}, {@code -0}, {@code 4.94065645841247e-324},
 * {@code inf}, {@code -inf}, {@code nan}, {@code -nan}) as a value of a float type, rounded once
 * from the decimal to the type: the one reader behind HLO constants ({@code exec.internal.Literals})
 * and the constants of an epilogue's text ({@link PointwiseSyntax}), so both read a spelling alike.
 * {@snippet :
 * ScalarLiteral.parse("1.00048828125000001", DType.F16);  // 1.0009765625: just above the midpoint of 1 and its successor
 * ScalarLiteral.parse("-0", DType.F32);                    // -0.0
 * ScalarLiteral.parse("70000", DType.F16);                 // IllegalArgumentException: value 70000 is out of range for f16, namely [-65504, 65504]
 * ScalarLiteral.parse("1f", DType.F32);                    // NumberFormatException: '1f' is not a f32 literal ...
 * }
 * The decimal is read to the nearest double, and where that double could be a rounding midpoint
 * of a narrower type (it has 25 significant bits or fewer) it is compared with the exact decimal
 * and moved one ulp towards it: the double is then the decimal rounded to odd, whose rounding to
 * any type of 24 significant bits or fewer is the decimal's own rounding. Java spellings
 * ({@code 1f}, {@code 0x1p3}, {@code Infinity}, {@code NaN}) are refused, as XLA writes none of them.
 */
public final class ScalarLiteral {
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    /** The negative quiet NaN that XLA writes for {@code -nan} (x86's default NaN, printed so). */
    public static final double NEGATIVE_NAN = Double.longBitsToDouble(0xfff8000000000000L);

    private ScalarLiteral() {
    }

    /**
     * {@return {@code text} as a value of the float type {@code type}: a double holding exactly
     * the type's value nearest to the decimal (ties to even)} {@code -0} is negative zero,
     * {@code -nan} the NaN with the sign bit set ({@link #NEGATIVE_NAN}).
     *
     * @throws NumberFormatException if {@code text} is not a decimal number, {@code inf} or {@code nan}
     * @throws IllegalArgumentException naming the literal and the type, for a NaN payload or a finite
     *     value out of the type's range: one that rounds to infinity (or NaN, in a type without
     *     infinities), either rounded once or as XLA judges it, its double cast to the type
     *     ({@code f32 3.4028235677973366e38} is refused: its double is the midpoint above f32's largest)
     */
    public static double parse(String text, DType type) {
        if (type.kind() != DType.Kind.FLOAT) {
            throw new IllegalArgumentException("a float literal is read as a float type, not " + type);
        }
        switch (text) {
            case "inf", "+inf" -> {
                return Double.POSITIVE_INFINITY;
            }
            case "-inf" -> {
                return Double.NEGATIVE_INFINITY;
            }
            case "nan", "+nan" -> {
                return Double.NaN;
            }
            case "-nan" -> {
                // -Double.NaN is Double.NaN: negation of a NaN constant need not set its sign.
                return NEGATIVE_NAN;
            }
            default -> {
            }
        }
        if (text.startsWith("nan(") || text.startsWith("-nan(") || text.startsWith("+nan(")) {
            throw new IllegalArgumentException("NaN payloads such as '" + text + "' are not supported");
        }
        if (!DECIMAL.matcher(text).matches()) {
            throw new NumberFormatException("'" + text + "' is not a " + type + " literal: expected a decimal number"
                    + " (digits, a point, an exponent), inf or nan");
        }
        // "-0" is -0: XLA prints negative zero so (jax's jnp.pad(x, 1, constant_values=-0.0) has
        // constant(-0)), and parseDouble keeps the sign.
        double nearest = Double.parseDouble(text);
        if (Double.isInfinite(nearest)) {
            throw outOfRange(text, type);
        }
        if (type == DType.F64) {
            return nearest;
        }
        double odd = towardsDecimal(nearest, text);
        double value = type == DType.F32 ? (float) odd : narrow(type, roundToOdd(odd));
        if (Double.isFinite(value) && Math.abs(value) < largest(type)) {
            return value; // the common case costs a compare
        }
        // XLA casts the nearest double to the type: at the top of the range it may round up where
        // the decimal rounded once does not.
        double judged = type == DType.F32 ? (float) nearest : narrow(type, (float) nearest);
        if (!Double.isFinite(value) || !Double.isFinite(judged)) {
            throw outOfRange(text, type);
        }
        return value;
    }

    /**
     * {@return {@code nearest} (the double nearest to the decimal {@code text}) moved one ulp
     * towards the decimal where it is inexact and could be a midpoint of f32 or a narrower type}
     */
    private static double towardsDecimal(double nearest, String text) {
        long bits = Double.doubleToRawLongBits(nearest);
        long significand = (bits & 0x000f_ffff_ffff_ffffL) | ((bits & 0x7ff0_0000_0000_0000L) == 0 ? 0 : 1L << 52);
        if (significand == 0 || 53 - Long.numberOfTrailingZeros(significand) > 25) {
            return nearest; // zero, or more bits than any midpoint of a 24-bit type has: rounds as the decimal
        }
        BigDecimal exact;
        try {
            exact = new BigDecimal(text);
        } catch (NumberFormatException exponentBeyondAnInt) {
            return nearest; // so far from 1 that the double is 0 or infinite, which is judged above
        }
        int c = exact.compareTo(new BigDecimal(nearest));
        return c > 0 ? Math.nextUp(nearest) : c < 0 ? Math.nextDown(nearest) : nearest;
    }

    /** {@return the float next to {@code x} towards zero, its last bit set, where {@code x} is not a float} */
    private static float roundToOdd(double x) {
        float f = (float) x;
        if (f == x) {
            return f;
        }
        int bits = Float.floatToRawIntBits(f);
        if (Math.abs((double) f) > Math.abs(x)) {
            bits--; // rounded away from zero (to infinity, say): the float below in magnitude
        }
        return Float.intBitsToFloat(bits | 1);
    }

    /** {@return {@code f} rounded to the narrow float type {@code t} (nearest, ties to even), as a double} */
    private static double narrow(DType t, float f) {
        ElementAccess a = ElementAccess.of(t);
        MemorySegment one = MemorySegment.ofArray(new long[1]);
        a.setFloat(one, 0, f);
        return a.getDouble(one, 0);
    }

    /** Each narrow type's finite range, read off its patterns once: a literal may have millions of elements. */
    private static final java.util.Map<DType, double[]> RANGES = new java.util.concurrent.ConcurrentHashMap<>();

    /** {@return the largest finite value of {@code t}} */
    private static double largest(DType t) {
        return switch (t) {
            case F64 -> Double.MAX_VALUE;
            case F32 -> Float.MAX_VALUE;
            default -> RANGES.computeIfAbsent(t, ScalarLiteral::patternsRange)[1];
        };
    }

    private static IllegalArgumentException outOfRange(String text, DType t) {
        double[] range = finiteRange(t);
        return new IllegalArgumentException("value " + text + " is out of range for " + t + ", namely ["
                + shortG(range[0]) + ", " + shortG(range[1]) + "]");
    }

    /** {@return {@code %g} as C prints it, without trailing zeros: 448, 3.40282e+38} */
    private static String shortG(double d) {
        return String.format("%g", d).replaceFirst("\\.?0+(?=e|$)", "");
    }

    /**
     * {@return the lowest and highest finite values of a float type} Read off every bit pattern of
     * the narrow ones: f8e8m0fnu has no sign, so its lowest is not minus its highest.
     */
    static double[] finiteRange(DType t) {
        if (t == DType.F64) {
            return new double[] {-Double.MAX_VALUE, Double.MAX_VALUE};
        }
        if (t == DType.F32) {
            return new double[] {-Float.MAX_VALUE, Float.MAX_VALUE};
        }
        return RANGES.computeIfAbsent(t, ScalarLiteral::patternsRange).clone();
    }

    private static double[] patternsRange(DType t) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        ElementAccess a = ElementAccess.of(t);
        MemorySegment one = MemorySegment.ofArray(new long[1]);
        for (long bits = 0; bits < 1L << t.bitWidth(); bits++) {
            a.setBits(one, 0, bits);
            double d = a.getDouble(one, 0);
            if (Double.isFinite(d)) {
                min = Math.min(min, d);
                max = Math.max(max, d);
            }
        }
        return new double[] {min, max};
    }
}
