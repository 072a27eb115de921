package dev.tensorbuf.views.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Random maps against brute force. Seed printed; rerun with {@code -Dtensorbuf.seed=N}. */
class IndexingMapPropertyTest {
    private static final int MAPS = 300;
    private static long seed;

    @BeforeAll
    static void pickSeed() {
        seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("[IndexingMapPropertyTest] seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
    }

    static final class Gen {
        final Random rnd;
        int nd;
        int ns;
        int nr;

        Gen(Random rnd) {
            this.rnd = rnd;
        }

        AffineExpr expr(int depth) {
            int pick = depth <= 0 ? rnd.nextInt(3) : rnd.nextInt(10);
            return switch (pick) {
                case 0, 1 -> variable();
                case 2 -> AffineExpr.constant(rnd.nextInt(11) - 5);
                case 3, 4 -> expr(depth - 1).plus(expr(depth - 1));
                case 5 -> expr(depth - 1).times(rnd.nextInt(9) - 4);
                case 6 -> expr(depth - 1).floorDiv(1 + rnd.nextInt(8));
                case 7 -> expr(depth - 1).mod(1 + rnd.nextInt(8));
                case 8 -> rnd.nextBoolean() ? expr(depth - 1).min(expr(depth - 1)) : expr(depth - 1).max(expr(depth - 1));
                default -> expr(depth - 1).times(1 + rnd.nextInt(16)).plus(expr(depth - 1));
            };
        }

        AffineExpr variable() {
            int total = nd + ns + nr;
            if (total == 0) {
                return AffineExpr.constant(rnd.nextInt(5));
            }
            int k = rnd.nextInt(total);
            return k < nd ? AffineExpr.dim(k) : k < nd + ns ? AffineExpr.sym(k - nd) : AffineExpr.rt(k - nd - ns);
        }

        List<Variable> vars(int n) {
            List<Variable> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long lo = rnd.nextInt(4) == 0 ? -rnd.nextInt(5) : 0;
                out.add(Variable.of(lo, lo + rnd.nextInt(12)));
            }
            return out;
        }

        IndexingMap map(int dims, int results) {
            nd = dims;
            ns = rnd.nextInt(3);
            nr = rnd.nextInt(4) == 0 ? 1 : 0;
            List<AffineExpr> res = new ArrayList<>();
            for (int i = 0; i < results; i++) {
                res.add(expr(3));
            }
            Map<AffineExpr, Interval> cons = new LinkedHashMap<>();
            for (int i = rnd.nextInt(3); i > 0; i--) {
                long lo = rnd.nextInt(20) - 5;
                cons.put(expr(2), new Interval(lo, lo + rnd.nextInt(30)));
            }
            return IndexingMap.of(vars(nd), vars(ns), vars(nr), res, cons);
        }
    }

    @Test
    void simplificationNeverChangesAMapsValuesOnItsDomain() {
        Gen g = new Gen(new Random(seed));
        for (int i = 0; i < MAPS; i++) {
            IndexingMap m = g.map(1 + g.rnd.nextInt(3), 1 + g.rnd.nextInt(2));
            IndexingMap s = m.simplify();
            assertNull(MapSemantics.difference(m, s), "seed " + seed + " map " + i + ":\n  " + m + "\n  " + s);
            assertNull(MapSemantics.difference(s, s.simplify()), "seed " + seed + " map " + i + " twice: " + s);
        }
    }

    @Test
    void compositionEqualsEvaluatingProducerThenConsumer() {
        Gen g = new Gen(new Random(seed + 1));
        for (int i = 0; i < MAPS; i++) {
            int mid = 1 + g.rnd.nextInt(2);
            IndexingMap first = g.map(1 + g.rnd.nextInt(2), mid);
            IndexingMap second = g.map(mid, 1 + g.rnd.nextInt(2));
            IndexingMap c = IndexingMap.compose(second, first);
            String ctx = "seed " + seed + " pair " + i + ":\n  first  " + first + "\n  second " + second + "\n  c " + c;
            List<Interval> box = new ArrayList<>(first.dimBounds());
            box.addAll(second.rangeVarBounds());
            box.addAll(first.rangeVarBounds());
            box.addAll(second.runtimeVarBounds());
            box.addAll(first.runtimeVarBounds());
            int nd = first.dims().size();
            int nsB = second.rangeVars().size();
            int ns = nsB + first.rangeVars().size();
            int nrB = second.runtimeVars().size();
            for (long[] p : MapSemantics.points(box)) {
                long[] d = Arrays.copyOfRange(p, 0, nd);
                long[] s = Arrays.copyOfRange(p, nd, nd + ns);
                long[] r = Arrays.copyOfRange(p, nd + ns, p.length);
                long[] sB = Arrays.copyOfRange(s, 0, nsB);
                long[] sA = Arrays.copyOfRange(s, nsB, ns);
                long[] rB = Arrays.copyOfRange(r, 0, nrB);
                long[] rA = Arrays.copyOfRange(r, nrB, r.length);
                boolean inFirst = first.contains(d, sA, rA);
                String mid1 = inFirst ? MapSemantics.eval(first, d, sA, rA) : "";
                if (mid1.equals("error")) {
                    continue;
                }
                boolean want = inFirst && second.contains(first.evaluate(d, sA, rA), sB, rB);
                assertEquals(want, c.contains(d, s, r), ctx + "\n  at " + Arrays.toString(p));
                if (want) {
                    assertEquals(MapSemantics.eval(second, first.evaluate(d, sA, rA), sB, rB),
                            MapSemantics.eval(c, d, s, r), ctx + "\n  at " + Arrays.toString(p));
                }
            }
            assertNull(MapSemantics.difference(c, c.simplify()), ctx);
        }
    }

