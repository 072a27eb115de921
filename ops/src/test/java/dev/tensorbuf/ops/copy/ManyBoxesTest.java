package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.DomainBoxes;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A side whose pieces cut into more boxes than planning each pays for (a reshape of a
 * concatenation along its minor dim: a box per row segment of the staircase) goes element by
 * element, says so in its plan, and copies the same values.
 */
class ManyBoxesTest {
    @Test
    void aStaircaseOfThousandsOfBoxesCopiesElementByElementAndRight() {
        try (Allocator arena = Allocators.shared()) {
            TensorView left = TensorView.of(arena.allocate(512L * 50 * 4), "f32[512,50]");
            TensorView right = TensorView.of(arena.allocate(512L * 50 * 4), "f32[512,50]");
            TensorElements.of(left).forEachIndex(i -> TensorElements.of(left).setDouble(i[0] * 100 + i[1], i));
            TensorElements.of(right).forEachIndex(i -> TensorElements.of(right).setDouble(i[0] * 100 + 50 + i[1], i));
            TensorView staircase = Ops.reshape(Ops.concatenate(1, List.of(left, right)), 100, 512);
            TensorView dst = TensorView.of(arena.allocate(100L * 512 * 4), "f32[100,512]");
            CopyEngine engine = CopyEngine.of(1);
            CopyPlan.Explanation plan = engine.explain(staircase, dst);
            assertEquals(CopyPlan.Explanation.Route.ELEMENTS, plan.route(), plan.toString());
            assertTrue(plan.reason().contains("more than " + DomainBoxes.MAX_BOXES + " boxes"), plan.reason());
            engine.copy(staircase, dst);
            // Row-major order is kept by a reshape: element k of the result is element k of the joined rows.
            TensorElements.of(dst).forEachIndex(i -> assertEquals((double) (i[0] * 512 + i[1]), TensorElements.of(dst).getDouble(i), 0.0, i[0] + "," + i[1]));
        }
    }
}
