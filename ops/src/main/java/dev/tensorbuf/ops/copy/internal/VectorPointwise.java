package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.internal.MiniFloat;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * f32 elementwise ops over dense blocks of floats, a vector at a time, with XLA's CPU semantics as
 * the scalar evaluator ({@code exec.internal.Pointwise}) has them, bit for bit: arithmetic reads an
 * f32 denormal as a zero of its sign and stores a denormal result as one; {@code maximum} and
 * {@code minimum} give the canonical quiet NaN when either side is NaN and order -0 below +0;
 * {@code negate} and {@code abs} touch only the sign bit; conversions round to nearest even (bf16,
 * f16, NaN quieted as {@link MiniFloat} does) or truncate and saturate (u8, s8, NaN to 0).
 *
 * <p>Every array a caller passes holds at least {@code n} rounded up to {@link #PAD} elements:
 * the loops run whole vectors past {@code n} (the lanes there compute garbage no one reads), so
 * there is no scalar tail to keep in step with the vector body. Callers ask
 * {@link VectorSupport#enabled()} first: this class does not load without the module.
 */
public final class VectorPointwise {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    /** A multiple of every vector length: callers' arrays hold {@code n} rounded up to it. */
    public static final int PAD = 64;
    private static final float MIN_NORMAL = 0x1p-126f;
    private static final int SIGN = 0x8000_0000;
    private static final int CANONICAL_NAN = 0x7fc0_0000;

    /** Binary and ternary op codes, for {@link #binary} and {@link #ternary}. */
    public static final int ADD = 0;
    public static final int SUBTRACT = 1;
    public static final int MULTIPLY = 2;
    public static final int DIVIDE = 3;
    public static final int MAXIMUM = 4;
    public static final int MINIMUM = 5;
    public static final int FMA = 6;
    public static final int CLAMP = 7;

    private VectorPointwise() {
    }

    /** {@return {@code n} rounded up to {@link #PAD}: the length a block of {@code n} needs} */
    public static int padded(int n) {
        return Math.ceilDiv(n, PAD) * PAD;
    }

    /**
     * Quiets every signalling NaN of {@code x[0, n)} in place: the scalar evaluator widens each f32
     * to a double on reading, and the hardware's widening quiets it.
     */
    public static void quiet(float[] x, int n) {
        for (int i = 0; i < n; i += F.length()) {
            IntVector b = FloatVector.fromArray(F, x, i).reinterpretAsInts();
            VectorMask<Integer> nan = b.and(0x7fff_ffff).compare(VectorOperators.GT, 0x7f80_0000);
            b.blend(b.or(0x0040_0000), nan).reinterpretAsFloats().intoArray(x, i);
        }
    }

    /** {@code r = -x} ({@code negate}) or {@code |x|} ({@code abs}): the sign bit only, no flushing. */
    public static void signOp(boolean negate, float[] x, float[] r, int n) {
        for (int i = 0; i < n; i += F.length()) {
            IntVector b = FloatVector.fromArray(F, x, i).reinterpretAsInts();
            (negate ? b.lanewise(VectorOperators.XOR, SIGN) : b.and(~SIGN)).reinterpretAsFloats().intoArray(r, i);
        }
    }

    /** {@code r = x op y} for {@link #ADD} to {@link #MINIMUM}. */
    public static void binary(int op, float[] x, float[] y, float[] r, int n) {
        switch (op) {
            case ADD -> {
                for (int i = 0; i < n; i += F.length()) {
                    flush(flush(FloatVector.fromArray(F, x, i)).add(flush(FloatVector.fromArray(F, y, i)))).intoArray(r, i);
                }
            }
            case SUBTRACT -> {
                for (int i = 0; i < n; i += F.length()) {
                    flush(flush(FloatVector.fromArray(F, x, i)).sub(flush(FloatVector.fromArray(F, y, i)))).intoArray(r, i);
                }
            }
            case MULTIPLY -> {
                for (int i = 0; i < n; i += F.length()) {
                    flush(flush(FloatVector.fromArray(F, x, i)).mul(flush(FloatVector.fromArray(F, y, i)))).intoArray(r, i);
                }
            }
            case DIVIDE -> {
                for (int i = 0; i < n; i += F.length()) {
                    flush(flush(FloatVector.fromArray(F, x, i)).div(flush(FloatVector.fromArray(F, y, i)))).intoArray(r, i);
                }
            }
            case MAXIMUM, MINIMUM -> {
                boolean max = op == MAXIMUM;
                for (int i = 0; i < n; i += F.length()) {
                    maxMin(flush(FloatVector.fromArray(F, x, i)), flush(FloatVector.fromArray(F, y, i)), max).intoArray(r, i);
                }
            }
            default -> throw new IllegalArgumentException("not a binary op code: " + op);
        }
    }

    /** {@code r = fma(x, y, z)} ({@link #FMA}, one rounding) or {@code clamp(x, y, z)} ({@link #CLAMP}: low bound {@code x}, value {@code y}, high bound {@code z}). */
    public static void ternary(int op, float[] x, float[] y, float[] z, float[] r, int n) {
        if (op == FMA) {
            for (int i = 0; i < n; i += F.length()) {
                FloatVector p = flush(FloatVector.fromArray(F, x, i));
                FloatVector q = flush(FloatVector.fromArray(F, y, i));
                FloatVector s = flush(FloatVector.fromArray(F, z, i));
                flush(p.lanewise(VectorOperators.FMA, q, s)).intoArray(r, i);
            }
        } else if (op == CLAMP) {
            for (int i = 0; i < n; i += F.length()) {
                FloatVector lo = flush(FloatVector.fromArray(F, x, i));
                FloatVector v = flush(FloatVector.fromArray(F, y, i));
                FloatVector hi = flush(FloatVector.fromArray(F, z, i));
                maxMin(maxMin(v, lo, true), hi, false).intoArray(r, i);
            }
        } else {
            throw new IllegalArgumentException("not a ternary op code: " + op);
        }
    }

    /** {@return {@code v} with each denormal lane replaced by a zero of its sign} */
    private static FloatVector flush(FloatVector v) {
        VectorMask<Float> tiny = v.abs().compare(VectorOperators.LT, MIN_NORMAL);
        return v.blend(v.reinterpretAsInts().and(SIGN).reinterpretAsFloats(), tiny);
    }

    /** IEEE 754-2019 maximum/minimum: the canonical quiet NaN if either lane is NaN, -0 below +0. */
    private static FloatVector maxMin(FloatVector p, FloatVector q, boolean max) {
        FloatVector m = p.lanewise(max ? VectorOperators.MAX : VectorOperators.MIN, q);
        // The lanewise max already orders -0 below +0; its NaN's bits are whichever operand's, so
        // the canonical one the scalar evaluator gives is blended in.
        VectorMask<Float> nan = p.test(VectorOperators.IS_NAN).or(q.test(VectorOperators.IS_NAN));
        return m.blend(Float.intBitsToFloat(CANONICAL_NAN), nan);
    }

    /** Writes the bf16 patterns of {@code x[0, n)} into {@code r}'s low 16 bits: nearest even, NaN quieted with its sign. */
    public static void toBf16(float[] x, int[] r, int n) {
        for (int i = 0; i < n; i += I.length()) {
            VectorMiniFloat.bf16(FloatVector.fromArray(F, x, i).reinterpretAsInts()).intoArray(r, i);
        }
    }

    /** Writes the f16 patterns of {@code x[0, n)} into {@code r}'s low 16 bits, as {@link MiniFloat#F16} encodes them. */
    public static void toF16(float[] x, int[] r, int n) {
        VectorMiniFloat.encode(MiniFloat.F16, x, r, n);
    }

    /**
     * Writes {@code x[0, n)} truncated toward zero and saturated to {@code [lo, hi]} into
     * {@code r}, NaN as 0: XLA's float-to-integer convert into a type of at most 31 bits.
     */
    public static void toInt(float[] x, int[] r, int n, int lo, int hi) {
        for (int i = 0; i < n; i += F.length()) {
            // Java's float-to-int conversion truncates, saturates to int's range and sends NaN to 0.
            IntVector v = (IntVector) FloatVector.fromArray(F, x, i).convert(VectorOperators.F2I, 0);
            v.max(lo).min(hi).intoArray(r, i);
        }
    }
}
