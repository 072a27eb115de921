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
 * <p>Rules for every method: sizes, strides and offsets are in elements unless named
 * {@code ...Bytes}; elements are little-endian; a plan checks every bound once, so kernels do not.
 * Conversions round floats to nearest even, truncate floats to integers toward zero and throw
 * {@link java.lang.IllegalArgumentException} for values the destination cannot hold.
 */
package dev.tensorbuf.ops.copy;
