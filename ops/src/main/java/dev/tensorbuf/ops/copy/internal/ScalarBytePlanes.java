package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;

import java.lang.foreign.MemorySegment;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#BYTE_PLANES} without the Vector API: one pass over the
 * pixels per channel, each into its plane, with int offsets into slices of one run, so C2 drops
 * the bounds checks from the loop and unrolls it. Through the general conversion (long offsets,
 * strides read per run) the 8x224x224x3 staging took 1.18 ms against 0.38-0.47 ms for a plain
 * Java loop.
 */
final class ScalarBytePlanes {
    private ScalarBytePlanes() {
    }

    /** Loops as {@link VectorBytePlanes#run}; nests it does not take go to {@link ConvertKernel}. */
    static void run(Task t, float[] scale, float[] bias) {
        int r = t.rank();
        int c = (int) t.count()[r - 2];
        long n = t.count()[r - 1];
        long plane = t.dstStride()[r - 2];
        if (c < 2 || c > 4 || c != t.srcStride()[r - 1] || t.dstStride()[r - 1] != 4
                || (t.channelLoop() != -1 && t.channelLoop() != r - 2) || n * c > Integer.MAX_VALUE - 8
                || Math.abs(plane) > Integer.MAX_VALUE / 4) {
            ConvertKernel.run(t, ElementAccess.of(DType.U8), ElementAccess.of(DType.F32), scale, bias, false);
            return;
        }
        float[] sc = new float[4];
        float[] bi = new float[4];
        for (int k = 0; k < c; k++) {
            boolean affine = scale != null && t.channelLoop() == r - 2;
            sc[k] = affine ? scale[(int) t.channelBase() + k] : 1f;
            bi[k] = affine ? bias[(int) t.channelBase() + k] : 0f;
        }
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            for (int k = 0; k < c; k++) {
                plane(src.asSlice(o.src + k, n * c - k), dst.asSlice(o.dst + k * plane, n * 4), (int) n, c, sc[k], bi[k]);
            }
        } while (o.next());
    }

    /**
     * One channel's plane. A pass per channel rather than a pixel's channels at once: as fast
     * once compiled, and a first call in a fresh JVM runs a third as many elements in the
     * interpreter before the loop is compiled (the JIT counts loop iterations).
     *
     * <p>One loop per channel count, each reading at a constant stride: with the count in a
     * variable ({@code (long) p * c}) C2 compiled a loop twice as slow, 0.72 ms for the 8x224x224x3
     * staging against 0.36 ms with the stride a constant, as fast as a plain Java loop
     * (bench/experiments/BytePlaneStride.java).
     */
    private static void plane(MemorySegment s, MemorySegment d, int n, int c, float scale, float bias) {
        switch (c) {
            case 2 -> plane2(s, d, n, scale, bias);
            case 3 -> plane3(s, d, n, scale, bias);
            default -> plane4(s, d, n, scale, bias);
        }
    }

    private static void plane2(MemorySegment s, MemorySegment d, int n, float scale, float bias) {
        for (int p = 0; p < n; p++) {
            d.set(Layouts.F32, p * 4L, Math.fma(s.get(Layouts.I8, p * 2L) & 0xff, scale, bias));
        }
    }

    private static void plane3(MemorySegment s, MemorySegment d, int n, float scale, float bias) {
        for (int p = 0; p < n; p++) {
            d.set(Layouts.F32, p * 4L, Math.fma(s.get(Layouts.I8, p * 3L) & 0xff, scale, bias));
        }
    }

    private static void plane4(MemorySegment s, MemorySegment d, int n, float scale, float bias) {
        for (int p = 0; p < n; p++) {
            d.set(Layouts.F32, p * 4L, Math.fma(s.get(Layouts.I8, p * 4L) & 0xff, scale, bias));
        }
    }
}
