package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** StridedLayout's limits at the exact values where an answer changes. */
class StridedLayoutLimitsTest {
    private static final long UINT_MAX = 0xffff_ffffL;

    /** DirectML's tensor descs take 1 to 8 dims, UINT32 sizes, strides and element counts. */
    @Test
    void directMLTakesOneToEightDimsOfUnsigned32BitSizesAndStrides() {
        assertTrue(StridedLayout.packed(1).isDirectMLExpressible());
        assertTrue(StridedLayout.packed(2, 1, 1, 1, 1, 1, 1, 3).isDirectMLExpressible());
        assertFalse(StridedLayout.packed(2, 1, 1, 1, 1, 1, 1, 1, 3).isDirectMLExpressible(), "9 dims");
        assertFalse(StridedLayout.packed().isDirectMLExpressible(), "0 dims");
        assertTrue(StridedLayout.packed(65535, 65537).isDirectMLExpressible(), "2^32 - 1 elements");
        assertFalse(StridedLayout.packed(65536, 65536).isDirectMLExpressible(), "2^32 elements");
        assertTrue(StridedLayout.of(new long[] {1}, new long[] {UINT_MAX}).isDirectMLExpressible());
        assertFalse(StridedLayout.of(new long[] {1}, new long[] {UINT_MAX + 1}).isDirectMLExpressible());
        assertTrue(StridedLayout.of(new long[] {2, 3}, new long[] {0, 1}).isDirectMLExpressible(), "broadcast");
        assertFalse(StridedLayout.of(new long[] {2, 3}, new long[] {-1, 3}, 1).isDirectMLExpressible());
        assertFalse(StridedLayout.packed(2, 0).isDirectMLExpressible(), "a size of 0");
        assertTrue(StridedLayout.of(new long[] {UINT_MAX, 1}, new long[] {1, 1}).isDirectMLExpressible());
    }

    @Test
    void negativeStridesThatNoOffsetCanMakeUpAreNamedAsSuch() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> StridedLayout.of(new long[] {2}, new long[] {Long.MIN_VALUE}));
        assertEquals("negative strides [-9223372036854775808] reach element offset -9223372036854775808 for sizes [2]"
                + " from offset 0: they reach back 9223372036854775808 elements, more than any offset"
                + " (at most 9223372036854775807) makes up", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> StridedLayout.of(new long[] {3, 2}, new long[] {-4, 1}, 7));
        assertEquals("negative strides [-4, 1] reach element offset -1 for sizes [3, 2] from offset 7:"
                + " the offset must be at least 8", e.getMessage());
        assertEquals(0, StridedLayout.of(new long[] {3, 2}, new long[] {-4, 1}, 8).minOffset());
        assertEquals(9, StridedLayout.of(new long[] {3, 2}, new long[] {-4, 1}, 8).maxOffset());
    }

    @Test
    void packedStridesSkipSizesOfZeroAndOne() {
        assertEquals(List.of(4L, 4L, 1L), StridedLayout.packed(3, 0, 4).strides());
        assertEquals(List.of(4L, 4L, 1L), StridedLayout.packed(3, 1, 4).strides());
        // The outermost size sets no stride, so it may be as large as the element count allows.
        assertEquals(List.of(1L), StridedLayout.packed(Long.MAX_VALUE).strides());
        var e = assertThrows(IllegalArgumentException.class, () -> StridedLayout.packed(2, 1L << 62, 4));
        assertEquals("row-major strides of sizes [2, 4611686018427387904, 4] overflow a long", e.getMessage());
    }

    @Test
    void textShowsTheOffsetOnlyWhenThereIsOne() {
        assertEquals("sizes [2, 3] strides [3, 1]", StridedLayout.packed(2, 3).toString());
        assertEquals("sizes [2, 3] strides [3, 1] offset 5", StridedLayout.packed(2, 3).withOffset(5).toString());
    }

    @Test
    void negativeStridesAreThoseBelowZero() {
        assertFalse(StridedLayout.packed(2, 3).hasNegativeStrides());
        assertFalse(StridedLayout.of(new long[] {2, 3}, new long[] {0, 1}).hasNegativeStrides(), "a broadcast");
        assertTrue(StridedLayout.of(new long[] {2, 3}, new long[] {3, -1}, 2).hasNegativeStrides());
    }

    @Test
    void theSpanRunsFromTheLowestToTheHighestOffset() {
        // Offsets 1 and 2^63 - 2: 2^63 - 2 offsets, one short of the most a long counts.
        StridedLayout wide = StridedLayout.of(new long[] {2}, new long[] {Long.MAX_VALUE - 2}, 1);
        assertEquals(1, wide.minOffset());
        assertEquals(Long.MAX_VALUE - 1, wide.maxOffset());
        assertEquals(Long.MAX_VALUE - 1, wide.spanElements());
        assertEquals(6, StridedLayout.packed(2, 3).withOffset(5).spanElements());
        // Without elements there is no span, and both ends are the offset.
        StridedLayout none = StridedLayout.of(new long[] {0, 3}, new long[] {7, 5}, 4);
        assertEquals(4, none.minOffset());
        assertEquals(4, none.maxOffset());
        assertEquals(0, none.spanElements());
    }
}
