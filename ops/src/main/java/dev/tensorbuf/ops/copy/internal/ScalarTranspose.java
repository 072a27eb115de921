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
                long s = o.src + j * sb;
                long d = o.dst + j * db;
                for (long i = 0; i < na; i++) {
                    dst.set(Layouts.I32, d + i * da, src.get(Layouts.I32, s + i * sa));
                }
            }
        } while (o.next());
    }
}
