package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.IndexingMap;

/**
 * XLA's {@code slice}: per dimension {@code [start, limit)} with a stride of at least 1; output
 * size {@code ceil((limit - start) / stride)}, output index {@code d} reads {@code start + d * stride}.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[4,6]{1,0}");
 * Slice.apply(v, new long[] {1, 0}, new long[] {3, 6}, new long[] {1, 2}).indexingMap().toString();
 * // "(d0, d1) -> (d0 * 6 + d1 * 2 + 6), domain: d0 in [0, 1], d1 in [0, 2]"
 * }
 */
public final class Slice {
    private Slice() {
    }

    /**
     * {@return the slice as a view}
     *
     * @throws IllegalArgumentException unless {@code 0 <= start <= limit <= dim} and {@code stride >= 1}
     *     in every dimension, naming the dimension
     */
    public static TensorView apply(TensorView view, long[] start, long[] limit, long[] stride) {
        OpChecks.checkRank("slice", view, start.length, "starts");
        OpChecks.checkRank("slice", view, limit.length, "limits");
        OpChecks.checkRank("slice", view, stride.length, "strides");
        long[] in = Extents.toArray(view.dims());
        long[] out = new long[in.length];
        for (int i = 0; i < in.length; i++) {
            if (start[i] < 0 || start[i] > limit[i] || limit[i] > in[i] || stride[i] < 1) {
                throw new IllegalArgumentException("slice of " + view.shape() + ": dim " + i + " has start " + start[i]
                        + ", limit " + limit[i] + ", stride " + stride[i] + "; need 0 <= start <= limit <= " + in[i]
                        + " and stride >= 1");
            }
            out[i] = Math.ceilDiv(limit[i] - start[i], stride[i]);
        }
        // A dimension of size 0 or 1 never steps, so its stride is 1: start 0, stride 2^63 - 1
        // keeps one element and must not overflow the composed map.
        long[] steps = stride.clone();
        for (int i = 0; i < in.length; i++) {
            if (out[i] <= 1) {
                steps[i] = 1;
            }
        }
        return view.remap(affine(out, start, steps));
    }

    /** {@return {@code d_i -> start_i + d_i * stride_i} over {@code outputDims}} */
    public static IndexingMap outputToInput(long[] outputDims, long[] start, long[] stride) {
        return affine(outputDims, start, stride).toIndexingMap();
    }

    /** {@return the output-to-input map as an affine remap} @see #outputToInput */
    public static Remap.Affine affine(long[] outputDims, long[] start, long[] stride) {
        int[] reads = new int[outputDims.length];
        for (int i = 0; i < reads.length; i++) {
            reads[i] = i;
        }
        return Remap.Affine.ofTerms(outputDims, reads, stride, start);
    }
}
