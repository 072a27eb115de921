package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.MiniFloat;

import java.lang.foreign.MemorySegment;

/**
 * Moves one value between two types through {@link ElementAccess}, by element index: integers
 * exactly (out of range throws), floats rounded to nearest even (64-bit integers to f32 once, as
 * NumPy rounds them), floats to integers
 * truncated toward zero (NaN, infinities and out-of-range values throw), anything to
 * {@code pred} as {@code value != 0}; real values to complex ones with a zero imaginary part,
 * complex to complex part by part. The slow, general path of conversion and gather.
 */
final class ValueMover {
    private ValueMover() {
    }

    static void run(MemorySegment s, long so, long ss, ElementAccess sa, MemorySegment d, long dO, long ds,
                    ElementAccess da, long n) {
        int sw = sa.type().byteWidth();
        int dw = da.type().byteWidth();
        for (long i = 0; i < n; i++) {
            move(s, (so + i * ss) / sw, sa, d, (dO + i * ds) / dw, da);
        }
    }

    /**
     * {@return {@code v}, an element of type {@code from}, truncated toward zero, as the bits of
     * integer type {@code to}}
     *
     * @throws RefusedValue for NaN, infinities and values outside a 64-bit range (narrower types
     *     check their own range when set), naming {@code to}'s range
     */
    static long toInteger(double v, DType from, DType to) {
        boolean u64 = to == DType.U64;
        if (Double.isNaN(v)) {
            throw new RefusedValue("NaN", Errors.nanOutOfIntegerRange(to));
        }
        if (Double.isInfinite(v) || v >= (u64 ? 0x1p64 : 0x1p63) || v < -0x1p63 || u64 && v <= -1) {
            throw refused(shown(v, from), to, null);
        }
        // u64 holds [2^63, 2^64) too: those bits as a long are negative, so shift by 2^63 first.
        return v >= 0x1p63 ? (long) (v - 0x1p63) ^ Long.MIN_VALUE : (long) v;
    }

    private static RefusedValue refused(String value, DType to, IllegalArgumentException cause) {
        return new RefusedValue(value, Errors.valueOutOfIntegerRange(value, to, cause));
    }

    /** {@return {@code v} as its source type prints it: -2.7 for an f32, not -2.700000047683716} */
    private static String shown(double v, DType from) {
        return from.byteWidth() <= 4 && from.kind() == DType.Kind.FLOAT ? Float.toString((float) v) : Double.toString(v);
    }

    /**
     * Moves element {@code si} of {@code s} to element {@code di} of {@code d}.
     *
     * @throws RefusedValue for a value {@code da}'s type cannot hold; {@code d} is left as it was
     */
    static void move(MemorySegment s, long si, ElementAccess sa, MemorySegment d, long di, ElementAccess da) {
        DType from = sa.type();
        DType to = da.type();
        if (from == to) {
            if (from == DType.C128) {
                MemorySegment.copy(s, si * 16, d, di * 16, 16);
            } else {
                da.setBits(d, di, sa.getBits(s, si));
            }
            return;
        }
        if (to.kind() == DType.Kind.COMPLEX) {
            // CopyPlan lets complex values reach only complex types: the imaginary part has nowhere else to go.
            boolean complex = from.kind() == DType.Kind.COMPLEX;
            if (to == DType.C64 && (from == DType.F32 || from == DType.BF16)) {
                // As a float all the way, as XLA keeps them: through a double, a signalling NaN
                // (bf16 0x7f81) came back quiet. XLA quiets f16's, which the double does too.
                da.setComplexFloat(d, di, sa.getFloat(s, si), 0f);
                return;
            }
            double real = complex ? sa.getReal(s, si) : to == DType.C64 ? sa.getFloat(s, si) : sa.getDouble(s, si);
            da.setComplex(d, di, real, complex ? sa.getImag(s, si) : 0);
            return;
        }
        boolean fromInt = from.kind() != DType.Kind.FLOAT;
        boolean toInt = to.kind() != DType.Kind.FLOAT;
        if (to == DType.PRED) {
            da.setLong(d, di, fromInt ? (sa.getLong(s, si) != 0 ? 1 : 0) : (sa.getDouble(s, si) != 0 ? 1 : 0));
        } else if (fromInt && toInt) {
            if (from == DType.U64 && sa.getLong(s, si) < 0) {
                throw refused(Long.toUnsignedString(sa.getLong(s, si)), to, null);
            }
            long v = sa.getLong(s, si);
            if (to == DType.U64 && v < 0) {
                throw refused(String.valueOf(v), to, null);
            }
            try {
                da.setLong(d, di, v);
            } catch (IllegalArgumentException outOfRange) {
                throw refused(String.valueOf(v), to, outOfRange);
            }
        } else if (toInt) {
            // Errors name the value the source holds (-2.7), not a widened double or the truncated
            // value the setter saw (-2).
            double v = sa.getDouble(s, si);
            long whole = toInteger(v, from, to);
            try {
                da.setLong(d, di, whole);
            } catch (IllegalArgumentException outOfRange) {
                throw refused(shown(v, from), to, outOfRange);
            }
        } else if (to == DType.F32) {
            da.setFloat(d, di, sa.getFloat(s, si));
        } else if (to == DType.F8E5M2 && MiniFloat.e5m2NanFromNarrow(from) && Float.isNaN(sa.getFloat(s, si))) {
            da.setBits(d, di, MiniFloat.E5M2_NAN_FROM_NARROW);
        } else {
            da.setDouble(d, di, sa.getDouble(s, si));
        }
    }
}
