package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;

/** {@link dev.tensorbuf.ops.copy.internal.Kernel#ZERO}: padding slots of a tiled destination become zero bytes. */
final class ZeroKernel {
    private ZeroKernel() {
    }

    static void run(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long stride = t.dstStride()[r - 1];
        int w = t.dstWidth();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 1);
        do {
            if (stride == w) {
                dst.asSlice(o.dst, n * w).fill((byte) 0);
            } else {
                for (long i = 0; i < n; i++) {
                    dst.asSlice(o.dst + i * stride, w).fill((byte) 0);
                }
            }
        } while (o.next());
    }
}
