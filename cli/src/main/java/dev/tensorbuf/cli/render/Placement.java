package dev.tensorbuf.cli.render;

import java.util.List;

/**
 * Where a layout puts each element, as the picture asks it: the grid (logical cells plus, for
 * tiled layouts, the padding cells that fill the last tiles), the element offset of every grid
 * cell, tile membership per level, and the memory slots in physical order.
 * {@snippet :
 * Placement p = TiledPlacement.of(ArrayShape.parse("f32[3,5]{1,0:T(2,2)}"));
 * p.gridDims();                   // [4, 6]: the last row and column are padding
 * p.offsetOf(new long[] {2, 3});  // 17
 * p.offsetOf(new long[] {3, 5});  // 23, a padding cell
 * p.slotCount();                  // 24
 * p.paddingSlots();               // 9
 * }
 */
public sealed interface Placement permits TiledPlacement, StridedPlacement {
    /** {@return the canonical text of the layout, for the title} */
    String title();

    /** {@return one line under the title: counts and tiling} */
    String subtitle();

    /** {@return the logical sizes} */
    List<Long> dims();

    /** {@return the grid sizes: {@link #dims()} plus padding cells, each at least the logical size} */
    List<Long> gridDims();

    /** {@return the element offset of a grid cell (a logical cell, or a padding cell's slot)} */
    long offsetOf(long[] gridIndex);

    /** {@return how many logical elements share the offset of logical cell {@code index} (1 unless broadcast or overlapping)} */
    long sharing(long[] index);

    /** {@return the tile levels drawn: 0 when untiled} */
    int tileLevels();

    /** {@return the tile level names for the legend, outermost first, e.g. {@code ["(2,4)", "(2,1)"]}} */
    List<String> tileNames();

    /** {@return the tile id of a grid cell at each level, outermost first; ids count tiles in memory order} */
    long[] tileIds(long[] gridIndex);

    /**
     * {@return the colour key of a grid cell in a panel over {@code rowDim} x {@code colDim}: the
     * outer tile id when tiled, else the coordinate along the panel dim that varies slower in memory}
     *
     * @param rowDim the panel's row dim, or -1 for a one-row panel
     */
    long colourKey(long[] gridIndex, int rowDim, int colDim);

    /** {@return what a fill means when untiled, for the legend, in a panel over {@code rowDim} x {@code colDim}} */
    String colourMeaning(int rowDim, int colDim);

    /** {@return the slots the memory strip covers, {@code [0, slotCount())}} */
    long slotCount();

    /** {@return the slots in {@code [0, slotCount())} that hold no element} */
    long paddingSlots();

    /**
     * {@return the smallest slot at or after {@code slot} that holds an element, or
     * {@link #slotCount()} when none does; {@code -1} when finding it would take more than
     * {@code budget} steps}
     */
    long nextOccupied(long slot, long budget);

    /** {@return what slot {@code slot} holds, coloured as a panel over {@code rowDim} x {@code colDim} colours it} */
    StripItem.Slot slot(long slot, int rowDim, int colDim);

    /** {@return the word for a slot without an element in the legend: "padding"} */
    default String paddingWord() {
        return "padding";
    }

    /** {@return the index as text, {@code "2,3"}} */
    static String indexText(long[] index) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < index.length; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(index[i]);
        }
        return b.toString();
    }
}
