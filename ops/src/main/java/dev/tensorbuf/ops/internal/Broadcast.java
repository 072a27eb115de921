package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.Arrays;

/**
 * XLA's {@code broadcast}: input dimension {@code j} becomes output dimension
 * {@code broadcastDimensions[j]}; every other output dimension repeats (stride 0).
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[3]{0}");
 * Broadcast.apply(v, new long[] {2, 3}, 1).indexingMap().toString();
 * // "(d0, d1) -> (d1), domain: d0 in [0, 1], d1 in [0, 2]"
 * }
 */
public final class Broadcast {
    private Broadcast() {
    }

    /**
     * {@return the broadcast view} The dimensions may come in any order, as XLA allows: out of
     * order ({@code {1, 0}}) the broadcast also transposes.
     *
     * @throws IllegalArgumentException unless {@code broadcastDimensions} has one entry per input
     *     dimension, each a distinct output dimension of the same size
     */
    public static TensorView apply(TensorView view, long[] outputDims, int... broadcastDimensions) {
        if (broadcastDimensions.length != view.rank()) { // the message built only when it is thrown
            OpChecks.checkRank("broadcast", view, broadcastDimensions.length, "broadcast dimensions "
                    + Arrays.toString(broadcastDimensions));
        }
        long[] in = Extents.toArray(view.dims());
        boolean[] taken = new boolean[outputDims.length];
        for (int j = 0; j < in.length; j++) {
            int o = broadcastDimensions[j];
            if (o < 0 || o >= outputDims.length || taken[o] || outputDims[o] != in[j]) {
                throw new IllegalArgumentException("broadcast of " + view.shape() + " to " + Arrays.toString(outputDims)
                        + ": broadcast dimension " + j + " -> " + o + " must name a distinct output dim of size " + in[j]);
            }
            taken[o] = true;
        }
        return view.remap(affine(outputDims, broadcastDimensions));
    }

    /** {@return {@code in_j = d_{broadcastDimensions[j]}} over {@code outputDims}} */
    public static IndexingMap outputToInput(long[] outputDims, int[] broadcastDimensions) {
        return affine(outputDims, broadcastDimensions).toIndexingMap();
    }

    /** {@return the output-to-input map as an affine remap} @see #outputToInput */
    public static Remap.Affine affine(long[] outputDims, int[] broadcastDimensions) {
        long[] ones = new long[broadcastDimensions.length];
        Arrays.fill(ones, 1);
        return Remap.Affine.ofTerms(outputDims, broadcastDimensions, ones, new long[broadcastDimensions.length]);
    }
}
