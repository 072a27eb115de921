/**
 * HLO ops as view remaps, all reached through {@link dev.tensorbuf.ops.Ops}: transpose, slice,
 * reverse, broadcast, pad, reshape, bitcast, concatenate and dynamic-slice.
 *
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
 * Ops.transpose(v, 1, 0).indexingMap().toString();
 * // "(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]"
 * }
 *
 * <p>Rules for every op here: it returns a new view whose map is the op's output-to-input map
 * composed with the source view's map; no byte is read or written and the cost does not depend
 * on the tensor's size. Ops are static methods here rather than methods of {@code TensorView}
 * so that views never depend on ops. Bad arguments throw
 * {@link java.lang.IllegalArgumentException} naming the op, the source shape and the value.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>Ops.java</code></dt>
 * <dd>the public facade (<code>Ops.transpose(view, 0, 2, 3, 1)</code>)</dd>
 * <dt><code>internal/Transpose.java</code>, <code>Slice.java</code>, <code>Reverse.java</code>,
 *     <code>Broadcast.java</code>, <code>Pad.java</code>, <code>Reshape.java</code>,
 *     <code>Concatenate.java</code>, <code>DynamicSlice.java</code>, <code>Bitcast.java</code></dt>
 * <dd>one file per op, each the one place its output-to-input map is written
 *     (<code>outputToInput</code>, and <code>affine</code> where the map is affine): the view op
 *     composes it, and HLO indexing (<code>ops.indexing.internal</code>) returns it for the same
 *     HLO instruction</dd>
 * <dt><code>internal/OpChecks.java</code></dt>
 * <dd>argument checks the op files share (rank, permutation), with uniform messages</dd>
 * </dl>
 */
package dev.tensorbuf.ops;
