/**
 * HLO ops as view remaps: {@link dev.tensorbuf.ops.Transpose}, {@link dev.tensorbuf.ops.Slice},
 * {@link dev.tensorbuf.ops.Reverse}, {@link dev.tensorbuf.ops.Broadcast},
 * {@link dev.tensorbuf.ops.Pad}, {@link dev.tensorbuf.ops.Reshape},
 * {@link dev.tensorbuf.ops.Bitcast}, {@link dev.tensorbuf.ops.Concatenate} and
 * {@link dev.tensorbuf.ops.DynamicSlice}, one file each, gathered in {@link dev.tensorbuf.ops.Ops}.
 *
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
 * Ops.transpose(v, 1, 0).indexingMap().toString();
 * // "(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]"
 * }
 *
 * <p>Rules for every op here: it returns a new view whose map is the op's output-to-input map
 * ({@code outputToInput(...)} on each op class) composed with the source view's map; no byte is
 * read or written and the cost does not depend on the tensor's size. Ops are static methods here
 * rather than methods of {@code TensorView} so that views never depend on ops. Bad arguments throw
 * {@link java.lang.IllegalArgumentException} naming the op, the source shape and the value.
 */
package dev.tensorbuf.ops;
