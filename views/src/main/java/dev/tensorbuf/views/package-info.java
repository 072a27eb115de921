/**
 * Logical tensors over buffers: element types, shapes, layouts and typed views.
 *
 * <p>Key types: {@link dev.tensorbuf.views.TensorView} (a buffer plus a
 * {@link dev.tensorbuf.views.ViewMap} from logical index to element offset, with typed access),
 * {@link dev.tensorbuf.views.MapForm} (strided, tiled or general, with the reason),
 * {@link dev.tensorbuf.views.ArrayShape} and {@link dev.tensorbuf.views.XlaLayout} (XLA shapes),
 * {@link dev.tensorbuf.views.StridedLayout}, {@link dev.tensorbuf.views.DType},
 * {@link dev.tensorbuf.views.ElementAccess}; the op descriptions views compose on first need:
 * {@link dev.tensorbuf.views.AffineRemap}, {@link dev.tensorbuf.views.ReshapeRemap},
 * {@link dev.tensorbuf.views.PadRemap}.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[2,4]{1,0}");
 * v.getFloat(1, 7); // IndexOutOfBoundsException: "index 7 out of bounds [0, 4) for dim 1 of f32[2,4]{1,0}"
 * }
 *
 * <p>Rules for every method here: sizes, strides and offsets are in elements unless the name ends
 * in {@code Bytes}; {@code null} arguments throw {@link NullPointerException}.
 */
package dev.tensorbuf.views;
