/**
 * The copy engine's implementation: the planner and its loop nests, the kernels (scalar ones,
 * and Vector API ones named {@code Vector...}), type conversions, the executor and its helper
 * threads, and the checks a plan makes before any byte moves ({@code Reach},
 * {@code SelfOverlap}).
 *
 * <p>Not exported. Rules that hold for every class: planning works in elements (the offsets,
 * strides and counts of {@code Access} and {@code Loop}); a {@link dev.tensorbuf.ops.copy.internal.Task}
 * handed to a kernel is in bytes (byte offsets, byte strides, element widths in bytes).
 * Everything is validated once, by {@code CopyPlan} and the planner, before anything runs;
 * kernels trust their task. The Vector API kernels run only when {@code VectorSupport} finds
 * {@code jdk.incubator.vector}, else the scalar ones do. Every conversion follows
 * {@code ValueMover}'s rules, and a value a fast path finds out of range is handed to
 * {@code ValueMover}, which throws the message.
 */
package dev.tensorbuf.ops.copy.internal;
