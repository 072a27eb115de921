package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;

/**
 * One strided loop nest ready for a kernel: byte offsets and byte strides, loops outermost
 * first. Kernels read the arrays and never change them.
 *
 * @param src source segment (null for a destination-only step)
 * @param dst destination segment
 * @param srcOff source byte offset of the first element
 * @param dstOff destination byte offset of the first element
 * @param count iterations per loop
 * @param srcStride source byte stride per loop
 * @param dstStride destination byte stride per loop
 * @param srcWidth source element bytes
 * @param dstWidth destination element bytes
 * @param channelLoop the loop indexing the channel, or -1
 * @param channelBase the channel of iteration 0 of {@code channelLoop}
 */
public record Task(MemorySegment src, MemorySegment dst, long srcOff, long dstOff, long[] count, long[] srcStride,
                   long[] dstStride, int srcWidth, int dstWidth, int channelLoop, long channelBase) {

    int rank() {
        return count.length;
    }

    long elements() {
        long n = 1;
        for (long c : count) {
            n *= c;
        }
        return n;
    }

    /**
     * {@return the bytes loops {@code from} and inside write when they fill one dense block of the
     * destination (each loop of more than one iteration steps over exactly the loops inside it), else -1}
     */
    long denseDestinationBytes(int from) {
        long inner = dstWidth;
        for (int i = count.length - 1; i >= from; i--) {
            if (count[i] == 1) {
                continue;
            }
            if (dstStride[i] != inner) {
                return -1;
            }
            inner = Math.multiplyExact(inner, count[i]);
        }
        return inner;
    }

    /** {@return bytes read plus bytes written} */
    long bytes() {
        return elements() * (srcWidth + dstWidth);
    }

    /** {@return this nest with loop {@code k} cut to {@code [from, from + n)}} */
    Task slice(int k, long from, long n) {
        long[] c = count.clone();
        c[k] = n;
        long base = k == channelLoop ? channelBase + from : channelBase;
        return new Task(src, dst, srcOff + from * srcStride[k], dstOff + from * dstStride[k], c, srcStride, dstStride,
                srcWidth, dstWidth, channelLoop, base);
    }
}
