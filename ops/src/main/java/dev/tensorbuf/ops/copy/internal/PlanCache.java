package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.Access;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.Step;
import dev.tensorbuf.views.DType;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The steps of copies planned before, by everything a plan depends on: both types, the dims,
 * both sides' addressing and the channel of a scale and bias. A program staging small tensors
 * copies the same shapes over and over, and planning a tiled side (its digits, boxes and padding
 * boxes) costs 1.5-25 us, many times the copy of a few KiB; a hit costs a hash of the key.
 *
 * <p>Steps hold element offsets and strides, no segment, so one plan serves every pair of
 * buffers with the same addressing, and a cached plan keeps no memory alive. The bounds and
 * overlap checks depend on the segments and still run on every call ({@code CopyPlan.of}).
 * A side addressed by a general map is not cached: its plan is a gather, which costs little to
 * make, and its key (an indexing map) would cost more to hash than the plan.
 *
 * <p>Bounded: when it holds {@value #CAPACITY} plans it starts over, so a program that cycles
 * through more shapes than that plans as it would without a cache, and no more.
 */
final class PlanCache {
    static final int CAPACITY = 512;

    private static final ConcurrentHashMap<Key, List<Step>> PLANS = new ConcurrentHashMap<>();

    private PlanCache() {
    }

    /** What {@link Planner#planUncached} reads of its arguments; nothing else enters a plan. */
    private record Key(DType from, DType to, List<Long> dims, Access.Addressing src, Access.Addressing dst,
                       int channel, boolean scaled) {
    }

    /** {@return the cached steps for this copy, made by {@code plan} on a miss} */
    static List<Step> steps(Access src, Access dst, ChannelAffine affine, Supplier<List<Step>> plan) {
        if (src.addressing() instanceof Access.Mapped || dst.addressing() instanceof Access.Mapped) {
            return plan.get();
        }
        Key key = new Key(src.dtype(), dst.dtype(), src.dims(), src.addressing(), dst.addressing(),
                affine == null ? -1 : affine.channelDim(), affine != null);
        List<Step> steps = PLANS.get(key);
        if (steps == null) {
            // Planned outside the map's locks: two threads missing at once both plan, and the
            // plans are equal.
            steps = List.copyOf(plan.get());
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
