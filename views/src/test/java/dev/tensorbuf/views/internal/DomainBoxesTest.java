package dev.tensorbuf.views.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link DomainBoxes} against brute force: every index of a small space is looked up in the
 * pieces' maps one by one (the first whose domain holds it, as a view reads), and must lie in
 * exactly one box, of that piece.
 */
class DomainBoxesTest {

    @Test
    void aReshapedConcatenationsStaircaseIsTwoBoxes() {
        IndexingMap first = IndexingMap.parse("(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 2], d1 in [0, 3],"
                + " d0 * 4 + d1 in [0, 5]");
        assertEquals("[[0:1, 0:4], [1:2, 0:2]]", DomainBoxes.domain(first, new long[] {3, 4}).toString());
        IndexingMap second = IndexingMap.parse("(d0, d1) -> (d0 * 4 + d1 - 6), domain: d0 in [0, 2], d1 in [0, 3],"
                + " d0 * 4 + d1 in [6, 11]");
        check(List.of(first, second), new long[] {3, 4});
    }

    @Test
    void aReshapeOfPiecesIsRegroupedWhereThePiecesAreBoxes() {
        // Two [6,3] parts joined along 1 ([6,6]), reshaped to [4,9]: a staircase in [4,9], two boxes in [6,6].
        long[] dims = {4, 9};
        IndexingMap first = IndexingMap.parse("(d0, d1) -> (((d0 * 9 + d1) floordiv 6) * 3 + (d0 * 9 + d1) mod 6),"
                + " domain: d0 in [0, 3], d1 in [0, 8], (d0 * 9 + d1) mod 6 in [0, 2]");
        IndexingMap second = IndexingMap.parse("(d0, d1) -> (((d0 * 9 + d1) floordiv 6) * 3 + (d0 * 9 + d1) mod 6 - 3),"
                + " domain: d0 in [0, 3], d1 in [0, 8], (d0 * 9 + d1) mod 6 in [3, 5]");
        assertTrue(DomainBoxes.of(List.of(first, second), dims).size() > 2);
        List<DomainBoxes.Regrouping> ways = DomainBoxes.regroupings(List.of(first, second), dims);
        assertEquals("[[6, 6]]", ways.toString());
        // Index [2, 3] of the view is its element 21: [3, 3] of [6,6].
        assertEquals("[2, 3]", Arrays.toString(ways.getFirst().viewIndex(new long[] {3, 3}, dims)));
        // The same transposed: the row-major index reads d1 before d0.
        IndexingMap swapped = IndexingMap.parse("(d0, d1) -> (d0), domain: d0 in [0, 8], d1 in [0, 3],"
                + " (d1 * 9 + d0) mod 6 in [0, 2]");
        List<DomainBoxes.Regrouping> t = DomainBoxes.regroupings(List.of(swapped), new long[] {9, 4});
        assertEquals("[[6, 6] of dims [1, 0]]", t.toString());
        assertEquals("[3, 2]", Arrays.toString(t.getFirst().viewIndex(new long[] {3, 3}, new long[] {9, 4})));
        // Not a row-major index of whole dims (a constant, a coefficient that is not a size): none.
        assertEquals(List.of(), DomainBoxes.regroupings(List.of(IndexingMap.parse("(d0, d1) -> (d0), domain:"
                + " d0 in [0, 3], d1 in [0, 8], (d0 * 9 + d1 + 1) mod 6 in [0, 2], (d0 * 8 + d1) mod 6 in [0, 2]")), dims));
    }

    /**
     * A staircase no regrouping names (a crop of a reshaped concatenation: the constant 1 is no
     * row-major index) repeats its rows' pattern every 2 rows: a box per run of the pattern, each
     * over every other row, not a box per row segment (1,200 of them, past {@link DomainBoxes#MAX_BOXES}).
     */
    @Test
    void aStaircaseIsAStridedFamilyOfBoxesPerRunOfItsRowPattern() {
        IndexingMap first = IndexingMap.parse("(d0, d1) -> (0), domain: d0 in [0, 399], d1 in [0, 9],"
                + " (d0 * 12 + d1 + 1) mod 8 in [0, 2]");
        IndexingMap second = IndexingMap.parse("(d0, d1) -> (0), domain: d0 in [0, 399], d1 in [0, 9],"
                + " (d0 * 12 + d1 + 1) mod 8 in [3, 7]");
        long[] dims = {400, 10};
        assertEquals(List.of(), DomainBoxes.regroupings(List.of(first, second), dims));
        assertEquals("[[0:399:2, 0:2], [0:399:2, 7:10], [1:400:2, 3:6]]", DomainBoxes.domain(first, dims).toString());
        assertEquals(6, check(List.of(first, second), dims).size());
    }

