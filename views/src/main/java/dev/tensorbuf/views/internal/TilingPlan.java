package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The tiling of one array shape, worked out once: the physical order and, per tile level, how
 * dimensions are padded, combined ({@code *}) and split into tile-count and in-tile dimensions.
 * This is the single implementation of seed 000's {@code linear_index_with_tile}, generalised
 * to nested levels (XLA's {@code LinearIndexForNestedTiling}) and to combined dimensions.
 *
 * <p>Level semantics, with {@code r} the tile rank: the current shape is left-padded with 1s up
 * to rank {@code r}; its last {@code r} dimensions are grouped so that each run of {@code *}
 * entries merges into the next non-{@code *} one (bound multiplied, index flattened row-major);
 * each group {@code (d, e)} with tile entry {@code t} becomes outer {@code (ceil(d/t), e/t)} and
 * inner {@code (t, e mod t)}, laid out as {@code [prefix, outers..., inners...]}.
 */
public final class TilingPlan {
    /** One tile level. {@code groups[g]} lists the suffix positions merged into group {@code g}. */
    record Level(int padded, int rankIn, int prefix, int[][] groups, long[] groupDims, long[] tile, long[] dimsIn,
                 long[] dimsOut) {
    }

    private final ArrayShape shape;
    private final int[] physicalToLogical;
    private final List<Level> levels;
    private final long[] finalDims;
    private final long[] finalStrides;
    private final long slots;

    private TilingPlan(ArrayShape shape, int maxLevels) {
        this.shape = shape;
        XlaLayout layout = shape.requireLayout();
        int rank = shape.rank();
        physicalToLogical = new int[rank];
        long[] dims = new long[rank];
        for (int j = 0; j < rank; j++) {
            physicalToLogical[j] = layout.majorDimension(j);
            dims[j] = TiledLayoutMath.staticSize(shape, physicalToLogical[j]);
        }
        levels = new ArrayList<>();
        List<Tile> tiles = layout.tiles();
        for (int i = 0; i < Math.min(maxLevels, tiles.size()); i++) {
            Level level = level(tiles.get(i), dims);
            levels.add(level);
            dims = level.dimsOut();
        }
        finalDims = dims;
        finalStrides = new long[dims.length];
        boolean empty = Arrays.stream(dims).anyMatch(d -> d == 0);
        long n = 1;
        for (int j = dims.length - 1; j >= 0; j--) {
            finalStrides[j] = n;
            // An empty shape addresses nothing; its strides beside a huge dimension would only overflow.
            n = empty ? 0 : TiledLayoutMath.multiply(n, dims[j], shape, "physical element count");
        }
        slots = n;
    }

    /**
     * The last plan made, by the identity of its shape. A shape's size, physical dims and linear
     * index all go through a plan, and a program that materializes into one shape, or reads
     * elements of one tiled view, asks for the same shape's plan again and again: rebuilding it
     * was a fifth of a small materialize. A plan is immutable once made (its final fields publish
     * it safely), so threads may share it; a miss only replaces the entry.
     */
    private static volatile TilingPlan last;

    /** {@return the plan for every tile level of {@code shape}} */
    public static TilingPlan of(ArrayShape shape) {
        TilingPlan plan = last;
        if (plan != null && plan.shape == shape) { // only full plans are kept here
            return plan;
        }
        plan = new TilingPlan(shape, Integer.MAX_VALUE);
        last = plan;
        return plan;
    }

    /** {@return the plan that applies only the first tile level, as XLA's size functions do} */
    static TilingPlan firstLevelOf(ArrayShape shape) {
        return new TilingPlan(shape, 1);
    }

    private Level level(Tile tile, long[] dimsBefore) {
        int r = tile.rank();
        int padded = Math.max(0, r - dimsBefore.length);
        long[] dimsIn = new long[dimsBefore.length + padded];
        Arrays.fill(dimsIn, 0, padded, 1);
        System.arraycopy(dimsBefore, 0, dimsIn, padded, dimsBefore.length);
        int prefix = dimsIn.length - r;
        List<int[]> groups = new ArrayList<>();
        List<Long> tileSizes = new ArrayList<>();
        int groupStart = 0;
        for (int k = 0; k < r; k++) {
            if (!tile.isCombined(k)) {
                int[] g = new int[k - groupStart + 1];
                for (int q = 0; q < g.length; q++) {
                    g[q] = prefix + groupStart + q;
                }
                groups.add(g);
                tileSizes.add(tile.dim(k));
                groupStart = k + 1;
            }
        }
        if (groupStart != r) {
            throw new IllegalArgumentException("tile " + tile + " of " + shape
                    + " ends in '*': the most minor dimension has no more-minor dimension to combine with");
        }
        int g = groups.size();
        long[] groupDims = new long[g];
        long[] t = new long[g];
        long[] dimsOut = new long[prefix + 2 * g];
        System.arraycopy(dimsIn, 0, dimsOut, 0, prefix);
        for (int q = 0; q < g; q++) {
            long merged = 1;
            for (int pos : groups.get(q)) {
                merged = TiledLayoutMath.multiply(merged, dimsIn[pos], shape, "combined dimension");
            }
            groupDims[q] = merged;
            t[q] = tileSizes.get(q);
            dimsOut[prefix + q] = ceilDiv(merged, t[q]);
            dimsOut[prefix + g + q] = t[q];
        }
        return new Level(padded, dimsIn.length, prefix, groups.toArray(int[][]::new), groupDims, t, dimsIn, dimsOut);
    }

    /** {@return the fully tiled physical dims, major to minor} */
    public List<Long> physicalDims() {
        return Arrays.stream(finalDims).boxed().toList();
    }

    /** {@return the element slots of the tiled buffer, padding included} */
    public long slots() {
        return slots;
    }

    /** {@return the shape this plan tiles} */
    public ArrayShape shape() {
        return shape;
    }

    /** {@return the tile levels, outermost first} */
    List<Level> levels() {
        return levels;
    }

    /** {@return physical position (major to minor) to logical dimension} */
    int[] physicalToLogical() {
        return physicalToLogical.clone();
    }

    /** {@return the element offset of a logical index; the caller has checked the bounds} */
    public long linearIndex(long[] logical) {
        long[] e = new long[physicalToLogical.length];
        for (int j = 0; j < e.length; j++) {
            e[j] = logical[physicalToLogical[j]];
        }
        for (Level level : levels) {
            e = forward(level, e);
        }
        long offset = 0;
        for (int j = 0; j < e.length; j++) {
            offset += e[j] * finalStrides[j];
        }
        return offset;
    }

    private static long[] forward(Level level, long[] before) {
        long[] in = new long[level.rankIn()];
        System.arraycopy(before, 0, in, level.padded(), before.length);
        int g = level.groups().length;
        long[] out = new long[level.prefix() + 2 * g];
        System.arraycopy(in, 0, out, 0, level.prefix());
        for (int q = 0; q < g; q++) {
            long merged = 0;
            for (int pos : level.groups()[q]) {
                merged = merged * level.dimsIn()[pos] + in[pos];
            }
            out[level.prefix() + q] = merged / level.tile()[q];
            out[level.prefix() + g + q] = merged % level.tile()[q];
        }
        return out;
    }

    /** {@return the logical index at a slot, or null when the slot is padding; the caller has checked the range} */
    public long[] logicalIndex(long offset) {
        long[] e = new long[finalDims.length];
        long rest = offset;
        for (int j = 0; j < e.length; j++) {
            e[j] = rest / finalStrides[j];
            rest %= finalStrides[j];
        }
        for (int i = levels.size() - 1; i >= 0; i--) {
            e = backward(levels.get(i), e);
            if (e == null) {
                return null;
            }
        }
        long[] logical = new long[e.length];
        for (int j = 0; j < e.length; j++) {
            logical[physicalToLogical[j]] = e[j];
        }
        return logical;
    }

    private static long[] backward(Level level, long[] out) {
        long[] in = new long[level.rankIn()];
        System.arraycopy(out, 0, in, 0, level.prefix());
        int g = level.groups().length;
        for (int q = 0; q < g; q++) {
            long merged = out[level.prefix() + q] * level.tile()[q] + out[level.prefix() + g + q];
            if (merged >= level.groupDims()[q]) {
                return null;
            }
            int[] group = level.groups()[q];
            for (int k = group.length - 1; k >= 0; k--) {
                long d = level.dimsIn()[group[k]];
                in[group[k]] = merged % d;
                merged /= d;
            }
        }
        // Padded leading dims have size 1, so the bound check above already forced them to 0.
        assert Arrays.stream(in, 0, level.padded()).allMatch(v -> v == 0);
        return Arrays.copyOfRange(in, level.padded(), in.length);
    }

    private static long ceilDiv(long a, long b) {
        return a == 0 ? 0 : (a - 1) / b + 1;
    }
}
