package dev.tensorbuf.views.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.tensorbuf.views.ArrayShape;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * {@link TilingPlan#of} keeps the last plan by its shape's identity: the same shape object gets
 * the same plan, an equal shape parsed again gets a plan of its own with the same answers, and
 * threads asking for different shapes at once each get their own shape's answers.
 */
class TilingPlanReuseTest {
    /** Slots of {@code f32[10,20]{1,0:T(8,128)}}: two tiles of 8 rows by 128 columns. */
    private static long slotOf(long row, long col) {
        return (row / 8) * 1024 + (row % 8) * 128 + col;
    }

    @Test
    void theSameShapeObjectReusesItsPlanAndAnotherShapeGetsItsOwn() {
        ArrayShape rows = ArrayShape.parse("f32[10,20]{1,0:T(8,128)}");
        ArrayShape pairs = ArrayShape.parse("bf16[10,20]{1,0:T(8,128)(2,1)}");
        TilingPlan first = TilingPlan.of(rows);
        assertSame(first, TilingPlan.of(rows));
        assertEquals(List.of(2L, 1L, 8L, 128L), TilingPlan.of(rows).physicalDims());
        assertEquals(List.of(2L, 1L, 4L, 128L, 2L, 1L), TilingPlan.of(pairs).physicalDims());
        ArrayShape again = ArrayShape.parse("f32[10,20]{1,0:T(8,128)}");
        assertEquals(first.physicalDims(), TilingPlan.of(again).physicalDims());
        assertSame(again, TilingPlan.of(again).shape(), "an equal shape gets a plan of its own object");
        assertEquals(slotOf(9, 19), TilingPlan.of(rows).linearIndex(new long[] {9, 19}));
    }

    @Test
    void threadsAskingForDifferentShapesGetTheirOwnAnswers() throws Exception {
        List<ArrayShape> shapes = List.of(ArrayShape.parse("f32[10,20]{1,0:T(8,128)}"),
                ArrayShape.parse("f32[10,20]{0,1:T(8,128)}"), ArrayShape.parse("f32[10,20]{1,0:T(2,4)}"),
                ArrayShape.parse("f32[10,20]{1,0:T(4,8)(2,1)}"));
        // What each shape's plan answers when no other shape interleaves.
        List<long[]> expected = new ArrayList<>();
        for (ArrayShape s : shapes) {
            long[] slots = new long[200];
            for (int i = 0; i < 200; i++) {
                slots[i] = TilingPlan.of(s).linearIndex(new long[] {i / 20, i % 20});
            }
            expected.add(slots);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int k = t;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 2000; round++) {
                        int which = (k + round) % shapes.size();
                        int i = (round * 7 + k) % 200;
                        assertEquals(expected.get(which)[i],
                                TilingPlan.of(shapes.get(which)).linearIndex(new long[] {i / 20, i % 20}),
                                shapes.get(which) + " index " + i);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
