package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A reshape of a concatenation along its minor dim cuts its own dims in a staircase, a box per row
 * segment (thousands here); the copy regroups both sides as the parts' rows, where each part is one
 * box, plans those few boxes, and copies the same values as a brute-force walk of both maps.
 */
class ManyBoxesTest {
    /** Two f32[512,50] parts, element (r, c) of the joined [512,100] holding r * 100 + c. */
    private static TensorView joined(Allocator arena) {
        TensorView left = TensorView.of(arena.allocate(512L * 50 * 4), "f32[512,50]");
        TensorView right = TensorView.of(arena.allocate(512L * 50 * 4), "f32[512,50]");
        TensorElements.of(left).forEachIndex(i -> TensorElements.of(left).setDouble(i[0] * 100 + i[1], i));
        TensorElements.of(right).forEachIndex(i -> TensorElements.of(right).setDouble(i[0] * 100 + 50 + i[1], i));
        return Ops.concatenate(1, List.of(left, right));
    }

    @Test
    void aStaircaseOfThousandsOfBoxesIsRegroupedAndPlanned() {
        try (Allocator arena = Allocators.shared()) {
            TensorView staircase = Ops.reshape(joined(arena), 100, 512);
            TensorView dst = TensorView.of(arena.allocate(100L * 512 * 4), "f32[100,512]");
            CopyEngine engine = CopyEngine.of(1);
            CopyPlan.Explanation plan = engine.explain(staircase, dst);
            assertEquals(CopyPlan.Explanation.Route.PIECES, plan.route(), plan.toString());
            assertEquals(2, plan.parts().size(), plan.toString());
            assertTrue(plan.reason().contains("regrouped as [512, 100]"), plan.reason());
            plan.parts().forEach(p -> assertEquals(CopyPlan.Explanation.Route.PLANNED, p.route(), p.toString()));
            engine.copy(staircase, dst);
            // Row-major order is kept by a reshape: element k of the result is element k of the joined rows.
            TensorElements.of(dst).forEachIndex(i -> assertEquals((double) (i[0] * 512 + i[1]), TensorElements.of(dst).getDouble(i), 0.0, i[0] + "," + i[1]));
        }
    }

    @Test
    void aTransposedStaircaseIsRegroupedInTheTransposedOrder() {
        try (Allocator arena = Allocators.shared()) {
            // [512,100] joined -> [100,512] -> transposed: element (a, b) is joined element b * 512 + a.
            TensorView staircase = Ops.transpose(Ops.reshape(joined(arena), 100, 512), 1, 0);
            TensorView dst = TensorView.of(arena.allocate(512L * 100 * 4), "f32[512,100]");
            CopyEngine engine = CopyEngine.of(1);
            CopyPlan.Explanation plan = engine.explain(staircase, dst);
            assertEquals(CopyPlan.Explanation.Route.PIECES, plan.route(), plan.toString());
            assertEquals(2, plan.parts().size(), plan.toString());
            assertTrue(plan.reason().contains("of dims [1, 0]"), plan.reason());
            engine.copy(staircase, dst);
            TensorElements.of(dst).forEachIndex(i -> assertEquals((double) (i[1] * 512 + i[0]), TensorElements.of(dst).getDouble(i), 0.0, i[0] + "," + i[1]));
            // And the other way: the staircase as the destination.
            TensorView src = TensorView.of(arena.allocate(512L * 100 * 4), "f32[512,100]");
            TensorElements.of(src).forEachIndex(i -> TensorElements.of(src).setDouble(-(i[0] * 100 + i[1]), i));
            engine.copy(src, staircase);
            TensorElements.of(staircase).forEachIndex(i -> assertEquals(-(double) (i[0] * 100 + i[1]), TensorElements.of(staircase).getDouble(i), 0.0));
        }
    }

    @Test
    void aRegroupedDestinationNamesItsFirstReadOnlyIndexInItsOwnDims() {
        try (Allocator arena = Allocators.shared()) {
            MemoryBuffer frozen = arena.allocate(512L * 50 * 4);
            TensorView left = TensorView.of(arena.allocate(512L * 50 * 4), "f32[512,50]");
            TensorView right = TensorView.of(frozen.asReadOnly(), "f32[512,50]");
            TensorView staircase = Ops.reshape(Ops.concatenate(1, List.of(left, right)), 100, 512);
            TensorView src = TensorView.of(arena.allocate(100L * 512 * 4), "f32[100,512]");
            var e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.of(1).copy(src, staircase));
            // The first element of the read-only part is joined element 50: index [0, 50] of the [100,512] view.
            assertTrue(e.getMessage().contains("[0, 50]"), e.getMessage());
            TensorView transposed = Ops.transpose(staircase, 1, 0);
            TensorView src2 = TensorView.of(arena.allocate(100L * 512 * 4), "f32[512,100]");
            e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.of(1).copy(src2, transposed));
            // Transposed, [a, b] is joined element b * 512 + a, read-only where that mod 100 is 50 or more:
            // first at a = 0, b = 5 (2560 mod 100 = 60), not at the regrouped boxes' first corner.
            assertTrue(e.getMessage().contains("index [0, 5] "), e.getMessage());
        }
    }
}
