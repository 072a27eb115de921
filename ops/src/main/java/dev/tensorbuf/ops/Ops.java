package dev.tensorbuf.ops;

import dev.tensorbuf.ops.internal.Bitcast;
import dev.tensorbuf.ops.internal.Broadcast;
import dev.tensorbuf.ops.internal.Concatenate;
import dev.tensorbuf.ops.internal.DynamicSlice;
import dev.tensorbuf.ops.internal.Pad;
import dev.tensorbuf.ops.internal.Reshape;
import dev.tensorbuf.ops.internal.Reverse;
import dev.tensorbuf.ops.internal.Slice;
import dev.tensorbuf.ops.internal.Transpose;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import java.util.List;

/**
 * Every view op in one place, for chaining: each returns a new {@link TensorView} whose map is
 * the op's output-to-input map composed with the source's ({@link TensorView#remap}); no element
 * moves and the cost is independent of the tensor's size. The ops live here, not on
 * {@code TensorView}, so that views never depend on ops. Each op's output-to-input map is
 * written once, in its own internal file, and HLO indexing
 * ({@link dev.tensorbuf.ops.indexing.HloIndexing}) reads the same map for the same op.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[4,6]{1,0}");
 * TensorView w = Ops.reverse(Ops.slice(Ops.transpose(v, 1, 0), new long[] {0, 1}, new long[] {6, 3}, new long[] {2, 1}), 1);
 * w.stridedLayout().orElseThrow();   // sizes [3, 2] strides [2, -6] offset 12
 * }
 */
public final class Ops {
    private Ops() {
    }

    /**
     * {@return XLA's {@code transpose}: output dimension {@code i} is input dimension
     * {@code permutation[i]}, no element moved}
     *
     * @throws IllegalArgumentException if not a permutation of the rank
     */
    public static TensorView transpose(TensorView view, int... permutation) {
        return Transpose.apply(view, permutation);
    }

    /**
     * {@return XLA's {@code slice}: per dimension {@code [start, limit)} every {@code stride}-th
     * element; output index {@code d} reads {@code start + d * stride}}
     *
     * @throws IllegalArgumentException unless {@code 0 <= start <= limit <= dim} and
     *     {@code stride >= 1} in every dimension, naming the dimension
     */
    public static TensorView slice(TensorView view, long[] start, long[] limit, long[] stride) {
        return Slice.apply(view, start, limit, stride);
    }

    /**
     * {@return XLA's {@code reverse}: each listed dimension {@code i} reads {@code dim_i - 1 - d_i}}
     *
     * @throws IllegalArgumentException for a dimension out of range or repeated
     */
    public static TensorView reverse(TensorView view, int... dimensions) {
        return Reverse.apply(view, dimensions);
    }

    /**
     * {@return XLA's {@code broadcast}: input dimension {@code j} becomes output dimension
     * {@code broadcastDimensions[j]}; every other output dimension repeats (stride 0)}
     *
     * @throws IllegalArgumentException unless each input dimension names a distinct output
     *     dimension of the same size
     */
    public static TensorView broadcast(TensorView view, long[] outputDims, int... broadcastDimensions) {
        return Broadcast.apply(view, outputDims, broadcastDimensions);
    }

    /**
     * {@return XLA's {@code pad}: {@code low} and {@code high} edge padding (negative crops) and
     * {@code interior} padding between elements; padded positions read {@code fill}, and
     * writes there throw}
     *
     * @throws IllegalArgumentException if an interior padding or an output size is negative
     */
    public static TensorView pad(TensorView view, long[] low, long[] high, long[] interior, double fill) {
        return Pad.apply(view, low, high, interior, fill);
    }

    /** {@return the pad with an integer fill, exact for 64-bit types} @see #pad(TensorView, long[], long[], long[], double) */
    public static TensorView pad(TensorView view, long[] low, long[] high, long[] interior, long fill) {
        return Pad.apply(view, low, high, interior, fill);
    }

    /**
     * {@return the pad with the fill read from a rank-0 view of the same type}
     * @see #pad(TensorView, long[], long[], long[], double)
     */
    public static TensorView pad(TensorView view, long[] low, long[] high, long[] interior, TensorView fill) {
        return Pad.apply(view, low, high, interior, fill);
    }

    /**
     * {@return XLA's {@code reshape}: the same elements in row-major order under other dimensions}
     *
     * @throws IllegalArgumentException if the element counts differ
     */
    public static TensorView reshape(TensorView view, long... outputDims) {
        return Reshape.apply(view, outputDims);
    }

    /**
     * {@return XLA's {@code bitcast}: the same bytes read as {@code target}}
     *
     * @throws IllegalArgumentException if the source's map is not an XLA layout (naming its
     *     form), element widths differ, or the byte sizes differ
     */
    public static TensorView bitcast(TensorView view, ArrayShape target) {
        return Bitcast.apply(view, target);
    }

    /**
     * {@return XLA's {@code concatenate}: the parts joined along {@code dimension}, no element moved}
     *
     * @throws IllegalArgumentException if there are no parts, or they differ in type, storage,
     *     rank or any other dimension
     */
    public static TensorView concatenate(int dimension, List<TensorView> parts) {
        return Concatenate.apply(dimension, parts);
    }

    /** {@return the parts joined along {@code dimension}} @see #concatenate(int, List) */
    public static TensorView concatenate(int dimension, TensorView... parts) {
        return Concatenate.apply(dimension, List.of(parts));
    }

    /**
     * {@return XLA's {@code dynamic-slice} with its offsets bound now: each start clamped into
     * {@code [0, dim - size]} as XLA clamps it, then a unit-stride slice of {@code sizes}}
     *
     * @throws IllegalArgumentException if a size is negative or larger than its dimension
     */
    public static TensorView dynamicSlice(TensorView view, long[] offsets, long[] sizes) {
        return DynamicSlice.apply(view, offsets, sizes);
    }
}
