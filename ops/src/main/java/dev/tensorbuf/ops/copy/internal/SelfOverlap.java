package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.DistinctSlots;
import java.util.Arrays;
import java.util.List;

/**
 * Refuses a destination that writes one slot from two indices, whatever form its addressing
 * takes: the result of such a copy would depend on which write lands last. A zero stride is the
 * plain case; a broadcast then transposed and reshaped, or a remap through a map that is not
 * one-to-one, are mapped accesses with the same fault. Strided layouts whose strides nest (each
 * at least the extent of the smaller ones, as every layout made by slicing, transposing or
 * reversing a dense one) are accepted at once, and so are maps strided over split dimensions
 * ({@link SplitDims}: a reshape of a transpose) whose digits nest; other strided layouts and maps are checked by
 * visiting every index ({@link DistinctSlots}). Tiled accesses follow an XLA layout, one slot per element.
 * {@snippet :
 * Access overlapping = Access.strided(segment, DType.F32, StridedLayout.of(new long[] {3, 2}, new long[] {1, 1}));
 * SelfOverlap.check(overlapping);
 * // IllegalArgumentException: "destination f32[3, 2] writes index [0, 1] and index [1, 0] to one slot
 * //  (element offset 1): a destination may not overlap itself"
 * }
 */
public final class SelfOverlap {
    private SelfOverlap() {
    }

    /** Throws unless every index of {@code dst} addresses a slot of its own. */
    public static void check(Access dst) {
        if (dst.elementCount() <= 1) {
            return;
        }
        switch (dst.addressing()) {
            case Access.Strided(StridedLayout l) -> {
                for (int d = 0; d < l.rank(); d++) {
                    if (l.strides().get(d) == 0 && l.sizes().get(d) > 1) {
                        throw Errors.zeroStrideDestination(l.sizes().get(d));
                    }
                }
                long[][] strideSizes = new long[l.rank()][];
                for (int d = 0; d < l.rank(); d++) {
                    strideSizes[d] = new long[] {l.strides().get(d), l.sizes().get(d)};
                }
                if (!nests(strideSizes)) {
                    checkDistinct(describe(dst), dst.dims(), index -> l.offsetOf(index), l.minOffset(), l.maxOffset());
                }
            }
            case Access.Mapped(IndexingMap map) when SplitDims.of(map, dst.elementCount()).filter(SelfOverlap::nests).isPresent() -> {
            }
            case Access.Mapped(IndexingMap map) -> {
                IndexingMap.Compiled f = map.compile();
                var range = map.range(map.results().getFirst());
                checkDistinct(describe(dst), dst.dims(), index -> f.evaluate(0, index), range.lo(), range.hi());
            }
            case Access.Tiled t -> {
            }
        }
    }

    /** {@return whether the digits of a map strided over split dimensions nest, as {@link #nests(long[][])}} */
    private static boolean nests(SplitDims.Split split) {
        long[][] strideSizes = new long[split.digits().size()][];
        for (int j = 0; j < strideSizes.length; j++) {
            strideSizes[j] = new long[] {split.digits().get(j).stride(), split.digits().get(j).radix()};
        }
        return nests(strideSizes);
    }

    /**
     * {@return whether, sorted by size of stride, each stride is at least the extent of the dims
     * below it} {@code strideSizes} holds {stride, size} pairs, in any order; it is sorted here.
     */
    private static boolean nests(long[][] strideSizes) {
        long[][] dims = strideSizes;
        for (long[] d : dims) {
            d[0] = Math.abs(d[0]);
        }
        Arrays.sort(dims, (a, b) -> Long.compare(a[0], b[0]));
        long extent = 1;
        for (long[] d : dims) {
            if (d[1] == 1) {
                continue;
            }
            if (d[0] < extent) {
                return false;
            }
            extent = Math.addExact(extent, Math.multiplyExact(d[0], d[1] - 1));
        }
        return true;
    }

    private static String describe(Access dst) {
        return "destination " + dst.dtype() + dst.dims();
    }

    /**
     * Throws naming the first two indices of {@code dims} that {@code slots} sends to one slot;
     * {@code lo} and {@code hi} bound the slots as in {@link DistinctSlots#firstRepeat(List,
     * DistinctSlots.Slots, long, long)}.
     */
    private static void checkDistinct(String what, List<Long> dims, DistinctSlots.Slots slots, long lo, long hi) {
        Extents.elementCount(what, dims);
        DistinctSlots.Repeat repeat = DistinctSlots.firstRepeat(dims, slots, lo, hi);
        if (repeat != null) {
            throw Errors.overlapsItself(what + " writes " + repeat + " to one slot (element offset " + repeat.slot() + ")");
        }
    }
}
