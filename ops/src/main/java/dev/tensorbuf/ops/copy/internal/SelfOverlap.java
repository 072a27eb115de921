package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.Access;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.CompiledMap;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Refuses a destination that writes one slot from two indices, whatever form its addressing
 * takes: the result of such a copy would depend on which write lands last. A zero stride is the
 * plain case; a broadcast then transposed and reshaped, or a remap through a map that is not
 * one-to-one, are mapped accesses with the same fault. Strided layouts whose strides nest (each
 * at least the extent of the smaller ones, as every layout made by slicing, transposing or
 * reversing a dense one) are accepted at once; other strided layouts and maps are checked by
 * visiting every index. Tiled accesses follow an XLA layout, one slot per element.
 * {@snippet :
 * Access overlapping = Access.strided(segment, DType.F32, StridedLayout.of(new long[] {3, 2}, new long[] {1, 1}));
 * SelfOverlap.check(overlapping);
 * // IllegalArgumentException: "destination f32[3, 2] writes index [0, 1] and index [1, 0] to one slot
 * //  (element offset 1): a destination may not overlap itself"
 * }
 */
public final class SelfOverlap {
    /** Most slots a bit set may cover (128 MiB of bits), and at most 64 per element; wider reaches sort the offsets instead. */
    private static final long MAX_BITS = 1L << 30;

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
                if (!nests(l)) {
                    checkDistinct(describe(dst), dst.dims(), index -> l.offsetOf(index), l.minOffset(), l.maxOffset(),
                            "element offset");
                }
            }
            case Access.Mapped(IndexingMap map) -> {
                CompiledMap f = map.compile();
                var range = map.range(map.results().getFirst());
                checkDistinct(describe(dst), dst.dims(), index -> f.evaluate(0, index), range.lo(), range.hi(),
                        "element offset");
            }
            case Access.Tiled t -> {
            }
        }
    }

    /** {@return whether, sorted by size of stride, each stride is at least the extent of the dims below it} */
    private static boolean nests(StridedLayout l) {
        long[][] dims = new long[l.rank()][];
        for (int d = 0; d < l.rank(); d++) {
            dims[d] = new long[] {Math.abs(l.strides().get(d)), l.sizes().get(d)};
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

    /** Where each index writes: a slot number, distinct for distinct slots. */
    interface Offsets {
        long at(long[] index);
    }

    /**
     * Throws naming the first two indices of {@code dims} that {@code offsets} sends to one slot.
     *
     * @param what names the destination in the message
     * @param lo the lowest slot any index may take, {@code hi} the highest; {@link Long#MIN_VALUE}
     *     and {@link Long#MAX_VALUE} when unknown
     * @param unit what a slot is, for the message ({@code "element offset"}), or null to leave it out
     */
    static void checkDistinct(String what, List<Long> dims, Offsets offsets, long lo, long hi, String unit) {
        long n = Extents.elementCount(what, dims);
        long span = hi - lo + 1; // wraps to 0 or below when the range is unknown
        Long repeated;
        if (span > 0 && span <= MAX_BITS && span <= Math.max(64 * n, 1 << 20)) {
            repeated = firstRepeatByBits(dims, offsets, lo, span);
        } else if (n <= Integer.MAX_VALUE - 8) {
            repeated = firstRepeatBySorting(dims, offsets, (int) n);
        } else {
            // Beyond 2^31 elements and 2^30 slots: too large to check by visiting. Such a
            // destination is not strided, not tiled, and sparse; no op of ours makes one.
            return;
        }
        if (repeated != null) {
            long[] first = null;
            long[] second = null;
            long[] index = new long[dims.size()];
            do {
                if (offsets.at(index) == repeated) {
                    if (first == null) {
                        first = index.clone();
                    } else {
                        second = index.clone();
                        break;
                    }
                }
            } while (next(index, dims));
            throw Errors.overlapsItself(what + " writes index " + Arrays.toString(first) + " and index "
                    + Arrays.toString(second) + " to one slot" + (unit == null ? "" : " (" + unit + " " + repeated + ")"));
        }
    }

    private static Long firstRepeatByBits(List<Long> dims, Offsets offsets, long lo, long span) {
        BitSet seen = new BitSet((int) Math.min(span, Integer.MAX_VALUE));
        long[] index = new long[dims.size()];
        do {
            long slot = offsets.at(index) - lo;
            if (slot < 0 || slot >= span) {
                return null; // outside the map's range: the bounds check reports it
            }
            if (seen.get((int) slot)) {
                return slot + lo;
            }
            seen.set((int) slot);
        } while (next(index, dims));
        return null;
    }

    private static Long firstRepeatBySorting(List<Long> dims, Offsets offsets, int n) {
        long[] all = new long[n];
        long[] index = new long[dims.size()];
        int k = 0;
        do {
            all[k++] = offsets.at(index);
        } while (next(index, dims));
        Arrays.sort(all);
        for (int i = 1; i < n; i++) {
            if (all[i] == all[i - 1]) {
                return all[i];
            }
        }
        return null;
    }

    /** Steps {@code index} in row-major order; {@return false after the last index} */
    static boolean next(long[] index, List<Long> dims) {
        for (int k = index.length - 1; k >= 0; k--) {
            if (++index[k] < dims.get(k)) {
                return true;
            }
            index[k] = 0;
        }
        return false;
    }
}
