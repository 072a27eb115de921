package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;

import dev.tensorbuf.views.TensorView;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The steps of copies planned before, by everything a plan depends on: both types, the dims,
 * both sides' addressing, the bytes the destination owns and the channel of a scale and bias.
 * A program staging small tensors copies the same shapes over and over, and planning a tiled
 * side (its digits, boxes and padding boxes) costs 1.5-25 us, many times the copy of a few KiB; a hit costs a hash of the key.
 *
 * <p>Steps hold element offsets and strides, no segment, so one plan serves every pair of
 * buffers with the same addressing, and a cached plan keeps no memory alive. What the checks need
 * from a plan is kept with it ({@link PlannedSteps}), and a destination that would overlap itself
 * is refused before its plan is kept; the checks against the segments (bounds, overlap with the
 * source) still run on every call ({@code CopyPlan.of}).
 * A side addressed by a map is keyed by the map (hashed by its expressions' top levels, and
 * compared at its identity first when a view made once hands the same map each call), except
 * that a gather is not kept for it: a small map's first copy gathers without looking for the
 * split ({@link SplitDims}) that a later copy finds.
 *
 * <p>An epilogue pass's decisions ({@link PointwiseCopy.Shape}: its lookup table or vector
 * lowering, its blocks) are kept the same way, keyed by the expression, the types and addressing
 * and the per-channel constants' bits.
 *
 * <p>Bounded: when it holds {@value #CAPACITY} plans it starts over, so a program that cycles
 * through more shapes than that plans as it would without a cache, and no more.
 */
final class PlanCache {
    static final int CAPACITY = 512;

    private static final ConcurrentHashMap<Key, PlannedSteps> PLANS = new ConcurrentHashMap<>();

    private PlanCache() {
    }

    /**
     * What {@link Planner#planUncached} reads of its arguments; nothing else enters a plan. The
     * numbers (types, channel, dims, strides and offsets) are packed in one array, hashed once: a
     * record of the same parts hashed its lists of boxed longs on every lookup, a tenth of a small
     * copy's time. A tiled side's shape is compared as a whole but not hashed (its dims and type
     * are in the array), and a view made once hands the same shape every call, so the comparison
     * ends at its identity.
     */
    private static final class Key {
        private final long[] numbers;
        private final ArrayShape srcShape;
        private final ArrayShape dstShape;
        private final IndexingMap srcMap;
        private final IndexingMap dstMap;
        private final int hash;

        Key(Access src, Access dst, ChannelAffine affine) {
            int rank = src.rank();
            long[] n = new long[5 + rank + 2 * (2 * rank + 2)];
            n[0] = src.dtype().ordinal();
            n[1] = dst.dtype().ordinal();
            n[2] = affine == null ? -1 : affine.channelDim();
            n[3] = affine == null ? 0 : 1;
            for (int i = 0; i < rank; i++) {
                n[4 + i] = src.dims().get(i);
            }
            put(n, 4 + rank, src.addressing(), rank);
            put(n, 4 + rank + 2 * rank + 2, dst.addressing(), rank);
            n[n.length - 1] = dst.ownedBytes(); // the padding the plan zeroes past the addressing's slots
            this.numbers = n;
            this.srcShape = src.addressing() instanceof Access.Tiled(ArrayShape s) ? s : null;
            this.dstShape = dst.addressing() instanceof Access.Tiled(ArrayShape s) ? s : null;
            this.srcMap = src.addressing() instanceof Access.Mapped(IndexingMap m) ? m : null;
            this.dstMap = dst.addressing() instanceof Access.Mapped(IndexingMap m) ? m : null;
            this.hash = (Arrays.hashCode(n) * 31 + Objects.hashCode(srcMap)) * 31 + Objects.hashCode(dstMap);
        }

        /** A strided side's sizes, strides and offset from {@code at}; a tiled side leaves its slots zero but one. */
        private static void put(long[] n, int at, Access.Addressing side, int rank) {
            if (side instanceof Access.Strided(StridedLayout l)) {
                for (int i = 0; i < rank; i++) {
                    n[at + i] = l.sizes().get(i);
                    n[at + rank + i] = l.strides().get(i);
                }
                n[at + 2 * rank] = l.offset();
            } else {
                n[at + 2 * rank + 1] = 1;
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && hash == k.hash && Arrays.equals(numbers, k.numbers)
                    && Objects.equals(srcShape, k.srcShape) && Objects.equals(dstShape, k.dstShape)
                    && Objects.equals(srcMap, k.srcMap) && Objects.equals(dstMap, k.dstMap);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** {@return the cached steps for this copy, made by {@code plan} on a miss} */
    static PlannedSteps steps(Access src, Access dst, ChannelAffine affine, Supplier<PlannedSteps> plan) {
        Key key = new Key(src, dst, affine);
        PlannedSteps steps = PLANS.get(key);
        if (steps == null) {
            // Planned outside the map's locks: two threads missing at once both plan, and the
            // plans are equal.
            steps = plan.get();
            if (steps.gathers() && (key.srcMap != null || key.dstMap != null)) {
                // A small map's first copy gathers without looking for a split (SplitDims); the
                // next one looks, so the gather is not kept.
                return steps;
            }
            if (PLANS.size() >= CAPACITY) {
                PLANS.clear();
            }
            PLANS.put(key, steps);
        }
        return steps;
    }

    /** Epilogue passes' decisions ({@link PointwiseCopy.Shape}), by {@link PointwiseKey}. */
    private static final ConcurrentHashMap<PointwiseKey, PointwiseCopy.Shape> POINTWISE = new ConcurrentHashMap<>();

    /**
     * What {@link PointwiseCopy.Shape#of} reads: the expression, whether vector lanes may run, the
     * destination's type and addressing, each operand's type and addressing, and the values of
     * the operands the table or the lanes may hold as per-channel constants (a broadcast scalar,
     * or a view varying along one dim of at most {@link PointwiseLanes#MAX_CHANNELS}): their bits,
     * so a pass over other constants is planned anew, and one over other data is not.
     */
    private static final class PointwiseKey {
        private final String expr;
        private final long[] numbers;
        private final int hash;

        PointwiseKey(Pointwise.Expr e, List<TensorView> leaves, TensorView dst) {
            this.expr = e.toString();
            LongList n = new LongList();
            n.add(VectorSupport.enabled() && !"false".equals(System.getProperty("tensorbuf.pointwise.lanes")) ? 1 : 0);
            n.add(dst.dtype().ordinal());
            for (long d : dst.dims()) {
                n.add(d);
            }
            layout(n, dst);
            n.add(leaves.size());
            for (TensorView l : leaves) {
                n.add(l.dtype().ordinal());
                layout(n, l);
                constantBits(n, l);
            }
            this.numbers = n.toArray();
            this.hash = expr.hashCode() * 31 + Arrays.hashCode(numbers);
        }

        /** A strided view's strides and offset; any other a marker (its map is read block by block, never planned on). */
        private static void layout(LongList n, TensorView v) {
            StridedLayout l = v.stridedLayout().orElse(null);
            if (l == null) {
                n.add(-1);
                return;
            }
            n.add(l.rank());
            for (long s : l.strides()) {
                n.add(s);
            }
            n.add(l.offset());
        }

        private static void constantBits(LongList n, TensorView v) {
            int d = PointwiseTable.varyingDim(v);
            long count = d == -1 ? 1 : d >= 0 ? v.dims().get(d) : 0;
            if (d == -2 || count > PointwiseLanes.MAX_CHANNELS || v.elementCount() == 0) {
                n.add(-1);
                return;
            }
            StridedLayout l = v.stridedLayout().orElseThrow();
            long stride = d < 0 ? 0 : l.strides().get(d);
            dev.tensorbuf.views.ElementAccess a = dev.tensorbuf.views.ElementAccess.of(v.dtype());
            java.lang.foreign.MemorySegment seg = v.buffer().segment();
            n.add(count);
            for (long i = 0; i < count; i++) {
                n.add(a.getBits(seg, l.offset() + i * stride));
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PointwiseKey k && hash == k.hash && Arrays.equals(numbers, k.numbers) && expr.equals(k.expr);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** A growable long[]: a key's numbers, hashed once. */
    private static final class LongList {
        private long[] a = new long[32];
        private int size;

        void add(long v) {
            if (size == a.length) {
                a = Arrays.copyOf(a, size * 2);
            }
            a[size++] = v;
        }

        long[] toArray() {
            return Arrays.copyOf(a, size);
        }
    }

    /** {@return the cached decisions of an epilogue pass of {@code e} over {@code leaves} into {@code dst}, made by {@code plan} on a miss} */
    static PointwiseCopy.Shape pointwise(Pointwise.Expr e, List<TensorView> leaves, TensorView dst,
                                         Supplier<PointwiseCopy.Shape> plan) {
        PointwiseKey key = new PointwiseKey(e, leaves, dst);
        PointwiseCopy.Shape shape = POINTWISE.get(key);
        if (shape == null) {
            shape = plan.get();
            if (POINTWISE.size() >= CAPACITY) {
                POINTWISE.clear();
            }
            PointwiseCopy.Shape raced = POINTWISE.putIfAbsent(key, shape);
            shape = raced != null ? raced : shape;
        }
        return shape;
    }

    /** {@return how many plans are held} For tests. */
    static int size() {
        return PLANS.size();
    }

    /** Forgets every plan. For tests. */
    static void clear() {
        PLANS.clear();
        POINTWISE.clear();
    }
}
