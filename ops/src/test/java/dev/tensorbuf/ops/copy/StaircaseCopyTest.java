package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation.Route;
import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Kernel;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Staircases no regrouping names, past {@link dev.tensorbuf.views.internal.DomainBoxes#MAX_BOXES}
 * row segments: {@code f32[600,3]} and {@code f32[600,5]} joined along 1 hold joined element
 * {@code L} at {@code [L / 8, L mod 8]}; reshaped to {@code [400,12]} and cropped or sliced, each
 * of 400 rows holds three runs of the two parts (1,200 boxes a row at a time, which went element by
 * element). The row pattern repeats every 2 rows, so the plan is a box per run of the pattern over
 * every other row, each a planned loop, and the values match a brute-force walk of the indices.
 */
class StaircaseCopyTest {
    /** The two parts joined, joined element {@code L} (row-major in {@code [600,8]}) holding {@code L}. */
    private static TensorView joined(Allocator arena) {
        TensorView a = TensorView.of(arena.allocate(600 * 3 * 4), "f32[600,3]{1,0}");
        TensorView b = TensorView.of(arena.allocate(600 * 5 * 4), "f32[600,5]{1,0}");
        TensorElements.of(a).forEachIndex(i -> TensorElements.of(a).setDouble(i[0] * 8 + i[1], i));
        TensorElements.of(b).forEachIndex(i -> TensorElements.of(b).setDouble(i[0] * 8 + 3 + i[1], i));
        return Ops.concatenate(1, List.of(a, b));
    }

    private static void assertPlannedFamilies(Explanation e, int most) {
        assertEquals(Route.PIECES, e.route(), e.toString());
        assertTrue(e.parts().size() <= most, e.toString());
        for (Explanation part : e.parts()) {
            assertEquals(Route.PLANNED, part.route(), part.toString());
        }
        for (Explanation.Piece box : e.pieces()) {
            // Every other row: a loop of 200 rows, not a box per row.
            assertEquals(List.of(2L, 200L), List.of(box.step().getFirst(), box.count().getFirst()), e.toString());
        }
    }

    @Test
    void aCropOfAReshapedConcatenationPlansBulkRunsOverEveryOtherRow() {
        try (Allocator arena = Allocators.shared()) {
            TensorView src = Ops.slice(Ops.reshape(joined(arena), 400, 12), new long[] {0, 1}, new long[] {400, 11},
                    new long[] {1, 1});
            TensorView dst = TensorView.of(arena.allocate(400 * 10 * 4), "f32[400,10]{1,0}");
            CopyEngine engine = CopyEngine.of(1);
            Explanation e = engine.explain(src, dst);
            assertPlannedFamilies(e, 6);
            for (Explanation part : e.parts()) {
                for (Step s : AccessCopies.steps(part)) {
                    assertEquals(Kernel.BULK, ((Step.Run) s).kernel(), part.toString());
                }
            }
            engine.copy(src, dst);
            TensorElements.of(dst).forEachIndex(i -> assertEquals((double) (i[0] * 12 + i[1] + 1),
                    TensorElements.of(dst).getDouble(i), 0.0, i[0] + "," + i[1]));
            // The staircase as the destination: the same boxes, written.
            TensorView back = TensorView.of(arena.allocate(400 * 10 * 4), "f32[400,10]{1,0}");
            TensorElements.of(back).forEachIndex(i -> TensorElements.of(back).setDouble(-(i[0] * 10 + i[1]), i));
            assertPlannedFamilies(engine.explain(back, src), 6);
            engine.copy(back, src);
            TensorElements.of(src).forEachIndex(i -> assertEquals(-(double) (i[0] * 10 + i[1]),
                    TensorElements.of(src).getDouble(i), 0.0, i[0] + "," + i[1]));
        }
    }

    @Test
    void aSteppedSliceOfAReshapedConcatenationPlansStridedLoops() {
        try (Allocator arena = Allocators.shared()) {
            // Every other column of [400,12]: joined element d0 * 12 + 2 * d1.
            TensorView src = Ops.slice(Ops.reshape(joined(arena), 400, 12), new long[] {0, 0}, new long[] {400, 12},
                    new long[] {1, 2});
            TensorView dst = TensorView.of(arena.allocate(400 * 6 * 4), "f32[400,6]{1,0}");
            CopyEngine engine = CopyEngine.of(2, true, 0);
            Explanation e = engine.explain(src, dst);
            assertPlannedFamilies(e, 8);
            engine.copy(src, dst);
            TensorElements.of(dst).forEachIndex(i -> assertEquals((double) (i[0] * 12 + 2 * i[1]),
                    TensorElements.of(dst).getDouble(i), 0.0, i[0] + "," + i[1]));
        }
    }
}
