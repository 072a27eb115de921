package dev.tensorbuf.ops;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import java.util.List;

/**
 * Every view op in one place, for chaining: each returns a new {@link TensorView} whose map is
 * the op's output-to-input map composed with the source's ({@link TensorView#remap}); no element
 * moves and the cost is independent of the tensor's size. The ops live here, not on
 * {@code TensorView}, so that views never depend on ops; each delegates to its own file
 * ({@link Transpose}, {@link Slice}, ...), which owns the op's map and documents it.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[4,6]{1,0}");
 * TensorView w = Ops.reverse(Ops.slice(Ops.transpose(v, 1, 0), new long[] {0, 1}, new long[] {6, 3}, new long[] {2, 1}), 1);
 * w.stridedLayout().orElseThrow();   // sizes [3, 2] strides [2, -6] offset 12
 * }
 */
public final class Ops {
    private Ops() {
    }

    /** {@return {@link Transpose#apply}} */
    public static TensorView transpose(TensorView view, int... permutation) {
        return Transpose.apply(view, permutation);
    }

    /** {@return {@link Slice#apply}} */
    public static TensorView slice(TensorView view, long[] start, long[] limit, long[] stride) {
        return Slice.apply(view, start, limit, stride);
    }

    /** {@return {@link Reverse#apply}} */
    public static TensorView reverse(TensorView view, int... dimensions) {
        return Reverse.apply(view, dimensions);
    }

    /** {@return {@link Broadcast#apply}} */
    public static TensorView broadcast(TensorView view, long[] outputDims, int... broadcastDimensions) {
        return Broadcast.apply(view, outputDims, broadcastDimensions);
    }

    /** {@return {@link Pad#apply(TensorView, long[], long[], long[], double)}} */
    public static TensorView pad(TensorView view, long[] low, long[] high, long[] interior, double fill) {
        return Pad.apply(view, low, high, interior, fill);
    }

    /** {@return {@link Pad#apply(TensorView, long[], long[], long[], long)}: an integer fill, exact for 64-bit types} */
    public static TensorView pad(TensorView view, long[] low, long[] high, long[] interior, long fill) {
        return Pad.apply(view, low, high, interior, fill);
    }

    /** {@return {@link Reshape#apply}} */
    public static TensorView reshape(TensorView view, long... outputDims) {
        return Reshape.apply(view, outputDims);
    }

    /** {@return {@link Bitcast#apply(TensorView, ArrayShape)}} */
    public static TensorView bitcast(TensorView view, ArrayShape target) {
        return Bitcast.apply(view, target);
    }

    /** {@return {@link Concatenate#apply(int, List)}} */
    public static TensorView concatenate(int dimension, List<TensorView> parts) {
        return Concatenate.apply(dimension, parts);
    }

    /** {@return {@link DynamicSlice#apply}} */
    public static TensorView dynamicSlice(TensorView view, long[] offsets, long[] sizes) {
        return DynamicSlice.apply(view, offsets, sizes);
    }
}
