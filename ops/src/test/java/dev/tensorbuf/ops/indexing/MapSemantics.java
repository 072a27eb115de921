package dev.tensorbuf.ops.indexing;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Semantic comparison of indexing maps: the same function on the same feasible set. For every
 * dimension point (all of them for small domains, else a random sample with the corners) and
 * runtime-variable point, both maps must give the same set of results over their range
 * variables, constraints included. Runtime variables are free parameters, so a map whose
 * runtime variables are a permutation of the other's is accepted.
 */
final class MapSemantics {
    /** How many single evaluations one comparison may spend, per map. */
    private static final long BUDGET = 400_000;

    private MapSemantics() {
    }

    static final String KNOWN_EMPTY = "KNOWN EMPTY";

    /** {@return null when equivalent, else what differs} */
    static String difference(IndexingMap actual, String expectedText, long seed) {
        String t = expectedText.strip();
        if (t.equals(KNOWN_EMPTY)) {
            return actual.isUndefined() ? "expected KNOWN EMPTY, got UNDEFINED"
                    : feasiblePoint(actual, seed) == null ? null : "expected KNOWN EMPTY, but "
                    + Arrays.toString(feasiblePoint(actual, seed)) + " is feasible in " + actual;
        }
        if (t.equals("UNDEFINED") || t.equals("unknown indexing")) {
            return actual.isUndefined() ? null : "expected UNDEFINED, got " + actual;
        }
        return difference(actual, IndexingMap.parse(t), seed);
    }

    static String difference(IndexingMap a, IndexingMap e, long seed) {
        if (a.isUndefined() || e.isUndefined()) {
            return a.isUndefined() == e.isUndefined() ? null : "one map is UNDEFINED: " + a + " vs " + e;
        }
        if (a.isKnownEmpty() || e.isKnownEmpty()) {
            boolean aEmpty = feasiblePoint(a, seed) == null;
            boolean eEmpty = feasiblePoint(e, seed) == null;
            return aEmpty == eEmpty ? null : "feasible sets differ in emptiness: " + a + " vs " + e;
        }
        if (a.dims().size() != e.dims().size()) {
            return "dimension counts differ: " + a.dims().size() + " vs " + e.dims().size();
        }
        if (a.runtimeVars().size() != e.runtimeVars().size()) {
            return "runtime variable counts differ: " + a.runtimeVars().size() + " vs " + e.runtimeVars().size();
        }
        if (a.results().size() != e.results().size()) {
            return "result counts differ: " + a.results().size() + " vs " + e.results().size();
        }
        String first = null;
        for (int[] perm : permutations(a.runtimeVars().size())) {
            String d = compare(a, e, perm, seed);
            if (d == null) {
                return null;
            }
            if (first == null) {
                first = d;
            }
        }
        return first;
    }

    /** Compares with actual runtime variable perm[i] playing expected runtime variable i. */
    private static String compare(IndexingMap a, IndexingMap e, int[] perm, long seed) {
        Random rnd = new Random(seed);
        int nd = a.dims().size();
        Interval[] dimBox = new Interval[nd];
        for (int i = 0; i < nd; i++) {
            dimBox[i] = hull(a.dims().get(i).bounds(), e.dims().get(i).bounds());
        }
        int nr = e.runtimeVars().size();
        Interval[] rtBox = new Interval[nr];
        for (int i = 0; i < nr; i++) {
            rtBox[i] = hull(a.runtimeVars().get(perm[i]).bounds(), e.runtimeVars().get(i).bounds());
        }
        long rangeCost = Math.max(boxSize(bounds(a.rangeVars())), 1) + Math.max(boxSize(bounds(e.rangeVars())), 1);
        long dimPoints = boxSize(dimBox);
        int rtSamples = nr == 0 ? 1 : 6;
        long affordable = Math.max(16, BUDGET / (rangeCost * rtSamples));
        List<long[]> points = new ArrayList<>();
        if (dimPoints <= affordable) {
            forEachPoint(dimBox, p -> points.add(p.clone()));
        } else {
            points.add(corner(dimBox, false));
            points.add(corner(dimBox, true));
            for (long i = 0; i < affordable; i++) {
                points.add(randomPoint(dimBox, rnd));
            }
        }
        for (long[] d : points) {
            for (int r = 0; r < rtSamples; r++) {
                long[] rtE = nr == 0 ? new long[0] : r == 0 ? corner(rtBox, false) : r == 1 ? corner(rtBox, true)
                        : randomPoint(rtBox, rnd);
                long[] rtA = new long[nr];
                for (int i = 0; i < nr; i++) {
                    rtA[perm[i]] = rtE[i];
                }
                Set<List<Long>> ra = results(a, d, rtA);
                Set<List<Long>> re = results(e, d, rtE);
                if (!ra.equals(re)) {
                    return "at d=" + Arrays.toString(d) + " rt=" + Arrays.toString(rtE) + ": actual reads "
                            + sample(ra) + ", expected " + sample(re) + "\n  actual:   " + a + "\n  expected: " + e;
                }
            }
        }
        return null;
    }

    private static String sample(Set<List<Long>> s) {
        return s.size() <= 6 ? s.toString() : s.size() + " points incl. " + s.iterator().next();
    }

