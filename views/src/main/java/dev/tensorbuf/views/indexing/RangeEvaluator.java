package dev.tensorbuf.views.indexing;

import dev.tensorbuf.views.indexing.AffineExpr.Add;
import dev.tensorbuf.views.indexing.AffineExpr.CeilDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Const;
import dev.tensorbuf.views.indexing.AffineExpr.Dim;
import dev.tensorbuf.views.indexing.AffineExpr.FloorDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Max;
import dev.tensorbuf.views.indexing.AffineExpr.Min;
import dev.tensorbuf.views.indexing.AffineExpr.Mod;
import dev.tensorbuf.views.indexing.AffineExpr.Mul;
import dev.tensorbuf.views.indexing.AffineExpr.Rt;
import dev.tensorbuf.views.indexing.AffineExpr.Sym;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** Interval bounds of expressions from the bounds of their variables (constraints unused). */
final class RangeEvaluator {
    private final List<Interval> dims;
    private final List<Interval> ranges;
    private final List<Interval> runtimes;

    /**
     * Range and {@link #fits} of the nodes seen, by identity. The simplifier asks for the range of
     * each subtree at every level it rewrites, and whether each rewrite fits, so without this a
     * deep map (a long chain of reshapes) cost its size times its depth. Trees are immutable and
     * the bounds fixed: neither answer ever changes. One map holds both (two cost 1.7x the
     * simplification of a tiled layout's map).
     */
    private final Map<AffineExpr, Node> known = new IdentityHashMap<>();

    private record Node(Interval range, boolean fits) {
    }

    RangeEvaluator(List<Interval> dims, List<Interval> ranges, List<Interval> runtimes) {
        this.dims = dims;
        this.ranges = ranges;
        this.runtimes = runtimes;
    }

    static RangeEvaluator of(IndexingMap m) {
        return new RangeEvaluator(m.dimBounds(), m.rangeVarBounds(), m.runtimeVarBounds());
    }

    Interval range(AffineExpr e) {
        return switch (e) {
            case Dim(int i) -> i < dims.size() ? dims.get(i) : Interval.UNBOUNDED;
            case Sym(int i) -> i < ranges.size() ? ranges.get(i) : Interval.UNBOUNDED;
            case Rt(int i) -> i < runtimes.size() ? runtimes.get(i) : Interval.UNBOUNDED;
            case Const(long v) -> Interval.point(v);
            default -> node(e).range();
        };
    }

    /**
     * {@return whether evaluating {@code e} anywhere in the variables' bounds keeps every sum and
     * product within a long}, from the range of each operand. Divisions and the rest cannot
     * overflow ({@code Long.MIN_VALUE / -1} aside, which no rewrite introduces).
     */
    boolean fits(AffineExpr e) {
        return switch (e) {
            case Dim _, Sym _, Rt _, Const _ -> true;
            default -> node(e).fits();
        };
    }

    private Node node(AffineExpr e) {
        Node n = known.get(e);
        if (n == null) {
            n = nodeOf(e);
            known.put(e, n);
        }
        return n;
    }

    private Node nodeOf(AffineExpr e) {
        return switch (e) {
            case Dim _, Sym _, Rt _, Const _ -> new Node(range(e), true);
            case Add(AffineExpr l, AffineExpr r) -> {
                Interval a = range(l);
                Interval b = range(r);
                yield new Node(a.plus(b), fits(l) && fits(r) && sumFits(a, b));
            }
            case Mul(AffineExpr l, AffineExpr r) -> {
                Interval a = range(l);
                Interval b = range(r);
                yield new Node(a.times(b), fits(l) && fits(r) && productFits(a, b));
            }
            case FloorDiv(AffineExpr l, AffineExpr r) -> new Node(divide(range(l), range(r), false), fits(l) && fits(r));
            case CeilDiv(AffineExpr l, AffineExpr r) -> new Node(divide(range(l), range(r), true), fits(l) && fits(r));
            case Mod(AffineExpr l, AffineExpr r) -> new Node(mod(range(l), range(r)), fits(l) && fits(r));
            case Min(AffineExpr l, AffineExpr r) -> new Node(range(l).min(range(r)), fits(l) && fits(r));
            case Max(AffineExpr l, AffineExpr r) -> new Node(range(l).max(range(r)), fits(l) && fits(r));
        };
    }

