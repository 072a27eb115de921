package dev.tensorbuf.ops.copy.internal;

import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.B;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.D;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.F;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.FHALF;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.I;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.IHALF;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.L;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.ORDER;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.S;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.SHALF;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;

/**
 * {@link DenseConvert}'s Vector API loops: one pair each, from segment to segment over a dense
 * run, for the pairs whose plain loop C2 leaves scalar or slow (element widths that differ, a
 * range check). Each returns how many elements it converted; the caller converts the rest. Those
 * with a range stop before the vector holding a value out of it, so that the chunk path meets that
 * value and reports it. A loop shared by several pairs, its load and store chosen by type inside,
 * has its vectors boxed once it has seen several pairs and runs 4-6 times slower
 * ({@code bench/experiments/GenericLoop.java}): hence one loop a pair, and one a store width.
 * {@snippet :
 * long done = VectorDenseConvert.s32ToF64(src, 0, dst, 0, n); // a whole number of vectors
 * }
 */
final class VectorDenseConvert {
    private VectorDenseConvert() {
    }

    /**
     * Dense s8, u8 or pred -> f32 as {@code fma(min(byte & mask, cap), scale, bias)}, from segment
     * to segment in one loop (the plain loop stays scalar: C2 does not widen bytes). u8 is mask
     * 0xff, s8 mask -1, and pred mask 0xff with cap 1, so that any non-zero byte reads as 1; the
     * others have no cap ({@code Integer.MAX_VALUE}). {@return the elements done; the caller does the rest}
     */
    static long bytesToF32(MemorySegment s, long so, MemorySegment d, long dO, long n, int mask, int cap, float scale,
                           float bias) {
        long i = 0;
        for (; i <= n - F.length(); i += F.length()) {
            FloatVector x = ((IntVector) ByteVector.fromMemorySegment(B, s, so + i, ORDER).convertShape(VectorOperators.B2I, I, 0))
                    .and(mask).min(cap).convert(VectorOperators.I2F, 0).reinterpretAsFloats();
            x.fma(scale, bias).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense s8, u8 or pred -> s32 as {@code min(byte & mask, cap)} (see {@link #bytesToF32}), from
     * segment to segment. {@return the elements done: all that fit whole vectors}
     */
    static long bytesToS32(MemorySegment s, long so, MemorySegment d, long dO, long n, int mask, int cap) {
        long i = 0;
        for (; i <= n - I.length(); i += I.length()) {
            ((IntVector) ByteVector.fromMemorySegment(B, s, so + i, ORDER).convertShape(VectorOperators.B2I, I, 0))
                    .and(mask).min(cap).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense s16 or u16 -> s32 as {@code short & mask}: -1 keeps
     * s16's sign, 0xffff reads u16. {@return the elements done: all that fit whole vectors}
     */
    static long shortsToS32(MemorySegment s, long so, MemorySegment d, long dO, long n, int mask) {
        long i = 0;
        for (; i <= n - I.length(); i += I.length()) {
            ((IntVector) ShortVector.fromMemorySegment(S, s, so + 2 * i, ORDER).convertShape(VectorOperators.S2I, I, 0))
                    .and(mask).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /** Dense s16 or u16 -> f32 as {@code short & mask}, exactly (see {@link #shortsToS32}). {@return the elements done} */
    static long shortsToF32(MemorySegment s, long so, MemorySegment d, long dO, long n, int mask) {
        long i = 0;
        for (; i <= n - I.length(); i += I.length()) {
            ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(S, s, so + 2 * i, ORDER).convertShape(VectorOperators.S2I, I, 0))
                    .and(mask).convert(VectorOperators.I2F, 0)).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense f32 -> an integer of {@code width} bytes (1, 2 or 4), truncated toward zero, from
     * segment to segment, while every value lies strictly between {@code above} and {@code below}.
     * {@return the elements done: all that fit whole vectors, or up to the vector holding the first
     * value out of range} The caller converts the rest, and reports that value.
     */
    static long f32ToInts(MemorySegment s, long so, MemorySegment d, long dO, long n, float above, float below, int width) {
        // One loop per width: a vector merged from branches of one loop is boxed.
        return switch (width) {
            case 1 -> f32ToBytes(s, so, d, dO, n, above, below);
            case 2 -> f32ToShorts(s, so, d, dO, n, above, below);
            default -> f32ToWords(s, so, d, dO, n, above, below);
        };
    }

    private static long f32ToBytes(MemorySegment s, long so, MemorySegment d, long dO, long n, float above, float below) {
        long i = 0;
        for (; i <= n - F.length(); i += F.length()) {
            FloatVector x = FloatVector.fromMemorySegment(F, s, so + 4 * i, ORDER);
            if (!x.compare(VectorOperators.GT, above).and(x.compare(VectorOperators.LT, below)).allTrue()) {
                break;
            }
            ((ByteVector) x.convert(VectorOperators.F2I, 0).convertShape(VectorOperators.I2B, B, 0)).intoMemorySegment(d, dO + i, ORDER);
        }
        return i;
    }

    private static long f32ToShorts(MemorySegment s, long so, MemorySegment d, long dO, long n, float above, float below) {
        long i = 0;
        for (; i <= n - F.length(); i += F.length()) {
            FloatVector x = FloatVector.fromMemorySegment(F, s, so + 4 * i, ORDER);
            if (!x.compare(VectorOperators.GT, above).and(x.compare(VectorOperators.LT, below)).allTrue()) {
                break;
            }
            ((ShortVector) x.convert(VectorOperators.F2I, 0).convertShape(VectorOperators.I2S, S, 0))
                    .intoMemorySegment(d, dO + 2 * i, ORDER);
        }
        return i;
    }

    private static long f32ToWords(MemorySegment s, long so, MemorySegment d, long dO, long n, float above, float below) {
        long i = 0;
        for (; i <= n - F.length(); i += F.length()) {
            FloatVector x = FloatVector.fromMemorySegment(F, s, so + 4 * i, ORDER);
            if (!x.compare(VectorOperators.GT, above).and(x.compare(VectorOperators.LT, below)).allTrue()) {
                break;
            }
            ((IntVector) x.convert(VectorOperators.F2I, 0)).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense bf16 -> s32, truncated toward zero, from segment to segment while every value lies
     * strictly between {@code above} and {@code below} (s32's bounds rounded outward to floats, as
     * for {@link #f32ToInts}). {@return the elements done: all that fit whole vectors, or up to the
     * vector holding the first value out of range}
     */
    static long bf16ToS32(MemorySegment s, long so, MemorySegment d, long dO, long n, float above, float below) {
        long i = 0;
        for (; i <= n - F.length(); i += F.length()) {
            FloatVector x = ((IntVector) ShortVector.fromMemorySegment(S, s, so + 2 * i, ORDER).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            if (!x.compare(VectorOperators.GT, above).and(x.compare(VectorOperators.LT, below)).allTrue()) {
                break;
            }
            ((IntVector) x.convert(VectorOperators.F2I, 0)).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense f64 -> s64, truncated toward zero, from segment to segment while every value lies in
     * [-2^63, 2^63) (NaN does not). {@return the elements done: all that fit whole vectors, or up
     * to the vector holding the first value out of range}
     */
    static long f64ToS64(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - D.length(); i += D.length()) {
            DoubleVector x = DoubleVector.fromMemorySegment(D, s, so + 8 * i, ORDER);
            if (!x.compare(VectorOperators.GE, -0x1p63).and(x.compare(VectorOperators.LT, 0x1p63)).allTrue()) {
                break;
            }
            ((LongVector) x.convert(VectorOperators.D2L, 0)).intoMemorySegment(d, dO + 8 * i, ORDER);
        }
        return i;
    }

    /** {@link #f64ToS64} from f32: the same bounds, which are exact floats. */
    static long f32ToS64(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - L.length(); i += L.length()) {
            FloatVector x = FloatVector.fromMemorySegment(FHALF, s, so + 4 * i, ORDER);
            if (!x.compare(VectorOperators.GE, -0x1p63f).and(x.compare(VectorOperators.LT, 0x1p63f)).allTrue()) {
                break;
            }
            ((LongVector) x.convertShape(VectorOperators.F2L, L, 0)).intoMemorySegment(d, dO + 8 * i, ORDER);
        }
        return i;
    }

    /** Dense s32 -> f32, rounded once to nearest even above 2^24. {@return the elements done: all that fit whole vectors} */
    static long s32ToF32(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - I.length(); i += I.length()) {
            ((FloatVector) IntVector.fromMemorySegment(I, s, so + 4 * i, ORDER).convert(VectorOperators.I2F, 0))
                    .intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /** Dense bf16 -> f32, exactly (NaN payloads kept). {@return the elements done: all that fit whole vectors} */
    static long bf16ToF32(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - I.length(); i += I.length()) {
            ((IntVector) ShortVector.fromMemorySegment(S, s, so + 2 * i, ORDER).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense f64 -> s32, truncated toward zero, from segment to segment while every value lies
     * strictly between -2^31 - 1 and 2^31 (exact doubles; NaN does not). {@return the elements
     * done: all that fit whole vectors, or up to the vector holding the first value out of range}
     */
    static long f64ToS32(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        double above = Integer.MIN_VALUE - 1.0;
        double below = Integer.MAX_VALUE + 1.0;
        long i = 0;
        for (; i <= n - D.length(); i += D.length()) {
            DoubleVector x = DoubleVector.fromMemorySegment(D, s, so + 8 * i, ORDER);
            if (!x.compare(VectorOperators.GT, above).and(x.compare(VectorOperators.LT, below)).allTrue()) {
                break;
            }
            ((IntVector) x.convertShape(VectorOperators.D2I, IHALF, 0)).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense u32 -> f32, rounded once to nearest even: the high and low halves are exact floats,
     * and so is the high half times 2^16, so only their sum rounds. {@return the elements done:
     * all that fit whole vectors}
     */
    static long u32ToF32(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - I.length(); i += I.length()) {
            IntVector x = IntVector.fromMemorySegment(I, s, so + 4 * i, ORDER);
            FloatVector hi = (FloatVector) x.lanewise(VectorOperators.LSHR, 16).convert(VectorOperators.I2F, 0);
            FloatVector lo = (FloatVector) x.and(0xffff).convert(VectorOperators.I2F, 0);
            hi.mul(65536f).add(lo).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /** Dense s64 -> f32, rounded once to nearest even. {@return the elements done: all that fit whole vectors} */
    static long s64ToF32(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - L.length(); i += L.length()) {
            ((FloatVector) LongVector.fromMemorySegment(L, s, so + 8 * i, ORDER).convertShape(VectorOperators.L2F, FHALF, 0))
                    .intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /** Dense s32 -> f64, exactly, from segment to segment. {@return the elements done: all that fit whole vectors} */
    static long s32ToF64(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - D.length(); i += D.length()) {
            ((DoubleVector) IntVector.fromMemorySegment(IHALF, s, so + 4 * i, ORDER).convertShape(VectorOperators.I2D, D, 0))
                    .intoMemorySegment(d, dO + 8 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense s64 -> f64, rounded once to nearest even beyond 2^53, from segment to segment.
     * {@return the elements done: all that fit whole vectors}
     */
    static long s64ToF64(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - L.length(); i += L.length()) {
            ((DoubleVector) LongVector.fromMemorySegment(L, s, so + 8 * i, ORDER).convert(VectorOperators.L2D, 0))
                    .intoMemorySegment(d, dO + 8 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense s64 -> s32 from segment to segment while every value fits. {@return the elements done:
     * all that fit whole vectors, or up to the vector holding the first value out of range}
     */
    static long s64ToS32(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - L.length(); i += L.length()) {
            LongVector x = LongVector.fromMemorySegment(L, s, so + 8 * i, ORDER);
            if (!x.compare(VectorOperators.GE, Integer.MIN_VALUE).and(x.compare(VectorOperators.LE, Integer.MAX_VALUE)).allTrue()) {
                break;
            }
            ((IntVector) x.convertShape(VectorOperators.L2I, IHALF, 0)).intoMemorySegment(d, dO + 4 * i, ORDER);
        }
        return i;
    }

    /** Dense s32 -> s64 from segment to segment. {@return the elements done: all that fit whole vectors} */
    static long s32ToS64(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - L.length(); i += L.length()) {
            ((LongVector) IntVector.fromMemorySegment(IHALF, s, so + 4 * i, ORDER).convertShape(VectorOperators.I2L, L, 0))
                    .intoMemorySegment(d, dO + 8 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense f64 -> bf16 through float, as {@link dev.tensorbuf.views.internal.FloatCodec#encode(double)}
     * goes: rounded to float, then to bf16 as {@link #f32ToBf16} rounds. {@return the elements
     * done: all that fit whole vectors, or none where a vector of doubles has fewer than four lanes}
     */
    static long f64ToBf16(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        if (SHALF.length() != D.length()) {
            return 0;
        }
        long i = 0;
        for (; i <= n - D.length(); i += D.length()) {
            FloatVector x = (FloatVector) DoubleVector.fromMemorySegment(D, s, so + 8 * i, ORDER).convertShape(VectorOperators.D2F, FHALF, 0);
            IntVector v = VectorMiniFloat.bf16(x.reinterpretAsInts());
            ((ShortVector) v.convertShape(VectorOperators.I2S, SHALF, 0)).intoMemorySegment(d, dO + 2 * i, ORDER);
        }
        return i;
    }

    /**
     * Dense f32 -> bf16, rounded to nearest even, NaN to the quiet NaN with its sign (as
     * {@link ConvertKernel#bf16}), in one loop. {@return the elements done; the caller does the rest}
     */
    static long f32ToBf16(MemorySegment s, long so, MemorySegment d, long dO, long n) {
        long i = 0;
        for (; i <= n - I.length(); i += I.length()) {
            IntVector v = VectorMiniFloat.bf16(IntVector.fromMemorySegment(I, s, so + 4 * i, ORDER));
            ((ShortVector) v.convertShape(VectorOperators.I2S, S, 0)).intoMemorySegment(d, dO + 2 * i, ORDER);
        }
        return i;
    }
}
