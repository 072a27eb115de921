/**
 * Executing HLO modules of data-movement ops as lazy views: {@link dev.tensorbuf.ops.exec.HloExecutor}
 * runs the entry computation, {@link dev.tensorbuf.ops.exec.Execution} holds the root's value and
 * what each instruction became (view, copy, parameter or constant, and the form of its map).
 * An op the executor does not run is refused before anything runs, with an
 * {@link java.lang.IllegalArgumentException} naming the op, the instruction and its line.
 *
 * {@snippet :
 * try (Execution x = HloExecutor.execute("""
 *         HloModule m
 *         ENTRY e {
 *           p0 = s32[4]{0} parameter(0)
 *           ROOT s = s32[2]{0} slice(p0), slice={[1:4:2]}
 *         }""", Map.of("p0", p0))) {          // p0 = [10, 11, 12, 13]
 *     TensorElements.of(x.rowMajor()).toLongArray();            // [11, 13]
 * }
 * }
 *
 * <p>Rules for every type here: values are logical (a layout matters only to {@code bitcast},
 * which reads its operand's declared physical order, and to the root's memory); errors are
 * {@link java.lang.IllegalArgumentException} naming the instruction ({@code %name}) and, when the
 * module text was given, its 1-based line.
 *
 * <p><code>tensorbuf run</code> executes parameter, constant, iota, broadcast, transpose, reshape,
 * bitcast, copy, slice, dynamic-slice, pad, reverse, concatenate and convert as lazy views, and
 * <code>call</code> and <code>fusion</code> of computations made of them (jax's plain and optimised
 * HLO), their parameters bound to the operands' views; the ROOT may be a <code>tuple</code> of
 * arrays. Bytes move, through the copy engine, for <code>copy</code>, type changes, the ROOT (when
 * it is a view: once, into the layout it is asked for in) and any view whose map text grows past
 * <code>MAX_MAP_CHARS</code> (see <code>Interpreter</code> below); <code>iota</code> and
 * <code>constant</code> write their values into newly allocated memory.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>HloExecutor.java</code></dt>
 * <dd>entry point: arguments by parameter name or number (<code>parameterShape</code> resolves
 *     one), the checks before anything runs, as XLA's verifier's, through every computation the
 *     entry reaches (loop bodies and conditions, branches, calls, fusions, reducers): each op
 *     supported, its operand count, element types and, for the moves, dims by shape inference
 *     (<code>Interpreter.checkDeclaredTypes</code>), every constant's literal, loop and branch
 *     signatures; an overload writes an array ROOT into memory the caller keeps across runs</dd>
 * <dt><code>Execution.java</code></dt>
 * <dd>the ROOT's value (owns the run's memory), or each element of a tuple ROOT
 *     (<code>outputCount()</code>, <code>result(k)</code>; the methods without an index refuse a
 *     tuple), what each instruction became; <code>rowMajor()</code>, the value as files hold it (C
 *     order, sub-byte types packed). A ROOT that is a view is copied on first need, once per layout
 *     asked for, straight from the view: a .npy of a column-major ROOT is one copy, not one into
 *     the ROOT's layout and another into C order (<code>copiesOf</code>, package-private, lets
 *     tests count them)</dd>
 * <dt><code>internal/ExecutedInstruction.java</code>, <code>internal/UnsupportedOpException.java</code></dt>
 * <dd>what <code>Execution.steps()</code> lists and what an unsupported op throws; internal, read by
 *     the CLI's <code>run</code> (see <code>exec.internal</code>)</dd>
 * </dl>
 */
package dev.tensorbuf.ops.exec;
