package dev.tensorbuf.cli.render;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * An XLA shape's placement. Padding cells come from a second shape whose dims are rounded up to
 * the first tile: it has the same physical dims, so its linear index is the shape's own on logical
 * cells and names the padding slot on the others. Tile ids at level {@code k} come from the shape
 * tiled by levels {@code 0..k} only, where each level-{@code k} tile is one aligned block of
 * {@code elementCount(t_k)} slots; that holds for every tiling, combined dims included.
 * {@snippet :
 * TiledPlacement p = TiledPlacement.of(ArrayShape.parse("bf16[4,8]{1,0:T(2,4)(2,1)}"));
 * p.offsetOf(new long[] {1, 0});   // 1: rows 0 and 1 pair up in a (2,1) tile
 * p.tileIds(new long[] {1, 5});    // [1, 5]: second 2x4 tile, sixth (2,1) tile of level 1
 * }
 */
public final class TiledPlacement implements Placement {
    private final ArrayShape shape;
    private final ArrayShape padded;
    private final List<ArrayShape> levels;
    private final long[] tileSlots;
    private final long slotCount;

    private TiledPlacement(ArrayShape shape, ArrayShape padded, List<ArrayShape> levels, long[] tileSlots) {
        this.shape = shape;
        this.padded = padded;
        this.levels = levels;
        this.tileSlots = tileSlots;
        this.slotCount = shape.physicalElementCount();
    }

    /**
     * {@return the placement of an array shape with a layout}
     *
     * @throws IllegalArgumentException if the shape has no layout, an unbounded dim or no elements
     */
    public static TiledPlacement of(ArrayShape shape) {
        XlaLayout layout = shape.requireLayout();
        for (int d = 0; d < shape.rank(); d++) {
            if (shape.dim(d) == ArrayShape.UNBOUNDED) {
                throw new IllegalArgumentException("cannot draw " + shape + ": dim " + d + " is unbounded (?)");
            }
        }
        if (shape.elementCount() == 0) {
            throw new IllegalArgumentException("nothing to draw: " + shape + " has no elements");
        }
        ArrayShape padded = paddedToFirstTile(shape);
        List<ArrayShape> levels = new ArrayList<>();
        long[] tileSlots = new long[layout.tiles().size()];
        for (int k = 0; k < tileSlots.length; k++) {
            levels.add(padded.withLayout(layout.withTiles(layout.tiles().subList(0, k + 1))));
            tileSlots[k] = layout.tiles().get(k).elementCount();
        }
        return new TiledPlacement(shape, padded, List.copyOf(levels), tileSlots);
    }

    /** The shape with each dim under a first-level tile entry rounded up to a multiple of it. */
    private static ArrayShape paddedToFirstTile(ArrayShape shape) {
        XlaLayout layout = shape.requireLayout();
        if (layout.tiles().isEmpty() || layout.tiles().getFirst().hasCombined()) {
            return shape;
        }
        Tile tile = layout.tiles().getFirst();
        List<Long> dims = new ArrayList<>(shape.dims());
        int rank = shape.rank();
        for (int j = 0; j < tile.rank(); j++) {
            int physical = rank - tile.rank() + j;
            if (physical >= 0) {
                int logical = layout.majorDimension(physical);
                dims.set(logical, Math.ceilDiv(dims.get(logical), tile.dim(j)) * tile.dim(j));
            }
        }
        ArrayShape padded = new ArrayShape(shape.dtype(), dims, Collections.nCopies(rank, false), shape.layout());
        if (!padded.physicalDims().equals(shape.physicalDims())) {
            return shape; // a split config or later level pads differently: draw no padding cells
        }
        return padded;
    }

    @Override
    public String title() {
        return shape.toString();
    }

    @Override
    public String subtitle() {
        String tiles = levels.isEmpty() ? "untiled" : "tiles " + String.join("", tileNames());
        return shape.elementCount() + " elements in " + slotCount + " slots (" + paddingSlots() + " padding), "
                + tiles + ", physical dims " + shape.physicalDims();
    }

    @Override
    public List<Long> dims() {
        return shape.dims();
    }

    @Override
    public List<Long> gridDims() {
        return padded.dims();
    }

    @Override
    public long offsetOf(long[] gridIndex) {
        return isLogical(gridIndex) ? shape.linearIndex(gridIndex) : padded.linearIndex(gridIndex);
    }

    private boolean isLogical(long[] index) {
        for (int d = 0; d < index.length; d++) {
            if (index[d] >= shape.dim(d)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public long sharing(long[] index) {
        return 1;
    }

    @Override
    public int tileLevels() {
        return levels.size();
    }

    @Override
    public List<String> tileNames() {
        return shape.requireLayout().tiles().stream().map(Tile::toString).toList();
    }

    @Override
    public long[] tileIds(long[] gridIndex) {
        long[] ids = new long[levels.size()];
        for (int k = 0; k < ids.length; k++) {
            ids[k] = levels.get(k).linearIndex(gridIndex) / tileSlots[k];
        }
        return ids;
    }

    @Override
    public long colourKey(long[] gridIndex, int rowDim, int colDim) {
        if (!levels.isEmpty()) {
            return tileIds(gridIndex)[0];
        }
        int slower = slowerDim(rowDim, colDim);
        return slower < 0 ? 0 : gridIndex[slower];
    }

    @Override
    public String colourMeaning(int rowDim, int colDim) {
        if (!levels.isEmpty()) {
            return "one fill per outer tile " + tileNames().getFirst() + ", in memory order";
        }
        int slower = slowerDim(rowDim, colDim);
        return slower < 0 ? "one fill: a single row" : "one fill per index of dim " + slower
                + ", the drawn dim that is more major in memory";
    }

    /** The panel dim that is more major in the layout; -1 for a one-row panel. */
    private int slowerDim(int rowDim, int colDim) {
        if (rowDim < 0) {
            return -1;
        }
        List<Integer> m2m = shape.requireLayout().minorToMajor();
        return m2m.indexOf(rowDim) > m2m.indexOf(colDim) ? rowDim : colDim;
    }

    @Override
    public long slotCount() {
        return slotCount;
    }

    @Override
    public long paddingSlots() {
        return slotCount - shape.elementCount();
    }

    @Override
    public long nextOccupied(long slot, long budget) {
        for (long o = slot, steps = 0; o < slotCount; o++, steps++) {
            if (steps > budget) {
                return -1;
            }
            if (shape.logicalIndex(o).isPresent()) {
                return o;
            }
        }
        return slotCount;
    }

    @Override
    public StripItem.Slot slot(long slot, int rowDim, int colDim) {
        Optional<List<Long>> logical = shape.logicalIndex(slot);
        Optional<List<Long>> cell = logical.isPresent() ? logical : padded.logicalIndex(slot);
        if (cell.isEmpty()) {
            // padding added by a later tile level has no grid cell: it belongs to the tile of the slot before
            StripItem.Slot before = slot == 0 ? null : slot(slot - 1, rowDim, colDim);
            return new StripItem.Slot(slot, null, "", 0, before == null ? -1 : before.colourKey(),
                    before == null ? new long[levels.size()] : before.tileIds());
        }
        long[] index = Extents.toArray(cell.get());
        String text = Placement.indexText(index);
        long key = colourKey(index, rowDim, colDim);
        return logical.isPresent()
                ? new StripItem.Slot(slot, text, text, 1, key, tileIds(index))
                : new StripItem.Slot(slot, null, "", 0, key, tileIds(index));
    }
}
