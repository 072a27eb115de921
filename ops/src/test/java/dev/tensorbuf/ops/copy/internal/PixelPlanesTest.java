package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.MiniFloat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PixelPlanes}, the fused kernel for u8 pixels of 3 interleaved channels: a pass that uses
 * it writes the block evaluator's bytes, and a pass whose values it would not give bit for bit
 * (a denormal result the evaluator flushes) keeps the lookup table.
 */
class PixelPlanesTest {
    private static final float[] MEAN = {123.7f, 116.3f, 103.5f};
    private static final float[] STD = {58.4f, 57.1f, 57.4f};
    /** What a pass over interleaved u8 pixels names its kernel: the fused one, or the table without the Vector API. */
    static final String FUSED = VectorSupport.enabled() ? "fused: de-interleaving 3 u8 channels" : "lookup table";

    private static Pointwise.Expr op(String name, DType t, Pointwise.Expr... args) {
        return new Pointwise.Op(name, t, List.of(args), "");
    }

    private static Pointwise.Expr pixel() {
        return op("convert", DType.F32, PointwiseTableTest.leaf(0, DType.U8));
    }

    @Test
    void subtractThenDivideOverOddRunsMatchesTheEvaluatorInF32AndBf16() {
        try (Allocator a = Allocators.shared()) {
            // [3, 37, 101, 3] NHWC: rows of 101 pixels, blocks that end mid-vector, a last block of few rows.
            TensorView x = Ops.transpose(PointwiseTableTest.pixels(a, DType.U8, 3, 37, 101, 3), 0, 3, 1, 2);
            long[] nchw = {3, 3, 37, 101};
            TensorView mean = Ops.broadcast(PointwiseTableTest.constants(a, MEAN), nchw, 1);
            TensorView std = Ops.broadcast(PointwiseTableTest.constants(a, STD), nchw, 1);
            List<TensorView> leaves = List.of(x, mean, std);
            Pointwise.Expr f32 = op("divide", DType.F32, op("subtract", DType.F32, pixel(), PointwiseTableTest.leaf(1, DType.F32)),
                    PointwiseTableTest.leaf(2, DType.F32));
            assertArrayEquals(PointwiseTableTest.reference(f32, leaves, DType.F32, a),
                    PointwiseTableTest.run(f32, leaves, DType.F32, a, FUSED));
            Pointwise.Expr bf16 = op("convert", DType.BF16, f32);
            assertArrayEquals(PointwiseTableTest.reference(bf16, leaves, DType.BF16, a),
                    PointwiseTableTest.run(bf16, leaves, DType.BF16, a, FUSED));
        }
    }

    @Test
    void aResultTheEvaluatorFlushesKeepsTheLookupTable() {
        try (Allocator a = Allocators.shared()) {
            TensorView x = Ops.transpose(PointwiseTableTest.pixels(a, DType.U8, 2, 64, 96, 3), 0, 3, 1, 2);
            long[] nchw = {2, 3, 64, 96};
            // 1 / 2^127 is a denormal, which the evaluator (and the lanes) flush to +0; the fused
            // kernel, which does not flush, fails its check against the table and does not run.
            float big = 0x1p127f;
            TensorView scale = Ops.broadcast(PointwiseTableTest.constants(a, new float[] {big, big, big}), nchw, 1);
            TensorView shift = Ops.broadcast(PointwiseTableTest.constants(a, new float[] {0, 0, 0}), nchw, 1);
            List<TensorView> leaves = List.of(x, shift, scale);
            Pointwise.Expr e = op("divide", DType.F32, op("add", DType.F32, pixel(), PointwiseTableTest.leaf(1, DType.F32)),
                    PointwiseTableTest.leaf(2, DType.F32));
            byte[] want = PointwiseTableTest.reference(e, leaves, DType.F32, a);
            assertArrayEquals(want, PointwiseTableTest.run(e, leaves, DType.F32, a, "lookup table"));
        }
    }

