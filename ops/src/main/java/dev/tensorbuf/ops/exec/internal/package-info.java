/**
 * How {@code tensorbuf run} executes a module: the {@code Interpreter} walks from the ROOT and
 * makes each instruction a view where it can; {@code copy}, type changes and views whose maps grew
 * too long are copied into new memory through the copy engine, and constants and {@code iota} are
 * written into new memory of their own. Argument checks, literals and XLA's {@code convert} rules
 * sit beside it.
 *
 * <p>Not exported. Rules: every value is a {@link dev.tensorbuf.views.TensorView}; memory a step
 * allocates comes from the run's allocator and is freed with the
 * {@link dev.tensorbuf.ops.exec.Execution}. A bad module or argument is an
 * {@link java.lang.IllegalArgumentException}, which the interpreter prefixes with the instruction
 * and its line.
 */
package dev.tensorbuf.ops.exec.internal;
