package dev.tensorbuf.ops.copy.internal;

/**
 * Walks the outer loops of a {@link Task} (all but the {@code inner} innermost), keeping the
 * source and destination byte offsets. A final class with one small method, so the JIT inlines
 * it into each kernel and no kernel shares a call site with another.
 */
final class Odometer {
    private final long[] count;
    private final long[] srcStride;
    private final long[] dstStride;
    private final long[] idx;
    private final int outer;
    long src;
    long dst;

    Odometer(Task t, int inner) {
        count = t.count();
        srcStride = t.srcStride();
        dstStride = t.dstStride();
        outer = t.rank() - inner;
        idx = new long[Math.max(0, outer)];
        src = t.srcOff();
        dst = t.dstOff();
    }

    /** {@return the index of outer loop {@code k} at the current position} */
    long index(int k) {
        return idx[k];
    }

    /** Moves to the next outer position; {@return false after the last} */
    boolean next() {
        for (int k = outer - 1; k >= 0; k--) {
            idx[k]++;
            src += srcStride[k];
            dst += dstStride[k];
            if (idx[k] < count[k]) {
                return true;
            }
            src -= srcStride[k] * count[k];
            dst -= dstStride[k] * count[k];
            idx[k] = 0;
        }
        return false;
    }
}
