package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.DType;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns one box of loops into a {@link Step.Run}: drops unit loops, flips negative destination
 * strides, orders loops by destination stride (the destination's physical order), fuses loops
 * that are contiguous on both sides, then picks the kernel from the two innermost loops (their
 * strides and counts) and the element types; short bulk runs may move one source-contiguous loop
 * just outside the run ({@link #fewerStreams}). No kernel is chosen by anything else.
 */
public final class LoopNest {
    /** Below this many iterations a transposed loop is not worth a register-shuffle block. */
    static final int MIN_TRANSPOSE = 8;
    /** Most planes (channels) the interleave, de-interleave and byte-plane kernels handle. */
    static final int MAX_PLANES = 4;
    /** Fewest pixels per run for which the plane kernels beat the element loop. */
    static final int MIN_PLANE_RUN = 8;
    /**
     * Runs of at most this many bytes count as short for {@link #fewerStreams}: the order of the
     * loops around them decides how many rows each side touches at once.
     */
    static final long SHORT_RUN_BYTES = 4096;

    private LoopNest() {
    }

    /**
     * @param loops the box's loops, any order
     * @param channel index in {@code loops} of the channel loop, or -1
     * @param from the source element type
     * @param to the destination element type
     * @param affine whether a per-channel scale and bias apply
     */
    public static Step.Run plan(List<Loop> loops, long srcOffset, long dstOffset, int channel, DType from, DType to,
                                boolean affine) {
        boolean convert = from != to || affine;
        int width = to.byteWidth();
        List<Loop> kept = new ArrayList<>();
        Loop channelLoop = null;
        long so = srcOffset;
        long dO = dstOffset;
        for (int i = 0; i < loops.size(); i++) {
            Loop l = loops.get(i);
            if (l.count() == 1 && i != channel) {
                continue;
            }
            if (l.dstStride() < 0) {
                so += (l.count() - 1) * l.srcStride();
                dO += (l.count() - 1) * l.dstStride();
                l = new Loop(l.count(), -l.srcStride(), -l.dstStride());
            }
            if (l.dstStride() == 0 && l.count() > 1) {
                throw Errors.zeroStrideDestination(l.count());
            }
            if (i == channel) {
                channelLoop = l;
            }
            kept.add(l);
        }
        final Loop ch = channelLoop;
        // Outermost first: by destination stride, then source stride, both descending. One lambda of
        // ours rather than Comparator's combinators, whose lambdas inside the JDK are spun at run time
        // in every process (the AOT cache keeps an application's own, bench/RESULTS.md "Start-up").
        kept.sort((a, b) -> a.dstStride() != b.dstStride() ? Long.compare(b.dstStride(), a.dstStride())
                : Long.compare(b.srcStride(), a.srcStride()));
        List<Loop> fused = new ArrayList<>();
        for (Loop l : kept) {
            if (!fused.isEmpty() && l != ch && fused.getLast() != ch) {
                Loop outer = fused.getLast();
                if (outer.dstStride() == l.dstStride() * l.count() && outer.srcStride() == l.srcStride() * l.count()) {
                    fused.set(fused.size() - 1, new Loop(outer.count() * l.count(), l.srcStride(), l.dstStride()));
                    continue;
                }
            }
            fused.add(l);
        }
        if (fused.isEmpty()) {
            fused.add(new Loop(1, 1, 1));
        }
        int channelIndex = ch == null ? -1 : fused.indexOf(ch);
        if (convert) {
            Step.Run planes = from == DType.U8 && to == DType.F32 ? bytePlanes(fused, so, dO, channelIndex)
                    : affine ? null : Bf16Pairs.plan(fused, so, dO, from, to);
            return planes != null ? planes : new Step.Run(Kernel.CONVERT, so, dO, fused, channelIndex);
        }
        return chooseKernel(fused, so, dO, width);
    }

    /**
     * u8 to f32 where the innermost loop reads every {@code C}-th byte ({@code C} in 2..4) and
     * another loop of {@code C} iterations walks the channels byte by byte: the channels go to
     * destination planes in one pass. The channel loop, if any, must be that loop.
     */
    private static Step.Run bytePlanes(List<Loop> loops, long so, long dO, int channel) {
        int r = loops.size();
        Loop inner = loops.get(r - 1);
        if (r < 2 || inner.dstStride() != 1 || inner.srcStride() < 2 || inner.srcStride() > MAX_PLANES
                || inner.count() < MIN_PLANE_RUN) {
            return null;
        }
        for (int b = r - 2; b >= 0; b--) {
            Loop lb = loops.get(b);
            if (lb.srcStride() == 1 && lb.count() == inner.srcStride() && (channel == -1 || channel == b)) {
                List<Loop> reordered = new ArrayList<>(loops);
                reordered.remove(b);
                reordered.add(r - 2, lb);
                return new Step.Run(Kernel.BYTE_PLANES, so, dO, reordered, channel == -1 ? -1 : r - 2);
            }
        }
        return null;
    }

    private static Step.Run chooseKernel(List<Loop> loops, long so, long dO, int width) {
        int r = loops.size();
        Loop inner = loops.get(r - 1);
        if (inner.dstStride() == 1 && inner.srcStride() == 1) {
            return new Step.Run(Kernel.BULK, so, dO, fewerStreams(loops, width), -1);
        }
        if (inner.dstStride() == 1 && inner.srcStride() == 0) {
            return new Step.Run(Kernel.FILL, so, dO, loops, -1);
        }
        if (inner.dstStride() == 1 && r >= 2) {
            int b = -1;
            for (int i = r - 2; i >= 0; i--) {
                Loop l = loops.get(i);
                if (l.srcStride() == 1) {
                    b = i;
                    break;
                }
            }
            if (b >= 0) {
                Loop lb = loops.get(b);
                List<Loop> reordered = new ArrayList<>(loops);
                reordered.remove(b);
                reordered.add(r - 2, lb);
                if (width == 4 && inner.count() >= MIN_TRANSPOSE && lb.count() >= MIN_TRANSPOSE && inner.srcStride() > 0) {
                    return new Step.Run(Kernel.TRANSPOSE, so, dO, reordered, -1);
                }
                if (width == 4 && isPlaneCount(inner.count()) && lb.dstStride() == inner.count()
                        && lb.count() >= MIN_PLANE_RUN) {
                    return new Step.Run(Kernel.INTERLEAVE, so, dO, reordered, -1);
                }
                if (width == 4 && isPlaneCount(lb.count()) && inner.srcStride() == lb.count()
                        && inner.count() >= MIN_PLANE_RUN) {
                    return new Step.Run(Kernel.DEINTERLEAVE, so, dO, reordered, -1);
                }
                if (width == 2 && inner.count() == 2 && lb.dstStride() == 2) {
                    return new Step.Run(Kernel.PAIR_INTERLEAVE, so, dO, reordered, -1);
                }
            }
        }
        // After the plane kernels: two interleaved channels de-interleave in one pass, not two gathers.
        if (width == 4 && inner.dstStride() == 1 && inner.srcStride() == 2 && inner.count() >= MIN_TRANSPOSE) {
            return new Step.Run(Kernel.EVEN_GATHER, so, dO, loops, -1);
        }
        return new Step.Run(Kernel.ELEMENT, so, dO, loops, -1);
    }

    /**
     * Short contiguous runs (XLA tile rows): the loop just outside the run continues it on the
     * destination, so each of its iterations starts a new source row (a stream). When another loop
     * continues the run on the source with at most half the iterations (ties are not worth a
     * reorder), it goes just outside the run instead, so the side that jumps is the one with fewer
     * streams. T(8,128) -> f32[4096,4096]: 8
     * destination rows per tile instead of 32 source tiles 4 KiB apart, 30% less CPU time
     * (f32 -> T(8,128) keeps destination order: there the source side has 8 rows).
     */
    private static List<Loop> fewerStreams(List<Loop> loops, int width) {
        int r = loops.size();
        Loop inner = loops.get(r - 1);
        if (r < 3 || inner.count() * width > SHORT_RUN_BYTES) {
            return loops;
        }
        Loop next = loops.get(r - 2);
        for (int b = r - 3; b >= 0; b--) {
            Loop lb = loops.get(b);
            if (lb.srcStride() == inner.count() && 2 * lb.count() <= next.count()) {
                List<Loop> reordered = new ArrayList<>(loops);
                reordered.remove(b);
                reordered.add(r - 2, lb);
                return reordered;
            }
        }
        return loops;
    }

    private static boolean isPlaneCount(long c) {
        return c >= 2 && c <= MAX_PLANES;
    }
}
