package dev.tensorbuf.views.indexing;

import static dev.tensorbuf.views.indexing.Interval.Truth.FALSE;
import static dev.tensorbuf.views.indexing.Interval.Truth.TRUE;
import static dev.tensorbuf.views.indexing.Interval.Truth.UNKNOWN;
import static java.lang.Long.MAX_VALUE;
import static java.lang.Long.MIN_VALUE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The interval arithmetic the simplifier and range evaluator rest on: each operation at the points
 * where its answer changes (touching ends, empty intervals, a long's ends, which stand for unbounded).
 */
class IntervalTest {
    private static Interval iv(long lo, long hi) {
        return new Interval(lo, hi);
    }

    @Test
    void exampleFromJavadoc() {
        Interval a = iv(12, 64);
        assertEquals(iv(-88, 184), a.plus(iv(-100, 120)));
        assertEquals(TRUE, a.gt(Interval.point(11)));
        assertEquals(UNKNOWN, a.gt(Interval.point(12)));
        assertEquals("[-88, 184]", iv(-88, 184).toString());
    }

    @Test
    void emptinessPointsAndMembership() {
        assertTrue(iv(3, 2).isEmpty());
        assertFalse(iv(2, 2).isEmpty());
        assertFalse(iv(1, 2).isEmpty());
        assertTrue(Interval.point(5).isPoint());
        assertFalse(iv(5, 6).isPoint());
        assertTrue(iv(2, 5).contains(2));
        assertTrue(iv(2, 5).contains(5));
        assertFalse(iv(2, 5).contains(1));
        assertFalse(iv(2, 5).contains(6));
        assertTrue(iv(2, 5).contains(iv(2, 5)));
        assertTrue(iv(2, 5).contains(iv(3, 4)));
        assertFalse(iv(2, 5).contains(iv(1, 3)));
        assertFalse(iv(2, 5).contains(iv(3, 6)));
        assertTrue(iv(2, 5).contains(iv(9, 1)), "every interval holds the empty one");
    }

    @Test
    void sizeCountsValuesAndSaturates() {
        assertEquals(4, iv(2, 5).size());
        assertEquals(1, iv(5, 5).size());
        assertEquals(0, iv(3, 2).size());
        assertEquals(MAX_VALUE, iv(0, MAX_VALUE - 1).size());
        assertEquals(MAX_VALUE, iv(-1, MAX_VALUE).size(), "2^63 + 1 values saturate");
        assertEquals(MAX_VALUE, Interval.UNBOUNDED.size());
    }

    @Test
    void intersectAndUnion() {
        assertEquals(iv(5, 8), iv(2, 8).intersect(iv(5, 10)));
        assertTrue(iv(2, 4).intersect(iv(5, 10)).isEmpty());
        assertEquals(iv(1, 6), iv(1, 2).union(iv(5, 6)));
        assertEquals(iv(1, 6), iv(5, 6).union(iv(1, 2)));
        // An empty side adds nothing, wherever its ends lie.
        assertEquals(iv(1, 2), iv(9, 0).union(iv(1, 2)));
        assertEquals(iv(1, 2), iv(1, 2).union(iv(9, 0)));
        assertEquals(iv(1, 2), iv(1, 2).union(iv(-5, -9)));
    }

    @Test
    void additionSaturatesAndKeepsUnboundedEnds() {
        assertEquals(iv(-88, 184), iv(12, 64).plus(iv(-100, 120)));
        assertEquals(MAX_VALUE, Interval.satAdd(MAX_VALUE - 1, 2));
        assertEquals(MIN_VALUE, Interval.satAdd(MIN_VALUE + 1, -2));
        assertEquals(MAX_VALUE - 1, Interval.satAdd(MAX_VALUE - 3, 2));
        // An unbounded end stays unbounded even when the sum would move it inward.
        assertEquals(MIN_VALUE, Interval.satAdd(MIN_VALUE, 5));
        assertEquals(MIN_VALUE, Interval.satAdd(5, MIN_VALUE));
        assertEquals(MAX_VALUE, Interval.satAdd(MAX_VALUE, -5));
        assertEquals(MAX_VALUE, Interval.satAdd(-5, MAX_VALUE));
        assertEquals(Interval.UNBOUNDED, Interval.UNBOUNDED.plus(iv(-3, 3)));
        // Both ends at once: MIN_VALUE + MIN_VALUE wraps to 0, MAX_VALUE + MAX_VALUE to -2.
        assertEquals(MIN_VALUE, Interval.satAdd(MIN_VALUE, MIN_VALUE));
        assertEquals(MAX_VALUE, Interval.satAdd(MAX_VALUE, MAX_VALUE));
        assertEquals(Interval.UNBOUNDED, Interval.UNBOUNDED.plus(Interval.UNBOUNDED));
    }

    @Test
    void multiplicationTakesEveryCornerAndSaturates() {
        assertEquals(iv(-12, 15), iv(2, 3).times(iv(-4, 5)));
        assertEquals(iv(-10, 15), iv(-2, 3).times(iv(4, 5)));
        assertEquals(iv(-15, 10), iv(-3, 2).times(iv(4, 5)));
        assertEquals(iv(-6, -4), iv(2, 3).times(-2));
        assertEquals(MAX_VALUE, Interval.satMul(1L << 32, 1L << 32));
        assertEquals(MIN_VALUE, Interval.satMul(-(1L << 32), 1L << 32));
        assertEquals(MIN_VALUE, Interval.satMul(1L << 32, -(1L << 32) + 1));
        assertEquals(MAX_VALUE, Interval.satMul(-(1L << 32), -(1L << 32)));
        assertEquals(MIN_VALUE, Interval.satMul(3, MIN_VALUE));
        assertEquals(MAX_VALUE, Interval.satMul(-1, MIN_VALUE));
        // A long's ends stand for unbounded: times 1 stays there, times -1 flips to the other end.
        assertEquals(MAX_VALUE, Interval.satMul(MAX_VALUE, 1));
        assertEquals(MIN_VALUE, Interval.satMul(MAX_VALUE, -1));
        assertEquals(MIN_VALUE, Interval.satMul(-1, MAX_VALUE));
        assertEquals(MIN_VALUE, Interval.satMul(1, MIN_VALUE));
        assertEquals(MAX_VALUE, Interval.satMul(MIN_VALUE, -1));
        assertEquals(MIN_VALUE, Interval.satMul(MIN_VALUE, 1));
        assertEquals(0, Interval.satMul(MIN_VALUE, 0));
        assertEquals(0, Interval.satMul(0, MAX_VALUE));
        assertEquals(-(1L << 62), Interval.satMul(-(1L << 31), 1L << 31));
        assertEquals(Interval.UNBOUNDED, iv(-1, 1).times(Interval.UNBOUNDED));
    }

    @Test
    void floorDivisionRoundsDownAndOrdersTheEnds() {
        assertEquals(iv(-4, 3), iv(-7, 7).floorDiv(2));
        assertEquals(iv(-4, -1), iv(1, 7).floorDiv(-2));
        assertEquals(iv(2, 3), iv(-7, -5).floorDiv(-2));
        assertEquals(Interval.UNBOUNDED, Interval.UNBOUNDED.floorDiv(3));
        assertEquals(Interval.UNBOUNDED, Interval.UNBOUNDED.floorDiv(-3));
        assertEquals(iv(2, MAX_VALUE), iv(5, MAX_VALUE).floorDiv(2));
        assertEquals(iv(MIN_VALUE, -3), iv(5, MAX_VALUE).floorDiv(-2));
        assertEquals(iv(-3, MAX_VALUE), iv(MIN_VALUE, 5).floorDiv(-2));
        assertEquals(iv(MIN_VALUE, 2), iv(MIN_VALUE, 5).floorDiv(2));
        // An unbounded end divided by a long's end of the same sign is unbounded above.
        assertEquals(iv(MAX_VALUE, MAX_VALUE), iv(MIN_VALUE, MIN_VALUE).floorDiv(MIN_VALUE));
        assertEquals(iv(0, MAX_VALUE), iv(5, MAX_VALUE).floorDiv(MAX_VALUE));
        assertEquals(iv(MIN_VALUE, -1), iv(5, MAX_VALUE).floorDiv(MIN_VALUE));
        var e = assertThrows(IllegalArgumentException.class, () -> iv(1, 7).floorDiv(0));
        assertEquals("division of [1, 7] by zero", e.getMessage());
    }

    @Test
    void moduloIsXlasNonNegativeRemainder() {
        assertEquals(iv(5, 7), iv(5, 7).mod(10));
        assertEquals(iv(5, 7), iv(5, 7).mod(-10));
        assertEquals(iv(7, 9), iv(-3, -1).mod(10));
        assertEquals(iv(0, 9), iv(8, 12).mod(10), "the range wraps past 10");
        assertEquals(iv(0, 9), iv(5, 15).mod(10));
        assertEquals(iv(0, 3), Interval.UNBOUNDED.mod(4));
        // A long's end stands for unbounded, so the remainder is any, even where the two ends agree.
        assertEquals(iv(0, 3), iv(MAX_VALUE - 2, MAX_VALUE).mod(4));
        assertEquals(iv(0, 3), iv(MIN_VALUE, MIN_VALUE + 1).mod(4));
        var e = assertThrows(IllegalArgumentException.class, () -> iv(1, 7).mod(0));
        assertEquals("modulo of [1, 7] by zero", e.getMessage());
    }

    @Test
    void moduloByMinusTwoToTheSixtyThird() {
        assertEquals(iv(0, 5), iv(0, 5).mod(MIN_VALUE), "non-negative values are their own remainder");
        assertEquals(iv(MAX_VALUE - 4, MAX_VALUE), iv(-5, -1).mod(MIN_VALUE));
        assertEquals(iv(0, MAX_VALUE), iv(-1, 3).mod(MIN_VALUE));
        assertEquals(iv(0, MAX_VALUE), iv(-5, 0).mod(MIN_VALUE));
    }

    @Test
    void minAndMaxTakeEachEnd() {
        assertEquals(iv(1, 4), iv(1, 5).min(iv(3, 4)));
        assertEquals(iv(3, 5), iv(1, 5).max(iv(3, 4)));
    }

    @Test
    void orderComparisonsAtTouchingEnds() {
        Interval a = iv(12, 64);
        assertEquals(TRUE, a.gt(iv(0, 11)));
        assertEquals(UNKNOWN, a.gt(iv(0, 12)));
        assertEquals(UNKNOWN, a.gt(iv(63, 70)));
        assertEquals(FALSE, a.gt(iv(64, 70)));
        assertEquals(FALSE, a.gt(iv(65, 70)));

        assertEquals(TRUE, a.ge(iv(0, 12)));
        assertEquals(UNKNOWN, a.ge(iv(0, 13)));
        assertEquals(UNKNOWN, a.ge(iv(64, 70)));
        assertEquals(FALSE, a.ge(iv(65, 70)));

        assertEquals(TRUE, iv(1, 2).lt(iv(3, 4)));
        assertEquals(UNKNOWN, iv(1, 3).lt(iv(3, 4)));
        assertEquals(FALSE, iv(4, 5).lt(iv(1, 4)));
        assertEquals(TRUE, iv(1, 3).le(iv(3, 4)));
        assertEquals(UNKNOWN, iv(1, 4).le(iv(3, 3)));
        assertEquals(UNKNOWN, iv(4, 6).le(iv(3, 4)));
        assertEquals(FALSE, iv(5, 6).le(iv(3, 4)));
    }

    @Test
    void equalityNeedsTwoEqualPointsAndInequalityIsItsNegation() {
        assertEquals(TRUE, Interval.point(3).eq(Interval.point(3)));
        assertEquals(FALSE, Interval.point(3).eq(Interval.point(4)));
        assertEquals(FALSE, iv(1, 3).eq(iv(4, 5)));
        assertEquals(FALSE, iv(4, 5).eq(iv(1, 3)));
        assertEquals(UNKNOWN, iv(1, 3).eq(iv(3, 5)));
        assertEquals(UNKNOWN, iv(3, 5).eq(iv(1, 3)));
        assertEquals(UNKNOWN, iv(1, 3).eq(Interval.point(2)), "only one side is a point");
        assertEquals(UNKNOWN, Interval.point(2).eq(iv(1, 3)));
        assertEquals(UNKNOWN, iv(2, 2).eq(iv(2, 3)));

        assertEquals(FALSE, Interval.point(3).ne(Interval.point(3)));
        assertEquals(TRUE, Interval.point(3).ne(Interval.point(4)));
        assertEquals(UNKNOWN, iv(1, 3).ne(iv(2, 5)));
        assertEquals(FALSE, TRUE.not());
        assertEquals(TRUE, FALSE.not());
        assertEquals(UNKNOWN, UNKNOWN.not());
    }
}