    /**
     * Random staircases {@code (sum a_i * d_i + c) mod m} over many rows, several pieces in lookup
     * order, against brute force; each piece's boxes are at most {@code min(n_i, m)} per
     * dimension multiplied, however many rows there are.
     */
    @Test
    void randomStaircasesCutIntoBoxesPerRowPatternAgainstBruteForce() {
        Random random = new Random(36);
        for (int round = 0; round < 150; round++) {
            int rank = 2 + random.nextInt(2);
            long[] dims = new long[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = d == 0 ? 200 + random.nextInt(800) : 1 + random.nextInt(rank == 2 ? 24 : 6);
            }
            long m = 2 + random.nextInt(11);
            AffineExpr sum = AffineExpr.constant(random.nextInt(7) - 3);
            for (int d = 0; d < rank; d++) {
                sum = sum.plus(AffineExpr.dim(d).times(random.nextInt(41) - 20));
            }
            long cut = random.nextInt((int) m);
            List<IndexingMap> maps = new ArrayList<>();
            for (Interval part : List.of(new Interval(0, cut), new Interval(cut + 1, m - 1), new Interval(0, m - 1))) {
                List<Variable> vars = new ArrayList<>();
                for (long n : dims) {
                    vars.add(Variable.of(0, n - 1));
                }
                maps.add(IndexingMap.of(vars, List.of(), List.of(), List.of(AffineExpr.constant(0)),
                        part.isEmpty() ? Map.of() : Map.of(sum.mod(m), part)));
            }
            check(maps, dims);
            // Each dimension cut by the term's period (at most m) or into its runs (fewer).
            long bound = 1;
            for (long n : dims) {
                bound *= Math.min(n, m);
            }
            for (IndexingMap map : maps.subList(0, 2)) {
                int boxes = DomainBoxes.domain(map, dims).size();
                assertTrue(boxes <= bound, boxes + " boxes for " + map + " over " + Arrays.toString(dims));
            }
        }
    }

    @Test
    void anInteriorPadsDataIsOneStridedBox() {
        IndexingMap data = IndexingMap.parse("(d0, d1) -> (((d0 + 1) floordiv 2) * 3 + d1 - 2), domain: d0 in [1, 3],"
                + " d1 in [0, 1], (d0 + 1) mod 2 in [0, 0]");
        assertEquals("[[1:4:2, 0:2]]", DomainBoxes.domain(data, new long[] {6, 3}).toString());
        IndexingMap fill = IndexingMap.parse("(d0, d1) -> (0), domain: d0 in [0, 5], d1 in [0, 2]");
        List<DomainBoxes.Placed> placed = check(List.of(data, fill), new long[] {6, 3});
        assertEquals(1, placed.stream().filter(p -> p.piece() == 0).count(), placed.toString());
    }

    @Test
    void boxesIntersectAndSubtractAsSetsOfIndices() {
        Random random = new Random(11);
        for (int round = 0; round < 2000; round++) {
            DomainBoxes.Box a = randomBox(random);
            DomainBoxes.Box b = randomBox(random);
            DomainBoxes.Box both = a.intersect(b);
            List<DomainBoxes.Box> rest = a.minus(b);
            for (long i = 0; i < 40; i++) {
                long x = i;
                boolean inA = holds(a, x);
                boolean inB = holds(b, x);
                assertEquals(inA && inB, both != null && holds(both, x), a + " & " + b + " at " + x);
                long in = rest.stream().filter(r -> holds(r, x)).count();
                assertEquals(inA && !inB ? 1 : 0, in, a + " - " + b + " = " + rest + " at " + x);
            }
        }
    }

