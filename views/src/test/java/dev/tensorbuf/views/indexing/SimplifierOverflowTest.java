package dev.tensorbuf.views.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Evaluation checks every sum and product for 64-bit overflow, so a simplification that is an
 * identity over the integers could turn a map that evaluates into one that throws, or fail
 * itself, for bounds near 2^62 and 2^63. Seed printed; rerun with {@code -Dtensorbuf.seed=N}.
 */
class SimplifierOverflowTest {
    private static final long P62 = 1L << 62;

    private static long[] at(long... v) {
        return v;
    }

    /** Merging the divisions gave (d0 * 3 + d1) / 36, overflowing in 4e18 * 3. */
    @Test
    void nestedDivisionsDoNotMergeWhenTheProductOverflows() {
        IndexingMap m = IndexingMap.parse("(d0, d1) -> ((d0 + d1 floordiv 3) floordiv 12),"
                + " domain: d0 in [0, 4611686018427387904], d1 in [0, 8]");
        assertEquals(333333333333333333L, m.evaluate(4_000_000_000_000_000_000L, 5)[0]);
        IndexingMap s = m.simplify();
        assertEquals(333333333333333333L, s.evaluate(4_000_000_000_000_000_000L, 5)[0], s.toString());
        assertEquals(384307168202282325L, s.evaluate(P62, 8)[0], s.toString());
        // Where the product fits, the merge still happens.
        assertEquals("(d0, d1) -> ((d0 * 3 + d1) / 36), domain: d0 in [0, 100], d1 in [0, 8]",
                IndexingMap.parse("(d0, d1) -> ((d0 + d1 floordiv 3) floordiv 12), domain: d0 in [0, 100],"
                        + " d1 in [0, 8]").simplify().toString());
    }

    /**
     * Sorting by coefficient gave d0 + d1 - d2, whose first sum is 2^63 at (2^62, 2^62, 2^62),
     * where the original evaluates (it overflows elsewhere, at (2^62, 2^62, 0), as XLA's would).
     */
    @Test
    void sumsKeepAnOrderWhosePartialSumsFit() {
        IndexingMap m = IndexingMap.parse("(d0, d1, d2) -> (-d2 + d0 + d1), domain: d0 in [0, 4611686018427387904],"
                + " d1 in [0, 4611686018427387904], d2 in [0, 4611686018427387904]");
        IndexingMap s = m.simplify();
        assertEquals(P62, s.evaluate(P62, P62, P62)[0], s.toString());
        assertEquals(-P62, s.evaluate(0, 0, P62)[0], s.toString());
        assertEquals("(d0, d1, d2) -> (d0 + d1 - d2), domain: d0 in [0, 100], d1 in [0, 100], d2 in [0, 100]",
                IndexingMap.parse("(d0, d1, d2) -> (-d2 + d0 + d1), domain: d0 in [0, 100], d1 in [0, 100],"
                        + " d2 in [0, 100]").simplify().toString());
    }

    /** d0 mod 4 near Long.MIN_VALUE is d0 + 2^63, which wrapped to d0 + Long.MIN_VALUE. */
    @Test
    void aModuloNearTheBottomOfALongStays() {
        IndexingMap m = IndexingMap.parse("(d0) -> (d0 mod 4), domain: d0 in [-9223372036854775807, -9223372036854775805]");
        IndexingMap s = m.simplify();
        for (long d0 = Long.MIN_VALUE + 1; d0 <= Long.MIN_VALUE + 3; d0++) {
            assertEquals(d0 - Long.MIN_VALUE, s.evaluate(d0)[0], s.toString());
        }
        assertEquals("(d0) -> (d0 - 52), domain: d0 in [53, 55]",
                IndexingMap.parse("(d0) -> (d0 mod 4), domain: d0 in [53, 55]").simplify().toString());
    }

    /** Folding d0 mod 9 to d0 - 9q and multiplying by -7 overflowed: simplify threw. */
    @Test
    void aRewriteWhoseConstantsOverflowIsSkipped() {
        IndexingMap m = IndexingMap.parse("(d0) -> (((d0 mod 9) * -7) mod 16),"
                + " domain: d0 in [9223372036854775782, 9223372036854775787]");
        IndexingMap s = m.simplify();
        for (long d0 = 9223372036854775782L; d0 <= 9223372036854775787L; d0++) {
            long want = Math.floorMod(Math.floorMod(d0, 9) * -7, 16);
            assertEquals(want, m.evaluate(d0)[0]);
            assertEquals(want, s.evaluate(d0)[0], s.toString());
        }
    }

    /**
     * Found by the property test: (d0 + 7) mod 9 folded to d0 + Long.MAX_VALUE, whose range read
     * as unbounded [MAX, MAX], so min picked d0 mod 3, 2 where the minimum is 0.
     */
    @Test
    void aFoldToALongsEndDoesNotMisleadMin() {
        IndexingMap m = IndexingMap.parse("(d0) -> (min(d0 mod 3, (d0 + 7) mod 9)),"
                + " domain: d0 in [-9223372036854775807, -9223372036854775799]");
        IndexingMap s = m.simplify();
        for (long d0 = Long.MIN_VALUE + 1; d0 <= Long.MIN_VALUE + 9; d0++) {
            long want = Math.min(Math.floorMod(d0, 3), Math.floorMod(d0 + 7, 9));
            assertEquals(want, m.evaluate(d0)[0]);
            assertEquals(want, s.evaluate(d0)[0], s.toString());
        }
        assertEquals(0, s.evaluate(Long.MIN_VALUE + 1)[0]);
    }

