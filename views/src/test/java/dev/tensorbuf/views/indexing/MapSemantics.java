package dev.tensorbuf.views.indexing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Brute-force semantics of indexing maps for tests: two maps agree when, for every value of the
 * dimensions and runtime variables, the set of result tuples over the feasible range-variable
 * values is the same (an empty set on both sides included). Small boxes are enumerated; large
 * ones are sampled.
 */
final class MapSemantics {
    static final long ENUMERATE_LIMIT = 200_000;
    static final int SAMPLES = 20_000;

    private MapSemantics() {}

    /** {@return null when the maps agree, else a description of the first difference} */
    static String difference(IndexingMap a, IndexingMap b) {
        if (a.isKnownEmpty() && b.isKnownEmpty()) {
            return null;
        }
        if (a.isKnownEmpty() || b.isKnownEmpty()) {
            IndexingMap other = a.isKnownEmpty() ? b : a;
            return hasFeasiblePoint(other) ? "one map is KNOWN EMPTY, the other has a feasible point" : null;
        }
        if (a.dims().size() != b.dims().size() || a.runtimeVars().size() != b.runtimeVars().size()
                || a.results().size() != b.results().size()) {
            return "different arity: " + a + " vs " + b;
        }
        String pointwise = a.rangeVars().size() == b.rangeVars().size() ? pointwise(a, b) : "range vars differ";
        if (pointwise == null) {
            return null;
        }
        String sets = setwise(a, b);
        return sets == null ? null : pointwise + "; " + sets;
    }

    private static List<Interval> union(List<Interval> x, List<Interval> y) {
        List<Interval> out = new ArrayList<>();
        for (int i = 0; i < x.size(); i++) {
            out.add(x.get(i).union(y.get(i)));
        }
        return out;
    }

    private static long volume(List<Interval> box) {
        long v = 1;
        for (Interval i : box) {
            long s = i.size();
            if (s == 0) {
                return 0;
            }
            if (v > Long.MAX_VALUE / s) {
                return Long.MAX_VALUE;
            }
            v *= s;
        }
        return v;
    }

    /** Same membership and same results at every (dims, range vars, runtime vars) point. */
    static String pointwise(IndexingMap a, IndexingMap b) {
        List<Interval> box = new ArrayList<>(union(a.dimBounds(), b.dimBounds()));
        box.addAll(union(a.rangeVarBounds(), b.rangeVarBounds()));
        box.addAll(union(a.runtimeVarBounds(), b.runtimeVarBounds()));
        int nd = a.dims().size();
        int ns = a.rangeVars().size();
        for (long[] p : points(box)) {
            long[] d = Arrays.copyOfRange(p, 0, nd);
            long[] s = Arrays.copyOfRange(p, nd, nd + ns);
            long[] r = Arrays.copyOfRange(p, nd + ns, p.length);
            boolean ia = a.contains(d, s, r);
            boolean ib = b.contains(d, s, r);
            if (ia != ib) {
                return "membership differs at " + Arrays.toString(p) + ": " + ia + " vs " + ib;
            }
            if (ia) {
                String ra = eval(a, d, s, r);
                String rb = eval(b, d, s, r);
                if (!ra.equals(rb)) {
                    return "results differ at " + Arrays.toString(p) + ": " + ra + " vs " + rb;
                }
            }
        }
        return null;
    }

    /** Same set of results over the range variables at every (dims, runtime vars) point. */
    private static String setwise(IndexingMap a, IndexingMap b) {
        if (volume(a.rangeVarBounds()) > 5_000 || volume(b.rangeVarBounds()) > 5_000) {
            return "range variables too many to enumerate";
        }
        List<Interval> box = new ArrayList<>(union(a.dimBounds(), b.dimBounds()));
        box.addAll(union(a.runtimeVarBounds(), b.runtimeVarBounds()));
        int nd = a.dims().size();
        for (long[] p : points(box)) {
            long[] d = Arrays.copyOfRange(p, 0, nd);
            long[] r = Arrays.copyOfRange(p, nd, p.length);
            Set<List<Long>> sa = resultSet(a, d, r);
            Set<List<Long>> sb = resultSet(b, d, r);
            if (!sa.equals(sb)) {
                return "result sets differ at " + Arrays.toString(p) + ": " + sa + " vs " + sb;
            }
        }
        return null;
    }

    private static Set<List<Long>> resultSet(IndexingMap m, long[] d, long[] r) {
        Set<List<Long>> out = new HashSet<>();
        for (long[] s : all(m.rangeVarBounds())) {
            if (m.contains(d, s, r)) {
                try {
                    out.add(Arrays.stream(m.evaluate(d, s, r)).boxed().toList());
                } catch (IllegalArgumentException e) {
                    out.add(List.of(Long.MIN_VALUE));
                }
            }
        }
        return out;
    }

    /** Results as text; a failed evaluation (division by zero, overflow) is one distinct value. */
    static String eval(IndexingMap m, long[] d, long[] s, long[] r) {
        try {
            return Arrays.toString(m.evaluate(d, s, r));
        } catch (IllegalArgumentException e) {
            return "error";
        }
    }

    static boolean hasFeasiblePoint(IndexingMap m) {
        if (m.isKnownEmpty()) {
            return false;
        }
        List<Interval> box = new ArrayList<>(m.dimBounds());
        box.addAll(m.rangeVarBounds());
        box.addAll(m.runtimeVarBounds());
        int nd = m.dims().size();
        int ns = m.rangeVars().size();
        for (long[] p : points(box)) {
            if (m.contains(Arrays.copyOfRange(p, 0, nd), Arrays.copyOfRange(p, nd, nd + ns),
                    Arrays.copyOfRange(p, nd + ns, p.length))) {
                return true;
            }
        }
        return false;
    }

    /** Every point of a small box, or a fixed-seed sample of a large one (corners included). */
    static List<long[]> points(List<Interval> box) {
        long vol = volume(box);
        if (vol == 0) {
            return List.of();
        }
        if (vol <= ENUMERATE_LIMIT) {
            return all(box);
        }
        Random rnd = new Random(42);
        List<long[]> out = new ArrayList<>();
        for (int k = 0; k < SAMPLES; k++) {
            long[] p = new long[box.size()];
            for (int i = 0; i < p.length; i++) {
                Interval in = box.get(i);
                int corner = rnd.nextInt(8);
                long size = Math.max(1, Math.min(in.size(), 1L << 40));
                p[i] = corner == 0 ? in.lo() : corner == 1 ? in.hi() : in.lo() + Math.floorMod(rnd.nextLong(), size);
            }
            out.add(p);
        }
        return out;
    }

    static List<long[]> all(List<Interval> box) {
        List<long[]> out = new ArrayList<>();
        if (volume(box) == 0) {
            return out;
        }
        long[] p = new long[box.size()];
        for (int i = 0; i < p.length; i++) {
            p[i] = box.get(i).lo();
        }
        while (true) {
            out.add(p.clone());
            int i = p.length - 1;
            while (i >= 0 && p[i] == box.get(i).hi()) {
                p[i] = box.get(i).lo();
                i--;
            }
            if (i < 0) {
                return out;
            }
            p[i]++;
        }
    }
}
