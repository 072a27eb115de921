package dev.tensorbuf.ops.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Dequantization as a planned copy: every block type's values from gguf-py ({@code
 * conformance/gguf_quants/}, random blocks with NaN and infinite scales and special blocks),
 * dequantized by {@link BlockTensor#dequantize} into f32, bf16 and f16, row-major, transposed and
 * tiled, on one thread and several, scalar and vector, are byte for byte gguf-py's f32 copied by
 * the engine into the same layout (tile padding included); and the plan says what it does, with no whole-tensor scratch.
 */
class BlockPlanTest {
    private static final List<String> LAYOUTS = List.of("f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0}", "f16[%d,%d]{1,0}",
            "f32[%d,%d]{0,1}", "bf16[%d,%d]{0,1}", "bf16[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{0,1:T(8,128)}");
    /** The vector engine on one thread, the scalar kernels, and two threads cutting every copy. */
    private static final List<CopyEngine> ENGINES = List.of(CopyEngine.of(1), CopyEngine.of(1, false),
            CopyEngine.of(CopyEngine.Config.of().withParallelism(2).withParallelThresholdBytes(0)));

    @ArenaPerTest
    private Allocator arena;

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = BlockPlanTest.class.getResourceAsStream("/conformance/gguf_quants/" + name)) {
            if (in == null) {
                throw new IOException("missing test resource conformance/gguf_quants/" + name);
            }
            return in.readAllBytes();
        }
    }

    /** gguf-py's blocks of one type as a tensor of 2 blocks a row (1 when fewer than 4), and its f32 values. */
    private record GgufCase(BlockTensor blocks, TensorView reference, long rows, long cols, int blockValues) {
    }

    private GgufCase ggufCase(BlockType type) throws IOException {
        byte[] blocks = resource(type + ".blocks");
        byte[] values = resource(type + ".f32");
        int bv = type.blockValues();
        long n = blocks.length / type.blockBytes();
        long perRow = n >= 4 ? 2 : 1;
        long rows = n / perRow;
        long cols = perRow * bv;
        return new GgufCase(BlockTensor.of(buffer(blocks), type, rows, cols),
                TensorView.of(buffer(values), ArrayShape.of(DType.F32, rows, cols)), rows, cols, bv);
    }

    private MemoryBuffer buffer(byte[] bytes) {
        MemoryBuffer b = arena.allocate(bytes.length);
        MemorySegment.copy(bytes, 0, b.segment(), ValueLayout.JAVA_BYTE, 0, bytes.length);
        return b;
    }

    /**
     * Dequantizes {@code q} into {@code shape} with every engine and compares all the bytes
     * (tile padding included) with {@code expected} (f32 values) copied into it by the engine.
     */
    private void assertDequantizes(TensorView expected, BlockTensor q, String shape) {
        long size = ArrayShape.parse(shape).arraySize();
        TensorView want = TensorView.of(arena.allocate(size), shape);
        // Both filled alike: where the engine writes a tiled destination's padding, so must the dequantization.
        want.buffer().segment().fill((byte) 0x5a);
        CopyEngine.of(1).copy(expected, want);
        byte[] wantBytes = want.buffer().segment().toArray(ValueLayout.JAVA_BYTE);
        for (CopyEngine engine : ENGINES) {
            TensorView got = TensorView.of(arena.allocate(size), shape);
            got.buffer().segment().fill((byte) 0x5a);
            q.dequantize(got, engine);
            byte[] gotBytes = got.buffer().segment().toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < wantBytes.length; i++) {
                if (wantBytes[i] != gotBytes[i]) {
                    throw new AssertionError(q + " into " + shape + " with " + engine.parallelism() + " threads"
                            + (engine.vectorKernels() ? "" : ", scalar") + ": byte " + i + " is " + gotBytes[i]
                            + ", the engine's copy of gguf-py's f32 has " + wantBytes[i]);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = BlockType.class, names = {"Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
        "Q6_K", "TQ1_0", "TQ2_0", "MXFP4", "IQ4_NL", "IQ4_XS", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S",
        "IQ1_M", "NVFP4"})
    void everyTypeIsGgufPysValuesInEveryLayout(BlockType type) throws IOException {
        GgufCase c = ggufCase(type);
        int bv = c.blockValues();
        long rows = c.rows();
        long cols = c.cols();
        BlockTensor q = c.blocks();
        TensorView reference = c.reference();
        for (String layout : LAYOUTS) {
            assertDequantizes(reference, q, String.format(layout, rows, cols));
        }
        // Rows sliced inside their first and last blocks: partial blocks at both ends of every row.
        long from = bv / 2 - 1;
        long to = cols - bv / 4 - 1;
        TensorView window = Ops.slice(reference, new long[] {1, from}, new long[] {rows, to}, new long[] {1, 1});
        for (String layout : List.of("f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0}", "bf16[%d,%d]{0,1}")) {
            assertDequantizes(window, q.slice(0, 1, rows).slice(1, from, to), String.format(layout, rows - 1, to - from));
        }
    }

    /**
     * Destinations with no loop form of their own (a view over two buffers cut inside a block, a
     * reshape of a transpose, s4 packed two to a byte) go a chunk of rows at a time through a
     * scratch of f32 rows: the planner's dequantize steps into it, then the engine's own route into
     * the destination (pieces, a split map, staging); their bytes are gguf-py's f32 copied by the
     * engine into the same destination.
     */
    @ParameterizedTest
    @EnumSource(value = BlockType.class, names = {"Q8_0", "Q4_0", "Q4_K", "Q6_K", "Q5_K", "IQ4_XS"})
    void destinationsWithNoLoopFormAreGgufPysValuesToo(BlockType type) throws IOException {
        GgufCase c = ggufCase(type);
        int bv = c.blockValues();
        long rows = c.rows();
        long cols = c.cols();
        BlockTensor q = c.blocks();
        TensorView reference = c.reference();
        long cut = bv / 2 + 3;
        for (String dtype : List.of("f32", "bf16")) {
            assertNoLoopForm(reference, q, () -> {
                // Two buffers, the second column-major: each row's values go to both, split inside a block.
                TensorView left = TensorView.of(arena.allocate(4 * rows * cut), String.format("%s[%d,%d]{1,0}", dtype, rows, cut));
                TensorView right = TensorView.of(arena.allocate(4 * rows * (cols - cut)),
                        String.format("%s[%d,%d]{0,1}", dtype, rows, cols - cut));
                return new Object[] {Ops.concatenate(1, left, right), List.of(left.buffer(), right.buffer())};
            }, CopyPlan.Explanation.Route.PIECES);
            assertNoLoopForm(reference, q, () -> {
                // [2 rows, cols / 2] transposed, then read as [rows, cols]: a permutation no strides give.
                TensorView base = TensorView.of(arena.allocate(4 * rows * cols),
                        String.format("%s[%d,%d]{1,0}", dtype, 2 * rows, cols / 2));
                return new Object[] {Ops.reshape(Ops.transpose(base, 1, 0), rows, cols), List.of(base.buffer())};
            }, CopyPlan.Explanation.Route.PLANNED);
        }
    }

    @Test
    void aPackedS4DestinationIsStagedFromTheScratchRows() {
        // Q4_0 blocks of scale 1: value j of a block is (nibble - 8), low nibbles of bytes 0-15 then
        // high ones (ggml's layout), so every value is exact and within s4's [-8, 7].
        long rows = 6;
        long cols = 96;
        Random random = new Random(4);
        MemoryBuffer bytes = arena.allocate(BlockType.Q4_0.byteSize(rows * cols));
        MemoryBuffer f32 = arena.allocate(4 * rows * cols);
        for (long b = 0; b < rows * cols / 32; b++) {
            long at = 18 * b;
            bytes.segment().set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), at, Float.floatToFloat16(1f));
            for (int j = 0; j < 16; j++) {
                byte code = (byte) random.nextInt();
                bytes.segment().set(ValueLayout.JAVA_BYTE, at + 2 + j, code);
                f32.segment().setAtIndex(ValueLayout.JAVA_FLOAT, 32 * b + j, (code & 0xF) - 8);
                f32.segment().setAtIndex(ValueLayout.JAVA_FLOAT, 32 * b + 16 + j, ((code >> 4) & 0xF) - 8);
            }
        }
        BlockTensor q = BlockTensor.of(bytes, BlockType.Q4_0, rows, cols);
        TensorView reference = TensorView.of(f32, ArrayShape.of(DType.F32, rows, cols));
        // Whole, and from inside the first block of each row.
        for (long from : new long[] {0, 5}) {
            TensorView expected = Ops.slice(reference, new long[] {0, from}, new long[] {rows, cols}, new long[] {1, 1});
            String s = String.format("s4[%d,%d]{1,0:E(4)}", rows, cols - from);
            assertNoLoopForm(expected, q.slice(1, from, cols), () -> {
                TensorView packed = TensorView.of(arena.allocate(ArrayShape.parse(s).arraySize()), s);
                return new Object[] {packed, List.of(packed.buffer())};
            }, CopyPlan.Explanation.Route.STAGED);
        }
    }

    /**
     * Dequantizes {@code q} with every engine into a destination {@code make} gives (the view and
     * its buffers) and compares all the buffers' bytes with {@code expected} copied by the engine
     * into another; the plan must be the scratch's two stages: the planner's dequantize steps
     * straight into f32 rows, then the engine's {@code copyRoute} into the destination.
     */
    @SuppressWarnings("unchecked")
    private void assertNoLoopForm(TensorView expected, BlockTensor q, java.util.function.Supplier<Object[]> make,
                                  CopyPlan.Explanation.Route copyRoute) {
        Object[] want = make.get();
        for (MemoryBuffer b : (List<MemoryBuffer>) want[1]) {
            b.segment().fill((byte) 0x5a);
        }
        CopyEngine.of(1).copy(expected, (TensorView) want[0]);
        CopyPlan.Explanation e = q.explain((TensorView) want[0]);
        String route = e.toString();
        assertTrue(route.contains("no loop form"), route);
        assertEquals(CopyPlan.Explanation.Route.THROUGH_TEMPORARY, e.route(), route);
        assertEquals(2, e.parts().size(), route);
        List<Step> steps = AccessCopies.steps(e.parts().getFirst());
        assertFalse(steps.isEmpty(), route);
        assertTrue(steps.stream().allMatch(s -> s instanceof Step.Dequantize d && d.direct() && d.into() == DType.F32),
                route);
        assertEquals(copyRoute, e.parts().getLast().route(), route);
        assertFalse(route.contains("gather") || route.contains("element-by-element"), route);
        assertEquals(expected.elementCount(), e.elements(), route);
        for (CopyEngine engine : ENGINES) {
            Object[] got = make.get();
            for (MemoryBuffer b : (List<MemoryBuffer>) got[1]) {
                b.segment().fill((byte) 0x5a);
            }
            q.dequantize((TensorView) got[0], engine);
            List<MemoryBuffer> w = (List<MemoryBuffer>) want[1];
            List<MemoryBuffer> g = (List<MemoryBuffer>) got[1];
            for (int k = 0; k < w.size(); k++) {
                long at = w.get(k).segment().mismatch(g.get(k).segment());
                if (at >= 0) {
                    throw new AssertionError(q + " into " + want[0] + " with " + engine.parallelism() + " threads"
                            + (engine.vectorKernels() ? "" : ", scalar") + ": buffer " + k + " byte " + at + " is "
                            + g.get(k).segment().get(ValueLayout.JAVA_BYTE, at) + ", the engine's copy of gguf-py's f32 has "
                            + w.get(k).segment().get(ValueLayout.JAVA_BYTE, at) + "\n" + route);
                }
            }
        }
    }

    @Test
    void rowsPastOneScratchGoThroughItInChunksThatKeepTheDestinationsDigits() {
        // 3072 rows of 64 values into [96, 2048] transposed and read as [3072, 64]: flat, value i
        // goes to (i mod 96) * 2048 + i / 96, so a chunk's flat box keeps those digits when it starts
        // on a multiple of 96 values: chunks of 1023 rows (3 rows make 192), not the scratch's 1024.
        Object[] made = randomQ4_0(3072, 64, 9);
        BlockTensor q = (BlockTensor) made[0];
        TensorView reference = (TensorView) made[1];
        java.util.function.Supplier<Object[]> transposed = () -> {
            TensorView base = TensorView.of(arena.allocate(2 * 3072 * 64), "bf16[96,2048]{1,0}");
            return new Object[] {Ops.reshape(Ops.transpose(base, 1, 0), 3072, 64), List.of(base.buffer())};
        };
        assertNoLoopForm(reference, q, transposed, CopyPlan.Explanation.Route.PLANNED);
        String text = q.explain((TensorView) transposed.get()[0]).toString();
        assertTrue(text.contains("4 chunks") && text.contains("chunk 1 of 4") && text.contains("scratch f32[1023,64]")
                && text.contains("loops [96: 1/2048, 682: 96/1]"), text);
        assertNoLoopForm(reference, q, () -> {
            TensorView left = TensorView.of(arena.allocate(4 * 3072 * 20), "f32[3072,20]{1,0}");
            TensorView right = TensorView.of(arena.allocate(4 * 3072 * 44), "f32[3072,44]{0,1}");
            return new Object[] {Ops.concatenate(1, left, right), List.of(left.buffer(), right.buffer())};
        }, CopyPlan.Explanation.Route.PIECES);
    }

    /** Random Q4_0 blocks with finite scales, {@code rows} rows of {@code cols} values, and their f32 by the block kernels. */
    private Object[] randomQ4_0(long rows, long cols, long seed) {
        BlockType type = BlockType.Q4_0;
        Random random = new Random(seed);
        MemoryBuffer bytes = arena.allocate(type.byteSize(rows * cols));
        for (long i = 0; i < bytes.byteSize(); i++) {
            bytes.segment().set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        for (long b = 0; b < bytes.byteSize() / type.blockBytes(); b++) {
            bytes.segment().set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), b * type.blockBytes(),
                    Float.floatToFloat16(random.nextFloat() - 0.5f));
        }
        MemoryBuffer f32 = arena.allocate(4 * rows * cols);
        BlockKernels.of(false).dequantize(type, bytes.segment(), 0, f32.segment(), 0, rows * cols / type.blockValues());
        return new Object[] {BlockTensor.of(bytes, type, rows, cols), TensorView.of(f32, ArrayShape.of(DType.F32, rows, cols))};
    }

    @Test
    void aTransposeTouchingMoreRowsThanATileIsCutIntoTiles() {
        // 3000 rows of 64 values: more than a per-thread tile's 65536 values, so the staged parts are cut.
        Object[] q = randomQ4_0(3000, 64, 38);
        assertDequantizes((TensorView) q[1], (BlockTensor) q[0], "bf16[3000,64]{0,1}");
        assertDequantizes((TensorView) q[1], (BlockTensor) q[0], "f32[3000,64]{0,1:T(8,128)}");
        BlockTensor cat = BlockTensor.concatenate(0, List.of(((BlockTensor) q[0]).slice(0, 2000, 3000),
                ((BlockTensor) q[0]).slice(0, 0, 2000)));
        TensorView r = (TensorView) q[1];
        assertDequantizes(Ops.concatenate(0, List.of(Ops.slice(r, new long[] {2000, 0}, new long[] {3000, 64}, new long[] {1, 1}),
                Ops.slice(r, new long[] {0, 0}, new long[] {2000, 64}, new long[] {1, 1}))), cat, "bf16[3000,64]{0,1}");
    }

    @Test
    void explainShowsDequantizeStepsAndNoWholeTensorScratch() {
        Object[] made = randomQ4_0(256, 1024, 7);
        BlockTensor q = (BlockTensor) made[0];
        TensorView rows = TensorView.of(arena.allocate(2L * 256 * 1024), "bf16[256,1024]{1,0}");
        CopyPlan.Explanation e = q.explain(rows, CopyEngine.of(2));
        assertEquals(CopyPlan.Explanation.Route.PLANNED, e.route());
        assertTrue(e.temporaries().isEmpty(), e.toString());
        assertFalse(AccessCopies.steps(e).isEmpty());
        for (Step s : AccessCopies.steps(e)) {
            assertTrue(s instanceof Step.Dequantize d && d.direct() && d.into() == DType.BF16, e.toString());
        }
        assertEquals(256L * 1024, e.elements());
        assertEquals(BlockType.Q4_0.byteSize(256L * 1024) + 2L * 256 * 1024, e.bytes());
        assertTrue(e.toString().contains("dequantize Q4_0 blocks straight into the destination: 262144 elements, rows of"
                + " 1024 values"), e.toString());
        assertFalse(e.toString().contains("temporary"), e.toString());
        assertTrue(e.toJson().contains("{\"step\":\"dequantize\",\"block_type\":\"Q4_0\",\"direct\":true"), e.toJson());

        TensorView transposed = TensorView.of(arena.allocate(4L * 256 * 1024), "f32[256,1024]{0,1}");
        CopyPlan.Explanation t = q.explain(transposed);
        assertTrue(t.temporaries().isEmpty(), t.toString());
        assertTrue(AccessCopies.steps(t).stream().allMatch(s -> s instanceof Step.Dequantize d && !d.direct()), t.toString());
        assertTrue(t.toString().contains("through a per-thread tile of f32 rows, then TRANSPOSE"), t.toString());

        TensorView tiled = TensorView.of(arena.allocate(ArrayShape.parse("bf16[256,1024]{1,0:T(8,128)}").arraySize()),
                "bf16[256,1024]{1,0:T(8,128)}");
        CopyPlan.Explanation tt = q.explain(tiled);
        assertTrue(tt.temporaries().isEmpty(), tt.toString());
        assertTrue(AccessCopies.steps(tt).stream().anyMatch(s -> s instanceof Step.Dequantize), tt.toString());
        // Explaining writes nothing.
        assertEquals(0, rows.buffer().segment().get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void badDestinationsAreRefusedBeforeAnythingIsWritten() {
        Object[] made = randomQ4_0(4, 64, 3);
        BlockTensor q = (BlockTensor) made[0];
        MemoryBuffer out = arena.allocate(4 * 4 * 64);
        TensorView readOnly = TensorView.of(out.asReadOnly(), "f32[4,64]");
        assertEquals("cannot dequantize into f32[4, 64]: its segment (1024 bytes) is read-only",
                assertThrows(IllegalArgumentException.class, () -> q.dequantize(readOnly)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> q.dequantize(TensorView.of(out, "f32[4,32]")));
    }
}
