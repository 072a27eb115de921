package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.ops.exec.internal.Materialize;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.Extents;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * An elementwise pass as a step of a copy plan: one {@link Step.Epilogue}, its blocks shared out by
 * the executor's threads (the calling thread and its helpers), every element as the evaluator
 * computes it over the whole operands at once, whichever engine runs it.
 */
class PointwiseStepTest {
    private static final DType F = DType.F32;

    private static TensorView filled(Allocator a, DType t, long[] dims, int seed) {
        TensorView x = PointwiseCopy.scratch(ArrayShape.of(t, dims), a);
        byte[] b = new byte[(int) x.shape().arraySize()];
        new Random(seed).nextBytes(b);
        if (t == F) {
            for (int i = 3; i < b.length; i += 4) {
                b[i] &= 0x43; // finite values of moderate size: no NaN payloads to compare
            }
        }
        x.buffer().segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(b));
        return x;
    }

    /** {@return {@code e} over the whole operands at once: every operand copied dense, evaluated, written row-major} */
    private static byte[] reference(Pointwise.Expr e, List<TensorView> leaves, long[] dims, Allocator a) {
        int n = (int) Extents.elementCount("dims", dims);
        Object[] columns = new Object[leaves.size()];
        for (int k = 0; k < leaves.size(); k++) {
            columns[k] = PointwiseCopy.read(Materialize.materialize(leaves.get(k), ArrayShape.of(leaves.get(k).dtype(), dims), a), n);
        }
        TensorView r = PointwiseCopy.scratch(ArrayShape.of(e.type(), dims), a);
        PointwiseCopy.write(r, Pointwise.eval(e, columns, n), n);
        return r.buffer().segment().asSlice(0, r.shape().arraySize()).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] rowMajor(TensorView v, long[] dims, Allocator a) {
        TensorView d = Materialize.materialize(v, ArrayShape.of(v.dtype(), dims), a);
        return d.buffer().segment().asSlice(0, d.shape().arraySize()).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void aPassIsOneEpilogueStepThatAnyEngineRunsOnItsThreads() {
        // Two varying operands (an NHWC one read transposed) and a constant: the block evaluator, in
        // blocks of at most 16 Ki elements, four [64, 64] planes: 7 planes in 2 blocks, 5 times.
        long[] dims = {5, 7, 64, 64};
        Pointwise.Expr e = new Pointwise.Op("select", F, List.of(
                new Pointwise.Op("compare", DType.PRED, List.of(new Pointwise.Leaf(0, F), new Pointwise.Leaf(1, F)), "LT FLOAT"),
                new Pointwise.Leaf(1, F), new Pointwise.Op("add", F, List.of(new Pointwise.Leaf(0, F), new Pointwise.Leaf(2, F)), "")), "");
        try (Allocator a = Allocators.shared()) {
            TensorView x = filled(a, F, dims, 1);
            TensorView nhwc = Ops.transpose(filled(a, F, new long[] {5, 64, 64, 7}, 2), 0, 3, 1, 2);
            TensorView c = Ops.broadcast(filled(a, F, new long[0], 3), dims);
            List<TensorView> leaves = List.of(x, nhwc, c);
            byte[] want = reference(e, leaves, dims, a);
            for (int threads : new int[] {1, 3}) {
                // Into a transposed destination: the result goes through a block, copied out by the engine.
                TensorView dst = Ops.transpose(PointwiseCopy.scratch(ArrayShape.of(F, 5, 64, 64, 7), a), 0, 3, 1, 2);
                CopyPlan plan = PointwiseCopy.plan(e, leaves, dst, a);
                List<Step> steps = AccessCopies.steps(plan);
                assertEquals(1, steps.size(), steps.toString());
                PointwiseCopy pass = assertInstanceOf(Step.Epilogue.class, steps.getFirst()).pass();
                assertEquals(PointwiseCopy.Evaluator.BLOCKS, pass.evaluator());
                assertEquals(10, pass.blocks());
                assertEquals(List.of(1L, 4L, 64L, 64L), pass.blockDims());
                CopyEngine engine = CopyEngine.of(threads);
                engine.execute(plan);
                assertArrayEquals(want, rowMajor(dst, dims, a), threads + " threads");
                CopyPlan.Explanation explained = engine.explain(plan);
                assertEquals(CopyPlan.Explanation.Route.BLOCKS, explained.route());
                assertEquals(threads, explained.threads());
                assertEquals(plan, explained.plan().orElseThrow());
                assertTrue(explained.toString().contains("\n  pointwise BLOCKS: 143360 elements, 3 operands, 10 blocks of up to"
                        + " [1,4,64,64], stored through a block\n"), explained.toString());
                assertTrue(explained.toJson().contains("\"steps\":[{\"step\":\"pointwise\",\"evaluator\":\"BLOCKS\","
                        + "\"elements\":143360,\"operands\":3,\"blocks\":10,\"block_dims\":[1,4,64,64],\"direct\":false}]"),
                        explained.toJson());
            }
        }
    }

    @Test
    void aConfinedArenasPassRunsOnTheCallingThreadAlone() {
        long[] dims = {4, 3, 128, 128};
        Pointwise.Expr e = new Pointwise.Op("convert", F, List.of(new Pointwise.Leaf(0, DType.U8)), "");
        try (Allocator a = Allocators.shared(); Allocator confined = Allocators.confined()) {
            TensorView x = filled(a, DType.U8, dims, 4);
            TensorView dst = PointwiseCopy.scratch(ArrayShape.of(F, dims), confined);
            CopyPlan plan = PointwiseCopy.plan(e, List.of(x), dst, a);
            PointwiseCopy pass = ((Step.Epilogue) AccessCopies.steps(plan).getFirst()).pass();
            assertTrue(pass.blocks() > 1, pass.toString());
            CopyEngine engine = CopyEngine.of(4);
            assertEquals(1, engine.explain(plan).threads(), "a helper thread could not touch the destination");
            engine.execute(plan);
            assertArrayEquals(reference(e, List.of(x), dims, a), rowMajor(dst, dims, a));
        }
    }

    @Test
    void aDestinationOfSeveralPiecesIsRefusedByName() {
        try (Allocator a = Allocators.shared()) {
            TensorView x = filled(a, F, new long[] {4}, 5);
            TensorView padded = Ops.concatenate(0, Ops.slice(x, new long[] {0}, new long[] {2}, new long[] {1}),
                    Ops.slice(x, new long[] {2}, new long[] {4}, new long[] {1}));
            IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> PointwiseCopy.plan(new Pointwise.Leaf(0, F), List.of(x), padded, a));
            assertTrue(refused.getMessage().startsWith("an elementwise copy writes a destination of one buffer and whole bytes"),
                    refused.getMessage());
        }
    }
}
