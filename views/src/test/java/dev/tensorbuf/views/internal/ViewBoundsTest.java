package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.TestSeed;
import dev.tensorbuf.views.indexing.IndexingMap;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link ViewBounds#check} against a brute-force reference: every index of the domain visited
 * in row-major order, the first whose offset falls outside {@code [0, capacity)} (and meets the
 * constraints) is the one the message must name. Maps are affine (the closed-form search), with
 * a floor division or modulo, or with a constraint (the pruned depth-first search).
 */
class ViewBoundsTest {
    /** {@return the message of the first index outside {@code [0, capacity)}, or null when all are inside} */
    private static String bruteForce(IndexingMap map, long capacity) {
        int rank = map.dims().size();
        long[] lo = new long[rank];
        long[] hi = new long[rank];
        for (int i = 0; i < rank; i++) {
            lo[i] = map.dims().get(i).bounds().lo();
            hi[i] = map.dims().get(i).bounds().hi();
            if (lo[i] > hi[i]) {
                return null;
            }
        }
        long[] p = lo.clone();
        while (true) {
            if (map.constraintsSatisfied(p, new long[0], new long[0])) {
                long offset = map.evaluate(p)[0];
                if (offset < 0 || offset >= capacity) {
                    return "v: index " + Arrays.toString(p) + " reaches element offset " + offset
                            + (offset < 0 ? ", before the buffer" : ", beyond the buffer of cap");
                }
            }
            int d = rank - 1;
            while (d >= 0 && p[d] == hi[d]) {
                p[d] = lo[d];
                d--;
            }
            if (d < 0) {
                return null;
            }
            p[d]++;
        }
    }

