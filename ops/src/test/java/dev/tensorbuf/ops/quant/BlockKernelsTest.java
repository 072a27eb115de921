package dev.tensorbuf.ops.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every dequantized value and every quantized byte equals gguf-py's {@code gguf.quants}, bit for
 * bit: on the vectors {@code gguf_quants.py} wrote into {@code conformance/gguf_quants/} (random
 * blocks, whose f16 scales include NaNs and infinities, and special blocks), and, when the peer
 * is installed, on a fresh run of the script.
 */
class BlockKernelsTest {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final List<BlockType> DEQUANTIZED = List.of(BlockType.Q4_0, BlockType.Q4_1, BlockType.Q5_0,
            BlockType.Q5_1, BlockType.Q8_0, BlockType.Q2_K, BlockType.Q3_K, BlockType.Q4_K, BlockType.Q5_K, BlockType.Q6_K,
            BlockType.TQ1_0, BlockType.TQ2_0, BlockType.MXFP4, BlockType.IQ4_NL, BlockType.IQ4_XS, BlockType.IQ2_XXS,
            BlockType.IQ2_XS, BlockType.IQ2_S, BlockType.IQ3_XXS, BlockType.IQ3_S, BlockType.IQ1_S, BlockType.IQ1_M,
            BlockType.NVFP4);
    private static final List<String> GRIDS = List.of("IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S");

