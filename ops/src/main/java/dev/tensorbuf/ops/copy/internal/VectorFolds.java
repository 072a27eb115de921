package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Folds}' f32 maximum and minimum on Vector API lanes: each value read flushed (a denormal
 * as its signed zero, as XLA's arithmetic reads it), then the lanewise max or min, which is
 * {@code Math.max}'s: NaN if either is, -0 below +0; and s32 sums, widened into long lanes.
 * Loaded only where {@link VectorSupport#enabled()} holds.
 */
final class VectorFolds {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    /** Longs of the same vector size: an int vector widens into two of them. */
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final float MIN_NORMAL = 0x1p-126f;
    private static final int SIGN = 0x8000_0000;

    private VectorFolds() {
    }

    static void load(float[] acc, MemorySegment seg, long offset, int n) {
        int i = 0;
        for (int end = F.loopBound(n); i < end; i += F.length()) {
            flushed(seg, offset + 4L * i).intoArray(acc, i);
        }
        for (; i < n; i++) {
            acc[i] = Folds.flushF32(seg, offset, i);
        }
    }

    static void combine(boolean max, float[] acc, MemorySegment seg, long offset, int n) {
        int i = 0;
        for (int end = F.loopBound(n); i < end; i += F.length()) {
            FloatVector a = FloatVector.fromArray(F, acc, i);
            FloatVector x = flushed(seg, offset + 4L * i);
            (max ? a.max(x) : a.min(x)).intoArray(acc, i);
        }
        for (; i < n; i++) {
            float x = Folds.flushF32(seg, offset, i);
            acc[i] = max ? Math.max(acc[i], x) : Math.min(acc[i], x);
        }
    }

    /** {@code acc[i] += x[i]} for s32 values {@code x}, widened: the sums wrap to 32 bits when the fold is done. */
    static void addS32(long[] acc, MemorySegment seg, long offset, int n) {
        int i = 0;
        for (int end = I.loopBound(n); i < end; i += I.length()) {
            IntVector x = IntVector.fromMemorySegment(I, seg, offset + 4L * i, ByteOrder.LITTLE_ENDIAN);
            for (int part = 0; part < 2; part++) {
                int at = i + part * L.length();
                LongVector wide = (LongVector) x.convertShape(VectorOperators.I2L, L, part);
                LongVector.fromArray(L, acc, at).add(wide).intoArray(acc, at);
            }
        }
        for (; i < n; i++) {
            acc[i] += seg.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, offset + 4L * i);
        }
    }

    private static FloatVector flushed(MemorySegment seg, long offset) {
        FloatVector x = FloatVector.fromMemorySegment(F, seg, offset, ByteOrder.LITTLE_ENDIAN);
        VectorMask<Float> denormal = x.abs().compare(VectorOperators.LT, MIN_NORMAL);
        return x.blend(x.reinterpretAsInts().and(SIGN).reinterpretAsFloats(), denormal);
    }
}
