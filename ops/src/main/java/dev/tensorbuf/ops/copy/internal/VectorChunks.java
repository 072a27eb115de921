package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The conversion loops C2 leaves scalar, a vector at a time. Passes over {@link ChunkConvert}'s
 * chunk arrays: bytes, shorts and ints widened, longs narrowed to ints, float and double to int
 * with their range checks, float to pred, bf16 decoded, and a chunk stored into a dense
 * destination. Loops from segment to segment for dense runs of the commonest pairs, for
 * {@link DenseConvert}: s8, u8, pred, s16 and u16 -> f32 and s32, f32 and f64 -> bf16, bf16 -> f32, f32 to the
 * integers of up to 32 bits, f64 and bf16 -> s32, f32 and f64 -> s64, s32 and u32 -> f32, s32 and
 * s64 -> f64, and s64 <-> s32; those with a range stop before a
 * vector holding a value out of it. C2's loop vectoriser (JDK 25) leaves a loop scalar when
 * its element widths differ, and a float min/max reduction too: as plain loops these passes took
 * 0.25-0.5 ns an element over 512 elements in the L1 cache, against 0.05-0.09 for same-width
 * loops such as int to float ({@code bench/experiments/ChunkPasses.java passes}).
 * {@snippet :
 * VectorChunks.widen(new byte[] {-1, 2}, out, 2, VectorChunks.Extend.UNSIGNED); // out: 255, 2
 * }
 */