    @Test
    void parsingThePrintedMapGivesTheSameMap() {
        Gen g = new Gen(new Random(seed + 2));
        for (int i = 0; i < MAPS; i++) {
            IndexingMap m = g.map(g.rnd.nextInt(4), g.rnd.nextInt(3));
            if (m.isKnownEmpty()) {
                continue;
            }
            assertEquals(m, IndexingMap.parse(m.toString()), "seed " + seed + ": " + m);
            assertEquals(m, IndexingMap.parse(m.toText(IndexingMap.Notation.MLIR)), "seed " + seed + ": " + m.toText(IndexingMap.Notation.MLIR));
            IndexingMap s = m.simplify();
            if (!s.isKnownEmpty()) {
                assertEquals(s, IndexingMap.parse(s.toString()), "seed " + seed + ": " + s);
            }
        }
    }

    @Test
    void compiledEvaluatorAgreesWithEvaluate() {
        Gen g = new Gen(new Random(seed + 3));
        for (int i = 0; i < MAPS; i++) {
            IndexingMap m = g.map(1 + g.rnd.nextInt(3), 1 + g.rnd.nextInt(3));
            IndexingMap.Compiled c = m.compile();
            long[] out = new long[c.resultCount()];
            List<Interval> box = new ArrayList<>(m.dimBounds());
            box.addAll(m.rangeVarBounds());
            box.addAll(m.runtimeVarBounds());
            int nd = m.dims().size();
            int ns = m.rangeVars().size();
            for (long[] p : MapSemantics.points(box)) {
                long[] d = Arrays.copyOfRange(p, 0, nd);
                long[] s = Arrays.copyOfRange(p, nd, nd + ns);
                long[] r = Arrays.copyOfRange(p, nd + ns, p.length);
                String want = MapSemantics.eval(m, d, s, r);
                String got;
                try {
                    c.evaluateAll(d, s, r, out);
                    got = Arrays.toString(out);
                } catch (IllegalArgumentException e) {
                    got = "error";
                }
                assertEquals(want, got, "seed " + seed + ": " + m + " at " + Arrays.toString(p));
            }
        }
    }

    /**
     * A dim {@code readsDim} says no result or constraint reads does not change where a point maps,
     * or whether it is in the domain: every value of it in its bounds gives what its lowest gives.
     */
    @Test
    void aDimNotReadNeverChangesAPointsValue() {
        IndexingMap m = IndexingMap.parse("(d0, d1, d2)[s0] -> (d1 + s0), domain: d0 in [0, 3], d1 in [0, 4], "
                + "d2 in [0, 2], s0 in [0, 1], d2 + s0 in [0, 2]");
        assertEquals(List.of(false, true, true), List.of(m.readsDim(0), m.readsDim(1), m.readsDim(2)));
        Gen g = new Gen(new Random(seed + 4));
        int notRead = 0;
        for (int i = 0; i < MAPS; i++) {
            IndexingMap map = g.map(1 + g.rnd.nextInt(3), 1 + g.rnd.nextInt(2));
            List<Interval> box = new ArrayList<>(map.dimBounds());
            box.addAll(map.rangeVarBounds());
            box.addAll(map.runtimeVarBounds());
            int nd = map.dims().size();
            int ns = map.rangeVars().size();
            for (int k = 0; k < nd; k++) {
                if (map.readsDim(k) || map.dimBounds().get(k).isEmpty()) {
                    continue;
                }
                notRead++;
                for (long[] p : MapSemantics.points(box)) {
                    long[] d = Arrays.copyOfRange(p, 0, nd);
                    long[] s = Arrays.copyOfRange(p, nd, nd + ns);
                    long[] r = Arrays.copyOfRange(p, nd + ns, p.length);
                    String at = MapSemantics.eval(map, d, s, r);
                    d[k] = map.dimBounds().get(k).lo();
                    assertEquals(MapSemantics.eval(map, d, s, r), at,
                            "seed " + seed + ": " + map + " at " + Arrays.toString(p) + " against d" + k + " lowest");
                }
            }
        }
        assertTrue(notRead > MAPS / 10, "only " + notRead + " dims not read in " + MAPS + " maps");
    }
}
