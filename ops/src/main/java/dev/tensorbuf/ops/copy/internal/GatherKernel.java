package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#GATHER}: every logical index, row-major, through each
 * side's own map (strided dot product, XLA tiling formula, or compiled indexing map), with packed
 * sub-byte elements. Correct for every layout pair; used only where no strided form exists.
 */
final class GatherKernel {
    private GatherKernel() {
    }

    /** Element offset of a logical index on one side. */
    private interface Addresser {
        long offset(long[] index);
    }

    static void run(Access src, Access dst, ChannelAffine affine) {
        long n = src.elementCount();
        if (n == 0) {
            return;
        }
        Addresser sa = addresser(src);
        Addresser da = addresser(dst);
        ElementAccess se = access(src);
        ElementAccess de = access(dst);
        MemorySegment s = src.segment();
        MemorySegment d = dst.segment();
        int rank = src.rank();
        long[] dims = Extents.toArray(src.dims());
        long[] idx = new long[rank];
        ChannelExpression.Runner values = affine == null ? null : new ChannelExpression.Runner(s, se, d, de,
                Floats.toArray(affine.scale()), Floats.toArray(affine.bias()));
        for (long it = 0; it < n; it++) {
            long so = sa.offset(idx);
            long dO = da.offset(idx);
            if (values != null) {
                values.add(so, dO, (int) idx[affine.channelDim()]);
            } else {
                ValueMover.move(s, so, se, d, dO, de);
            }
            for (int k = rank - 1; k >= 0; k--) {
                if (++idx[k] < dims[k]) {
                    break;
                }
                idx[k] = 0;
            }
        }
        if (values != null) {
            values.flush();
        }
    }

    static ElementAccess access(Access a) {
        return a.addressing() instanceof Access.Tiled(ArrayShape shape) ? ElementAccess.of(shape)
                : ElementAccess.of(a.dtype());
    }

    private static Addresser addresser(Access a) {
        return switch (a.addressing()) {
            case Access.Strided(StridedLayout l) -> {
                long[] strides = Extents.toArray(l.strides());
                long offset = l.offset();
                yield index -> {
                    long o = offset;
                    for (int i = 0; i < index.length; i++) {
                        o += index[i] * strides[i];
                    }
                    return o;
                };
            }
            case Access.Tiled(ArrayShape shape) -> shape::linearIndex;
            case Access.Mapped m -> {
                IndexingMap.Compiled c = m.map().compile();
                yield index -> c.evaluate(0, index);
            }
        };
    }

    /** Float lists as arrays for the kernels. */
    static final class Floats {
        private Floats() {
        }

        static float[] toArray(List<Float> values) {
            float[] out = new float[values.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = values.get(i);
            }
            return out;
        }
    }
}
