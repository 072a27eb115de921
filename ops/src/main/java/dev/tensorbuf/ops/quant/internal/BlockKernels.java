package dev.tensorbuf.ops.quant.internal;

import dev.tensorbuf.ops.quant.internal.GridBlocks;
import dev.tensorbuf.ops.quant.internal.ScalarBlocks;
import dev.tensorbuf.ops.quant.internal.VectorBlocks;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * Dequantization of ggml blocks to f32 and quantization of f32, f16 and bf16 to Q8_0 and Q4_0, from segment to
 * segment, every value bit for bit what gguf-py's {@code gguf.quants.dequantize} and
 * {@code quantize} give (NaN and infinite scales included: they propagate through the same f32
 * products). Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and (with 16-lane floats)
 * MXFP4 have Vector API kernels, as do both quantizers, and Q6_K one straight to bf16
 * ({@link #dequantizeBf16}); the other types, and every type
 * when {@code jdk.incubator.vector} is not in the boot layer or {@code vector} is false, run
 * scalar loops that give the same bits. Floats are little-endian; blocks are ggml's layout. The
 * vector kernels see native memory only (mapped files included): heap segments are copied through
 * native memory first, so a kernel's compiled speed does not depend on what memory ran before it.
 * {@snippet :
 * // One Q8_0 block: scale 0.5 (f16 0x3800), codes 0, 1, -2, 3, ...
 * MemorySegment block = ...;                         // 34 bytes
 * MemorySegment out = Arena.ofAuto().allocate(128);  // 32 floats
 * BlockKernels.defaults().dequantize(BlockType.Q8_0, block, 0, out, 0, 1);
 * out.getAtIndex(ValueLayout.JAVA_FLOAT, 2);         // -1.0
 * }
 *
 * <p>Quantizing NaN or infinite inputs gives the bytes gguf-py gives on x86, where NumPy's float
 * to integer casts of NaN and of values outside the int range give {@code 0x80000000}, whose low
 * byte, the code, is 0; finite inputs of any size, zero blocks and blocks whose scale rounds to
 * an infinite f16 match it on any machine.
 */
public final class BlockKernels {
    private static final boolean VECTOR_AVAILABLE = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    private static final BlockKernels DEFAULTS = new BlockKernels(
            VECTOR_AVAILABLE && !"false".equals(System.getProperty("tensorbuf.copy.vector")));
    private static final BlockKernels SCALAR = new BlockKernels(false);

    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

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
        if (vector && hasVectorKernel(type) && !(src.isNative() && dst.isNative())) {
            throughNative(src, srcOffset, blocks * type.blockBytes(), dst, dstOffset, 4L * blocks * type.blockValues(),
                    (in, out) -> dequantize(type, in, 0, out, 0, blocks));
            return;
        }
        if (vector && hasVectorKernel(type)) {
            switch (type) {
                case Q4_0 -> VectorBlocks.q4_0(src, srcOffset, dst, dstOffset, blocks);
                case Q4_1 -> VectorBlocks.q4_1(src, srcOffset, dst, dstOffset, blocks);
                case Q5_0 -> VectorBlocks.q5_0(src, srcOffset, dst, dstOffset, blocks);
                case Q5_1 -> VectorBlocks.q5_1(src, srcOffset, dst, dstOffset, blocks);
                case Q8_0 -> VectorBlocks.q8_0(src, srcOffset, dst, dstOffset, blocks);
                case Q2_K -> VectorBlocks.q2_K(src, srcOffset, dst, dstOffset, blocks);
                case Q3_K -> VectorBlocks.q3_K(src, srcOffset, dst, dstOffset, blocks);
                case Q4_K -> VectorBlocks.q4_K(src, srcOffset, dst, dstOffset, blocks);
                case Q5_K -> VectorBlocks.q5_K(src, srcOffset, dst, dstOffset, blocks);
                case Q6_K -> VectorBlocks.q6_K(src, srcOffset, dst, dstOffset, blocks);
                case MXFP4 -> VectorBlocks.mxfp4(src, srcOffset, dst, dstOffset, blocks);
                default -> throw new AssertionError(type + " has no vector kernel");
            }
            return;
        }
        switch (type) {
            case Q4_0 -> ScalarBlocks.q4_0(src, srcOffset, dst, dstOffset, blocks);
            case Q4_1 -> ScalarBlocks.q4_1(src, srcOffset, dst, dstOffset, blocks);
            case Q5_0 -> ScalarBlocks.q5_0(src, srcOffset, dst, dstOffset, blocks);
            case Q5_1 -> ScalarBlocks.q5_1(src, srcOffset, dst, dstOffset, blocks);
            case Q8_0 -> ScalarBlocks.q8_0(src, srcOffset, dst, dstOffset, blocks);
            case Q2_K -> ScalarBlocks.q2_K(src, srcOffset, dst, dstOffset, blocks);
            case Q3_K -> ScalarBlocks.q3_K(src, srcOffset, dst, dstOffset, blocks);
            case Q4_K -> ScalarBlocks.q4_K(src, srcOffset, dst, dstOffset, blocks);
            case Q5_K -> ScalarBlocks.q5_K(src, srcOffset, dst, dstOffset, blocks);
            case Q6_K -> ScalarBlocks.q6_K(src, srcOffset, dst, dstOffset, blocks);
            case MXFP4 -> ScalarBlocks.mxfp4(src, srcOffset, dst, dstOffset, blocks);
            case TQ1_0 -> ScalarBlocks.tq1_0(src, srcOffset, dst, dstOffset, blocks);
            case TQ2_0 -> ScalarBlocks.tq2_0(src, srcOffset, dst, dstOffset, blocks);
            case IQ4_NL -> ScalarBlocks.iq4_nl(src, srcOffset, dst, dstOffset, blocks);
            case IQ4_XS -> ScalarBlocks.iq4_xs(src, srcOffset, dst, dstOffset, blocks);
            case IQ2_XXS -> GridBlocks.iq2_xxs(src, srcOffset, dst, dstOffset, blocks);
            case IQ2_XS -> GridBlocks.iq2_xs(src, srcOffset, dst, dstOffset, blocks);
            case IQ2_S -> GridBlocks.iq2_s(src, srcOffset, dst, dstOffset, blocks);
            case IQ3_XXS -> GridBlocks.iq3_xxs(src, srcOffset, dst, dstOffset, blocks);
            case IQ3_S -> GridBlocks.iq3_s(src, srcOffset, dst, dstOffset, blocks);
            case IQ1_S -> GridBlocks.iq1_s(src, srcOffset, dst, dstOffset, blocks);
            case IQ1_M -> GridBlocks.iq1_m(src, srcOffset, dst, dstOffset, blocks);
            case NVFP4 -> GridBlocks.nvfp4(src, srcOffset, dst, dstOffset, blocks);
            default -> throw new AssertionError(type + " has a reference but no kernel");
        }
    }

    /**
     * {@return whether {@link #dequantizeBf16} writes this type's bf16 straight from its blocks:
     * Q6_K with the Vector API} Other types, and all with the scalar kernels, go through f32.
     */
    public boolean dequantizesToBf16(BlockType type) {
        return vector && type == BlockType.Q6_K;
    }

    /**
     * Dequantizes {@code blocks} whole blocks into {@code blocks * type.blockValues()} bf16 at
     * byte {@code dstOffset} of {@code dst}: each value the f32 {@link #dequantize} gives, rounded
     * to nearest even, NaN to the quiet NaN with its sign, as the copy engine converts f32 to bf16.
     * {@snippet :
     * if (kernels.dequantizesToBf16(BlockType.Q6_K)) {
     *     kernels.dequantizeBf16(BlockType.Q6_K, blocks, 0, bf16s, 0, 16); // 4096 values, 8 KiB
     * }
     * }
     *
     * @throws IllegalArgumentException naming the type unless {@link #dequantizesToBf16} takes it,
     *     or if {@code blocks} is negative
     * @throws IndexOutOfBoundsException if either range is outside its segment
     */
    public void dequantizeBf16(BlockType type, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset,
                               long blocks) {
        Objects.requireNonNull(type, "type");
        if (!dequantizesToBf16(type)) {
            throw new IllegalArgumentException(this + " cannot dequantize " + type + " straight to bf16: dequantize to f32");
        }
        checkRanges(type, src, srcOffset, (long) type.blockBytes(), dst, dstOffset, 2L * type.blockValues(), blocks);
        if (src.isNative() && dst.isNative()) {
            VectorBlocks.q6_KBf16(src, srcOffset, dst, dstOffset, blocks);
        } else {
            throughNative(src, srcOffset, blocks * type.blockBytes(), dst, dstOffset, 2L * blocks * type.blockValues(),
                    (in, out) -> VectorBlocks.q6_KBf16(in, 0, out, 0, blocks));
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
        quantize(type, DType.F32, src, srcOffset, dst, dstOffset, blocks);
    }

    /**
     * Quantizes {@code blocks * type.blockValues()} values of type {@code from} (f32, f16 or bf16,
     * little-endian) as {@link #quantize(BlockType, MemorySegment, long, MemorySegment, long, long)}
     * does f32: f16 and bf16 are widened to f32 first, exactly, as gguf-py's {@code quantize} does.
     * {@snippet :
     * // 64 bf16 values to two Q8_0 blocks (68 bytes)
     * BlockKernels.defaults().quantize(BlockType.Q8_0, DType.BF16, bf16s, 0, out, 0, 2);
     * }
     *
     * @throws IllegalArgumentException naming the types unless {@code type} is Q8_0 or Q4_0 and
     *     {@code from} is f32, f16 or bf16, or if {@code blocks} is negative
     * @throws IndexOutOfBoundsException if either range is outside its segment
     */
    public void quantize(BlockType type, DType from, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset,
            long blocks) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(from, "from");
        if (!canQuantize(type)) {
            throw new IllegalArgumentException("cannot quantize to " + type + ": tensorbuf quantizes to Q8_0 and Q4_0");
        }
        if (from != DType.F32 && from != DType.F16 && from != DType.BF16) {
            throw new IllegalArgumentException("cannot quantize " + from + " to " + type + ": the values must be f32, f16 or bf16");
        }
        long width = from == DType.F32 ? 4 : 2;
        checkRanges(type, src, srcOffset, width * type.blockValues(), dst, dstOffset, (long) type.blockBytes(), blocks);
        if (from == DType.F32) {
            quantizeF32(type, src, srcOffset, dst, dstOffset, blocks);
            return;
        }
        // Widened a chunk at a time: small enough to stay in cache, large enough that the kernel's
        // loop runs long; native, as the vector kernels read native memory only (VectorBlocks.NATIVE).
        int chunkBlocks = 64;
        short[] halves = new short[chunkBlocks * type.blockValues()];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment widened = arena.allocate(4L * halves.length, 64);
            for (long done = 0; done < blocks; done += chunkBlocks) {
                int n = (int) Math.min(chunkBlocks, blocks - done);
                int values = n * type.blockValues();
                MemorySegment.copy(src, HALF, srcOffset + 2 * done * type.blockValues(), halves, 0, values);
                if (from == DType.F16) {
                    for (int i = 0; i < values; i++) {
                        widened.setAtIndex(F32, i, Float.float16ToFloat(halves[i]));
                    }
                } else {
                    for (int i = 0; i < values; i++) {
                        widened.setAtIndex(F32, i, Float.intBitsToFloat(halves[i] << 16));
                    }
                }
                quantizeF32(type, widened, 0, dst, dstOffset + done * type.blockBytes(), n);
            }
        }
    }

    private void quantizeF32(BlockType type, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long blocks) {
        if (vector && !(src.isNative() && dst.isNative())) {
            throughNative(src, srcOffset, 4L * blocks * type.blockValues(), dst, dstOffset, blocks * type.blockBytes(),
                    (in, out) -> quantizeF32(type, in, 0, out, 0, blocks));
            return;
        }
        if (type == BlockType.Q8_0) {
            if (vector) {
                VectorBlocks.quantizeQ8_0(src, srcOffset, dst, dstOffset, blocks);
            } else {
                ScalarBlocks.quantizeQ8_0(src, srcOffset, dst, dstOffset, blocks);
            }
        } else if (vector) {
            VectorBlocks.quantizeQ4_0(src, srcOffset, dst, dstOffset, blocks);
        } else {
            ScalarBlocks.quantizeQ4_0(src, srcOffset, dst, dstOffset, blocks);
        }
    }

    /** {@return whether the Vector API kernels take {@code type}: the others are scalar whatever the kernels} */
    private static boolean hasVectorKernel(BlockType type) {
        return switch (type) {
            case Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K -> true;
            case MXFP4 -> VectorBlocks.hasMxfp4();
            default -> false;
        };
    }

    /**
     * Runs {@code kernel} from a native copy of {@code srcBytes} at {@code srcOffset} of
     * {@code src} into native memory of {@code dstBytes}, then copies that to {@code dstOffset}
     * of {@code dst}: heap memory (a user's array) never reaches the vector kernels, whose speed
     * would otherwise depend on whether heap memory went through them first
     * ({@link VectorBlocks#NATIVE}).
     */
    private static void throughNative(MemorySegment src, long srcOffset, long srcBytes, MemorySegment dst, long dstOffset,
                                      long dstBytes, BiConsumer<MemorySegment, MemorySegment> kernel) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(srcBytes, 64);
            MemorySegment out = arena.allocate(dstBytes, 64);
            MemorySegment.copy(src, srcOffset, in, 0, srcBytes);
            kernel.accept(in, out);
            MemorySegment.copy(out, 0, dst, dstOffset, dstBytes);
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
