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
 *
 * <p>One file per op, each owning its output-to-input indexing map; applying an op composes that
 * map with the source view's map (<code>TensorView.remap</code>), so no element moves.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>Transpose.java</code>, <code>Slice.java</code>, <code>Reverse.java</code>,
 *     <code>Broadcast.java</code>, <code>Reshape.java</code>, <code>Bitcast.java</code></dt>
 * <dd>the single-source ops</dd>
 * <dt><code>Pad.java</code></dt>
 * <dd>low/high/interior padding: a <code>Padded</code> view whose fill is a one-element buffer</dd>
 * <dt><code>Concatenate.java</code></dt>
 * <dd>a <code>Concatenated</code> view over several sources</dd>
 * <dt><code>DynamicSlice.java</code></dt>
 * <dd>offsets bound at creation, clamped as XLA clamps</dd>
 * <dt><code>Ops.java</code></dt>
 * <dd>the static facade (<code>Ops.transpose(view, 0, 2, 3, 1)</code>)</dd>
 * <dt><code>OpChecks.java</code></dt>
 * <dd>argument checks the op files share (rank, permutation), with uniform messages</dd>
 * </dl>
 */
package dev.tensorbuf.ops;
