package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation.Route;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Staircases with no repeating row pattern under {@code MAX_PERIOD}: {@code f32[256,A]} and
 * {@code f32[256,B]} joined along 1 with {@code A + B} a prime past 1,024, reshaped to rows of
 * {@code W} and cropped, so no regrouping names them. Each lap of the joined rows' value is a run
 * of whole rows and a row or two at its edges ({@code DomainBoxes}' laps), a box each, planned box
 * by box: rows of 4 as well as rows of 256 (rows of 4 were boxes of some 16 elements, halved
 * around each edge, and went element by element). Values are checked against a walk of every index
 * through {@link TensorElements}.
 */
class LongStaircaseCopyTest {
    private static final int ROWS = 256;
    private static final int[] PRIMES = {1031, 1033, 1039, 1049};

    /** The joined parts reshaped to rows of {@code w}, joined element {@code L} holding {@code L + 0.5}. */
    private static TensorView reshaped(Allocator arena, int a, int b, int w) {
        TensorView x = TensorView.of(arena.allocate((long) ROWS * a * 4), "f32[" + ROWS + "," + a + "]{1,0}");
        TensorView y = TensorView.of(arena.allocate((long) ROWS * b * 4), "f32[" + ROWS + "," + b + "]{1,0}");
        TensorElements.of(x).forEachIndex(i -> TensorElements.of(x).setDouble(i[0] * (a + b) + i[1] + 0.5, i));
        TensorElements.of(y).forEachIndex(i -> TensorElements.of(y).setDouble(i[0] * (a + b) + a + i[1] + 0.5, i));
        long rows = (long) ROWS * (a + b) / w;
        return Ops.reshape(Ops.concatenate(1, List.of(x, y)), rows, w);
    }

    /** A view of {@code dims} whose elements lie transposed in memory. */
    private static TensorView transposed(Allocator arena, long rows, long cols) {
        return Ops.transpose(TensorView.of(arena.allocate(rows * cols * 4), "f32[" + cols + "," + rows + "]{1,0}"), 1, 0);
    }

    /** Asserts every element of {@code actual} equals {@code expected}'s, each read through its map. */
    private static void assertSameElements(TensorView expected, TensorView actual) {
        TensorElements want = TensorElements.of(expected);
        TensorElements got = TensorElements.of(actual);
        got.forEachIndex(i -> assertEquals(want.getDouble(i), got.getDouble(i), 0.0, i[0] + "," + i[1]));
    }

    private static void assertPlannedBoxByBox(Explanation e) {
        assertEquals(Route.PIECES, e.route(), e.reason());
        for (Explanation part : e.parts()) {
            assertEquals(Route.PLANNED, part.route(), part.toString());
        }
    }

    @Test
    void randomCropsOfALongStaircasePlanEachBoxAndMatchAnElementWalk() {
        Random random = new Random(36);
        for (int round = 0; round < 4; round++) {
            int prime = PRIMES[random.nextInt(PRIMES.length)];
            int a = 1 + random.nextInt(prime - 1);
            int w = random.nextBoolean() ? 128 : 256;
            long startRow = random.nextInt(4);
            long startCol = 1 + random.nextInt(8);
            long endCol = w - 1 - random.nextInt(8);
            try (Allocator arena = Allocators.shared()) {
                TensorView whole = reshaped(arena, a, prime - a, w);
                long rows = whole.dims().get(0);
                TensorView src = Ops.slice(whole, new long[] {startRow, startCol}, new long[] {rows, endCol},
                        new long[] {1, 1});
                TensorView dst = transposed(arena, rows - startRow, endCol - startCol);
                CopyEngine engine = CopyEngine.of(1 + round % 2);
                String shape = "parts " + a + "+" + (prime - a) + ", rows of " + w + ", from [" + startRow + ", "
                        + startCol + "] to column " + endCol;
                Explanation e = engine.explain(src, dst);
                assertPlannedBoxByBox(e);
                engine.copy(src, dst);
                assertSameElements(src, dst);
                // The staircase as the destination: every box written through its piece.
                TensorView back = transposed(arena, rows - startRow, endCol - startCol);
                TensorElements.of(back).forEachIndex(i -> TensorElements.of(back).setDouble(-(i[0] * 1000.0 + i[1]), i));
                assertPlannedBoxByBox(engine.explain(back, src));
                engine.copy(back, src);
                assertSameElements(back, src);
                assertTrue(e.parts().size() <= 3 * rows, shape + ": " + e.parts().size() + " boxes");
            }
        }
    }

    @Test
    void aStaircaseOfShortRowsIsABoxAPartALapPlanned() {
        try (Allocator arena = Allocators.shared()) {
            // Rows of 4 cropped to 2: each joined row's 258 rows are a run of the first part, a
            // run of the second and an edge row or two, not some 30 boxes of about 16 elements.
            TensorView whole = reshaped(arena, 1000, 31, 4);
            long rows = whole.dims().get(0);
            TensorView src = Ops.slice(whole, new long[] {0, 1}, new long[] {rows, 3}, new long[] {1, 1});
            TensorView dst = transposed(arena, rows, 2);
            CopyEngine engine = CopyEngine.of(1);
            Explanation e = engine.explain(src, dst);
            assertPlannedBoxByBox(e);
            assertTrue(e.parts().size() <= 5 * ROWS, e.parts().size() + " boxes");
            assertTrue(2 * rows / e.parts().size() >= 8, e.parts().size() + " boxes");
            engine.copy(src, dst);
            assertSameElements(src, dst);
        }
    }
}
