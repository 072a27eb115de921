package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;

import java.util.List;

/**
 * Lowers an XLA layout to an {@link IndexingMap} from the logical index to the element offset:
 * the same steps as {@link TilingPlan#linearIndex}, written as floordiv/mod expressions.
 */
public final class TiledLayoutMaps {
    private TiledLayoutMaps() {
    }

    /** {@return {@code (d0, ..., dn) -> (offset)} with {@code d_i in [0, dim_i - 1]}} */
    public static IndexingMap toIndexingMap(ArrayShape shape) {
        TilingPlan plan = TilingPlan.of(shape);
        int[] toLogical = plan.physicalToLogical();
        AffineExpr[] e = new AffineExpr[toLogical.length];
        long[] bound = new long[toLogical.length];
        for (int j = 0; j < e.length; j++) {
            e[j] = AffineExpr.dim(toLogical[j]);
            bound[j] = shape.dim(toLogical[j]);
        }
        for (TilingPlan.Level level : plan.levels()) {
            AffineExpr[] in = new AffineExpr[level.rankIn()];
            for (int k = 0; k < level.padded(); k++) {
                in[k] = AffineExpr.constant(0);
            }
            System.arraycopy(e, 0, in, level.padded(), e.length);
            int g = level.groups().length;
            AffineExpr[] out = new AffineExpr[level.prefix() + 2 * g];
            System.arraycopy(in, 0, out, 0, level.prefix());
            for (int q = 0; q < g; q++) {
                AffineExpr merged = AffineExpr.constant(0);
                for (int pos : level.groups()[q]) {
                    merged = merged.times(level.dimsIn()[pos]).plus(in[pos]);
                }
                long t = level.tile()[q];
                // merged lies in [0, groupDim): a tile that covers the whole group needs no division.
                boolean oneTile = level.groupDims()[q] <= t;
                out[level.prefix() + q] = oneTile ? AffineExpr.constant(0) : merged.floorDiv(t);
                out[level.prefix() + g + q] = oneTile ? merged : merged.mod(t);
            }
            e = out;
        }
        List<Long> dims = plan.physicalDims();
        AffineExpr offset = AffineExpr.constant(0);
        long stride = 1;
        for (int j = e.length - 1; j >= 0; j--) {
            offset = offset.plus(e[j].times(stride));
            stride = Math.multiplyExact(stride, dims.get(j));
        }
        IndexingMap.Builder b = IndexingMap.builder();
        for (int i = 0; i < shape.rank(); i++) {
            b.dim(0, TiledLayoutMath.staticSize(shape, i) - 1);
        }
        return b.result(offset).build();
    }
}
