package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@link Reach}: which bytes each side of a copy can touch, and whether two sides share one. A
 * wrong answer either copies through a temporary for nothing or, worse, lets a copy read what it
 * has already overwritten; each case sits one element either side of the boundary.
 */
class ReachTest {
    private static final MemorySegment IMAGE = Arena.ofAuto().allocate(96, 16);

    /** f32 elements {@code [first, first + count)} of {@code segment}. */
    private static Access run(MemorySegment segment, long first, long count) {
        return Access.strided(segment, DType.F32, StridedLayout.of(new long[] {count}, new long[] {1}, first));
    }

    private static void assertOverlap(boolean expected, Access a, Access b) {
        assertEquals(expected, Reach.overlap(a, b));
        assertEquals(expected, Reach.overlap(b, a), "the other way round");
    }

    @Test
    void stridedSidesOverlapExactlyWhenTheyShareAnElement() {
        // Top and bottom halves of f32[4,6]: rows 0-1 and rows 2-3.
        Access top = Access.strided(IMAGE, DType.F32, StridedLayout.of(new long[] {2, 6}, new long[] {6, 1}));
        Access bottom = Access.strided(IMAGE, DType.F32, StridedLayout.of(new long[] {2, 6}, new long[] {6, 1}, 12));
        Access middle = Access.strided(IMAGE, DType.F32, StridedLayout.of(new long[] {2, 6}, new long[] {6, 1}, 6));
        assertOverlap(false, top, bottom);
        assertOverlap(true, top, middle);
        assertOverlap(true, middle, bottom);
        assertOverlap(true, run(IMAGE, 0, 12), run(IMAGE, 11, 12));
        assertOverlap(false, run(IMAGE, 0, 12), run(IMAGE, 12, 12));
        assertOverlap(true, run(IMAGE, 5, 1), run(IMAGE, 5, 1));
    }

    @Test
    void aReversedSideReachesFromItsLowestOffset() {
        // Elements 3, 2, 1, 0: bytes [0, 16).
        Access reversed = Access.strided(IMAGE, DType.F32, StridedLayout.of(new long[] {4}, new long[] {-1}, 3));
        assertArrayEquals(new long[] {0, 16}, Reach.bytes(reversed));
        assertOverlap(false, reversed, run(IMAGE, 4, 4));
        assertOverlap(true, reversed, run(IMAGE, 3, 4));
        // Elements 10-14 and 2-6: bytes [8, 60).
        assertArrayEquals(new long[] {8, 60}, Reach.bytes(
                Access.strided(IMAGE, DType.F32, StridedLayout.of(new long[] {2, 5}, new long[] {-8, 1}, 10))));
    }

    @Test
    void sidesOfDifferentMemoryNeverOverlap() {
        MemorySegment other = Arena.ofAuto().allocate(96, 16);
        assertOverlap(false, run(IMAGE, 0, 24), run(other, 0, 24));
    }

    @Test
    void slicesOfOneBufferCompareByAddress() {
        MemorySegment upper = IMAGE.asSlice(48);
        // Element 0 of the upper slice is element 12 of the whole.
        assertOverlap(true, run(IMAGE, 12, 1), run(upper, 0, 1));
        assertOverlap(false, run(IMAGE, 0, 12), run(upper, 0, 12));
        assertOverlap(true, run(IMAGE, 0, 13), run(upper, 0, 1));
        assertOverlap(false, run(IMAGE, 13, 1), run(upper, 0, 1));
        assertOverlap(true, run(IMAGE, 13, 1), run(upper, 0, 2));
    }

    @Test
    void aSideWithNoElementsTouchesNothing() {
        Access empty = Access.strided(IMAGE, DType.F32, StridedLayout.of(new long[] {0, 6}, new long[] {6, 1}));
        assertNull(Reach.bytes(empty));
        assertOverlap(false, empty, run(IMAGE, 0, 24));
    }

    @Test
    void aTiledSideCoversItsPaddingSlotsUpToItsSegment() {
        // f32[2,3] in 2x2 tiles: 2 tiles of 4 slots, 32 bytes, the last column padding.
        Access tiled = Access.tiled(IMAGE, ArrayShape.parse("f32[2,3]{1,0:T(2,2)}"));
        assertArrayEquals(new long[] {0, 32}, Reach.bytes(tiled));
        assertOverlap(true, tiled, run(IMAGE, 7, 1));
        assertOverlap(false, tiled, run(IMAGE, 8, 4));
        // Over a segment shorter than its slots: only the segment.
        Access cut = Access.tiled(IMAGE.asSlice(0, 24), ArrayShape.parse("f32[2,3]{1,0:T(2,2)}"));
        assertArrayEquals(new long[] {0, 24}, Reach.bytes(cut));
        assertOverlap(false, cut, run(IMAGE, 6, 1));
        assertOverlap(true, cut, run(IMAGE, 5, 1));
    }

    @Test
    void aMappedSideCoversItsMapsRange() {
        // Offsets 0, 2, 4, 6: range [0, 6], bytes [0, 28).
        Access even = Access.mapped(IMAGE, DType.F32, IndexingMap.parse("(d0) -> (d0 * 2), domain: d0 in [0, 3]"));
        assertArrayEquals(new long[] {0, 28}, Reach.bytes(even));
        assertOverlap(true, even, run(IMAGE, 6, 1));
        assertOverlap(false, even, run(IMAGE, 7, 4));
        // A range below the segment's start is cut at byte 0.
        Access shifted = Access.mapped(IMAGE, DType.F32, IndexingMap.parse("(d0) -> (d0 - 2), domain: d0 in [0, 3]"));
        assertArrayEquals(new long[] {0, 8}, Reach.bytes(shifted));
        assertOverlap(false, shifted, run(IMAGE, 2, 1));
        // A range past the segment's end is cut at its last byte.
        Access wide = Access.mapped(IMAGE, DType.F32, IndexingMap.parse("(d0) -> (d0 * 20 + 1), domain: d0 in [0, 3]"));
        assertArrayEquals(new long[] {4, 96}, Reach.bytes(wide));
        assertOverlap(true, wide, run(IMAGE, 23, 1));
        assertOverlap(false, wide, run(IMAGE, 0, 1));
    }

    @Test
    void aMappedRangeWithNoUpperBoundReachesTheSegmentsEnd() {
        // 3 * 2^62 overflows: the range's upper end is unbounded, and the side may touch any byte from 4.
        IndexingMap map = IndexingMap.parse("(d0) -> (d0 * 4611686018427387904 + 1), domain: d0 in [0, 3]");
        assertEquals(Long.MAX_VALUE, map.range(map.results().getFirst()).hi());
        Access unbounded = Access.mapped(IMAGE, DType.F32, map);
        assertArrayEquals(new long[] {4, 96}, Reach.bytes(unbounded));
        assertOverlap(true, unbounded, run(IMAGE, 23, 1));
    }

    @Test
    void twoByteElementsCountTwoBytes() {
        Access halves = Access.strided(IMAGE, DType.BF16, StridedLayout.of(new long[] {6}, new long[] {1}, 6));
        assertArrayEquals(new long[] {12, 24}, Reach.bytes(halves));
        assertOverlap(false, halves, run(IMAGE, 6, 1));
        assertOverlap(true, halves, run(IMAGE, 5, 1));
        assertOverlap(false, halves, run(IMAGE, 2, 1));
    }
}
