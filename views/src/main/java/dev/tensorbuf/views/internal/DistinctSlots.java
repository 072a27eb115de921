package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.TensorView;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Finds two indices that write one slot, by visiting every index: the check behind every refusal
 * of a destination that would overlap itself, for the shapes whose strides cannot decide it (a
 * broadcast then reshaped, a concatenation of one buffer with itself, a map that is not
 * one-to-one). A writer with two indices on one slot keeps whichever value lands last, so
 * {@link TensorView#copyFrom(float[])} and the copy engine both refuse such a destination before
 * writing anything.
 * {@snippet :
 * // [2, 3] with strides [0, 1] (a broadcast), reshaped to [6]: no strided form
 * DistinctSlots.Repeat r = DistinctSlots.firstRepeat(view);
 * // r.first() = [0], r.second() = [3]: both write element 0 of the buffer
 * }
 */
public final class DistinctSlots {
    /** Most slots a bit set may cover (128 MiB of bits), and at most 64 per element; wider reaches sort the slots instead. */
    private static final long MAX_BITS = 1L << 30;

    private DistinctSlots() {
    }

    /** Where each index writes: a slot number, distinct for distinct slots. */
    public interface Slots {
        long at(long[] index);
    }

    /** Two indices, the first two in row-major order, that write {@code slot}. */
    public record Repeat(long[] first, long[] second, long slot) {
        @Override
        public String toString() {
            return "index " + Arrays.toString(first) + " and index " + Arrays.toString(second);
        }
    }

    /**
     * {@return the first two indices of {@code dims} that {@code slots} sends to one slot, or null
     * when every index has a slot of its own}
     *
     * @param lo the lowest slot any index may take, {@code hi} the highest; {@link Long#MIN_VALUE}
     *     and {@link Long#MAX_VALUE} when unknown. A slot outside them counts as distinct: the
     *     bounds check that follows reports it.
     */
    public static Repeat firstRepeat(List<Long> dims, Slots slots, long lo, long hi) {
        long n = 1;
        for (long d : dims) {
            n = Math.multiplyExact(n, d);
        }
        if (n <= 1) {
            return null;
        }
        long span = hi - lo + 1; // wraps to 0 or below when the range is unknown
        Long repeated;
        if (span > 0 && span <= MAX_BITS && span <= Math.max(64 * n, 1 << 20)) {
            repeated = firstRepeatByBits(dims, slots, lo, span);
        } else if (n <= Integer.MAX_VALUE - 8) {
            repeated = firstRepeatBySorting(dims, slots, (int) n);
        } else {
            // Beyond 2^31 elements and 2^30 slots: too large to check by visiting. Such a
            // destination is not strided, not tiled, and sparse; no op of ours makes one.
            return null;
        }
        if (repeated == null) {
            return null;
        }
        long[] first = null;
        long[] index = new long[dims.size()];
        do {
            if (slots.at(index) == repeated) {
                if (first != null) {
                    return new Repeat(first, index, repeated);
                }
                first = index.clone();
            }
        } while (next(index, dims));
        throw new IllegalStateException("slot " + repeated + " was seen twice, then once"); // slots must be a function
    }

    /**
     * {@return the first two indices of {@code view} that write one slot, or null when each has its
     * own} Slots are bit addresses, so pieces over different buffers, or over one buffer twice,
     * compare as the memory they write. An index on a pad's fill or on read-only memory is refused
     * here, before anything is written.
     *
     * @throws IllegalArgumentException for an index that may not be written
     */
    public static Repeat firstRepeat(TensorView view) {
        ViewReader reader = ViewReader.of(view.map());
        long bits = view.access().storageBits();
        long[] unheld = {0};
        // Segment addresses are below 2^61 on every 64-bit platform, so bit addresses fit a long.
        return firstRepeat(view.dims(), index -> {
            int p = reader.pieceOf(index);
            if (p < 0) {
                return -1 - unheld[0]++; // no piece: the element write names it
            }
            if (reader.writeRefusal(p, index, view) instanceof IllegalArgumentException refused) {
                throw refused;
            }
            return reader.buffer(p).segment().address() * 8 + reader.offset(p, index) * bits;
        }, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private static Long firstRepeatByBits(List<Long> dims, Slots slots, long lo, long span) {
        BitSet seen = new BitSet((int) Math.min(span, Integer.MAX_VALUE));
        long[] index = new long[dims.size()];
        do {
            long slot = slots.at(index) - lo;
            if (slot < 0 || slot >= span) {
                return null; // outside the range: the bounds check reports it
            }
            if (seen.get((int) slot)) {
                return slot + lo;
            }
            seen.set((int) slot);
        } while (next(index, dims));
        return null;
    }

    private static Long firstRepeatBySorting(List<Long> dims, Slots slots, int n) {
        long[] all = new long[n];
        long[] index = new long[dims.size()];
        int k = 0;
        do {
            all[k++] = slots.at(index);
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
    private static boolean next(long[] index, List<Long> dims) {
        for (int k = index.length - 1; k >= 0; k--) {
            if (++index[k] < dims.get(k)) {
                return true;
            }
            index[k] = 0;
        }
        return false;
    }
}
