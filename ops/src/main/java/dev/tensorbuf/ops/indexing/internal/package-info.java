/**
 * XLA's indexing analysis behind {@link dev.tensorbuf.ops.indexing.HloIndexing}, one class per op
 * family: {@code OpIndexing} dispatches by opcode after {@code ShapeChecks} has applied XLA's
 * verifier rules, and fusions compose through their computations.
 *
 * <p>Not exported. Rules: maps are built as XLA builds them (its variable order, its
 * constraints); an op with no model gets {@code unknown indexing}, never an exception; an
 * instruction XLA's verifier would refuse is an {@link java.lang.IllegalArgumentException} naming
 * it.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>OpIndexing.java</code></dt>
 * <dd>dispatch by opcode; an op without a model gets <code>unknown indexing</code>, never an
 *     exception; <code>checkShapes</code> applies the shape rules alone, for the run's check of a
 *     whole module before it starts</dd>
 * <dt><code>ShapeChecks.java</code></dt>
 * <dd>XLA's verifier rules for the ops whose maps index by their attributes unchecked
 *     (element-wise, bitcast-convert between widths, broadcast, transpose, bitcast, reverse,
 *     reduce, concatenate, dynamic-slice, dynamic-update-slice, get-tuple-element; the output sizes
 *     XLA infers for reduce-window, convolution, gather and all-gather; reduce-window's scalar
 *     inits, gather's start_index_map), run by <code>OpIndexing</code> before
 *     either direction: a module XLA would refuse gets an error naming the instruction, not maps of
 *     the wrong rank</dd>
 * <dt><code>Elementwise.java</code>, <code>Permutations.java</code>, <code>Reductions.java</code>,
 *     <code>Slicing.java</code>, <code>Gather.java</code>, <code>Windows.java</code>,
 *     <code>Reshapes.java</code>, <code>Collectives.java</code></dt>
 * <dd>the maps of each op family (elementwise, a bitcast-convert between widths adding or dropping
 *     the narrow type's minor dimension; broadcast/transpose/reverse/tuple; reduce/dot;
 *     slice/concatenate/pad/dynamic-slice/dynamic-update-slice; gather; reduce-window/convolution;
 *     reshape/bitcast; all-gather/scan). The output-to-input maps of the ops that are also view ops
 *     (broadcast, transpose, reverse, slice, concatenate, pad, reshape, dynamic-slice, bitcast)
 *     are not written here: they come from the op's file in <code>ops.internal</code>, the one
 *     <code>Ops</code> composes, so a view and the instruction index alike</dd>
 * <dt><code>Fusions.java</code>, <code>Composition.java</code>, <code>RuntimeVars.java</code></dt>
 * <dd>output-to-input composition through fused computations (consumers first, each output of
 *     multi-output producers tracked; a computation that does not return the fusion's shape is
 *     refused, as XLA's verifier does), runtime variables kept bound (with XLA's bound constraints)
 *     and replaced where known</dd>
 * <dt><code>FusionInputs.java</code></dt>
 * <dd>input-to-output through a fused computation, operands first</dd>
 * <dt><code>Physical.java</code>, <code>Maps.java</code>, <code>Ctx.java</code></dt>
 * <dd>logical/physical permutation maps; shared helpers</dd>
 * </dl>
 */
package dev.tensorbuf.ops.indexing.internal;