    /** Random pieces with affine, modulo, division and min constraints, in lookup order. */
    @Test
    void randomDomainsCutIntoDisjointBoxesOfTheFirstPieceHoldingEachIndex() {
        Random random = new Random(20261202);
        for (int round = 0; round < 400; round++) {
            int rank = 1 + random.nextInt(3);
            long[] dims = new long[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = 1 + random.nextInt(7);
            }
            List<IndexingMap> maps = new ArrayList<>();
            int pieces = 1 + random.nextInt(4);
            for (int p = 0; p < pieces; p++) {
                maps.add(randomMap(random, dims));
            }
            check(maps, dims);
        }
    }

    private static IndexingMap randomMap(Random random, long[] dims) {
        int rank = dims.length;
        List<Variable> vars = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            long lo = random.nextInt((int) dims[d] + 1) - 1;
            long hi = lo + random.nextInt((int) dims[d] + 2);
            vars.add(Variable.of(lo, hi));
        }
        Map<AffineExpr, Interval> constraints = new LinkedHashMap<>();
        int n = random.nextInt(3);
        for (int c = 0; c < n; c++) {
            AffineExpr e = AffineExpr.constant(random.nextInt(5) - 2);
            for (int d = 0; d < rank; d++) {
                if (random.nextBoolean()) {
                    e = e.plus(AffineExpr.dim(d).times(random.nextInt(9) - 4));
                }
            }
            e = switch (random.nextInt(5)) {
                case 0 -> e.mod(2 + random.nextInt(4));
                case 1 -> e.floorDiv(2 + random.nextInt(3));
                case 2 -> e.min(AffineExpr.dim(random.nextInt(rank)).times(2));
                default -> e;
            };
            long lo = random.nextInt(13) - 6;
            constraints.put(e, new Interval(lo, lo + random.nextInt(8)));
        }
        return IndexingMap.of(vars, List.of(), List.of(), List.of(AffineExpr.constant(0)), constraints);
    }

    @Test
    void aStaircaseOfShortRowsWithNoPeriodIsABoxAPartALap() {
        // f32[256,1000] and f32[256,31] joined along 1 (rows of 1,031, a prime: no period under
        // MAX_PERIOD), reshaped to rows of 4, columns 1 and 2: the first part's value runs over
        // 256 laps of 1,031; each lap is a run of whole rows and an edge row or two.
        IndexingMap first = IndexingMap.parse("(d0, d1) -> (0), domain: d0 in [0, 65983], d1 in [0, 1],"
                + " (d0 * 4 + d1 + 1) mod 1031 in [0, 999]");
        IndexingMap second = IndexingMap.parse("(d0, d1) -> (0), domain: d0 in [0, 65983], d1 in [0, 1],"
                + " (d0 * 4 + d1 + 1) mod 1031 in [1000, 1030]");
        List<DomainBoxes.Placed> placed = check(List.of(first, second), new long[] {65984, 2}, 4096);
        // Halving left some thirty boxes a lap (about 16 elements each).
        assertTrue(placed.size() <= 4 * 256 + 8, placed.size() + " boxes");
    }

    @Test
    void randomStaircasesWithNoPeriodCutByLapsAgainstBruteForce() {
        Random random = new Random(3636);
        int[] primes = {1031, 1033, 1039, 1049, 1051};
        for (int round = 0; round < 40; round++) {
            long m = primes[random.nextInt(primes.length)];
            int rank = 2 + random.nextInt(2);
            long[] dims = new long[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = d == 0 ? 100 + random.nextInt(700) : 1 + random.nextInt(rank == 2 ? 12 : 4);
            }
            // The outer dimension's coefficient the largest (a reshape's), now and then falling.
            long outer = (random.nextInt(8) == 0 ? -1 : 1) * (40 + random.nextInt(700));
            AffineExpr sum = AffineExpr.constant(random.nextInt(2000) - 1000).plus(AffineExpr.dim(0).times(outer));
            for (int d = 1; d < rank; d++) {
                sum = sum.plus(AffineExpr.dim(d).times(random.nextInt(13) - 4));
            }
            long cut = random.nextInt((int) m);
            List<IndexingMap> maps = new ArrayList<>();
            for (Interval part : List.of(new Interval(0, cut), new Interval(cut + 1, m - 1), new Interval(0, m - 1))) {
                List<Variable> vars = new ArrayList<>();
                for (long n : dims) {
                    vars.add(Variable.of(0, n - 1));
                }
                maps.add(IndexingMap.of(vars, List.of(), List.of(), List.of(AffineExpr.constant(0)),
                        part.isEmpty() ? Map.of() : Map.of(sum.mod(m), part)));
            }
            check(maps, dims, 1 << 14);
        }
    }

    @Test
    void aCutOfTinyBoxesIsRefusedAtTheRateOfItsFirstRows() {
        // Each row's value spans more than the modulus (d1 * 150 over 64 columns): no lap holds a
        // whole row, so each row is nine runs or so, about 3.5 elements a box: some 19,000 boxes.
        IndexingMap map = IndexingMap.parse("(d0, d1) -> (0), domain: d0 in [0, 2047], d1 in [0, 63],"
                + " (d0 * 1000 + d1 * 150) mod 1031 in [0, 515]");
        int limit = 1 << 14;
        DomainBoxes.TooManyBoxes refused = org.junit.jupiter.api.Assertions.assertThrows(DomainBoxes.TooManyBoxes.class,
                () -> DomainBoxes.of(List.of(map), new long[] {2048, 64}, limit));
        assertTrue(refused.getMessage().contains("would cut into about"), refused.getMessage());
        // Refused before the boxes allowed were cut, not at the limit.
        assertTrue(refused.boxes() < limit, refused.getMessage());
    }

    /** {@return the boxes of {@code maps} over {@code dims}, checked index by index against the maps} */
    private static List<DomainBoxes.Placed> check(List<IndexingMap> maps, long[] dims) {
        return check(maps, dims, DomainBoxes.MAX_BOXES);
    }

    /** {@return as {@link #check(List, long[])}, allowed {@code limit} boxes} */
    private static List<DomainBoxes.Placed> check(List<IndexingMap> maps, long[] dims, int limit) {
        List<DomainBoxes.Placed> placed = DomainBoxes.of(maps, dims, limit);
        int rank = dims.length;
        long total = 1;
        for (long d : dims) {
            total *= d;
        }
        int[] piece = new int[(int) total];
        Arrays.fill(piece, -1);
        for (DomainBoxes.Placed p : placed) {
            long[] k = new long[rank];
            do {
                int at = 0;
                for (int d = 0; d < rank; d++) {
                    long x = p.box().start()[d] + p.box().step()[d] * k[d];
                    // Messages built only on failure: a list of boxes an index is quadratic.
                    assertTrue(x >= 0 && x < dims[d], () -> p + " leaves " + Arrays.toString(dims));
                    at = (int) (at * dims[d] + x);
                }
                int slot = at;
                assertEquals(-1, piece[at], () -> "boxes overlap at " + slot + ": " + placed + "\n" + maps);
                piece[at] = p.piece();
            } while (next(k, p.box().count()));
        }
        long[] index = new long[rank];
        int at = 0;
        do {
            int want = -1;
            for (int m = 0; m < maps.size() && want < 0; m++) {
                if (maps.get(m).contains(index, new long[0], new long[0])) {
                    want = m;
                }
            }
            if (want != piece[at]) {
                assertEquals(want, piece[at], "index " + Arrays.toString(index) + ": " + placed + "\n" + maps);
            }
            at++;
        } while (next(index, dims));
        return placed;
    }

    private static boolean next(long[] index, long[] dims) {
        for (int d = index.length - 1; d >= 0; d--) {
            if (++index[d] < dims[d]) {
                return true;
            }
            index[d] = 0;
        }
        return false;
    }

    private static DomainBoxes.Box randomBox(Random random) {
        long count = 1 + random.nextInt(6);
        long step = count == 1 ? 1 : 1 + random.nextInt(4);
        return new DomainBoxes.Box(new long[] {random.nextInt(12)}, new long[] {step}, new long[] {count});
    }

    private static boolean holds(DomainBoxes.Box b, long x) {
        long s = b.start()[0];
        return x >= s && x <= b.last(0) && (x - s) % b.step()[0] == 0;
    }
}
