/**
 * The copy engine: copies and converts between any two layouts (strided with zero and negative
 * strides, XLA tiled with padding and {@code E(n)}, general indexing maps). {@link
 * dev.tensorbuf.ops.copy.CopyPlan} decides, {@link dev.tensorbuf.ops.copy.CopyEngine} runs.
 * {@snippet :
 * MemorySegment src = arena.allocate(4L * 4096 * 4096);
 * MemorySegment dst = arena.allocate(4L * 4096 * 4096);
 * Access rows = Access.tiled(src, ArrayShape.parse("f32[4096,4096]{1,0}"));
 * Access tiles = Access.tiled(dst, ArrayShape.parse("f32[4096,4096]{1,0:T(8,128)}"));
 * CopyEngine.defaults().copy(rows, tiles);   // one MemorySegment.copy per 512-byte tile row
 * }
 *
 * <p>A copy of two {@code TensorView}s takes one route, chosen in {@code CopyEngine.route} from the
 * views alone (nothing is read or written to choose it): one {@link dev.tensorbuf.ops.copy.CopyPlan}
 * when each side is one access; a dense temporary first when the sides share memory; one copy
 * per part for views over several pieces ({@code internal.PieceCopies}); packed sub-byte sides
 * staged through byte-a-slot temporaries ({@code internal.SubByteStaging}); else element by
 * element ({@code internal.ViewAdapter.copyElements}). {@code CopyEngine.explain} returns that
 * route as a {@link dev.tensorbuf.ops.copy.CopyPlan.Explanation}, and the engine's settings are
 * one {@link dev.tensorbuf.ops.copy.CopyEngine.Config}.
 *
 * <p>Rules for every method: sizes, strides and offsets are in elements unless named
 * {@code ...Bytes}; elements are little-endian; a plan checks every bound once, so kernels do not.
 * Conversions round floats to nearest even, truncate floats to integers toward zero and throw
 * {@link java.lang.IllegalArgumentException} for values the destination cannot hold.
 */
package dev.tensorbuf.ops.copy;