    private static Set<List<Long>> results(IndexingMap m, long[] d, long[] rt) {
        Set<List<Long>> out = new HashSet<>();
        Interval[] box = bounds(m.rangeVars());
        forEachPoint(box, s -> {
            if (m.contains(d, s, rt)) {
                long[] r = m.evaluate(d, s, rt);
                out.add(Arrays.stream(r).boxed().toList());
            }
        });
        return out;
    }

    /** {@return some point (dims, ranges, runtime) satisfying the map, or null when none is found} */
    private static long[] feasiblePoint(IndexingMap m, long seed) {
        if (m.isKnownEmpty() || m.isUndefined()) {
            return null;
        }
        List<Variable> all = new ArrayList<>(m.dims());
        all.addAll(m.rangeVars());
        all.addAll(m.runtimeVars());
        Interval[] box = bounds(all);
        int nd = m.dims().size();
        int ns = m.rangeVars().size();
        long[][] found = new long[1][];
        java.util.function.Consumer<long[]> test = p -> {
            if (found[0] == null && m.contains(Arrays.copyOfRange(p, 0, nd), Arrays.copyOfRange(p, nd, nd + ns),
                    Arrays.copyOfRange(p, nd + ns, p.length))) {
                found[0] = p.clone();
            }
        };
        if (boxSize(box) <= BUDGET) {
            forEachPoint(box, test);
        } else {
            Random rnd = new Random(seed);
            for (int i = 0; i < BUDGET && found[0] == null; i++) {
                test.accept(randomPoint(box, rnd));
            }
        }
        return found[0];
    }

    private static Interval hull(Interval a, Interval b) {
        if (a.isEmpty()) {
            return b;
        }
        if (b.isEmpty()) {
            return a;
        }
        return new Interval(Math.min(a.lo(), b.lo()), Math.max(a.hi(), b.hi()));
    }

    private static Interval[] bounds(List<Variable> vars) {
        return vars.stream().map(Variable::bounds).toArray(Interval[]::new);
    }

    private static long boxSize(Interval[] box) {
        long n = 1;
        for (Interval i : box) {
            if (i.isEmpty()) {
                return 0;
            }
            long size = i.hi() - i.lo() + 1;
            if (n > Long.MAX_VALUE / Math.max(size, 1)) {
                return Long.MAX_VALUE;
            }
            n *= size;
        }
        return n;
    }

    private static void forEachPoint(Interval[] box, java.util.function.Consumer<long[]> action) {
        for (Interval i : box) {
            if (i.isEmpty()) {
                return;
            }
        }
        long[] p = new long[box.length];
        for (int i = 0; i < box.length; i++) {
            p[i] = box[i].lo();
        }
        while (true) {
            action.accept(p);
            int k = box.length - 1;
            while (k >= 0 && p[k] == box[k].hi()) {
                p[k] = box[k].lo();
                k--;
            }
            if (k < 0) {
                return;
            }
            p[k]++;
        }
    }

    private static long[] corner(Interval[] box, boolean high) {
        long[] p = new long[box.length];
        for (int i = 0; i < box.length; i++) {
            p[i] = high ? box[i].hi() : box[i].lo();
        }
        return p;
    }

    private static long[] randomPoint(Interval[] box, Random rnd) {
        long[] p = new long[box.length];
        for (int i = 0; i < box.length; i++) {
            p[i] = box[i].lo() + (long) (rnd.nextDouble() * (box[i].hi() - box[i].lo() + 1));
        }
        return p;
    }

    private static List<int[]> permutations(int n) {
        List<int[]> out = new ArrayList<>();
        permute(new int[n], new boolean[n], 0, out);
        return out;
    }

    private static void permute(int[] p, boolean[] used, int k, List<int[]> out) {
        if (k == p.length) {
            out.add(p.clone());
            return;
        }
        for (int i = 0; i < p.length; i++) {
            if (!used[i]) {
                used[i] = true;
                p[k] = i;
                permute(p, used, k + 1, out);
                used[i] = false;
            }
        }
    }

    /**
     * {@return null when the actual maps and the expected texts match one to one (in order when
     * {@code ordered}), else what is missing}
     */
    static String sameSet(List<IndexingMap> actual, List<String> expected, boolean ordered, long seed) {
        if (actual.size() != expected.size()) {
            return "expected " + expected.size() + " maps, got " + actual.size() + ": " + actual;
        }
        boolean[] taken = new boolean[actual.size()];
        for (int i = 0; i < expected.size(); i++) {
            String why = null;
            boolean matched = false;
            for (int j = ordered ? i : 0; j < (ordered ? i + 1 : actual.size()); j++) {
                if (taken[j]) {
                    continue;
                }
                String d = difference(actual.get(j), expected.get(i), seed);
                if (d == null) {
                    taken[j] = true;
                    matched = true;
                    break;
                }
                why = d;
            }
            if (!matched) {
                return "no actual map matches expected map " + i + " " + expected.get(i).replaceAll("\\s+", " ")
                        + (why == null ? "" : "; last difference: " + why);
            }
        }
        return null;
    }
}
