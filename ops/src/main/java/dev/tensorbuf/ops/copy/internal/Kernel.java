package dev.tensorbuf.ops.copy.internal;

/**
 * The kernel a planned step runs. Each has its own brute-force equivalence test and JMH benchmark.
 * {@snippet :
 * CopyPlan p = AccessCopies.plan(src, dst);   // f32[8,64,56,56] NCHW -> NHWC (with 3 channels: INTERLEAVE)
 * AccessCopies.steps(p).get(0) instanceof Step.Run r && r.kernel() == Kernel.TRANSPOSE;   // true
 * }
 */
public enum Kernel {
    /** The innermost loop is contiguous on both sides and the types match: one {@code MemorySegment.copy} per run. */
    BULK,
    /** The innermost source stride is zero (broadcast): each run is filled with one value. */
    FILL,
    /** 4-byte elements, inner loops form a 2-D transpose: register shuffles of 16x16 (or 8x8) blocks. */
    TRANSPOSE,
    /** 2-byte elements, innermost destination pair comes from two source rows: XLA's {@code (2,1)} packing. */
    PAIR_INTERLEAVE,
    /**
     * 4-byte elements, 2 to 4 planes contiguous in the source are interleaved into the
     * destination (NCHW -> NHWC with C = 3): register shuffles of one vector per plane.
     */
    INTERLEAVE,
    /** 4-byte elements, 2 to 4 interleaved channels split into destination planes (NHWC -> NCHW with C = 3). */
    DEINTERLEAVE,
    /** 4-byte elements read at source stride 2 into a contiguous run (a {@code ::2} slice): even-lane shuffles. */
    EVEN_GATHER,
    /**
     * u8 to f32 with 1 to 4 interleaved channels split into destination planes, optionally with a
     * per-channel scale and bias on those channels (image staging): byte permutes, widening and fma.
     */
    BYTE_PLANES,
    /** Same type, any strides: one element at a time. */
    ELEMENT,
    /** Different types or a per-channel scale and bias: converted one run at a time. */
    CONVERT,
    /**
     * f32 to bf16 rounded to nearest even, packed into XLA's {@code (2,1)} pairs (two source rows
     * per destination word): whole-int lane arithmetic, one load per row per vector of columns.
     */
    CONVERT_PAIR_INTERLEAVE,
    /** bf16 in {@code (2,1)} pairs to f32 rows: each word widened by a shift and a mask into its two rows. */
    CONVERT_PAIR_DEINTERLEAVE,
    /** Destination-only: padding slots of a tiled destination are written as zero. */
    ZERO,
    /** No strided form (general maps, sub-byte packing, mismatched tilings): every element through its map. */
    GATHER
}
