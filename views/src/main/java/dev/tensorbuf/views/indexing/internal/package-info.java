/**
 * The evaluators behind {@link dev.tensorbuf.views.indexing.CompiledMap}: {@code BytecodeEval}
 * emits one hidden class per result expression, and a tree of {@code EvalNode}s stands in for an
 * expression whose bytecode would not fit one method.
 *
 * <p>Not exported. Rules for both: as {@code IndexingMap.evaluate}, the domain is not checked;
 * arithmetic is exact ({@code Math.*Exact}), division and modulo round toward negative infinity,
 * and an overflow or a zero divisor is an {@link java.lang.IllegalArgumentException} whose message
 * {@code EvalNode} builds.
 */
package dev.tensorbuf.views.indexing.internal;
