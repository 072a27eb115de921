package dev.tensorbuf.ops.copy.internal;

import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.B;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.D;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.F;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.I;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.IHALF;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.L;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.ORDER;
import static dev.tensorbuf.ops.copy.internal.ConvertSpecies.S;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/**
 * The passes over {@link ChunkConvert}'s chunk arrays that C2 leaves scalar, a vector at a time:
 * bytes, shorts and ints widened, longs narrowed to ints, float and double to int with their
 * range checks, float to pred, bf16 decoded, and a chunk stored into a dense destination. C2's
 * loop vectoriser (JDK 25) leaves a loop scalar when its element widths differ, and a float
 * min/max reduction too: as plain loops these passes took 0.25-0.5 ns an element over 512
 * elements in the L1 cache, against 0.05-0.09 for same-width loops such as int to float
 * ({@code bench/experiments/ChunkPasses.java passes}). The loops from segment to segment for dense
 * runs are {@link VectorDenseConvert}'s.
 * {@snippet :
 * VectorChunks.widen(new byte[] {-1, 2}, out, 2, VectorChunks.Extend.UNSIGNED); // out: 255, 2
 * }
 */
final class VectorChunks {
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
}