    @Test
    void ceilDivOfTheSmallestLongIsNegative() {
        assertEquals(-(1L << 62), Exprs.ceilDiv(Long.MIN_VALUE, 2));
        assertEquals(1L << 62, Exprs.ceilDiv(Long.MIN_VALUE, -2));
    }

    private static final long[][] BOUNDS = {
        {0, P62}, {-P62, 0}, {-P62, P62}, {P62 - 7, P62}, {0, 8}, {-3, 5},
        {Long.MAX_VALUE - 30, Long.MAX_VALUE - 20}, {Long.MIN_VALUE + 1, Long.MIN_VALUE + 9},
        {Long.MAX_VALUE / 3 - 4, Long.MAX_VALUE / 3}, {1L << 61, (1L << 61) + 16},
    };

    private static final long[] CONSTANTS = {0, 1, 2, 3, 7, 12, 16, -1, -7, P62, -P62, 3 * (1L << 60)};

    private static AffineExpr expr(Random rnd, int nd, int depth) {
        int pick = depth <= 0 ? rnd.nextInt(3) : rnd.nextInt(9);
        return switch (pick) {
            case 0, 1 -> AffineExpr.dim(rnd.nextInt(nd));
            case 2 -> AffineExpr.constant(CONSTANTS[rnd.nextInt(CONSTANTS.length)]);
            case 3, 4 -> expr(rnd, nd, depth - 1).plus(expr(rnd, nd, depth - 1));
            case 5 -> expr(rnd, nd, depth - 1).times(CONSTANTS[1 + rnd.nextInt(CONSTANTS.length - 1)]);
            case 6 -> expr(rnd, nd, depth - 1).floorDiv(new long[] {2, 3, 4, 9, 12, 16, -3}[rnd.nextInt(7)]);
            case 7 -> expr(rnd, nd, depth - 1).mod(new long[] {2, 3, 4, 9, 12, 16}[rnd.nextInt(6)]);
            default -> rnd.nextBoolean() ? expr(rnd, nd, depth - 1).min(expr(rnd, nd, depth - 1))
                    : expr(rnd, nd, depth - 1).max(expr(rnd, nd, depth - 1));
        };
    }

    /**
     * Random maps with bounds near ±2^62 and ±2^63: simplify never throws, and wherever the
     * original evaluates (every corner of the domain and points inside), the simplified map
     * evaluates to the same value.
     */
    @Test
    void simplifyingNeverMakesAMapThatEvaluatesOverflow() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("[SimplifierOverflowTest] seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        Random rnd = new Random(seed);
        int checked = 0;
        for (int n = 0; n < 3000; n++) {
            int nd = 1 + rnd.nextInt(3);
            List<Variable> dims = new ArrayList<>();
            for (int i = 0; i < nd; i++) {
                long[] b = BOUNDS[rnd.nextInt(BOUNDS.length)];
                dims.add(Variable.of(b[0], b[1]));
            }
            IndexingMap m;
            try {
                m = IndexingMap.of(dims, List.of(), List.of(), List.of(expr(rnd, nd, 1 + rnd.nextInt(3))), Map.of());
            } catch (IllegalArgumentException constantOverflow) {
                continue;
            }
            IndexingMap s;
            try {
                s = m.simplify();
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + ": simplify of " + m + " threw " + e, e);
            }
            for (int p = 0; p < (1 << nd) + 6; p++) {
                long[] point = new long[nd];
                for (int i = 0; i < nd; i++) {
                    Interval b = m.dims().get(i).bounds();
                    point[i] = p < (1 << nd) ? ((p >> i & 1) == 0 ? b.lo() : b.hi())
                            : rnd.nextLong(b.lo(), b.hi() + 1); // no bound here is Long.MAX_VALUE
                }
                long want;
                try {
                    want = m.evaluate(point)[0];
                } catch (IllegalArgumentException overflow) {
                    continue;
                }
                checked++;
                try {
                    assertEquals(want, s.evaluate(point)[0], () -> "seed " + seed + ": " + m + " -> " + s
                            + " at " + java.util.Arrays.toString(point));
                } catch (IllegalArgumentException e) {
                    fail("seed " + seed + ": " + m + " evaluates at " + java.util.Arrays.toString(point)
                            + " but its simplification " + s + " throws " + e.getMessage());
                }
            }
        }
        assertTrue(checked > 3000, "only " + checked + " points evaluated");
    }

    @Test
    void overflowInTheOriginalStillThrows() {
        IndexingMap m = IndexingMap.parse("(d0) -> (d0 * 4), domain: d0 in [0, 4611686018427387904]");
        assertThrows(IllegalArgumentException.class, () -> m.evaluate(P62));
    }
}
