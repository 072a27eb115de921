package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link SelfOverlap#check}: a destination is refused exactly when two of its indices write one
 * slot, whichever way its addressing is written. The expected answers are the brute-force ones
 * (every index's offset, listed in the comments).
 */
class SelfOverlapTest {
    private static final MemorySegment MEMORY = Arena.ofAuto().allocate(1024, 16);

    private static Access strided(long[] sizes, long[] strides, long offset) {
        return Access.strided(MEMORY, DType.F32, StridedLayout.of(sizes, strides, offset));
    }

    private static Access mapped(String map) {
        return Access.mapped(MEMORY, DType.F32, IndexingMap.parse(map));
    }

    private static String refusal(Access dst) {
        return assertThrows(IllegalArgumentException.class, () -> SelfOverlap.check(dst)).getMessage();
    }

    @Test
    void aZeroStrideOverSeveralElementsIsRefused() {
        assertEquals("destination writes 3 elements to one slot (stride 0): a destination may not overlap itself",
                refusal(strided(new long[] {2, 3}, new long[] {1, 0}, 0)));
        // Size 1 at stride 0 repeats nothing.
        assertDoesNotThrow(() -> SelfOverlap.check(strided(new long[] {4, 1}, new long[] {1, 0}, 0)));
        assertDoesNotThrow(() -> SelfOverlap.check(strided(new long[] {1}, new long[] {0}, 0)));
        assertDoesNotThrow(() -> SelfOverlap.check(strided(new long[] {0, 5}, new long[] {0, 0}, 0)));
    }

    @Test
    void stridesThatDoNotNestAreVisited() {
        // Offsets i + j for i < 3, j < 2: [0, 1] and [1, 0] both write 1.
        assertEquals("destination f32[3, 2] writes index [0, 1] and index [1, 0] to one slot (element offset 1):"
                + " a destination may not overlap itself", refusal(strided(new long[] {3, 2}, new long[] {1, 1}, 0)));
        // Offsets 2 i + 3 j: 0, 3, 2, 5, 4, 7 are distinct though the strides do not nest.
        assertDoesNotThrow(() -> SelfOverlap.check(strided(new long[] {3, 2}, new long[] {2, 3}, 0)));
        // Offsets 2 i + 3 j for i < 4: 6 twice ([3, 0] and [0, 2]).
        assertEquals("destination f32[4, 3] writes index [0, 2] and index [3, 0] to one slot (element offset 6):"
                + " a destination may not overlap itself", refusal(strided(new long[] {4, 3}, new long[] {2, 3}, 0)));
        // Reversed, the same slots from the other end.
        assertEquals("destination f32[3, 2] writes index [0, 0] and index [1, 1] to one slot (element offset 10):"
                + " a destination may not overlap itself", refusal(strided(new long[] {3, 2}, new long[] {-1, 1}, 10)));
    }

    @Test
    void nestedStridesAreAcceptedWhateverTheirSign() {
        assertDoesNotThrow(() -> SelfOverlap.check(strided(new long[] {2, 3}, new long[] {3, 1}, 0)));
        assertDoesNotThrow(() -> SelfOverlap.check(strided(new long[] {2, 3}, new long[] {-3, 1}, 3)));
        assertDoesNotThrow(() -> SelfOverlap.check(strided(new long[] {2, 3}, new long[] {1, 2}, 0)));
        assertDoesNotThrow(() -> SelfOverlap.check(strided(new long[] {2, 1, 3}, new long[] {5, 0, 1}, 0)));
        // Strides one short of nesting: [1, 0] and [0, 2] both write 2.
        assertEquals("destination f32[2, 3] writes index [0, 2] and index [1, 0] to one slot (element offset 2):"
                + " a destination may not overlap itself", refusal(strided(new long[] {2, 3}, new long[] {2, 1}, 0)));
        assertEquals("destination f32[3, 2] writes index [0, 1] and index [2, 0] to one slot (element offset 2):"
                + " a destination may not overlap itself", refusal(strided(new long[] {3, 2}, new long[] {1, 2}, 0)));
    }

    @Test
    void mapsThatAreNotOneToOneAreRefused() {
        assertEquals("destination f32[2, 2] writes index [0, 1] and index [1, 0] to one slot (element offset 1):"
                + " a destination may not overlap itself", refusal(mapped("(d0, d1) -> (d0 + d1), domain: d0 in [0, 1], d1 in [0, 1]")));
        assertDoesNotThrow(() -> SelfOverlap.check(mapped("(d0, d1) -> (d0 * 2 + d1), domain: d0 in [0, 1], d1 in [0, 1]")));
    }

    @Test
    void aSplitMapIsJudgedTheSameOnItsFirstAndLaterCopies() {
        // d0 = 4 a + b read at 3 b + a: a transpose of [3, 4], one-to-one.
        Access transpose = mapped("(d0) -> ((d0 mod 4) * 3 + d0 floordiv 4), domain: d0 in [0, 11]");
        // 2 b + a for a < 3, b < 4: [a=2, b=0] and [a=0, b=1] both write 2.
        Access folded = mapped("(d0) -> ((d0 mod 4) * 2 + d0 floordiv 4), domain: d0 in [0, 11]");
        for (int copy = 0; copy < 2; copy++) {
            assertDoesNotThrow(() -> SelfOverlap.check(transpose));
            assertEquals("destination f32[12] writes index [1] and index [8] to one slot (element offset 2):"
                    + " a destination may not overlap itself", refusal(folded), "copy " + copy);
        }
    }

    @Test
    void aSingleElementAndTiledDestinationsAreAccepted() {
        assertDoesNotThrow(() -> SelfOverlap.check(mapped("(d0) -> (0), domain: d0 in [0, 0]")));
        assertDoesNotThrow(() -> SelfOverlap.check(Access.tiled(MEMORY, ArrayShape.parse("f32[3,5]{1,0:T(2,4)}"))));
        assertEquals("destination f32[2] writes index [0] and index [1] to one slot (element offset 0):"
                + " a destination may not overlap itself", refusal(mapped("(d0) -> (0), domain: d0 in [0, 1]")));
    }
}
