package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Folds}' f32 maximum and minimum and s32 sums on Vector API lanes. The f32 values are
 * folded as they are, the lanewise max or min being {@code Math.max}'s (NaN if either is, -0
 * below +0); {@link Folds} flushes the results. A whole row folds into four registers; rows into
 * accumulator arrays, four rows a pass. Loaded only where {@link VectorSupport#enabled()} holds.
 */
final class VectorFolds {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    /** Longs of the same vector size: an int vector widens into two of them. */
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    /**
     * Elements a row is read in, four streams each: streams 16 KiB apart, not megabytes. The max
     * of one f32 [4096,6144] row took 6.6 ms on two threads so, 8.4 in quarters of the whole.
     */
    private static final long CHUNK = 16 * 1024;

    private VectorFolds() {
    }

    static void combine(boolean max, float[] acc, MemorySegment seg, long offset, int n) {
        int i = 0;
        for (int end = F.loopBound(n); i < end; i += F.length()) {
            FloatVector a = FloatVector.fromArray(F, acc, i);
            FloatVector x = FloatVector.fromMemorySegment(F, seg, offset + 4L * i, LE);
            (max ? a.max(x) : a.min(x)).intoArray(acc, i);
        }
        for (; i < n; i++) {
            float x = seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset + 4L * i);
            acc[i] = max ? Math.max(acc[i], x) : Math.min(acc[i], x);
        }
    }

    /** {@link #combine} of four rows {@code rowBytes} apart from byte {@code offset}. */
    static void combine4(boolean max, float[] acc, MemorySegment seg, long offset, long rowBytes, int n) {
        int i = 0;
        for (int end = F.loopBound(n); i < end; i += F.length()) {
            long at = offset + 4L * i;
            FloatVector a = FloatVector.fromArray(F, acc, i);
            FloatVector x0 = FloatVector.fromMemorySegment(F, seg, at, LE);
            FloatVector x1 = FloatVector.fromMemorySegment(F, seg, at + rowBytes, LE);
            FloatVector x2 = FloatVector.fromMemorySegment(F, seg, at + 2 * rowBytes, LE);
            FloatVector x3 = FloatVector.fromMemorySegment(F, seg, at + 3 * rowBytes, LE);
            (max ? a.max(x0.max(x1)).max(x2.max(x3)) : a.min(x0.min(x1)).min(x2.min(x3))).intoArray(acc, i);
        }
        for (int k = 0; k < 4 && i < n; k++) {
            combineTail(max, acc, seg, offset + k * rowBytes, i, n);
        }
    }

    private static void combineTail(boolean max, float[] acc, MemorySegment seg, long offset, int from, int n) {
        for (int i = from; i < n; i++) {
            float x = seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset + 4L * i);
            acc[i] = max ? Math.max(acc[i], x) : Math.min(acc[i], x);
        }
    }

    /**
     * {@return the maximum or minimum of the {@code count} f32 values from byte {@code offset},
     * unflushed} Each {@link #CHUNK} is read as four streams, a quarter each, one vector of each a
     * step: on one AVX-512 core that ran 96 MiB in 8.0-8.3 ms where four vectors in a row a step
     * took 11.3-11.8 ms (a summing loop in a row: 8.4-9.5 ms).
     */
    static float foldF32(boolean max, MemorySegment seg, long offset, long count) {
        float r = max ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
        for (long c = 0; c < count; c += CHUNK) {
            float x = foldChunkF32(max, seg, offset + 4 * c, Math.min(CHUNK, count - c));
            r = max ? Math.max(r, x) : Math.min(r, x);
        }
        return r;
    }

    private static float foldChunkF32(boolean max, MemorySegment seg, long offset, long count) {
        int l = F.length();
        long quarter = count / 4 / l * l;
        long q = 4 * quarter;
        float r = max ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
        if (quarter > 0) {
            FloatVector a0 = FloatVector.fromMemorySegment(F, seg, offset, LE);
            FloatVector a1 = FloatVector.fromMemorySegment(F, seg, offset + q, LE);
            FloatVector a2 = FloatVector.fromMemorySegment(F, seg, offset + 2 * q, LE);
            FloatVector a3 = FloatVector.fromMemorySegment(F, seg, offset + 3 * q, LE);
            // Two loops, not a test per step.
            if (max) {
                for (long at = offset + 4L * l, end = offset + q; at < end; at += 4L * l) {
                    a0 = a0.max(FloatVector.fromMemorySegment(F, seg, at, LE));
                    a1 = a1.max(FloatVector.fromMemorySegment(F, seg, at + q, LE));
                    a2 = a2.max(FloatVector.fromMemorySegment(F, seg, at + 2 * q, LE));
                    a3 = a3.max(FloatVector.fromMemorySegment(F, seg, at + 3 * q, LE));
                }
                a0 = a0.max(a1).max(a2.max(a3));
            } else {
                for (long at = offset + 4L * l, end = offset + q; at < end; at += 4L * l) {
                    a0 = a0.min(FloatVector.fromMemorySegment(F, seg, at, LE));
                    a1 = a1.min(FloatVector.fromMemorySegment(F, seg, at + q, LE));
                    a2 = a2.min(FloatVector.fromMemorySegment(F, seg, at + 2 * q, LE));
                    a3 = a3.min(FloatVector.fromMemorySegment(F, seg, at + 3 * q, LE));
                }
                a0 = a0.min(a1).min(a2.min(a3));
            }
            for (float x : a0.toArray()) {
                r = max ? Math.max(r, x) : Math.min(r, x);
            }
        }
        for (long i = 4 * quarter; i < count; i++) {
            float x = seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset + 4 * i);
            r = max ? Math.max(r, x) : Math.min(r, x);
        }
        return r;
    }

    /** {@return the sum of the {@code count} s32 values from byte {@code offset}, wrapped to 32 bits, as a long; read as {@link #foldF32} reads} */
    static long sumS32(MemorySegment seg, long offset, long count) {
        int r = 0;
        for (long c = 0; c < count; c += CHUNK) {
            r += (int) sumChunkS32(seg, offset + 4 * c, Math.min(CHUNK, count - c));
        }
        return r;
    }

    private static long sumChunkS32(MemorySegment seg, long offset, long count) {
        int l = I.length();
        long quarter = count / 4 / l * l;
        long q = 4 * quarter;
        int r = 0;
        if (quarter > 0) {
            // Sums wrap to 32 bits in the end, so they may wrap in every lane on the way.
            IntVector a0 = IntVector.zero(I);
            IntVector a1 = IntVector.zero(I);
            IntVector a2 = IntVector.zero(I);
            IntVector a3 = IntVector.zero(I);
            for (long at = offset, end = offset + q; at < end; at += 4L * l) {
                a0 = a0.add(IntVector.fromMemorySegment(I, seg, at, LE));
                a1 = a1.add(IntVector.fromMemorySegment(I, seg, at + q, LE));
                a2 = a2.add(IntVector.fromMemorySegment(I, seg, at + 2 * q, LE));
                a3 = a3.add(IntVector.fromMemorySegment(I, seg, at + 3 * q, LE));
            }
            r = a0.add(a1).add(a2.add(a3)).reduceLanes(VectorOperators.ADD);
        }
        for (long i = 4 * quarter; i < count; i++) {
            r += seg.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 4 * i);
        }
        return r;
    }

    /** {@code acc[i] += x[i]} for s32 values {@code x}, widened: the sums wrap to 32 bits when the fold is done. */
    static void addS32(long[] acc, MemorySegment seg, long offset, int n) {
        int i = 0;
        for (int end = I.loopBound(n); i < end; i += I.length()) {
            IntVector x = IntVector.fromMemorySegment(I, seg, offset + 4L * i, LE);
            for (int part = 0; part < 2; part++) {
                int at = i + part * L.length();
                LongVector wide = (LongVector) x.convertShape(VectorOperators.I2L, L, part);
                LongVector.fromArray(L, acc, at).add(wide).intoArray(acc, at);
            }
        }
        for (; i < n; i++) {
            acc[i] += seg.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 4L * i);
        }
    }

    /** {@link #addS32} of four rows {@code rowBytes} apart: their sum, wrapping in int lanes, is added once. */
    static void addS32x4(long[] acc, MemorySegment seg, long offset, long rowBytes, int n) {
        int i = 0;
        for (int end = I.loopBound(n); i < end; i += I.length()) {
            long at = offset + 4L * i;
            IntVector x = IntVector.fromMemorySegment(I, seg, at, LE)
                    .add(IntVector.fromMemorySegment(I, seg, at + rowBytes, LE))
                    .add(IntVector.fromMemorySegment(I, seg, at + 2 * rowBytes, LE))
                    .add(IntVector.fromMemorySegment(I, seg, at + 3 * rowBytes, LE));
            for (int part = 0; part < 2; part++) {
                int to = i + part * L.length();
                LongVector wide = (LongVector) x.convertShape(VectorOperators.I2L, L, part);
                LongVector.fromArray(L, acc, to).add(wide).intoArray(acc, to);
            }
        }
        for (int k = 0; k < 4 && i < n; k++) {
            for (int j = i; j < n; j++) {
                acc[j] += seg.get(ValueLayout.JAVA_INT_UNALIGNED, offset + k * rowBytes + 4L * j);
            }
        }
    }
}