    @Test
    void theKernelTakesChainsOfAtMostTwoArithmeticOpsIntoF32OrBf16() {
        assumeTrue(VectorSupport.enabled(), "the Vector API is off");
        float[][] two = {{1, 2, 3}, {4, 5, 6}};
        assertNull(PixelPlanes.of(new int[] {VectorPointwise.MAXIMUM}, new float[][] {{1, 2, 3}}, DType.F32));
        assertNull(PixelPlanes.of(new int[] {VectorPointwise.ADD, VectorPointwise.ADD, VectorPointwise.ADD},
                new float[][] {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, DType.F32));
        assertNull(PixelPlanes.of(new int[] {VectorPointwise.ADD, VectorPointwise.DIVIDE}, two, DType.F16));
        assertNotEquals(null, PixelPlanes.of(new int[] {VectorPointwise.ADD, VectorPointwise.DIVIDE}, two, DType.BF16));
        assertEquals("de-interleaving 3 u8 channels into f32 planes, 1 op per vector in registers",
                PixelPlanes.of(new int[] {VectorPointwise.MULTIPLY}, new float[][] {{1, 2, 3}}, DType.F32).kernel());
        // Into bf16 on 64-byte vectors the chain's 256 results per channel are looked up.
        assertEquals("de-interleaving 3 u8 channels into bf16 planes, 2 ops"
                        + (PixelPlanes.B == 64 ? ", looked up per pixel value" : " per vector in registers"),
                PixelPlanes.of(new int[] {VectorPointwise.ADD, VectorPointwise.DIVIDE}, two, DType.BF16).kernel());
    }

    @Test
    void bf16PlanesHoldTheF32KernelsValuesRoundedOnceForEveryPixelValue() {
        assumeTrue(VectorSupport.enabled(), "the Vector API is off");
        int[] ops = {VectorPointwise.SUBTRACT, VectorPointwise.DIVIDE};
        float[][] constants = {MEAN, STD};
        PixelPlanes f32 = PixelPlanes.of(ops, constants, DType.F32);
        PixelPlanes bf16 = PixelPlanes.of(ops, constants, DType.BF16);
        // 3 * 256 + 5 pixels at byte 7: every value in every channel, a run ending mid-vector, an unaligned start.
        int pixels = 3 * 256 + 5;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(7 + 3L * pixels);
            for (int i = 0; i < 3 * pixels; i++) {
                src.set(ValueLayout.JAVA_BYTE, 7 + i, (byte) (i / 3 + 85 * (i % 3)));
            }
            MemorySegment wide = arena.allocate(4L * 3 * pixels);
            MemorySegment narrow = arena.allocate(2L * 3 * pixels + 6);
            f32.run(src, 7, wide, 0, 4L * pixels, pixels);
            bf16.run(src, 7, narrow, 6, 2L * pixels, pixels);
            for (int i = 0; i < 3 * pixels; i++) {
                float want = wide.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                assertEquals(MiniFloat.BF16.encode(want), narrow.get(ValueLayout.JAVA_SHORT_UNALIGNED, 6 + 2L * i) & 0xffff,
                        "value " + i + " of the planes, " + want);
            }
        }
    }

    @Test
    void aChainGivingNanAndInfinitiesMatchesTheEvaluatorInBf16() {
        try (Allocator a = Allocators.shared()) {
            TensorView x = Ops.transpose(PointwiseTableTest.pixels(a, DType.U8, 2, 40, 70, 3), 0, 3, 1, 2);
            long[] nchw = {2, 3, 40, 70};
            // (x - 5) / 0: NaN at x = 5, infinities of both signs elsewhere.
            TensorView mean = Ops.broadcast(PointwiseTableTest.constants(a, new float[] {5, 6, 7}), nchw, 1);
            TensorView std = Ops.broadcast(PointwiseTableTest.constants(a, new float[] {0, 0, 0}), nchw, 1);
            List<TensorView> leaves = List.of(x, mean, std);
            Pointwise.Expr bf16 = op("convert", DType.BF16, op("divide", DType.F32,
                    op("subtract", DType.F32, pixel(), PointwiseTableTest.leaf(1, DType.F32)), PointwiseTableTest.leaf(2, DType.F32)));
            byte[] want = PointwiseTableTest.reference(bf16, leaves, DType.BF16, a);
            assertArrayEquals(want, PointwiseTableTest.run(bf16, leaves, DType.BF16, a, FUSED));
            // The reference holds all three: a NaN, +inf and -inf (bf16, little-endian).
            java.util.Set<Integer> seen = new java.util.HashSet<>();
            for (int i = 0; i < want.length; i += 2) {
                seen.add((want[i] & 0xff) | (want[i + 1] & 0xff) << 8);
            }
            assertTrue(seen.contains(0x7f80) && seen.contains(0xff80) && seen.stream().anyMatch(v -> (v & 0x7fff) > 0x7f80),
                    seen.toString());
        }
    }
}
