package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * The boxes of one copy over pieces ({@link PiecePairs}) whose two sides are strided over whole
 * bytes, each run as one loop nest without a plan of its own. Boxes of one form (the same counts
 * and strides on both sides, whatever their offsets) share the loop nest and kernel
 * {@link LoopNest} chose for the first of them, moved to each box's offsets: a loop nest's steps
 * are offsets plus strides times counters, so the same loops at other offsets reach the same
 * elements of that box. A staircase of thousands of row segments (a crop of a reshaped
 * concatenation) is then thousands of kernel calls over a few hundred forms, not thousands of
 * plans each made, checked and cached ({@code CopyPlan.of} per box was most of such a copy's time,
 * and more forms than {@code PlanCache} holds made every copy plan them again).
 *
 * <p>Each form's first box is planned and checked as any copy ({@link SelfOverlap}, the
 * planner); the first box of the copy through {@code CopyPlan.of}, whose checks of the types and
 * the destination hold for every box (one source type, one destination type, pieces with
 * read-only memory refused before). Each box's spans are checked against its segments before
 * anything of the copy runs. A box moving {@link CopyExecutor#PARALLEL_THRESHOLD_BYTES} or more,
 * or one whose plan is not one loop nest, is left to its own plan.
 * {@snippet :
 * BoxRuns forms = new BoxRuns(executor.thresholdBytes());
 * Step.Run run = forms.run(pair.box().count(), pair.sourceStrides(), F32, pair.destinationStrides(), F32);
 * // null: plan the box as a copy of its own
 * forms.forms();                         // forms planned so far
 * }
 */
public final class BoxRuns {
    /**
     * Numbers as a hash key, compared by value: here a box's loops with their offsets taken out
     * (its counts and both sides' strides), in {@link BoxTable} a shape's numbers, in
     * {@link BoxFamilies} a shape and where it crosses tiles. A key's array is never changed once
     * the key is kept.
     */
    record Key(long[] numbers) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(numbers, k.numbers);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(numbers);
        }
    }

    /**
     * The loop nest planned for a form's first box, and the offsets of that box's layouts: a box
     * at other layout offsets runs it moved by the difference. Null run: not one loop nest.
     */
    private record Form(Step.Run run, long srcOffset, long dstOffset) {
    }

    private final HashMap<Key, Form> forms = new HashMap<>();
    private final long maxBytes;
    private boolean checked;
    private int planned;

    /** @param maxBytes boxes moving this many bytes or more run their own plans (on several threads) */
    public BoxRuns(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** {@return the forms planned so far: boxes that share one are run by the same loops} */
    public int forms() {
        return planned;
    }

    /**
     * {@return the loop nest copying the box of {@code counts} from {@code src} ({@code from}
     * elements) into {@code dst} ({@code to} elements), or null when the box is planned as a copy
     * of its own (large, or not one loop nest)}
     *
     * @throws IllegalArgumentException as {@code CopyPlan.of}: types that cannot convert, a
     *     read-only destination, one that writes a slot twice
     * @throws IndexOutOfBoundsException if an element of the box lies outside its segment
     */
    public Step.Run run(long[] counts, PiecePairs.Strides src, DType from, PiecePairs.Strides dst, DType to) {
        int sw = from.byteWidth();
        int dw = to.byteWidth();
        long n = 1;
        for (long c : counts) {
            n = Math.multiplyExact(n, c);
        }
        if (n >= maxBytes / Math.max(1, sw + dw)) {
            return null;
        }
        int rank = counts.length;
        long[] numbers = new long[3 * rank];
        for (int d = 0; d < rank; d++) {
            long count = counts[d];
            numbers[3 * d] = count;
            // A dimension of one index moves nothing: its strides are no part of the form.
            numbers[3 * d + 1] = count == 1 ? 0 : src.strides()[d];
            numbers[3 * d + 2] = count == 1 ? 0 : dst.strides()[d];
        }
        Key key = new Key(numbers);
        Form form = forms.get(key);
        MemorySegment dstSegment = dst.buffer().segment();
        if (form == null) {
            Access a = access(src, from, counts);
            Access b = access(dst, to, counts);
            List<Step> steps;
            if (!checked) {
                // The copy's first box: every check of a copy, the types' and the destination's among them.
                steps = AccessCopies.steps(AccessCopies.plan(a, b));
                checked = true;
            } else {
                SelfOverlap.check(b);
                steps = Planner.planUncached(a, b, null);
            }
            Step.Run run = steps.size() == 1 && steps.getFirst() instanceof Step.Run r && r.channelLoop() < 0 ? r : null;
            form = new Form(run, src.offset(), dst.offset());
            forms.put(key, form);
            planned += run == null ? 0 : 1;
        }
        if (form.run() == null) {
            return null;
        }
        Step.Run t = form.run();
        Step.Run run = new Step.Run(t.kernel(), Math.addExact(t.srcOffset(), Math.subtractExact(src.offset(), form.srcOffset())),
                Math.addExact(t.dstOffset(), Math.subtractExact(dst.offset(), form.dstOffset())), t.loops(), -1);
        if (dstSegment.isReadOnly()) {
            throw new IllegalArgumentException("cannot copy into " + to + Arrays.toString(counts) + ": its segment ("
                    + dstSegment.byteSize() + " bytes) is read-only");
        }
        checkSpan("source", src.buffer().segment(), from, counts, run.srcOffset(), run.loops(), true);
        checkSpan("destination", dstSegment, to, counts, run.dstOffset(), run.loops(), false);
        return run;
    }

    /**
     * A form's loop nest resolved for one copy: its run at the offsets of the box it was planned
     * on ({@code srcOffset}, {@code dstOffset}), and the elements its loops reach below and above
     * a run's offsets on each side, so each box moved to its offsets is checked in a few additions.
     *
     * @param run the loops and kernel, at the offsets of the box planned
     * @param srcOffset that box's source element offset
     * @param dstOffset its destination element offset
     * @param srcBelow elements the loops reach below a run's source offset (0 or negative)
     * @param srcAbove elements they reach above it
     * @param dstBelow as {@code srcBelow}, the destination's
     * @param dstAbove as {@code srcAbove}, the destination's
     */
    public record Resolved(Step.Run run, long srcOffset, long dstOffset, long srcBelow, long srcAbove, long dstBelow,
                           long dstAbove) {
        /**
         * Throws unless the elements the loops reach from source offset {@code a} in {@code x} and
         * destination offset {@code b} in {@code y} lie inside them.
         *
         * @throws IndexOutOfBoundsException naming the side and the elements
         */
        public void checkSpans(long a, MemorySegment x, long b, MemorySegment y, DType from, DType to) {
            long lo = a + srcBelow;
            long hi = a + srcAbove;
            if (lo < 0 || hi >= x.byteSize() / from.byteWidth()) {
                checkSpan("source", x, from, counts(), a, run.loops(), true);
            }
            lo = b + dstBelow;
            hi = b + dstAbove;
            if (lo < 0 || hi >= y.byteSize() / to.byteWidth()) {
                checkSpan("destination", y, to, counts(), b, run.loops(), false);
            }
        }

        private long[] counts() {
            return run.loops().stream().mapToLong(Loop::count).toArray();
        }
    }

    /**
     * {@return the loops of the box of {@code counts} from {@code src} into {@code dst}, as
     * {@link #run} gives them, resolved for running at other boxes' offsets, or null when the box
     * is planned as a copy of its own} The first box of a form is planned and checked as
     * {@link #run} plans it; every box run by it is checked by {@link Resolved#checkSpans}.
     *
     * @throws IllegalArgumentException as {@link #run}
     * @throws IndexOutOfBoundsException as {@link #run}
     */
    public Resolved resolve(long[] counts, PiecePairs.Strides src, DType from, PiecePairs.Strides dst, DType to) {
        Step.Run run = run(counts, src, from, dst, to);
        if (run == null) {
            return null;
        }
        long srcBelow = 0;
        long srcAbove = 0;
        long dstBelow = 0;
        long dstAbove = 0;
        for (Loop l : run.loops()) {
            long s = Math.multiplyExact(l.count() - 1, l.srcStride());
            long d = Math.multiplyExact(l.count() - 1, l.dstStride());
            srcBelow = Math.addExact(srcBelow, Math.min(s, 0));
            srcAbove = Math.addExact(srcAbove, Math.max(s, 0));
            dstBelow = Math.addExact(dstBelow, Math.min(d, 0));
            dstAbove = Math.addExact(dstAbove, Math.max(d, 0));
        }
        return new Resolved(run, src.offset(), dst.offset(), srcBelow, srcAbove, dstBelow, dstAbove);
    }

    /** {@return one side of a box as an access of its own} */
    public static Access access(PiecePairs.Strides side, DType dtype, long[] counts) {
        return Access.strided(side.buffer().segment(), dtype, StridedLayout.of(counts, side.strides(), side.offset()));
    }

    /** Throws unless the elements the loops reach from {@code offset} lie inside {@code segment}. */
    private static void checkSpan(String side, MemorySegment segment, DType dtype, long[] counts, long offset,
                                  List<Loop> loops, boolean source) {
        long lo = offset;
        long hi = offset;
        for (Loop l : loops) {
            long reach = Math.multiplyExact(l.count() - 1, source ? l.srcStride() : l.dstStride());
            if (reach < 0) {
                lo = Math.addExact(lo, reach);
            } else {
                hi = Math.addExact(hi, reach);
            }
        }
        if (lo < 0 || hi >= segment.byteSize() / dtype.byteWidth()) {
            throw new IndexOutOfBoundsException(side + " elements [" + lo + ", " + hi + "] of " + dtype
                    + Arrays.toString(counts) + " fall outside its segment of " + segment.byteSize() + " bytes");
        }
    }
}
