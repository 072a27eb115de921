package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
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
    }
}
