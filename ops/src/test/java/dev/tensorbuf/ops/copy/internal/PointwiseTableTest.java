package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.exec.internal.Materialize;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The lookup-table lowering against the block evaluator on the same expression: every element's
 * bits equal, in the layouts where the channel is constant along a block (NCHW out of NHWC) and
 * where it changes element by element (NHWC), into f32, bf16 and u8 (clamp then convert). The
 * evaluator's own agreement with XLA is PointwiseTest's and RunXlaAgreementTest's.
 */
class PointwiseTableTest {
    private static final float[] MEAN = {123.7f, 116.3f, 103.5f};
    private static final float[] STD = {58.4f, 57.1f, 57.4f};

    static TensorView constants(Allocator a, float[] v) {
        TensorView t = PointwiseCopy.scratch(ArrayShape.of(DType.F32, v.length), a);
        for (int i = 0; i < v.length; i++) {
            t.buffer().segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, v[i]);
        }
        return t;
    }

    static TensorView pixels(Allocator a, DType type, long... dims) {
        TensorView x = PointwiseCopy.scratch(ArrayShape.of(type, dims), a);
        byte[] b = new byte[(int) x.elementCount()];
        new Random(7).nextBytes(b);
        b[0] = 0;
        b[1] = (byte) 255;
        x.buffer().segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(b));
        return x;
    }

    static Pointwise.Expr leaf(int k, DType t) {
        return new Pointwise.Leaf(k, t);
    }

    /** {@code (convert<f32>(%0) - %1) * reciprocal(%2)}: XLA's form of {@code (x - mean) / std}. */
    static Pointwise.Expr normalise(DType in) {
        Pointwise.Expr x = new Pointwise.Op("convert", DType.F32, List.of(leaf(0, in)), "");
        Pointwise.Expr d = new Pointwise.Op("subtract", DType.F32, List.of(x, leaf(1, DType.F32)), "");
        Pointwise.Expr r = new Pointwise.Op(Pointwise.Op.RECIPROCAL, DType.F32, List.of(leaf(2, DType.F32)), "");
        return new Pointwise.Op("multiply", DType.F32, List.of(d, r), "");
    }

    /** {@return the block evaluator's bytes for {@code e}: every operand copied dense, evaluated at once} */
    static byte[] reference(Pointwise.Expr e, List<TensorView> leaves, DType out, Allocator a) {
        long[] dims = dev.tensorbuf.views.internal.Extents.toArray(leaves.getFirst().dims());
        int n = (int) leaves.getFirst().elementCount();
        Object[] columns = new Object[leaves.size()];
        for (int k = 0; k < leaves.size(); k++) {
            TensorView dense = Materialize.materialize(leaves.get(k), ArrayShape.of(leaves.get(k).dtype(), dims), a);
            columns[k] = PointwiseCopy.read(dense, n);
        }
        TensorView r = PointwiseCopy.scratch(ArrayShape.of(out, dims), a);
        PointwiseCopy.write(r, Pointwise.eval(e, columns, n), n);
        return r.buffer().segment().asSlice(0, r.shape().arraySize()).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] run(Pointwise.Expr e, List<TensorView> leaves, DType out, Allocator a) {
        return run(e, leaves, out, a, "lookup table");
    }

    /** {@return the pass's bytes, having checked that its kernel's description holds {@code kernel}} */
    static byte[] run(Pointwise.Expr e, List<TensorView> leaves, DType out, Allocator a, String kernel) {
        long[] dims = dev.tensorbuf.views.internal.Extents.toArray(leaves.getFirst().dims());
        TensorView dst = PointwiseCopy.scratch(ArrayShape.of(out, dims), a);
        String ran = PointwiseCopy.run(e, leaves, dst, a).epilogue().orElseThrow().kernel();
        assertTrue(ran.contains(kernel), ran);
        return dst.buffer().segment().asSlice(0, dst.shape().arraySize()).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void normalisedNchwOutOfNhwcMatchesTheEvaluatorInF32AndBf16() {
        try (Allocator a = Allocators.shared()) {
            // [2, 150, 450, 3] NHWC: one channel's 150 x 450 passes a block, so blocks split mid-image.
            TensorView x = Ops.transpose(pixels(a, DType.U8, 2, 150, 450, 3), 0, 3, 1, 2);
            long[] nchw = {2, 3, 150, 450};
            TensorView mean = Ops.broadcast(constants(a, MEAN), nchw, 1);
            TensorView std = Ops.broadcast(constants(a, STD), nchw, 1);
            List<TensorView> leaves = List.of(x, mean, std);
            Pointwise.Expr f32 = normalise(DType.U8);
            // 3 interleaved u8 channels into planes: the fused pixel kernel, where it gives the table's every value.
            String fused = PixelPlanesTest.FUSED;
            assertArrayEquals(reference(f32, leaves, DType.F32, a), run(f32, leaves, DType.F32, a, fused));
            Pointwise.Expr bf16 = new Pointwise.Op("convert", DType.BF16, List.of(f32), "");
            assertArrayEquals(reference(bf16, leaves, DType.BF16, a), run(bf16, leaves, DType.BF16, a, fused));
        }
    }

    @Test
    void channelChangingInsideABlockMatchesTheEvaluator() {
        try (Allocator a = Allocators.shared()) {
            // [3, 3, 40, 45] NCHW out of NCHW: a block holds whole images, all three channels.
            TensorView x = pixels(a, DType.U8, 3, 3, 40, 45);
            long[] nchw = {3, 3, 40, 45};
            List<TensorView> leaves = List.of(x, Ops.broadcast(constants(a, MEAN), nchw, 1),
                    Ops.broadcast(constants(a, STD), nchw, 1));
            Pointwise.Expr f32 = normalise(DType.U8);
            assertArrayEquals(reference(f32, leaves, DType.F32, a), run(f32, leaves, DType.F32, a));
            // Out of NHWC, the channels interleaved: the fused pixel kernel, an image a block.
            TensorView nhwc = Ops.transpose(pixels(a, DType.U8, 3, 40, 45, 3), 0, 3, 1, 2);
            List<TensorView> interleaved = List.of(nhwc, leaves.get(1), leaves.get(2));
            assertArrayEquals(reference(f32, interleaved, DType.F32, a),
                    run(f32, interleaved, DType.F32, a, PixelPlanesTest.FUSED));
        }
    }

    @Test
    void channelInnermostAndFusedMultiplyAddMatchTheEvaluator() {
        try (Allocator a = Allocators.shared()) {
            long[] nhwc = {3, 7, 5, 3};
            TensorView x = pixels(a, DType.U8, nhwc);
            TensorView scale = Ops.broadcast(constants(a, new float[] {1 / 58.4f, 1 / 57.1f, 1 / 57.4f}), nhwc, 3);
            TensorView bias = Ops.broadcast(constants(a, new float[] {-2.1f, -2.03f, -1.8f}), nhwc, 3);
            Pointwise.Expr fma = new Pointwise.Op(Pointwise.Op.FMA, DType.F32,
                    List.of(new Pointwise.Op("convert", DType.F32, List.of(leaf(0, DType.U8)), ""), leaf(1, DType.F32),
                            leaf(2, DType.F32)), "");
            List<TensorView> leaves = List.of(x, scale, bias);
            assertArrayEquals(reference(fma, leaves, DType.F32, a), run(fma, leaves, DType.F32, a));
        }
    }

    @Test
    void signedBytesClampedAndConvertedToU8MatchTheEvaluator() {
        try (Allocator a = Allocators.shared()) {
            long[] dims = {64, 33};
            TensorView x = pixels(a, DType.S8, dims);
            TensorView lo = Ops.broadcast(Ops.reshape(constants(a, new float[] {-3.5f})), dims);
            TensorView hi = Ops.broadcast(Ops.reshape(constants(a, new float[] {100.25f})), dims);
            Pointwise.Expr f = new Pointwise.Op("convert", DType.F32, List.of(leaf(0, DType.S8)), "");
            Pointwise.Expr c = new Pointwise.Op("clamp", DType.F32, List.of(leaf(1, DType.F32), f, leaf(2, DType.F32)), "");
            Pointwise.Expr u8 = new Pointwise.Op("convert", DType.U8, List.of(c), "");
            List<TensorView> leaves = List.of(x, lo, hi);
            assertArrayEquals(reference(u8, leaves, DType.U8, a), run(u8, leaves, DType.U8, a));
        }
    }

    @Test
    void twoVaryingOperandsOrWideDataAreLeftToTheEvaluator() {
        try (Allocator a = Allocators.shared()) {
            long[] dims = {4, 5};
            Pointwise.Expr add = new Pointwise.Op("add", DType.U8, List.of(leaf(0, DType.U8), leaf(1, DType.U8)), "");
            TensorView dst = PointwiseCopy.scratch(ArrayShape.of(DType.U8, dims), a);
            assertNull(PointwiseTable.of(add, List.of(pixels(a, DType.U8, dims), pixels(a, DType.U8, dims)), dst, a));
            Pointwise.Expr neg = new Pointwise.Op("negate", DType.S32, List.of(leaf(0, DType.S32)), "");
            TensorView wide = PointwiseCopy.scratch(ArrayShape.of(DType.S32, dims), a);
            assertNull(PointwiseTable.of(neg, List.of(wide), wide, a));
            assertNotNull(PointwiseTable.of(add, List.of(pixels(a, DType.U8, dims),
                    Ops.broadcast(pixels(a, DType.U8, 5), dims, 1)), dst, a));
        }
    }
}