    /** Quotients are monotone in each operand while the divisor keeps its sign: corners suffice. */
    private static Interval divide(Interval a, Interval b, boolean ceil) {
        if (a.isEmpty() || b.isEmpty() || b.contains(0)) {
            return Interval.UNBOUNDED;
        }
        if (a.lo() == Long.MIN_VALUE || a.hi() == Long.MAX_VALUE
                || b.lo() == Long.MIN_VALUE || b.hi() == Long.MAX_VALUE) {
            return Interval.UNBOUNDED;
        }
        long[] q = {div(a.lo(), b.lo(), ceil), div(a.lo(), b.hi(), ceil), div(a.hi(), b.lo(), ceil),
                    div(a.hi(), b.hi(), ceil)};
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (long v : q) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
        }
        return new Interval(lo, hi);
    }

    private static long div(long a, long b, boolean ceil) {
        if (a == Long.MIN_VALUE && b == -1) {
            return Long.MAX_VALUE;
        }
        return ceil ? Exprs.ceilDiv(a, b) : Math.floorDiv(a, b);
    }

    private static Interval mod(Interval a, Interval b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Interval.UNBOUNDED;
        }
        if (b.isPoint() && b.lo() != 0) {
            Interval m = a.mod(b.lo());
            if (a.lo() >= 0) {
                return new Interval(m.lo(), Math.min(m.hi(), a.hi()));
            }
            return m;
        }
        if (b.lo() > 0) {
            long top = b.hi() - 1;
            return new Interval(0, a.lo() >= 0 ? Math.min(top, a.hi()) : top);
        }
        if (b.hi() < 0) {
            long top = b.lo() == Long.MIN_VALUE ? Long.MAX_VALUE : -b.lo() - 1;
            return new Interval(0, a.lo() >= 0 ? Math.min(top, a.hi()) : top);
        }
        return Interval.UNBOUNDED;
    }

    /**
     * {@return whether {@code e} agrees, at the corners of the box and at a few points inside it,
     * with the affine function its unit steps from the lowest corner describe}: a cheap test
     * that rules most non-affine expressions out, never a proof that one is affine
     */
    boolean affineOnProbes(AffineExpr e) {
        List<Interval> all = new ArrayList<>(dims);
        all.addAll(ranges);
        all.addAll(runtimes);
        int n = all.size();
        long[] lo = new long[n];
        long[] hi = new long[n];
        for (int v = 0; v < n; v++) {
            Interval b = all.get(v);
            if (b.isEmpty() || b.lo() == Long.MIN_VALUE || b.hi() == Long.MAX_VALUE) {
                return false;
            }
            lo[v] = b.lo();
            hi[v] = b.hi();
        }
        try {
            long origin = at(e, lo);
            long[] step = new long[n];
            for (int v = 0; v < n; v++) {
                if (hi[v] > lo[v]) {
                    long[] p = lo.clone();
                    p[v]++;
                    step[v] = at(e, p) - origin;
                }
            }
            // The top corner, each variable alone at its top, then points from a fixed sequence.
            long state = 0x9E3779B97F4A7C15L;
            for (int probe = -1; probe < n + 8; probe++) {
                long[] p = lo.clone();
                for (int v = 0; v < n; v++) {
                    if (probe == -1 || probe == v) {
                        p[v] = hi[v];
                    } else if (probe >= n) {
                        state = state * 6364136223846793005L + 1442695040888963407L;
                        p[v] = lo[v] + Math.floorMod(state >>> 17, Math.addExact(hi[v] - lo[v], 1));
                    }
                }
                long expected = origin;
                for (int v = 0; v < n; v++) {
                    expected = Math.addExact(expected, Math.multiplyExact(step[v], p[v] - lo[v]));
                }
                if (at(e, p) != expected) {
                    return false;
                }
            }
            return true;
        } catch (ArithmeticException | IllegalArgumentException overflowOrDivisionByZero) {
            return false;
        }
    }

    private long at(AffineExpr e, long[] point) {
        int nd = dims.size();
        int ns = ranges.size();
        return Exprs.evaluate(e, Arrays.copyOfRange(point, 0, nd), Arrays.copyOfRange(point, nd, nd + ns),
                Arrays.copyOfRange(point, nd + ns, point.length));
    }

    /*
     * Interval arithmetic reads Long.MIN_VALUE and Long.MAX_VALUE as unbounded (MAX plus anything
     * stays MAX), so a value that reaches either end, a constant included, has no reliable range:
     * folding (d0 + 7) mod 9 near Long.MIN_VALUE to d0 + Long.MAX_VALUE gave it the range
     * [MAX, MAX], and min(d0 mod 3, that) then picked d0 mod 3. Only values strictly inside fit.
     */
    private static boolean sumFits(Interval a, Interval b) {
        if (a.isEmpty() || b.isEmpty()) {
            return true;
        }
        try {
            return inside(a.lo()) && inside(a.hi()) && inside(b.lo()) && inside(b.hi())
                    && inside(Math.addExact(a.lo(), b.lo())) && inside(Math.addExact(a.hi(), b.hi()));
        } catch (ArithmeticException overflow) {
            return false;
        }
    }

    private static boolean productFits(Interval a, Interval b) {
        if (a.isEmpty() || b.isEmpty()) {
            return true;
        }
        try {
            return inside(a.lo()) && inside(a.hi()) && inside(b.lo()) && inside(b.hi())
                    && inside(Math.multiplyExact(a.lo(), b.lo())) && inside(Math.multiplyExact(a.lo(), b.hi()))
                    && inside(Math.multiplyExact(a.hi(), b.lo())) && inside(Math.multiplyExact(a.hi(), b.hi()));
        } catch (ArithmeticException overflow) {
            return false;
        }
    }

    private static boolean inside(long v) {
        return v != Long.MIN_VALUE && v != Long.MAX_VALUE;
    }
}
