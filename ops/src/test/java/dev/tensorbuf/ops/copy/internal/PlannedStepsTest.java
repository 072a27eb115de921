package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link PlannedSteps#of}: the spans of elements a plan's steps reach on each side, which
 * {@code CopyPlan.of} checks against the segments on every call. The expected spans are worked
 * out by hand from the loops (lowest and highest offset over every index).
 */
class PlannedStepsTest {
    private static final MemorySegment MEMORY = Arena.ofAuto().allocate(256, 16);
    private static final Access STRIDED = Access.strided(MEMORY, DType.F32, StridedLayout.packed(4, 4));

    @Test
    void negativeStridesReachBelowTheOffsetAndPositiveOnesAbove() {
        // Source 10 - 2 i + 5 j (i < 3, j < 2): 6..15. Destination 1 + 4 i + j: 1..10.
        Step.Run run = new Step.Run(Kernel.ELEMENT, 10, 1, List.of(new Loop(3, -2, 4), new Loop(2, 5, 1)), -1);
        assertEquals(new PlannedSteps(List.of(run), 6, 15, 1, 10, -1, false), PlannedSteps.of(List.of(run), STRIDED));
    }

    @Test
    void spansWidenOverEveryStepAndZeroStepsWriteOnly() {
        Step.Run first = new Step.Run(Kernel.BULK, 4, 8, List.of(new Loop(4, 1, 1)), -1);
        Step.Run second = new Step.Run(Kernel.BULK, 0, 2, List.of(new Loop(2, 1, 1)), -1);
        // Zero step at 20 + 3 i, i < 2: 20..23; it reads nothing.
        Step.Zero zero = new Step.Zero(20, List.of(new Loop(2, 0, 3)));
        List<Step> steps = List.of(first, second, zero);
        assertEquals(new PlannedSteps(steps, 0, 7, 2, 23, -1, false), PlannedSteps.of(steps, STRIDED));
        // Reversed source loop in a later step: -3..0 widens the low end only.
        Step.Run back = new Step.Run(Kernel.ELEMENT, 0, 30, List.of(new Loop(4, -1, 1)), -1);
        assertEquals(new PlannedSteps(List.of(first, back), -3, 7, 8, 33, -1, false),
                PlannedSteps.of(List.of(first, back), STRIDED));
    }

    @Test
    void aGatherIsMarkedAndATiledDestinationCountsItsSlots() {
        Access tiled = Access.tiled(MEMORY, ArrayShape.parse("f32[3,5]{1,0:T(2,4)}"));
        List<Step> steps = List.of(new Step.Zero(0, List.of(new Loop(16, 0, 1))), new Step.Gather("a general element map"));
        // Rows padded to 4, columns to 8: 32 slots of 4 bytes.
        assertEquals(new PlannedSteps(steps, Long.MAX_VALUE, Long.MIN_VALUE, 0, 15, 128, true),
                PlannedSteps.of(steps, tiled));
    }

    @Test
    void noStepsReachNothing() {
        assertEquals(new PlannedSteps(List.of(), Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, -1, false),
                PlannedSteps.of(List.of(), STRIDED));
    }
}
