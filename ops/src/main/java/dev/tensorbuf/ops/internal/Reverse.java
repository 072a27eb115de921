package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.IndexingMap;

/**
 * XLA's {@code reverse}: each listed dimension {@code i} reads {@code dim_i - 1 - d_i}; a strided
 * view stays strided with the stride negated.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
 * Reverse.apply(v, 1).indexingMap().toString();
 * // "(d0, d1) -> (d0 * 3 - d1 + 2), domain: d0 in [0, 1], d1 in [0, 2]"
 * }
 */
public final class Reverse {
    private Reverse() {
    }

    /** {@return the view with the given dimensions reversed} @throws IllegalArgumentException for a dimension out of range or repeated */
    public static TensorView apply(TensorView view, int... dimensions) {
        long[] dims = Extents.toArray(view.dims());
        boolean[] reversed = new boolean[dims.length];
        for (int d : dimensions) {
            if (d < 0 || d >= dims.length || reversed[d]) {
                throw new IllegalArgumentException("reverse of " + view.shape() + ": dimension " + d
                        + " is out of range [0, " + dims.length + ") or repeated");
            }
            reversed[d] = true;
        }
        return view.remap(affine(dims, reversed));
    }

    /** {@return {@code d_i -> dim_i - 1 - d_i} where reversed, {@code d_i} elsewhere} */
    public static IndexingMap outputToInput(long[] dims, boolean[] reversed) {
        return affine(dims, reversed).toIndexingMap();
    }

    /** {@return the output-to-input map as an affine remap} @see #outputToInput */
    public static Remap.Affine affine(long[] dims, boolean[] reversed) {
        int[] reads = new int[dims.length];
        long[] scales = new long[dims.length];
        long[] offsets = new long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            reads[i] = i;
            scales[i] = reversed[i] ? -1 : 1;
            offsets[i] = reversed[i] ? dims[i] - 1 : 0;
        }
        return Remap.Affine.ofTerms(dims, reads, scales, offsets);
    }
}
