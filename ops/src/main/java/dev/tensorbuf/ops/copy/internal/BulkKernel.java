package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#BULK}: the innermost loop is contiguous on both sides, so
 * each run is one {@code MemorySegment.copy}, which uses the JDK's wide (non-temporal on large
 * sizes) copy stub.
 */
final class BulkKernel {
    private BulkKernel() {
    }

    static void run(Task t) {
        int r = t.rank();
        long bytes = t.count()[r - 1] * t.dstWidth();
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 1);
        do {
            MemorySegment.copy(src, o.src, dst, o.dst, bytes);
        } while (o.next());
    }
}