    private static String check(IndexingMap map, long capacity) {
        try {
            ViewBounds.check(map, capacity, () -> "v", () -> "cap");
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static String term(Random rnd, int rank) {
        StringBuilder s = new StringBuilder();
        for (int d = 0; d < rank; d++) {
            long c = rnd.nextInt(11) - 5;
            if (c != 0) {
                s.append(s.isEmpty() ? "" : " + ").append("d").append(d).append(" * ").append(c);
            }
        }
        return s.isEmpty() ? "d0" : s.toString();
    }

    private static IndexingMap randomMap(Random rnd) {
        int rank = 1 + rnd.nextInt(3);
        StringBuilder dims = new StringBuilder();
        StringBuilder domain = new StringBuilder();
        for (int d = 0; d < rank; d++) {
            long lo = rnd.nextInt(4) == 0 ? rnd.nextInt(3) : 0;
            dims.append(d == 0 ? "" : ", ").append("d").append(d);
            domain.append(d == 0 ? "" : ", ").append("d").append(d).append(" in [").append(lo).append(", ")
                    .append(lo + rnd.nextInt(5)).append("]");
        }
        String result = term(rnd, rank) + " + " + (rnd.nextInt(21) - 8);
        switch (rnd.nextInt(4)) {
            case 1 -> result = "(" + result + ") floordiv " + (2 + rnd.nextInt(3)) + " + " + term(rnd, rank);
            case 2 -> result = "(" + term(rnd, rank) + ") mod " + (2 + rnd.nextInt(4)) + " + " + result;
            case 3 -> domain.append(", ").append(term(rnd, rank)).append(" in [").append(-rnd.nextInt(6)).append(", ")
                    .append(rnd.nextInt(8)).append("]");
            default -> {
            }
        }
        return IndexingMap.parse("(" + dims + ") -> (" + result + "), domain: " + domain);
    }

    @Test
    void theFirstOffendingIndexIsTheBruteForceOne() {
        Random rnd = new Random(TestSeed.of("ViewBoundsTest"));
        int refused = 0;
        for (int n = 0; n < 1500; n++) {
            IndexingMap map = randomMap(rnd);
            long capacity = rnd.nextInt(30);
            String expected = bruteForce(map, capacity);
            assertEquals(expected, check(map, capacity), map + " over " + capacity + " elements");
            refused += expected == null ? 0 : 1;
        }
        // Both outcomes are exercised, not one.
        assertEquals(true, refused > 300 && refused < 1200, refused + " of 1500 refused");
    }

    @Test
    void boundariesOfAnAffineMap() {
        IndexingMap map = IndexingMap.parse("(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 2], d1 in [0, 3]");
        assertDoesNotThrow(() -> ViewBounds.check(map, 12, () -> "v", () -> "cap"));
        assertEquals("v: index [2, 3] reaches element offset 11, beyond the buffer of cap", check(map, 11));
        assertEquals("v: index [0, 2] reaches element offset -1, before the buffer",
                check(IndexingMap.parse("(d0, d1) -> (d0 * 4 - d1 + 1), domain: d0 in [0, 2], d1 in [0, 3]"), 20));
        // Below and above at once: the lexicographically first wins ([0, 0] reads -1, [2, 3] reads 11).
        assertEquals("v: index [0, 0] reaches element offset -1, before the buffer",
                check(IndexingMap.parse("(d0, d1) -> (d0 * 4 + d1 - 1), domain: d0 in [0, 2], d1 in [0, 3]"), 10));
        // A negative coefficient on the major dimension: d0 = 0 reaches highest.
        assertEquals("v: index [0, 2] reaches element offset 10, beyond the buffer of cap",
                check(IndexingMap.parse("(d0, d1) -> (d1 * 4 - d0 + 2), domain: d0 in [0, 2], d1 in [0, 3]"), 10));
    }

    @Test
    void aSearchThatRunsOutOfStepsSaysSo() {
        // d0 - (d0 floordiv 7) * 7 is d0 mod 7, inside [0, 7), but its interval is [-N, N]: the
        // search visits each d0 and finds nothing before its budget runs out.
        long n = 4 * ViewBounds.SEARCH_BUDGET;
        IndexingMap map = IndexingMap.parse("(d0) -> (d0 - (d0 floordiv 7) * 7), domain: d0 in [0, " + n + "]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ViewBounds.check(map, 7, () -> "v", () -> "cap"));
        // floordiv 7 ranges over [0, n / 7], so the subtrahend over [0, (n / 7) * 7].
        assertEquals("v reaches element offsets [-" + (n / 7) * 7 + ", " + n + "] but the buffer holds cap (no offending index found in "
                + ViewBounds.SEARCH_BUDGET + " search steps)", e.getMessage());
        // A small domain is searched to the end: nothing is outside.
        assertDoesNotThrow(() -> ViewBounds.check(
                IndexingMap.parse("(d0) -> (d0 - (d0 floordiv 7) * 7), domain: d0 in [0, 1000]"), 7, () -> "v", () -> "cap"));
    }

    @Test
    void aSearchOfExactlyTheBudgetIsComplete() {
        // The constraint sends each map to the depth-first search, one step per value of d0: a
        // domain of SEARCH_BUDGET values is searched to its end, one more value is not.
        long n = ViewBounds.SEARCH_BUDGET;
        // d0 = 0 reads -1 but the constraint excludes it; every other d0 reads inside [0, n - 1).
        IndexingMap exact = IndexingMap.parse("(d0) -> (d0 - 1), domain: d0 in [0, " + (n - 1) + "], d0 * 2 in [2, "
                + 2 * n + "]");
        assertEquals(null, check(exact, n - 1));
        IndexingMap oneMore = IndexingMap.parse("(d0) -> (d0 - 1), domain: d0 in [0, " + n + "], d0 * 2 in [2, "
                + 2 * n + "]");
        assertEquals("v reaches element offsets [-1, " + (n - 1) + "] but the buffer holds cap (no offending index found in "
                + n + " search steps)", check(oneMore, n));
        // The only offending index is the budget's last step: found and named.
        IndexingMap last = IndexingMap.parse("(d0) -> (d0 + 1), domain: d0 in [0, " + (n - 1) + "], d0 * 2 in [0, "
                + 2 * n + "]");
        assertEquals("v: index [" + (n - 1) + "] reaches element offset " + n + ", beyond the buffer of cap", check(last, n));
    }
}
