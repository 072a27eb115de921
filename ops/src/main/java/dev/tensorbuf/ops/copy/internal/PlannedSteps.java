package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.internal.Sizes;
import dev.tensorbuf.views.ArrayShape;

import java.util.List;

/**
 * A copy's steps with what its bounds checks need from them, worked out once per plan: the
 * elements each side's loop nests reach, and the slots a tiled destination needs. A copy checks
 * its segments against these on every call ({@code CopyPlan.of}); working them out again on every
 * call of a small copy cost a fifth of its time (a tiled destination's slot count alone rebuilt
 * its tiling).
 *
 * @param steps what runs, in order
 * @param srcLo the lowest source element the runs read; greater than {@code srcHi} when none
 * @param srcHi the highest source element the runs read
 * @param dstLo the lowest destination element the runs and zero steps write; greater than {@code dstHi} when none
 * @param dstHi the highest destination element they write
 * @param dstSlotBytes the bytes a tiled destination's slots take, or -1 for other destinations
 * @param gathers whether a step is a {@link Step.Gather}, whose sides are checked by map
 */
public record PlannedSteps(List<Step> steps, long srcLo, long srcHi, long dstLo, long dstHi, long dstSlotBytes,
                           boolean gathers) {

    public PlannedSteps {
        steps = List.copyOf(steps);
    }

    /** {@return {@code steps} with the spans they reach in {@code dst}'s and the source's elements} */
    static PlannedSteps of(List<Step> steps, Access dst) {
        long[] src = {Long.MAX_VALUE, Long.MIN_VALUE};
        long[] out = {Long.MAX_VALUE, Long.MIN_VALUE};
        boolean gathers = false;
        for (Step step : steps) {
            switch (step) {
                case Step.Run r -> {
                    widen(src, r.srcOffset(), r.loops(), true);
                    widen(out, r.dstOffset(), r.loops(), false);
                }
                case Step.Zero z -> widen(out, z.dstOffset(), z.loops(), false);
                // Its source is blocks, checked by their maker; the loops' source side is the f32 rows it plans.
                case Step.Dequantize d -> widen(out, d.run().dstOffset(), d.run().loops(), false);
                case Step.Gather g -> gathers = true;
                // Its operands and destination are views, each checked against its memory when made.
                case Step.Epilogue p -> { }
            }
        }
        long slotBytes = dst.addressing() instanceof Access.Tiled(ArrayShape s) ? s.physicalByteSize() : -1;
        return new PlannedSteps(steps, src[0], src[1], out[0], out[1], slotBytes, gathers);
    }

    /** Widens {@code span} ({lo, hi}) to the elements one loop nest reaches from {@code offset}. */
    private static void widen(long[] span, long offset, List<Loop> loops, boolean source) {
        long lo = offset;
        long hi = offset;
        for (Loop l : loops) {
            long reach = Sizes.multiply(l.count() - 1, source ? l.srcStride() : l.dstStride(), "offset span");
            if (reach < 0) {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        span[0] = Math.min(span[0], lo);
        span[1] = Math.max(span[1], hi);
    }
}
