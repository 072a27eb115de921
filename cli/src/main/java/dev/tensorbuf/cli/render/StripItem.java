package dev.tensorbuf.cli.render;

import java.util.Arrays;
import java.util.Objects;

/**
 * One box of the memory strip, in physical order: a slot, or a collapsed run of padding.
 * {@snippet :
 * // f32[3,5]{1,0:T(2,2)}: slot 17 holds element (2,3) of outer tile 4; slot 9 is padding
 * new StripItem.Slot(17, "2,3", "2,3", 1, 4, new long[] {4});
 * new StripItem.Slot(9, null, "", 0, 2, new long[] {2});
 * }
 */
public sealed interface StripItem permits StripItem.Slot, StripItem.Gap {
    /**
     * One element slot.
     *
     * @param slot the element offset
     * @param index the first logical index stored there as text, or null for padding
     * @param label what the box shows: the index, with {@code *} for broadcast dims and
     *     {@code ×N} when other elements share it too
     * @param count how many logical elements the slot holds (0 for padding)
     * @param colourKey the colour key, -1 for none
     * @param tileIds the tile id per level, outermost first
     */
    record Slot(long slot, String index, String label, long count, long colourKey, long[] tileIds)
            implements StripItem {
        /** {@code tileIds} is copied in, and out by its accessor: a record never shares an array. */
        public Slot {
            tileIds = tileIds.clone();
        }

        /** {@return the tile id per level, outermost first (a copy)} */
        @Override
        public long[] tileIds() {
            return tileIds.clone();
        }

        /** {@return the number of tile levels} */
        public int tileLevels() {
            return tileIds.length;
        }

        /** {@return the tile id of level {@code level}, without copying the array} */
        public long tileId(int level) {
            return tileIds[level];
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Slot s && slot == s.slot && Objects.equals(index, s.index) && label.equals(s.label)
                    && count == s.count && colourKey == s.colourKey && Arrays.equals(tileIds, s.tileIds);
        }

        @Override
        public int hashCode() {
            return Objects.hash(slot, index, label, count, colourKey, Arrays.hashCode(tileIds));
        }

        @Override
        public String toString() {
            return "Slot[slot=" + slot + ", index=" + index + ", label=" + label + ", count=" + count + ", colourKey="
                    + colourKey + ", tileIds=" + Arrays.toString(tileIds) + "]";
        }

        /** {@return whether the slot holds no element} */
        public boolean padding() {
            return count == 0;
        }
    }

    /**
     * A run of more than {@link LayoutPicture#GAP_COLLAPSE} padding slots, drawn as one box.
     *
     * @param from the first slot of the run
     * @param length the number of slots
     */
    record Gap(long from, long length) implements StripItem {
    }
}
