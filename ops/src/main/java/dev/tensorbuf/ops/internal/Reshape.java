package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.Arrays;

/**
 * XLA's {@code reshape}: the same elements in logical row-major order under other dimensions.
 * Output index {@code d} has row-major position {@code L = sum d_i * P_i}; it reads input index
 * {@code (L / Q_j) mod n_j}. Whether the result is still strided is the simplifier's answer
 * ({@link TensorView#form()}), with the dimensions and steps that break it when it is not.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[4,6]{1,0}");
 * Reshape.apply(v, 2, 12).form();         // a Strided form: layout() is sizes [2, 12] strides [12, 1]
 * Reshape.apply(Transpose.apply(v, 1, 0), 24).form().whyNotStrided();
 * // Optional["dim 0 (size 24) steps by 6 from 0 to 1 but by -17 from 3 to 4"]
 * }
 */
public final class Reshape {
    private Reshape() {
    }

    /** {@return the reshaped view} @throws IllegalArgumentException if the element counts differ */
    public static TensorView apply(TensorView view, long... outputDims) {
        long[] in = Extents.toArray(view.dims());
        for (long d : outputDims) {
            if (d < 0) {
                throw new IllegalArgumentException("reshape of " + view.shape() + " to " + Arrays.toString(outputDims)
                        + ": negative size " + d);
            }
        }
        long from = view.shape().elementCount();
        long to = Extents.elementCount("reshape output", outputDims);
        if (from != to) {
            throw Errors.elementCountsDiffer("reshape", view.shape(), from, Arrays.toString(outputDims), to);
        }
        return view.remap(Remap.Reshape.of(in, outputDims));
    }

    /** {@return the row-major output-to-input map} */
    public static IndexingMap outputToInput(long[] inputDims, long[] outputDims) {
        return Remap.Reshape.of(inputDims, outputDims).toIndexingMap();
    }
}
