package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;

/**
 * An op's output-to-input map in a form that a strided view composes by arithmetic on its
 * strides, with no {@link IndexingMap} built ({@link TensorView#remap(Remap)}): {@link AffineRemap}
 * (constant coefficients: transpose, slice, reverse, broadcast, dynamic-slice) and
 * {@link ReshapeRemap} (row-major relinearisation, which stays strided when each group of merged
 * or split dimensions is contiguous). Every form also lowers to its map, which any other view
 * composes into its own when its map is first asked for. A pad's partial map is a
 * {@link PadRemap}, taken by {@link TensorView#padded(PadRemap, TensorView)}.
 * {@snippet :
 * Remap r = ReshapeRemap.of(new long[] {2, 3}, new long[] {6});
 * r.toIndexingMap().toString(); // "(d0) -> (d0 / 3, d0 mod 3), domain: d0 in [0, 5]"
 * }
 */
public sealed interface Remap permits AffineRemap, ReshapeRemap {
    /** {@return the output dimensions (a copy)} */
    long[] outputDims();

    /** {@return the same map as an {@link IndexingMap} over the output box, built once} */
    IndexingMap toIndexingMap();
}
