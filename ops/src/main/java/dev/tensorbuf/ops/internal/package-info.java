/**
 * What every package of {@code dev.tensorbuf.ops} shares and no user should see: {@code Errors},
 * the messages the module builds in more than one place.
 *
 * <p>Not exported. It imports nothing from the rest of {@code ops}, so the op files, the HLO front
 * end, the indexing analysis, the executor and the copy engine can all use it without a package
 * cycle; its factories therefore take names and numbers, not {@code HloInstruction}s.
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
 * </dl>
 */
package dev.tensorbuf.ops.internal;
