package dev.tensorbuf.cli.render;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a layout picture shows, before any drawing: the panels of grid cells (each with its element
 * offset, tile ids and colour key), the memory strip in physical order, and what was left out.
 * Grids up to {@value #FULL_SIDE} cells a side are drawn whole; a longer side shows its first
 * {@value #SUMMARY_SIDE} cells. The strip shows up to {@value #FULL_STRIP} boxes
 * ({@value #SUMMARY_STRIP} when the grid is summarised), and a run of more than
 * {@value #GAP_COLLAPSE} padding slots is one box.
 * {@snippet :
 * LayoutPicture pic = LayoutPicture.of(TiledPlacement.of(ArrayShape.parse("f32[3,5]{1,0:T(2,2)}")),
 *         Optional.empty());
 * pic.panels().getFirst().rows();   // 4: three rows and one row of padding
 * pic.cells();                      // 15
 * pic.strip().size();               // 24 slots, 9 of them padding
 * pic.summarised();                 // false
 * }
 *
 * @param placement the layout drawn
 * @param panels the grids, in the order drawn
 * @param panelColumns how many panels sit side by side
 * @param hiddenPanels slices of a rank-3 or rank-4 array not drawn
 * @param strip the memory strip, from slot 0
 * @param hiddenSlots slots after the strip not drawn
 * @param captions what was summarised, one sentence each; empty when nothing was
 */
public record LayoutPicture(Placement placement, List<Panel> panels, int panelColumns, long hiddenPanels,
                            List<StripItem> strip, long hiddenSlots, List<String> captions) {
    /** The longest grid side drawn whole. */
    public static final int FULL_SIDE = 64;
    /** The cells of a longer side that are drawn. */
    public static final int SUMMARY_SIDE = 16;
    /** The most strip boxes drawn. */
    public static final int FULL_STRIP = 4096;
    /** The strip boxes drawn when the grid is summarised. */
    public static final int SUMMARY_STRIP = 256;
    /** A longer run of padding slots is drawn as one box. */
    public static final int GAP_COLLAPSE = 8;
    /** The most small-multiple panels drawn. */
    public static final int MAX_PANELS = 16;
    /** Steps spent looking for the next element slot before the strip stops. */
    private static final long SEARCH_BUDGET = 1L << 21;

    /** Compact constructor: copies the lists. */
    public LayoutPicture {
        panels = List.copyOf(panels);
        strip = List.copyOf(strip);
        captions = List.copyOf(captions);
    }

    /**
     * One grid: a 2-D (or one-row) slice of the array, padding cells included.
     *
     * @param slice the slice drawn
     * @param rows grid rows (1 for a one-row panel), padding included
     * @param cols grid columns, padding included
     * @param shownRows rows drawn
     * @param shownCols columns drawn
     * @param cells the drawn cells, row by row
     */
    public record Panel(SliceSpec slice, long rows, long cols, int shownRows, int shownCols, List<Cell> cells) {
        /** Compact constructor: copies the cells. */
        public Panel {
            cells = List.copyOf(cells);
        }

        /** {@return the cell at a drawn row and column} */
        public Cell cell(int row, int col) {
            return cells.get(row * shownCols + col);
        }
    }

    /**
     * One grid cell.
     *
     * @param index the full index (logical, or past the logical size for a padding cell)
     * @param offset the element offset: the number drawn in the cell
     * @param padding whether the cell is padding
     * @param sharing how many logical elements share the offset (1 unless broadcast or overlapping)
     * @param colourKey the fill's colour key
     * @param tileIds tile ids per level, outermost first
     */
    public record Cell(long[] index, long offset, boolean padding, long sharing, long colourKey, long[] tileIds) {
        /** The arrays are copied in, and out by their accessors: a record never shares an array. */
        public Cell {
            index = index.clone();
            tileIds = tileIds.clone();
        }

        /** {@return the full index (a copy)} */
        @Override
        public long[] index() {
            return index.clone();
        }

        /** {@return the tile ids per level, outermost first (a copy)} */
        @Override
        public long[] tileIds() {
            return tileIds.clone();
        }

        /** {@return the tile id of level {@code level}, without copying the array} */
        public long tileId(int level) {
            return tileIds[level];
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Cell c && Arrays.equals(index, c.index) && offset == c.offset && padding == c.padding
                    && sharing == c.sharing && colourKey == c.colourKey && Arrays.equals(tileIds, c.tileIds);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(index), offset, padding, sharing, colourKey, Arrays.hashCode(tileIds));
        }

        @Override
        public String toString() {
            return "Cell[index=" + Arrays.toString(index) + ", offset=" + offset + ", padding=" + padding + ", sharing="
                    + sharing + ", colourKey=" + colourKey + ", tileIds=" + Arrays.toString(tileIds) + "]";
        }
    }

    /**
     * {@return the picture of a placement: the given slice, or every slice of a rank-3 or rank-4 array}
     *
     * @throws IllegalArgumentException for rank 0, or rank above 4 without a slice
     */
    public static LayoutPicture of(Placement placement, Optional<SliceSpec> slice) {
        List<Long> dims = placement.dims();
        int rank = dims.size();
        List<SliceSpec> slices = slice.map(List::of).orElseGet(() -> everySlice(dims, placement.title()));
        SliceSpec first = slices.getFirst();
        int rowDim = first.rowDim();
        int colDim = first.colDim();
        long rows = rowDim < 0 ? 1 : placement.gridDims().get(rowDim);
        long cols = placement.gridDims().get(colDim);
        int shownRows = shown(rows);
        int shownCols = shown(cols);
        List<String> captions = new ArrayList<>();
        if (shownRows < rows || shownCols < cols) {
            captions.add("Summarised: showing " + sideText(shownRows, rows, "rows") + " and "
                    + sideText(shownCols, cols, "columns") + (slices.size() > 1 ? " of each slice" : "")
                    + (placement.gridDims().equals(dims) ? "." : " (grid sizes count padding cells)."));
        }
        long perPanel = (long) shownRows * shownCols;
        long totalSlices = slice.isPresent() || rank < 3 ? 1
                : rank == 3 ? dims.getFirst() : Math.multiplyExact(dims.get(0), dims.get(1));
        int panelCount = (int) Math.min(slices.size(), Math.max(1, (long) FULL_SIDE * FULL_SIDE / perPanel));
        if (panelCount < totalSlices) {
            captions.add("Summarised: showing " + panelCount + " of " + totalSlices + " slices ("
                    + (totalSlices - panelCount) + " more not drawn).");
        }
        List<Panel> panels = new ArrayList<>();
        for (SliceSpec s : slices.subList(0, panelCount)) {
            panels.add(panel(placement, s, rows, cols, shownRows, shownCols));
        }
        int columns = rank == 4 && slice.isEmpty() ? (int) Math.min(dims.get(1), panelCount) : panelCount;
        boolean gridSummarised = !captions.isEmpty();
        List<StripItem> strip = new ArrayList<>();
        long next = strip(placement, gridSummarised ? SUMMARY_STRIP : FULL_STRIP, rowDim, colDim, strip);
        long hiddenSlots = placement.slotCount() - next;
        if (hiddenSlots > 0) {
            captions.add("Summarised: the memory strip stops at slot " + (next - 1) + "; " + hiddenSlots
                    + " more slots of " + placement.slotCount() + " are not drawn.");
        }
        return new LayoutPicture(placement, panels, columns, totalSlices - panelCount, strip, hiddenSlots, captions);
    }

    private static List<SliceSpec> everySlice(List<Long> dims, String what) {
        int rank = dims.size();
        List<SliceSpec> slices = new ArrayList<>();
        switch (rank) {
            case 0 -> throw new IllegalArgumentException("cannot draw " + what + ": rank 0; render draws rank 1 and up");
            case 1, 2 -> slices.add(SliceSpec.all(rank));
            case 3 -> {
                for (long i = 0; i < dims.getFirst() && slices.size() < MAX_PANELS; i++) {
                    slices.add(new SliceSpec(List.of(i, SliceSpec.FREE, SliceSpec.FREE)));
                }
            }
            case 4 -> {
                for (long i = 0; i < dims.get(0) && slices.size() < MAX_PANELS; i++) {
                    for (long j = 0; j < dims.get(1) && slices.size() < MAX_PANELS; j++) {
                        slices.add(new SliceSpec(List.of(i, j, SliceSpec.FREE, SliceSpec.FREE)));
                    }
                }
            }
            default -> throw new IllegalArgumentException("cannot draw " + what + " whole: rank " + rank
                    + " needs --slice with one or two ':' (e.g. --slice " + exampleSlice(rank) + ")");
        }
        return slices;
    }

    private static String exampleSlice(int rank) {
        StringBuilder b = new StringBuilder();
        for (int d = 0; d < rank; d++) {
            b.append(d > 0 ? "," : "").append(d >= rank - 2 ? ":" : "0");
        }
        return b.toString();
    }

    private static int shown(long side) {
        return (int) (side > FULL_SIDE ? SUMMARY_SIDE : side);
    }

    private static String sideText(int shown, long all, String what) {
        return shown == all ? "all " + all + " " + what : what + " 0-" + (shown - 1) + " of " + all + " (... " + (all - shown) + " more)";
    }

    private static Panel panel(Placement p, SliceSpec slice, long rows, long cols, int shownRows, int shownCols) {
        List<Cell> cells = new ArrayList<>(shownRows * shownCols);
        List<Long> dims = p.dims();
        for (int r = 0; r < shownRows; r++) {
            for (int c = 0; c < shownCols; c++) {
                long[] index = new long[dims.size()];
                for (int d = 0; d < index.length; d++) {
                    index[d] = slice.fixed().get(d);
                }
                if (slice.rowDim() >= 0) {
                    index[slice.rowDim()] = r;
                }
                index[slice.colDim()] = c;
                boolean padding = false;
                for (int d = 0; d < index.length; d++) {
                    padding |= index[d] >= dims.get(d);
                }
                cells.add(new Cell(index, p.offsetOf(index), padding, padding ? 0 : p.sharing(index),
                        p.colourKey(index, slice.rowDim(), slice.colDim()), p.tileIds(index)));
            }
        }
        return new Panel(slice, rows, cols, shownRows, shownCols, cells);
    }

    /** Fills {@code out} with at most {@code maxBoxes} boxes from slot 0; {@return the first slot not drawn} */
    private static long strip(Placement p, int maxBoxes, int rowDim, int colDim, List<StripItem> out) {
        long slot = 0;
        while (slot < p.slotCount() && out.size() < maxBoxes) {
            long next = p.nextOccupied(slot, SEARCH_BUDGET);
            if (next < 0) {
                break;
            }
            long run = next - slot;
            if (run > GAP_COLLAPSE) {
                out.add(new StripItem.Gap(slot, run));
                slot = next;
            } else if (run > 0) {
                for (; slot < next && out.size() < maxBoxes; slot++) {
                    out.add(p.slot(slot, rowDim, colDim));
                }
            } else {
                out.add(p.slot(slot, rowDim, colDim));
                slot++;
            }
        }
        return slot;
    }

    /** {@return the logical cells drawn, padding cells not counted} */
    public long cells() {
        return panels.stream().flatMap(panel -> panel.cells().stream()).filter(c -> !c.padding()).count();
    }

    /** {@return whether anything was left out} */
    public boolean summarised() {
        return !captions.isEmpty();
    }
}