final class VectorChunks {
    /** At least 8 lanes, so that bytes of as many lanes still make a vector (64 bits, the narrowest shape). */
    private static final VectorSpecies<Integer> I =
            IntVector.SPECIES_PREFERRED.length() >= 8 ? IntVector.SPECIES_PREFERRED : IntVector.SPECIES_256;
    private static final VectorSpecies<Float> F = VectorSpecies.of(float.class, I.vectorShape());
    /** Bytes and shorts with as many lanes as {@link #I}. */
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(I.length() * 8));
    private static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(I.length() * 16));
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    /** Ints with as many lanes as {@link #D} and {@link #L}. */
    private static final VectorSpecies<Integer> IHALF = VectorSpecies.of(int.class, VectorShape.forBitSize(D.length() * 32));
    private static final VectorSpecies<Float> FHALF = VectorSpecies.of(float.class, IHALF.vectorShape());
    /**
     * Shorts with as many lanes as {@link #D}, where that makes a shape (64 bits at least: four
     * lanes). With 128-bit vectors it does not, and {@link #f64ToBf16} leaves its pair to the chunks.
     */
    private static final VectorSpecies<Short> SHALF = VectorSpecies.of(short.class, VectorShape.forBitSize(Math.max(64, D.length() * 16)));
    /** Buffers are little-endian, as {@link Layouts}. */
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    /** How {@link #widen(byte[], int[], int, Extend)} reads a byte. */
    enum Extend { SIGNED, UNSIGNED, PRED }

    private VectorChunks() {
    }

    /** {@code in[0, m)} into {@code out} as ints: sign- or zero-extended, or as pred (1 for any byte not zero). */
    static void widen(byte[] in, int[] out, int m, Extend extend) {
        int i = 0;
        for (; i <= m - I.length(); i += I.length()) {
            IntVector v = (IntVector) ByteVector.fromArray(B, in, i).convertShape(VectorOperators.B2I, I, 0);
            switch (extend) {
                case SIGNED -> v.intoArray(out, i);
                case UNSIGNED -> v.and(0xff).intoArray(out, i);
                case PRED -> IntVector.zero(I).blend(1, v.compare(VectorOperators.NE, 0)).intoArray(out, i);
            }
        }
        for (; i < m; i++) {
            int v = in[i];
            out[i] = switch (extend) {
                case SIGNED -> v;
                case UNSIGNED -> v & 0xff;
                case PRED -> (v | -v) >>> 31;
            };
        }
    }

    /** {@code in[0, m)} into {@code out} as ints, zero-extended if {@code unsigned}, else sign-extended. */
    static void widen(short[] in, int[] out, int m, boolean unsigned) {
        int mask = unsigned ? 0xffff : -1;
        int i = 0;
        for (; i <= m - I.length(); i += I.length()) {
            ((IntVector) ShortVector.fromArray(S, in, i).convertShape(VectorOperators.S2I, I, 0)).and(mask).intoArray(out, i);
        }
        for (; i < m; i++) {
            out[i] = in[i] & mask;
        }
    }

    /** bf16 patterns {@code in[0, m)} into {@code out} as the floats they are (NaN payloads kept). */
    static void bf16ToFloats(short[] in, float[] out, int m) {
        int i = 0;
        for (; i <= m - I.length(); i += I.length()) {
            ((IntVector) ShortVector.fromArray(S, in, i).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().intoArray(out, i);
        }
        for (; i < m; i++) {
            out[i] = Float.intBitsToFloat((in[i] & 0xffff) << 16);
        }
    }

    /** {@code in[0, m)} into {@code out}, exactly. */
    static void toDoubles(int[] in, double[] out, int m) {
        int i = 0;
        for (; i <= m - D.length(); i += D.length()) {
            ((DoubleVector) IntVector.fromArray(IHALF, in, i).convertShape(VectorOperators.I2D, D, 0)).intoArray(out, i);
        }
        for (; i < m; i++) {
            out[i] = in[i];
        }
    }

    /** {@code in[0, m)} into {@code out}, zero-extended if {@code unsigned}, else sign-extended. */
    static void toLongs(int[] in, long[] out, int m, boolean unsigned) {
        long mask = unsigned ? 0xffff_ffffL : -1L;
        int i = 0;
        for (; i <= m - L.length(); i += L.length()) {
            ((LongVector) IntVector.fromArray(IHALF, in, i).convertShape(VectorOperators.I2L, L, 0)).and(mask).intoArray(out, i);
        }
        for (; i < m; i++) {
            out[i] = in[i] & mask;
        }
    }

    /** The low four bytes of each of {@code in[0, m)} into {@code out}. */
    static void narrow(long[] in, int[] out, int m) {
        int i = 0;
        for (; i <= m - L.length(); i += L.length()) {
            ((IntVector) LongVector.fromArray(L, in, i).convertShape(VectorOperators.L2I, IHALF, 0)).intoArray(out, i);
        }
        for (; i < m; i++) {
            out[i] = (int) in[i];
        }
    }

    /**
     * {@code in[0, m)} truncated toward zero into {@code out}. {@return whether every value lay
     * strictly between {@code above} and {@code below}} (NaN does not).
     */
    static boolean truncate(float[] in, int[] out, int m, float above, float below) {
        VectorMask<Float> bad = F.maskAll(false);
        int i = 0;
        for (; i <= m - F.length(); i += F.length()) {
            FloatVector x = FloatVector.fromArray(F, in, i);
            bad = bad.or(x.compare(VectorOperators.GT, above).and(x.compare(VectorOperators.LT, below)).not());
            ((IntVector) x.convert(VectorOperators.F2I, 0)).intoArray(out, i);
        }
        boolean ok = !bad.anyTrue();
        for (; i < m; i++) {
            float v = in[i];
            ok &= v > above && v < below;
            out[i] = (int) v;
        }
        return ok;
    }

    /** {@link #truncate(float[], int[], int, float, float)} from doubles. */
    static boolean truncate(double[] in, int[] out, int m, double above, double below) {
        VectorMask<Double> bad = D.maskAll(false);
        int i = 0;
        for (; i <= m - D.length(); i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, in, i);
            bad = bad.or(x.compare(VectorOperators.GT, above).and(x.compare(VectorOperators.LT, below)).not());
            ((IntVector) x.convertShape(VectorOperators.D2I, IHALF, 0)).intoArray(out, i);
        }
        boolean ok = !bad.anyTrue();
        for (; i < m; i++) {
            double v = in[i];
            ok &= v > above && v < below;
            out[i] = (int) v;
        }
        return ok;
    }

    /** Into {@code out}: 1 where {@code in[i]} is not zero (NaN included), else 0. */
    static void pred(float[] in, int[] out, int m) {
        int i = 0;
        for (; i <= m - F.length(); i += F.length()) {
            VectorMask<Float> set = FloatVector.fromArray(F, in, i).compare(VectorOperators.NE, 0f);
            IntVector.zero(I).blend(1, set.cast(I)).intoArray(out, i);
        }
        for (; i < m; i++) {
            out[i] = in[i] != 0 ? 1 : 0;
        }
    }

    /**
     * Writes {@code in[0, m)} to {@code d} from {@code offset}, the low byte of each (width 1),
     * two bytes (2) or all four (4). Vector stores straight from the chunk: a bulk
     * {@code MemorySegment.copy} from the array wrote DRAM-sized destinations at half the speed,
     * 0.44 against 0.23 ns an element for s8 -> f32 ({@code bench/experiments/ChunkPasses.java}).
     */
    static void store(int[] in, int width, MemorySegment d, long offset, int m) {
        // One loop per width: a vector merged from branches of one loop is boxed.
        int i = switch (width) {
            case 1 -> storeBytes(in, d, offset, m);
            case 2 -> storeShorts(in, d, offset, m);
            default -> storeInts(in, d, offset, m);
        };
        for (; i < m; i++) {
            switch (width) {
                case 1 -> d.set(Layouts.I8, offset + i, (byte) in[i]);
                case 2 -> d.set(Layouts.I16, offset + 2L * i, (short) in[i]);
                default -> d.set(Layouts.I32, offset + 4L * i, in[i]);
            }
        }
    }

    private static int storeBytes(int[] in, MemorySegment d, long offset, int m) {
        int i = 0;
        for (; i <= m - I.length(); i += I.length()) {
            ((ByteVector) IntVector.fromArray(I, in, i).convertShape(VectorOperators.I2B, B, 0)).intoMemorySegment(d, offset + i, ORDER);
        }
        return i;
    }

    private static int storeShorts(int[] in, MemorySegment d, long offset, int m) {
        int i = 0;
        for (; i <= m - I.length(); i += I.length()) {
            ((ShortVector) IntVector.fromArray(I, in, i).convertShape(VectorOperators.I2S, S, 0))
                    .intoMemorySegment(d, offset + 2L * i, ORDER);
        }
        return i;
    }

    private static int storeInts(int[] in, MemorySegment d, long offset, int m) {
        int i = 0;
        for (; i <= m - I.length(); i += I.length()) {
            IntVector.fromArray(I, in, i).intoMemorySegment(d, offset + 4L * i, ORDER);
        }
        return i;
    }

    /** {@link #store(int[], int, MemorySegment, long, int)} for floats. */
    static void store(float[] in, MemorySegment d, long offset, int m) {
        int i = 0;
        for (; i <= m - F.length(); i += F.length()) {
            FloatVector.fromArray(F, in, i).intoMemorySegment(d, offset + 4L * i, ORDER);
        }
        for (; i < m; i++) {
            d.set(Layouts.F32, offset + 4L * i, in[i]);
        }
    }

    /** {@link #store(int[], int, MemorySegment, long, int)} for doubles. */
    static void store(double[] in, MemorySegment d, long offset, int m) {
        int i = 0;
        for (; i <= m - D.length(); i += D.length()) {
            DoubleVector.fromArray(D, in, i).intoMemorySegment(d, offset + 8L * i, ORDER);
        }
        for (; i < m; i++) {
            d.set(Layouts.F64, offset + 8L * i, in[i]);
        }
    }

    /** {@link #store(int[], int, MemorySegment, long, int)} for longs. */
    static void store(long[] in, MemorySegment d, long offset, int m) {
        int i = 0;
        for (; i <= m - L.length(); i += L.length()) {
            LongVector.fromArray(L, in, i).intoMemorySegment(d, offset + 8L * i, ORDER);
        }
        for (; i < m; i++) {
            d.set(Layouts.I64, offset + 8L * i, in[i]);
        }
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
