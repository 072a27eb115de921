/**
 * What every package of {@code dev.tensorbuf.ops} shares and no user should see: {@code Errors},
 * the messages the module builds in more than one place, and the view ops, one file each, each
 * the one place its output-to-input map is written. {@code Ops} applies them to views; HLO
 * indexing ({@code ops.indexing.internal}) returns the same maps for the same instructions; the
 * executor runs them.
 *
 * <p>Not exported. It imports nothing from the rest of {@code ops}, so the op files, the HLO front
 * end, the indexing analysis, the executor and the copy engine can all use it without a package
 * cycle; its factories therefore take names, numbers and dims, not {@code HloInstruction}s.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>Errors.java</code></dt>
 * <dd>the messages every package of <code>ops</code> builds in more than one place: a number past
 *     the end of its list (operand, output, parameter), a missing attribute, an attribute with the
 *     wrong number of dims, dimensions that are not a permutation, element counts that differ, an
 *     overflow naming the counts, a value an integer type cannot hold (its range named; NaN said to
 *     have no integer value), a destination that overlaps itself, a name not found in a module or
 *     computation. A leaf package (it imports nothing from <code>ops</code>, so every package can
 *     use it), not exported</dd>
 * <dt><code>Sizes.java</code></dt>
 * <dd>exact size arithmetic for the copy engine, its API and its planner
 *     (<code>PlannedSteps</code>' spans): messages built only on overflow (plans check sizes per
 *     dimension), through <code>Errors</code>. A leaf too</dd>
 * <dt><code>Graphs.java</code></dt>
 * <dd>the one post-order walk of a graph by identity, on a stack of its own: elementwise
 *     expressions (<code>copy.internal.Pointwise</code>), a held value's instructions
 *     (<code>exec.internal.Fusion</code>) and a fusion's operands (<code>indexing.internal</code>).
 *     A leaf too</dd>
 * <dt><code>Transpose.java</code>, <code>Slice.java</code>, <code>Reverse.java</code>,
 *     <code>Broadcast.java</code></dt>
 * <dd>the affine ops: <code>affine(...)</code> is the op's map as an <code>Remap.Affine</code>
 *     (composed with a view's map in O(rank^2)), <code>outputToInput(...)</code> the same map as
 *     an <code>IndexingMap</code> for HLO indexing, <code>apply</code> the checked view op</dd>
 * <dt><code>Pad.java</code>, <code>Concatenate.java</code>, <code>Reshape.java</code></dt>
 * <dd>the ops whose maps are the views' <code>Remap.Pad</code> and <code>Remap.Reshape</code>:
 *     <code>outputToInput</code> (<code>outputToPart</code> for a part of a concatenation)
 *     returns that map for HLO indexing</dd>
 * <dt><code>DynamicSlice.java</code></dt>
 * <dd>one map, <code>d_i -&gt; d_i + rt_i</code> with each offset a runtime variable ranging over
 *     XLA's clamp: HLO indexing binds the variables to the offset operands, the view op binds them
 *     to offsets known when the view is made (clamped into those ranges)</dd>
 * <dt><code>Bitcast.java</code></dt>
 * <dd>the same bytes under another shape and layout; its output-to-input map
 *     (<code>outputToInput</code>: logical to physical, a reshape of the physical dims, back to
 *     logical) is HLO indexing's; the view op builds no map but lays the target out at the
 *     source's first byte, which is that map composed with the source's layout
 *     (<code>ViewMapOnceTest</code> checks they agree)</dd>
 * <dt><code>OpChecks.java</code></dt>
 * <dd>argument checks the op files share (rank, permutation), with uniform messages</dd>
 * </dl>
 */
package dev.tensorbuf.ops.internal;
