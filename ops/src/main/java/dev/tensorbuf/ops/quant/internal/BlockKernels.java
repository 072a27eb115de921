package dev.tensorbuf.ops.quant.internal;

import dev.tensorbuf.ops.quant.internal.ScalarBlocks;
import dev.tensorbuf.ops.quant.internal.VectorBlocks;
import dev.tensorbuf.views.BlockType;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Dequantization of ggml blocks to f32 and quantization of f32 to Q8_0 and Q4_0, from segment to
 * segment, every value bit for bit what gguf-py's {@code gguf.quants.dequantize} and
 * {@code quantize} give (NaN and infinite scales included: they propagate through the same f32
 * products). Q8_0, Q4_0, Q4_K and Q6_K have Vector API kernels; the other types, and every type
 * when {@code jdk.incubator.vector} is not in the boot layer or {@code vector} is false, run
 * scalar loops that give the same bits. Floats are little-endian; blocks are ggml's layout.
 * {@snippet :
 * // One Q8_0 block: scale 0.5 (f16 0x3800), codes 0, 1, -2, 3, ...
 * MemorySegment block = ...;                         // 34 bytes
 * MemorySegment out = Arena.ofAuto().allocate(128);  // 32 floats
 * BlockKernels.defaults().dequantize(BlockType.Q8_0, block, 0, out, 0, 1);
 * out.getAtIndex(ValueLayout.JAVA_FLOAT, 2);         // -1.0
 * }
 *
 * <p>Quantizing NaN or infinite inputs is not defined by the reference (its codes are a float to
 * integer cast of NaN), so those codes are whatever this code gives; finite inputs of any size,
 * zero blocks and blocks whose scale rounds to an infinite f16 match the reference.
 */
public final class BlockKernels {
    private static final boolean VECTOR_AVAILABLE = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    private static final BlockKernels DEFAULTS = new BlockKernels(
            VECTOR_AVAILABLE && !"false".equals(System.getProperty("tensorbuf.copy.vector")));
    private static final BlockKernels SCALAR = new BlockKernels(false);

    private final boolean vector;

    private BlockKernels(boolean vector) {
        this.vector = vector;
    }

    /** {@return the kernels: Vector API ones where the JVM has the module and {@code -Dtensorbuf.copy.vector} is not false} */
    public static BlockKernels defaults() {
        return DEFAULTS;
    }

    /** {@return kernels that use the Vector API when asked and available, else the scalar loops} */
    public static BlockKernels of(boolean vector) {
        return vector && VECTOR_AVAILABLE ? new BlockKernels(true) : SCALAR;
    }

    /** {@return whether these kernels use the Vector API where a type has a vector kernel} */
    public boolean isVector() {
        return vector;
    }

    /** {@return whether {@link #dequantize} takes this type} */
    public static boolean canDequantize(BlockType type) {
        return type.hasReference();
    }

    /** {@return whether {@link #quantize} makes this type: Q8_0 and Q4_0} */
    public static boolean canQuantize(BlockType type) {
        return type == BlockType.Q8_0 || type == BlockType.Q4_0;
    }

