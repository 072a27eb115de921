package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.Extents;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The slots of one packed sub-byte view (1, 2 or 4 bits a slot), visited in the row-major order
 * of its indices through its strides or its element map: {@link #gather} reads each into a byte of
 * a temporary of exactly the view's elements, {@link #scatter} writes each back into its slot.
 * Staging a view that reaches far more slots than it has elements (every 1000th element of a
 * packed buffer, a crop of a big tiled {@code s4} array) this way costs a step per element, where
 * unpacking the span it reaches would cost a step per slot ({@link SubByteStaging}).
 * <p>
 * Slot {@code s} is bits {@code [b*(s % (8/b)), ...)} of byte {@code s / (8/b)}, first slot lowest,
 * as {@link SubByteStaging#unpack} reads it. A scattered slot is merged into its byte (the byte read,
 * the slot's bits changed, the byte stored), so the slots the view does not reach keep their bits.
 */
final class GatheredSlots {
    private final long[] dims;
    /** Per dimension, in slots; null when the slots come from {@link #map}. */
    private final long[] strides;
    private final long offset;
    private final IndexingMap.Compiled map;
    private final long lowestSlot;

    private GatheredSlots(long[] dims, long[] strides, long offset, IndexingMap.Compiled map, long lowestSlot) {
        this.dims = dims;
        this.strides = strides;
        this.offset = offset;
        this.map = map;
        this.lowestSlot = lowestSlot;
    }

    /** {@return the slots of a strided view, its offsets and strides counted in slots} */
    static GatheredSlots strided(StridedLayout layout) {
        return new GatheredSlots(Extents.toArray(layout.sizes()), Extents.toArray(layout.strides()), layout.offset(), null,
                layout.minOffset());
    }

    /**
     * {@return the slots of a view whose map takes its index to its slot} The map has one result and
     * no range or runtime variables or constraints; {@code lowestSlot} is its range's low end.
     */
    static GatheredSlots mapped(IndexingMap map, long[] dims, long lowestSlot) {
        return new GatheredSlots(dims.clone(), null, 0, map.compile(), lowestSlot);
    }

    /** {@return how the slots are found, in a word: "strides" or "map"} */
    String how() {
        return strides != null ? "strides" : "map";
    }

    /** {@return the lowest slot the view reaches} */
    long lowestSlot() {
        return lowestSlot;
    }

    /** {@return the view's elements: the bytes a temporary of its slots needs} */
    long elements() {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    /** Reads each slot of the view from {@code packed} into byte {@code k} of {@code temp}, {@code k} its row-major index. */
    void gather(MemorySegment packed, int bits, MemorySegment temp) {
        walk(packed, bits, temp, false);
    }

    /**
     * Writes byte {@code k} of {@code temp} ({@code k} the row-major index; its low {@code bits}
     * bits, so a raw byte with high bits set stores as a slot's bits) into the view's slot, merged
     * into its byte. Slots a view reaches twice would be written twice: a destination's staging
     * refuses such a view before.
     */
    void scatter(MemorySegment temp, int bits, MemorySegment packed) {
        walk(packed, bits, temp, true);
    }

    private void walk(MemorySegment packed, int bits, MemorySegment temp, boolean write) {
        if (elements() == 0) {
            return;
        }
        if (strides != null) {
            walkStrides(packed, bits, temp, write);
        } else {
            walkMap(packed, bits, temp, write);
        }
    }

    /** The innermost dimension along its stride, the outer ones by an odometer. */
    private void walkStrides(MemorySegment packed, int bits, MemorySegment temp, boolean write) {
        int byteShift = Integer.numberOfTrailingZeros(8 / bits);
        int bitShift = Integer.numberOfTrailingZeros(bits);
        int slotMask = 8 / bits - 1;
        int low = (1 << bits) - 1;
        int rank = dims.length;
        long inner = rank == 0 ? 1 : dims[rank - 1];
        long step = rank == 0 ? 0 : strides[rank - 1];
        long rows = elements() / inner;
        long[] index = new long[rank];
        long base = offset;
        long o = 0;
        for (long row = 0; row < rows; row++) {
            long slot = base;
            for (long k = 0; k < inner; k++, slot += step, o++) {
                move(packed, slot >>> byteShift, (int) (slot & slotMask) << bitShift, low, temp, o, write);
            }
            for (int d = rank - 2; d >= 0; d--) {
                base += strides[d];
                if (++index[d] < dims[d]) {
                    break;
                }
                base -= strides[d] * dims[d];
                index[d] = 0;
            }
        }
    }

    /** Every index in row-major order through the compiled map. */
    private void walkMap(MemorySegment packed, int bits, MemorySegment temp, boolean write) {
        int byteShift = Integer.numberOfTrailingZeros(8 / bits);
        int bitShift = Integer.numberOfTrailingZeros(bits);
        int slotMask = 8 / bits - 1;
        int low = (1 << bits) - 1;
        int rank = dims.length;
        long n = elements();
        long[] index = new long[rank];
        for (long o = 0; o < n; o++) {
            long slot = map.evaluate(0, index);
            move(packed, slot >>> byteShift, (int) (slot & slotMask) << bitShift, low, temp, o, write);
            for (int d = rank - 1; d >= 0 && ++index[d] == dims[d]; d--) {
                index[d] = 0;
            }
        }
    }

    private static void move(MemorySegment packed, long at, int shift, int low, MemorySegment temp, long o, boolean write) {
        int b = packed.get(ValueLayout.JAVA_BYTE, at);
        if (write) {
            int v = temp.get(ValueLayout.JAVA_BYTE, o) & low;
            packed.set(ValueLayout.JAVA_BYTE, at, (byte) (b & ~(low << shift) | v << shift));
        } else {
            temp.set(ValueLayout.JAVA_BYTE, o, (byte) (b >>> shift & low));
        }
    }
}
