package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.Kernel;
import dev.tensorbuf.ops.copy.Loop;
import dev.tensorbuf.ops.copy.Step;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Turns one box of loops into a {@link Step.Run}: drops unit loops, flips negative destination
 * strides, orders loops by destination stride (the destination's physical order), fuses loops
 * that are contiguous on both sides, then picks the kernel from the two innermost loops.
 */
public final class LoopNest {
    /** Below this many iterations a transposed loop is not worth a register-shuffle block. */
    static final int MIN_TRANSPOSE = 8;

    private LoopNest() {
    }

    /**
     * @param loops the box's loops, any order
     * @param channel index in {@code loops} of the channel loop, or -1
     * @param convert whether values are converted (types differ or a scale and bias apply)
     * @param width element width in bytes when not converting
     */
    public static Step.Run plan(List<Loop> loops, long srcOffset, long dstOffset, int channel, boolean convert,
                                int width) {
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
                throw new IllegalArgumentException("destination writes " + l.count()
                        + " elements to one slot (stride 0): a destination may not overlap itself");
            }
            if (i == channel) {
                channelLoop = l;
            }
            kept.add(l);
        }
        final Loop ch = channelLoop;
        kept.sort(Comparator.comparingLong(Loop::dstStride).thenComparingLong(Loop::srcStride).reversed());
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
            return new Step.Run(Kernel.CONVERT, so, dO, fused, channelIndex);
        }
        return chooseKernel(fused, so, dO, width);
    }

    private static Step.Run chooseKernel(List<Loop> loops, long so, long dO, int width) {
        int r = loops.size();
        Loop inner = loops.get(r - 1);
        if (inner.dstStride() == 1 && inner.srcStride() == 1) {
            return new Step.Run(Kernel.BULK, so, dO, loops, -1);
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
                if (width == 2 && inner.count() == 2 && lb.dstStride() == 2) {
                    return new Step.Run(Kernel.PAIR_INTERLEAVE, so, dO, reordered, -1);
                }
            }
        }
        return new Step.Run(Kernel.ELEMENT, so, dO, loops, -1);
    }
}
