package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.IndexingMap;

/**
 * XLA's {@code transpose}: output dimension {@code i} is input dimension {@code permutation[i]},
 * so output index {@code d} reads input index {@code in[permutation[i]] = d_i}.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
 * Transpose.apply(v, 1, 0).indexingMap().toString();
 * // "(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]"
 * }
 */
public final class Transpose {
    private Transpose() {
    }

    /** {@return the view with permuted dimensions, no element moved} @throws IllegalArgumentException if not a permutation of the rank */
    public static TensorView apply(TensorView view, int... permutation) {
        int[] perm = OpChecks.checkPermutation("transpose", view, permutation);
        long[] in = Extents.toArray(view.dims());
        long[] out = new long[in.length];
        for (int i = 0; i < perm.length; i++) {
            out[i] = in[perm[i]];
        }
        return view.remap(affine(out, perm));
    }

    /** {@return the output-to-input map over {@code outputDims}} */
    public static IndexingMap outputToInput(long[] outputDims, int[] permutation) {
        return affine(outputDims, permutation).toIndexingMap();
    }

    /** {@return the output-to-input map as an affine remap: input {@code permutation[i]} reads {@code d_i}} */
    public static Remap.Affine affine(long[] outputDims, int[] permutation) {
        int[] reads = new int[permutation.length];
        long[] ones = new long[permutation.length];
        for (int i = 0; i < permutation.length; i++) {
            reads[permutation[i]] = i;
            ones[i] = 1;
        }
        return Remap.Affine.ofTerms(outputDims, reads, ones, new long[permutation.length]);
    }
}
