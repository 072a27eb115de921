/**
 * The evaluators behind {@link dev.tensorbuf.views.indexing.IndexingMap.Compiled}: {@code BytecodeEval}
 * emits one hidden class per result expression, and a tree of {@code EvalNode}s stands in for an
 * expression whose bytecode would not fit one method.
 *
 * <p>Not exported. Rules for both: as {@code IndexingMap.evaluate}, the domain is not checked;
 * arithmetic is exact ({@code Math.*Exact}), division and modulo round toward negative infinity,
 * and an overflow or a zero divisor is an {@link java.lang.IllegalArgumentException} whose message
 * {@code EvalNode} builds.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>BytecodeEval.java</code></dt>
 * <dd>one hidden class per result expression, emitted with <code>java.lang.classfile</code></dd>
 * <dt><code>EvalNode.java</code></dt>
 * <dd>tree evaluator, the fallback for an expression whose bytecode would not fit one method
 *     (<code>BytecodeEval.fits</code> counts it first); any other emission failure throws</dd>
 * </dl>
 */
package dev.tensorbuf.views.indexing.internal;
