package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Overlap detection at the edges the random comparisons with enumeration cannot reach: spans near
 * the top of a long, and layouts so large that only the stride order (not a search) can decide them.
 * A wrong answer here sends a copy past the temporary it needs.
 */
class StridedLayoutOverlapTest {
    /** 2^62 - 2: the three spans below add up to 2^63 - 2, a long's largest even offset. */
    private static final long B = (1L << 62) - 2;

    @Test
    void overlapIsFoundWhenTheSpanIsNearTheTopOfALong() {
        StridedLayout layout = StridedLayout.of(new long[] {2, 2, 2}, new long[] {1, B, B + 1});
        // Indices (1, 1, 0) and (0, 0, 1) both land on offset 2^62 - 1.
        assertEquals(layout.offsetOf(1, 1, 0), layout.offsetOf(0, 0, 1));
        assertEquals((1L << 62) - 1, layout.offsetOf(0, 0, 1));
        assertEquals(Long.MAX_VALUE - 1, layout.maxOffset());
        assertTrue(layout.isOverlapping());
        assertTrue(layout.isPadded(), "offsets 2 .. 2^62 - 3 are unused");
        assertFalse(layout.isPacked());
    }

    @Test
    void noOverlapIsFoundWhenNoIndexSumCancelsNearTheTopOfALong() {
        // Strides 1, B, B + 2: 1 + B misses B + 2, and B + 2 - B = 2 needs a size of 3 in the first dim.
        StridedLayout apart = StridedLayout.of(new long[] {2, 2, 2}, new long[] {1, B, B + 2});
        assertEquals(Long.MAX_VALUE, apart.maxOffset());
        assertFalse(apart.isOverlapping());
        StridedLayout close = StridedLayout.of(new long[] {3, 2, 2}, new long[] {1, B - 2, B});
        assertEquals(close.offsetOf(2, 1, 0), close.offsetOf(0, 0, 1));
        assertTrue(close.isOverlapping());
    }

    /**
     * 10^12 elements in row-major order, the largest stride first: sorted by stride, each dim
     * starts past the span of the ones below, so there is nothing to search. Visited element by
     * element, or searched smallest stride first, it would take hours, hence the timeout.
     */
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void aLargePackedLayoutIsDecidedByItsStrideOrder() {
        long[] sizes = {1000, 1000, 1000, 1000};
        StridedLayout rowMajor = StridedLayout.of(sizes, new long[] {1_000_000_000, 1_000_000, 1000, 1});
        assertFalse(rowMajor.isOverlapping());
        assertFalse(rowMajor.isPadded());
        assertTrue(rowMajor.isPacked());
        StridedLayout permuted = StridedLayout.of(sizes, new long[] {1000, 1, 1_000_000_000, 1_000_000});
        assertFalse(permuted.isOverlapping());
        assertTrue(permuted.isPacked());
        // A stride of 999 rows instead of 1000: dims 1 and 2 now share offset 999_000.
        StridedLayout shortStep = StridedLayout.of(sizes, new long[] {1_000_000_000, 999_000, 1000, 1});
        assertEquals(shortStep.offsetOf(0, 1, 0, 0), shortStep.offsetOf(0, 0, 999, 0));
        assertTrue(shortStep.isOverlapping());
    }
}