    @TempDir
    Path dir;

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = BlockKernelsTest.class.getResourceAsStream("/conformance/gguf_quants/" + name)) {
            if (in == null) {
                throw new IOException("missing test resource conformance/gguf_quants/" + name);
            }
            return in.readAllBytes();
        }
    }

    @Test
    void everyTypeWithAReferenceIsCoveredAndBothKernelKindsRun() {
        // The vector kernels are checked wherever the JVM has the module (ops' tests add it).
        assertEquals(ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent(), BlockKernels.of(true).isVector());
        assertEquals(false, BlockKernels.of(false).isVector());
        assertEquals(java.util.Set.copyOf(DEQUANTIZED),
                java.util.Arrays.stream(BlockType.values()).filter(BlockType::hasReference).collect(java.util.stream.Collectors.toSet()));
    }

    @ParameterizedTest
    @EnumSource(value = BlockType.class, names = {"Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
        "Q6_K", "TQ1_0", "TQ2_0", "MXFP4", "IQ4_NL", "IQ4_XS", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S",
        "IQ1_M", "NVFP4"})
    void dequantizesAsTheStoredReferenceBitForBit(BlockType type) throws IOException {
        checkDequantize(type, name -> {
            try {
                return resource(name);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = BlockType.class, names = {"Q8_0", "Q4_0"})
    void quantizesAsTheStoredReferenceByteForByte(BlockType type) throws IOException {
        checkQuantize(type, DType.F32, resource(type + ".in"), resource(type + ".quant"));
        checkQuantize(type, DType.F16, resource(type + ".in_f16"), resource(type + ".quant_f16"));
        checkQuantize(type, DType.BF16, resource(type + ".in_bf16"), resource(type + ".quant_bf16"));
    }

    @Test
    void agreesWithAFreshRunOfGgufPy() throws IOException {
        PythonPeer.assumeModules("gguf", "numpy");
        String out = PythonPeer.runScript("/gguf_quants.py", dir, dir.toString());
        assertTrue(out.contains("wrote "), out);
        for (BlockType type : DEQUANTIZED) {
            if (!Files.exists(dir.resolve(type + ".blocks"))) {
                System.out.println("BlockKernelsTest: this gguf-py has no " + type + "; its stored vectors are checked");
                continue;
            }
            checkDequantize(type, name -> {
                try {
                    return Files.readAllBytes(dir.resolve(name));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
        for (BlockType type : List.of(BlockType.Q8_0, BlockType.Q4_0)) {
            checkQuantize(type, DType.F32, Files.readAllBytes(dir.resolve(type + ".in")),
                    Files.readAllBytes(dir.resolve(type + ".quant")));
            checkQuantize(type, DType.BF16, Files.readAllBytes(dir.resolve(type + ".in_bf16")),
                    Files.readAllBytes(dir.resolve(type + ".quant_bf16")));
        }
    }

    @Test
    void codebooksAreGgufPysGrids() throws IOException {
        PythonPeer.assumeModules("gguf", "numpy");
        String out = PythonPeer.runScript("/gguf_grids.py", dir, dir.toString());
        assertTrue(out.contains("wrote 6 grids"), out);
        for (String grid : GRIDS) {
            try (InputStream in = dev.tensorbuf.ops.quant.internal.GridBlocks.class.getResourceAsStream(grid + ".grid")) {
                assertTrue(in != null, grid);
                assertTrue(java.util.Arrays.equals(Files.readAllBytes(dir.resolve(grid + ".grid")), in.readAllBytes()),
                        grid + ": the committed codebook differs from gguf-py's");
            }
        }
    }

    private static void checkDequantize(BlockType type, Function<String, byte[]> files) {
        byte[] blocks = files.apply(type + ".blocks");
        byte[] expected = files.apply(type + ".f32");
        long n = blocks.length / type.blockBytes();
        assertEquals(n * type.blockValues() * 4, expected.length, type + ": vector sizes");
        for (BlockKernels kernels : List.of(BlockKernels.of(false), BlockKernels.of(true))) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment src = arena.allocate(blocks.length + 3);
                // Blocks at an odd offset: 17-, 18- and 34-byte blocks never sit aligned in a file.
                MemorySegment.copy(blocks, 0, src, ValueLayout.JAVA_BYTE, 3, blocks.length);
                MemorySegment out = arena.allocate(expected.length + 4);
                kernels.dequantize(type, src, 3, out, 4, n);
                MemorySegment want = MemorySegment.ofArray(expected);
                for (long i = 0; i < expected.length / 4; i++) {
                    int got = out.get(I32, 4 + 4 * i);
                    int ref = want.get(I32, 4 * i);
                    if (got != ref) {
                        throw new AssertionError(String.format("%s %s: value %d (block %d, index %d): got 0x%08x (%s),"
                                + " gguf-py 0x%08x (%s)", kernels, type, i, i / type.blockValues(), i % type.blockValues(),
                                got, Float.intBitsToFloat(got), ref, Float.intBitsToFloat(ref)));
                    }
                }
                // Heap memory (a user's arrays) reaches the vector kernels through native copies: the same bits.
                byte[] heapOut = new byte[expected.length + 4];
                kernels.dequantize(type, MemorySegment.ofArray(blocks), 0, MemorySegment.ofArray(heapOut), 4, n);
                assertArrayEquals(expected, Arrays.copyOfRange(heapOut, 4, heapOut.length), kernels + " " + type
                        + " from and into heap memory");
                if (kernels.dequantizesToBf16(type)) {
                    MemorySegment bf16 = arena.allocate(expected.length / 2 + 2);
                    kernels.dequantizeBf16(type, src, 3, bf16, 2, n);
                    byte[] heapBf16 = new byte[expected.length / 2 + 2];
                    kernels.dequantizeBf16(type, MemorySegment.ofArray(blocks), 0, MemorySegment.ofArray(heapBf16), 2, n);
                    assertArrayEquals(bf16.asSlice(2).toArray(ValueLayout.JAVA_BYTE), Arrays.copyOfRange(heapBf16, 2,
                            heapBf16.length), kernels + " " + type + " -> bf16 from and into heap memory");
                    for (long i = 0; i < expected.length / 4; i++) {
                        short got = bf16.get(I16, 2 + 2 * i);
                        short ref = bf16(want.get(I32, 4 * i));
                        if (got != ref) {
                            throw new AssertionError(String.format("%s %s -> bf16: value %d (block %d): got 0x%04x,"
                                    + " gguf-py's f32 0x%08x rounded 0x%04x", kernels, type, i, i / type.blockValues(), got,
                                    want.get(I32, 4 * i), ref));
                        }
                    }
                }
            }
        }
    }

    /** f32 bits to bf16 by hand: nearest, ties to even; NaN to the quiet NaN with its sign. */
    private static short bf16(int bits) {
        if ((bits & 0x7fff_ffff) > 0x7f80_0000) {
            return (short) (((bits >>> 16) & 0x8000) | 0x7fc0);
        }
        int low = bits & 0xffff;
        int high = bits >>> 16;
        if (low > 0x8000 || (low == 0x8000 && (high & 1) == 1)) {
            high++;
        }
        return (short) high;
    }

    @Test
    void q6KStraightToBf16RoundsTiesToEven() {
        BlockKernels kernels = BlockKernels.of(true);
        org.junit.jupiter.api.Assumptions.assumeTrue(kernels.dequantizesToBf16(BlockType.Q6_K),
                "the Vector API is not in this JVM: Q6_K goes to bf16 through f32");
        try (Arena arena = Arena.ofConfined()) {
            // d = 257 (an f16), every sub-block scale 1: code c gives (c - 32) * 257, and 257 = 1.00000001b * 2^8 is
            // a tie in bf16 (7 fraction bits), rounded to the even 256; 3 * 257 = 771 rounds up to 772.
            MemorySegment block = arena.allocate(210);
            for (int g = 0; g < 16; g++) {
                block.set(ValueLayout.JAVA_BYTE, 192 + g, (byte) 1);
            }
            block.set(I16, 208, Float.floatToFloat16(257f));
            // Value 0: ql byte 0 low nibble, qh byte 0 bits 0-1; value 1: ql byte 1, qh byte 1. Codes 33 and 35 (q 1 and 3);
            // value 64 (half 0, t 2): ql byte 0 high nibble and qh byte 0 bits 4-5: code 31 (q -1).
            block.set(ValueLayout.JAVA_BYTE, 0, (byte) 0xF1);
            block.set(ValueLayout.JAVA_BYTE, 1, (byte) 0x03);
            block.set(ValueLayout.JAVA_BYTE, 128, (byte) 0x12);
            block.set(ValueLayout.JAVA_BYTE, 129, (byte) 0x02);
            MemorySegment out = arena.allocate(512);
            kernels.dequantizeBf16(BlockType.Q6_K, block, 0, out, 0, 1);
            assertEquals(256f, Float.intBitsToFloat(out.get(I16, 0) << 16));
            assertEquals(772f, Float.intBitsToFloat(out.get(I16, 2) << 16));
            assertEquals(-256f, Float.intBitsToFloat(out.get(I16, 128) << 16));
            assertThrows(IllegalArgumentException.class, () -> kernels.dequantizeBf16(BlockType.Q8_0, block, 0, out, 0, 1));
            assertThrows(IllegalArgumentException.class,
                    () -> BlockKernels.of(false).dequantizeBf16(BlockType.Q6_K, block, 0, out, 0, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> kernels.dequantizeBf16(BlockType.Q6_K, block, 0, out, 2, 1));
        }
    }

    private static void checkQuantize(BlockType type, DType from, byte[] input, byte[] expected) {
        long n = input.length / (from == DType.F32 ? 4 : 2) / type.blockValues();
        assertEquals(n * type.blockBytes(), expected.length);
        for (BlockKernels kernels : List.of(BlockKernels.of(false), BlockKernels.of(true))) {
            try (Arena arena = Arena.ofConfined()) {
                // Native and at an odd offset, as a mapped file's tensor can be.
                MemorySegment src = arena.allocate(input.length + 1);
                MemorySegment.copy(input, 0, src, ValueLayout.JAVA_BYTE, 1, input.length);
                MemorySegment out = arena.allocate(expected.length + 1);
                kernels.quantize(type, from, src, 1, out, 1, n);
                byte[] got = out.asSlice(1).toArray(ValueLayout.JAVA_BYTE);
                byte[] heapOut = new byte[expected.length];
                kernels.quantize(type, from, MemorySegment.ofArray(input), 0, MemorySegment.ofArray(heapOut), 0, n);
                assertArrayEquals(got, heapOut, kernels + " " + type + " from " + from + " in heap memory");
                for (int i = 0; i < got.length; i++) {
                    if (got[i] != expected[i]) {
                        throw new AssertionError(String.format("%s %s from %s: byte %d (block %d, byte %d): got 0x%02x,"
                                + " gguf-py 0x%02x", kernels, type, from, i, i / type.blockBytes(), i % type.blockBytes(),
                                got[i], expected[i]));
                    }
                }
            }
        }
    }

    /** Where each type with a vector kernel keeps its f16 scales (and mins), as {@code gguf_quants.py} says. */
    private static int[] scaleOffsets(BlockType type) {
        return switch (type) {
            case Q4_0, Q5_0, Q8_0 -> new int[] {0};
            case Q4_1, Q5_1, Q4_K, Q5_K -> new int[] {0, 2};
            case Q2_K -> new int[] {80, 82};
            case Q3_K -> new int[] {108};
            case Q6_K -> new int[] {208};
            case MXFP4 -> new int[0];
            default -> throw new AssertionError(type);
        };
    }

    /**
     * The vector kernels give the scalar ones' bits on random blocks (small finite scales, as
     * weights have, and raw random bytes, NaN and infinite scales among them) and special blocks
     * (zero; the largest codes under the largest finite, infinite, NaN and signalling NaN scales,
     * mixed NaN payloads), for block counts that leave every tail a vector loop could have, at an
     * odd source offset, and write nothing outside their range.
     */
    @ParameterizedTest
    @EnumSource(value = BlockType.class, names = {"Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K",
        "MXFP4"})
    void vectorKernelsGiveTheScalarBitsOnRandomAndSpecialBlocks(BlockType type) {
        BlockKernels vector = BlockKernels.of(true);
        org.junit.jupiter.api.Assumptions.assumeTrue(vector.isVector(), "the Vector API is not in this JVM");
        int bb = type.blockBytes();
        int bv = type.blockValues();
        java.util.Random random = new java.util.Random(38);
        short[] special = {0x7bff, (short) 0xfbff, 0x7c00, (short) 0xfc00, 0x7e00, 0x7c01, (short) 0xff8c, (short) 0x8000, 0x0001};
        int randomBlocks = 200;
        int n = randomBlocks + 1 + special.length + special.length * special.length;
        byte[] blocks = new byte[n * bb];
        random.nextBytes(blocks);
        MemorySegment b = MemorySegment.ofArray(blocks);
        int[] scales = scaleOffsets(type);
        // MXFP4's scale is its first byte, an exponent: the special values' low bytes (0xff, 0x00, 0x01, ...) stand in.
        boolean exponent = type == BlockType.MXFP4;
        for (int k = 0; k < randomBlocks / 2; k++) {
            if (exponent) {
                blocks[k * bb] = (byte) (112 + random.nextInt(16));
            }
            for (int at : scales) {
                b.set(I16, (long) k * bb + at, Float.floatToFloat16((float) random.nextGaussian() * 0.01f));
            }
        }
        int k = randomBlocks;
        Arrays.fill(blocks, k * bb, (k + 1) * bb, (byte) 0);
        k++;
        for (short f16 : special) {
            Arrays.fill(blocks, k * bb, (k + 1) * bb, (byte) 0xff);
            if (exponent) {
                blocks[k * bb] = (byte) f16;
            }
            for (int at : scales) {
                b.set(I16, (long) k * bb + at, f16);
            }
            k++;
        }
        // Every pair of special values as scale and min (or scale and the largest codes' sub-block scales).
        for (short first : special) {
            for (short second : special) {
                Arrays.fill(blocks, k * bb, (k + 1) * bb, (byte) 0x7f);
                if (exponent) {
                    blocks[k * bb] = (byte) (first >> 8 ^ second);
                } else {
                    b.set(I16, (long) k * bb + scales[0], first);
                    b.set(I16, (long) k * bb + scales[scales.length - 1], scales.length > 1 ? second : first);
                }
                k++;
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(blocks.length + 1);
            MemorySegment.copy(blocks, 0, src, ValueLayout.JAVA_BYTE, 1, blocks.length);
            for (int count : new int[] {0, 1, 2, 3, 7, n}) {
                for (int first : new int[] {0, randomBlocks, n - count}) {
                    if (first < 0 || first + count > n) {
                        continue;
                    }
                    MemorySegment want = arena.allocate(4L * count * bv + 8);
                    MemorySegment got = arena.allocate(4L * count * bv + 8);
                    want.fill((byte) 0x5a);
                    got.fill((byte) 0x5a);
                    BlockKernels.of(false).dequantize(type, src, 1 + (long) first * bb, want, 4, count);
                    vector.dequantize(type, src, 1 + (long) first * bb, got, 4, count);
                    long at = want.mismatch(got);
                    if (at >= 0) {
                        throw new AssertionError(String.format("%s, %d blocks from block %d: byte %d (value %d) is 0x%08x,"
                                + " the scalar kernel's 0x%08x", type, count, first, at, (at - 4) / 4, got.get(I32, at / 4 * 4),
                                want.get(I32, at / 4 * 4)));
                    }
                    if (vector.dequantizesToBf16(type)) {
                        MemorySegment bf16 = arena.allocate(2L * count * bv + 4);
                        bf16.fill((byte) 0x5a);
                        vector.dequantizeBf16(type, src, 1 + (long) first * bb, bf16, 2, count);
                        assertEquals((short) 0x5a5a, bf16.get(I16, 0));
                        assertEquals((short) 0x5a5a, bf16.get(I16, bf16.byteSize() - 2));
                        for (long i = 0; i < (long) count * bv; i++) {
                            short g = bf16.get(I16, 2 + 2 * i);
                            short w = bf16(want.get(I32, 4 + 4 * i));
                            if (g != w) {
                                throw new AssertionError(String.format("%s -> bf16, %d blocks from block %d: value %d is 0x%04x,"
                                        + " the scalar f32 0x%08x rounded 0x%04x", type, count, first, i, g,
                                        want.get(I32, 4 + 4 * i), w));
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * A Q4_1 or Q5_1 block whose scale and min are both NaN: gguf-py's {@code d * q + m} gives the
     * min's NaN, quiet (0x7fc5e000 from the f16 min 0x7e2f, whatever the scale's 0xff8c), which
     * Java's float sum does not promise, so both kernels write it themselves.
     */
    @ParameterizedTest
    @EnumSource(value = BlockType.class, names = {"Q4_1", "Q5_1"})
    void aNaNMinGivesGgufPysNaN(BlockType type) {
        for (BlockKernels kernels : List.of(BlockKernels.of(false), BlockKernels.of(true))) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(type.blockBytes());
                block.fill((byte) 0x37);
                block.set(I16, 0, (short) 0xff8c);
                block.set(I16, 2, (short) 0x7e2f);
                MemorySegment out = arena.allocate(128);
                kernels.dequantize(type, block, 0, out, 0, 1);
                for (int i = 0; i < 32; i++) {
                    assertEquals(0x7fc5e000, out.get(I32, 4 * i), kernels + " " + type + " value " + i);
                }
                // A signalling NaN min (0x7c01) comes out quiet, as NumPy's sum makes it.
                block.set(I16, 2, (short) 0x7c01);
                kernels.dequantize(type, block, 0, out, 0, 1);
                assertEquals(0x7fc02000, out.get(I32, 0), kernels + " " + type);
            }
        }
    }

    @Test
    void exampleFromJavadoc() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment block = arena.allocate(34);
            block.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, (short) 0x3800);
            for (int j = 0; j < 32; j++) {
                block.set(ValueLayout.JAVA_BYTE, 2 + j, (byte) (j % 2 == 0 ? -j : j));
            }
            MemorySegment out = arena.allocate(128);
            BlockKernels.defaults().dequantize(BlockType.Q8_0, block, 0, out, 0, 1);
            assertEquals(-1.0f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 2));
            assertEquals(1.5f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 3));
        }
    }

    @Test
    void typesWithoutAReferenceAreRefusedByName() {
        MemorySegment none = MemorySegment.ofArray(new byte[0]);
        for (BlockType type : List.of(BlockType.Q8_1, BlockType.Q8_K, BlockType.Q1_0)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BlockKernels.defaults().dequantize(type, none, 0, none, 0, 0));
            assertTrue(e.getMessage().startsWith("cannot dequantize " + type + ": gguf-py has no reference"), e.getMessage());
        }
        assertEquals("cannot quantize f64 to Q8_0: the values must be f32, f16 or bf16", assertThrows(
                IllegalArgumentException.class, () -> BlockKernels.defaults().quantize(BlockType.Q8_0, DType.F64, none, 0,
                        none, 0, 0)).getMessage());
        assertEquals("cannot quantize to Q4_K: tensorbuf quantizes to Q8_0 and Q4_0", assertThrows(
                IllegalArgumentException.class, () -> BlockKernels.defaults().quantize(BlockType.Q4_K, none, 0, none, 0, 0))
                .getMessage());
        assertThrows(IndexOutOfBoundsException.class,
                () -> BlockKernels.defaults().dequantize(BlockType.Q8_0, MemorySegment.ofArray(new byte[33]), 0,
                        MemorySegment.ofArray(new byte[128]), 0, 1));
    }
}
