package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;

/**
 * XLA's {@code convert}, element by element into new memory, with XLA's CPU semantics (checked
 * against jaxlib 0.10.2): float to integer truncates toward zero and saturates, NaN gives 0;
 * integer to integer keeps the low bits (two's complement wrap); anything to {@code pred} is
 * {@code x != 0} (NaN is true); float to float rounds to nearest even (ElementAccess, ml_dtypes'
 * NaN and overflow rules); integer to {@code f32} is rounded once. Integers past 2^53 going to a
 * float type other than {@code f32}/{@code f64} pass through a double first, which may round twice.
 */
public final class Conversions {
    private static final double TWO_63 = 0x1p63;
    private static final double TWO_64 = 0x1p64;

    private Conversions() {
    }

    /**
     * {@return {@code src} converted to {@code shape}'s type, in new memory laid out by {@code shape}}
     *
     * @throws IllegalArgumentException for complex types on either side, or dims that differ
     */
    public static TensorView convert(TensorView src, ArrayShape shape, Allocator allocator) {
        if (!src.dims().equals(shape.dims())) {
            throw new IllegalArgumentException("convert of " + src + " to " + shape + ": dims differ");
        }
        DType from = src.dtype();
        DType to = shape.dtype();
        if (!isReal(from) || !isReal(to)) {
            throw new IllegalArgumentException("convert from " + from + " to " + to
                    + " is not supported: only pred, integer and real floating-point types convert");
        }
        TensorView dst = Materialize.allocate(shape, allocator);
        boolean fromFloat = from.kind() == DType.Kind.FLOAT;
        switch (to.kind()) {
            case BOOLEAN -> src.forEachIndex(i -> dst.setBits(
                    (fromFloat ? src.getDouble(i) != 0 : src.getLong(i) != 0) ? 1 : 0, i));
            case SIGNED, UNSIGNED -> {
                long mask = to.bitWidth() == 64 ? -1L : (1L << to.bitWidth()) - 1;
                if (fromFloat) {
                    src.forEachIndex(i -> dst.setBits(saturate(src.getDouble(i), to) & mask, i));
                } else {
                    src.forEachIndex(i -> dst.setBits(src.getLong(i) & mask, i));
                }
            }
            case FLOAT -> {
                if (to == DType.F32 && !fromFloat) {
                    boolean unsigned64 = from == DType.U64;
                    src.forEachIndex(i -> dst.setFloat(toFloat(src.getLong(i), unsigned64), i));
                } else {
                    src.forEachIndex(i -> dst.setDouble(src.getDouble(i), i));
                }
            }
            case COMPLEX, NONE -> throw new AssertionError(to);
        }
        return dst;
    }

    private static boolean isReal(DType t) {
        return switch (t.kind()) {
            case BOOLEAN, SIGNED, UNSIGNED, FLOAT -> true;
            case COMPLEX, NONE -> false;
        };
    }

    /** {@return the integer bits XLA gives for a float: truncated, clamped to the type, NaN as 0} */
    static long saturate(double v, DType to) {
        if (Double.isNaN(v)) {
            return 0;
        }
        double t = v < 0 ? Math.ceil(v) : Math.floor(v);
        int bits = to.bitWidth();
        if (to.kind() == DType.Kind.UNSIGNED) {
            if (t <= 0) {
                return 0;
            }
            if (bits == 64) {
                if (t >= TWO_64) {
                    return -1L;
                }
                return t >= TWO_63 ? (long) (t - TWO_63) ^ Long.MIN_VALUE : (long) t;
            }
            long max = (1L << bits) - 1;
            return t >= max ? max : (long) t;
        }
        long min = -1L << (bits - 1);
        long max = ~min;
        if (t <= min) {
            return min;
        }
        return t >= max ? max : (long) t;
    }

    /** {@return the integer rounded once to float; {@code u64} bits read unsigned} */
    static float toFloat(long v, boolean unsigned64) {
        if (!unsigned64 || v >= 0) {
            return v;
        }
        // Halve keeping the lost bit as a sticky bit, so the only rounding is the conversion's.
        return ((float) ((v >>> 1) | (v & 1))) * 2f;
    }
}