    /**
     * Dequantizes {@code blocks} whole blocks from {@code src} at byte {@code srcOffset} into
     * {@code blocks * type.blockValues()} f32 at byte {@code dstOffset} of {@code dst}.
     *
     * @throws IllegalArgumentException naming the type if tensorbuf has no reference
     *     dequantization for it, or if {@code blocks} is negative
     * @throws IndexOutOfBoundsException if either range is outside its segment
     */
    public void dequantize(BlockType type, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long blocks) {
        Objects.requireNonNull(type, "type");
        if (!type.hasReference()) {
            throw new IllegalArgumentException("cannot dequantize " + type + ": gguf-py has no reference dequantization"
                    + " that tensorbuf follows for it (dequantized: " + java.util.Arrays.stream(BlockType.values())
                    .filter(BlockType::hasReference).toList() + ")");
        }
        checkRanges(type, src, srcOffset, (long) type.blockBytes(), dst, dstOffset, 4L * type.blockValues(), blocks);
        switch (type) {
            case Q8_0 -> {
                if (vector) {
                    VectorBlocks.q8_0(src, srcOffset, dst, dstOffset, blocks);
                } else {
                    ScalarBlocks.q8_0(src, srcOffset, dst, dstOffset, blocks);
                }
            }
            case Q4_0 -> {
                if (vector) {
                    VectorBlocks.q4_0(src, srcOffset, dst, dstOffset, blocks);
                } else {
                    ScalarBlocks.q4_0(src, srcOffset, dst, dstOffset, blocks);
                }
            }
            case Q4_K -> {
                if (vector) {
                    VectorBlocks.q4_K(src, srcOffset, dst, dstOffset, blocks);
                } else {
                    ScalarBlocks.q4_K(src, srcOffset, dst, dstOffset, blocks);
                }
            }
            case Q6_K -> {
                if (vector) {
                    VectorBlocks.q6_K(src, srcOffset, dst, dstOffset, blocks);
                } else {
                    ScalarBlocks.q6_K(src, srcOffset, dst, dstOffset, blocks);
                }
            }
            case Q4_1 -> ScalarBlocks.q4_1(src, srcOffset, dst, dstOffset, blocks);
            case Q5_0 -> ScalarBlocks.q5_0(src, srcOffset, dst, dstOffset, blocks);
            case Q5_1 -> ScalarBlocks.q5_1(src, srcOffset, dst, dstOffset, blocks);
            case Q2_K -> ScalarBlocks.q2_K(src, srcOffset, dst, dstOffset, blocks);
            case Q3_K -> ScalarBlocks.q3_K(src, srcOffset, dst, dstOffset, blocks);
            case Q5_K -> ScalarBlocks.q5_K(src, srcOffset, dst, dstOffset, blocks);
            case TQ1_0 -> ScalarBlocks.tq1_0(src, srcOffset, dst, dstOffset, blocks);
            case TQ2_0 -> ScalarBlocks.tq2_0(src, srcOffset, dst, dstOffset, blocks);
            case MXFP4 -> ScalarBlocks.mxfp4(src, srcOffset, dst, dstOffset, blocks);
            case IQ4_NL -> ScalarBlocks.iq4_nl(src, srcOffset, dst, dstOffset, blocks);
            case IQ4_XS -> ScalarBlocks.iq4_xs(src, srcOffset, dst, dstOffset, blocks);
            default -> throw new AssertionError(type + " has a reference but no kernel");
        }
    }

    /**
     * Quantizes {@code blocks * type.blockValues()} f32 from byte {@code srcOffset} of {@code src}
     * into {@code blocks} blocks at byte {@code dstOffset} of {@code dst}, by ggml's reference
     * rounding (gguf-py's {@code quantize}).
     *
     * @throws IllegalArgumentException naming the type unless it is Q8_0 or Q4_0, or if
     *     {@code blocks} is negative
     * @throws IndexOutOfBoundsException if either range is outside its segment
     */
    public void quantize(BlockType type, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long blocks) {
        Objects.requireNonNull(type, "type");
        if (!canQuantize(type)) {
            throw new IllegalArgumentException("cannot quantize to " + type + ": tensorbuf quantizes to Q8_0 and Q4_0");
        }
        checkRanges(type, src, srcOffset, 4L * type.blockValues(), dst, dstOffset, (long) type.blockBytes(), blocks);
        if (type == BlockType.Q8_0) {
            ScalarBlocks.quantizeQ8_0(src, srcOffset, dst, dstOffset, blocks);
        } else {
            ScalarBlocks.quantizeQ4_0(src, srcOffset, dst, dstOffset, blocks);
        }
    }

    private static void checkRanges(BlockType type, MemorySegment src, long srcOffset, long srcBlock, MemorySegment dst,
            long dstOffset, long dstBlock, long blocks) {
        if (blocks < 0) {
            throw new IllegalArgumentException("negative block count " + blocks + " of " + type);
        }
        // asSlice checks offset and length against the segment, with the JDK's message.
        src.asSlice(srcOffset, Math.multiplyExact(blocks, srcBlock));
        dst.asSlice(dstOffset, Math.multiplyExact(blocks, dstBlock));
    }

    @Override
    public String toString() {
        return vector ? "BlockKernels[vector]" : "BlockKernels[scalar]";
    }
}
