package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * A block-quantized side of a copy, its map form: rows of whole blocks, each row's first block at
 * a byte offset the outer index gives by byte strides, the row's own values {@code [skip, skip + n)}
 * of the {@code cover} values its blocks hold. The planner plans such a side as if it were f32
 * rows of {@code cover} values, dense ({@link #virtual}); a {@link Step.Dequantize} then reads
 * whole blocks of the rows a part of that plan touches. Nothing reads the virtual f32 side.
 * {@snippet :
 * // Q6_K[4096, 1024] as GGUF stores it: rows of 4 blocks of 210 bytes
 * BlockSource s = BlockSource.of(BlockType.Q6_K, segment, 0, new long[] {4096, 1024}, new long[] {840}, 0);
 * s.cover();          // 1024
 * s.rowByteOffset(3); // 2520
 * }
 *
 * @param type the block type
 * @param segment the bytes of the blocks
 * @param byteOffset where row 0's first block is
 * @param dims the logical dims, the innermost cut into blocks
 * @param outerStrides the byte stride of each outer dim (all dims but the innermost)
 * @param skip the values of each row's first block before the row's first value
 */
public record BlockSource(BlockType type, MemorySegment segment, long byteOffset, long[] dims, long[] outerStrides,
                          long skip) {

    /** @throws IllegalArgumentException if the strides do not match the dims or {@code skip} is outside a block */
    public BlockSource {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(segment, "segment");
        dims = dims.clone();
        outerStrides = outerStrides.clone();
        if (dims.length == 0 || outerStrides.length != dims.length - 1) {
            throw new IllegalArgumentException("a block source of dims " + Arrays.toString(dims) + " needs "
                    + Math.max(0, dims.length - 1) + " outer strides, got " + Arrays.toString(outerStrides));
        }
        if (skip < 0 || skip >= type.blockValues()) {
            throw new IllegalArgumentException("skip " + skip + " is outside a " + type.blockValues() + "-value block");
        }
    }

    /** {@return the source as {@link BlockSource#BlockSource} takes it} */
    public static BlockSource of(BlockType type, MemorySegment segment, long byteOffset, long[] dims, long[] outerStrides,
                                 long skip) {
        return new BlockSource(type, segment, byteOffset, dims, outerStrides, skip);
    }

    /** {@return the values the blocks of one row hold: its own values and the skipped ones, rounded up to whole blocks} */
    public long cover() {
        long bv = type.blockValues();
        return Math.ceilDiv(Math.addExact(skip, dims[dims.length - 1]), bv) * bv;
    }

    /** {@return the rows: the product of the outer dims} */
    public long rows() {
        long n = 1;
        for (int d = 0; d < dims.length - 1; d++) {
            n = Math.multiplyExact(n, dims[d]);
        }
        return n;
    }

    /** {@return the byte offset of row {@code row}'s first block, rows counted row-major over the outer dims} */
    public long rowByteOffset(long row) {
        long at = byteOffset;
        for (int d = dims.length - 2; d >= 0; d--) {
            at += (row % dims[d]) * outerStrides[d];
            row /= dims[d];
        }
        return at;
    }

    /**
     * {@return the f32 side the planner plans in place of this one: rows of {@link #cover()} values,
     * dense, each row's own values from {@code skip}} Over an empty segment: it is never read.
     */
    public Access virtual() {
        long[] strides = new long[dims.length];
        long stride = 1;
        for (int d = dims.length - 1; d >= 0; d--) {
            strides[d] = stride;
            stride = Math.multiplyExact(stride, d == dims.length - 1 ? cover() : dims[d]);
        }
        return Access.strided(MemorySegment.NULL, DType.F32, StridedLayout.of(dims, strides, skip));
    }

    @Override
    public String toString() {
        return type + Arrays.toString(dims) + (skip == 0 ? "" : " from value " + skip + " of its first blocks");
    }
}
