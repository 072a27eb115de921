package dev.tensorbuf.ops.copy.internal;

/**
 * One loop of a planned copy: {@code count} iterations, advancing the source and the
 * destination by their strides (in elements) each time.
 * {@snippet :
 * new Loop(64, 12544, 1);   // NCHW -> NHWC: 64 channels, far apart in the source, adjacent in the destination
 * }
 *
 * @param count iterations, {@code >= 1}
 * @param srcStride source stride in elements (zero for a broadcast, negative for a reversal)
 * @param dstStride destination stride in elements, {@code >= 0} after planning
 */
public record Loop(long count, long srcStride, long dstStride) {
    /** @throws IllegalArgumentException if {@code count < 1} */
    public Loop {
        if (count < 1) {
            throw new IllegalArgumentException("loop count must be >= 1, got " + count);
        }
    }
}
