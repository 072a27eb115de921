package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#TRANSPOSE} without the Vector API: the two innermost
 * loops in destination order, 4-byte elements. Blocking does not help a scalar transpose on our
 * machines (reference/java-kernels.md), so this is the plain loop.
 */
final class ScalarTranspose {
    private ScalarTranspose() {
    }

    static void run(Task t) {
        int r = t.rank();
        long nb = t.count()[r - 2];
        long na = t.count()[r - 1];
        long sb = t.srcStride()[r - 2];
        long db = t.dstStride()[r - 2];
        long sa = t.srcStride()[r - 1];
        long da = t.dstStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            for (long j = 0; j < nb; j++) {
                row(src, o.src + j * sb, sa, dst, o.dst + j * db, da, na);
            }
        } while (o.next());
    }

    /**
     * One destination row, a method of its own so that the JIT compiles it whole, counted by its
     * calls. As a loop inside {@code run}, compiled on the stack (OSR) before the row loop had ever
     * ended, C2's code trapped back to the interpreter when it did: three times in a one-shot
     * 200 MB convert, each time reading elements through the interpreted segment accessors until
     * it was compiled again (-Xlog:deoptimization: unstable_if; bench/RESULTS.md, "Convert end to end").
     */
    private static void row(MemorySegment src, long s, long sa, MemorySegment dst, long d, long da, long n) {
        for (long i = 0; i < n; i++) {
            dst.set(Layouts.I32, d + i * da, src.get(Layouts.I32, s + i * sa));
        }
    }
}
