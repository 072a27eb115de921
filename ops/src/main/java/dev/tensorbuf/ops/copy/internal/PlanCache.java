package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;

import java.util.Arrays;
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

    /** {@return how many plans are held} For tests. */
    static int size() {
        return PLANS.size();
    }

    /** Forgets every plan. For tests. */
    static void clear() {
        PLANS.clear();
    }
}
