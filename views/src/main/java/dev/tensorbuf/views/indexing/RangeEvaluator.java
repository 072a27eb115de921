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
     * Ranges of the nodes seen, by identity. The simplifier asks for the range of each subtree
     * at every level it rewrites, so without this a deep map (a long chain of reshapes) cost
     * its size times its depth. Trees are immutable and the bounds fixed: a range never changes.
     */
    private final Map<AffineExpr, Interval> known = new IdentityHashMap<>();

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
            default -> {
                Interval r = known.get(e);
                if (r == null) {
                    r = rangeOfNode(e);
                    known.put(e, r);
                }
                yield r;
            }
        };
    }

    private Interval rangeOfNode(AffineExpr e) {
        return switch (e) {
            case Dim _, Sym _, Rt _, Const _ -> range(e);
            case Add(AffineExpr l, AffineExpr r) -> range(l).plus(range(r));
            case Mul(AffineExpr l, AffineExpr r) -> range(l).times(range(r));
            case FloorDiv(AffineExpr l, AffineExpr r) -> divide(range(l), range(r), false);
            case CeilDiv(AffineExpr l, AffineExpr r) -> divide(range(l), range(r), true);
            case Mod(AffineExpr l, AffineExpr r) -> mod(range(l), range(r));
            case Min(AffineExpr l, AffineExpr r) -> range(l).min(range(r));
            case Max(AffineExpr l, AffineExpr r) -> range(l).max(range(r));
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
            if (b.lo() > 0 && a.lo() >= 0) {
                return new Interval(m.lo(), Math.min(m.hi(), a.hi()));
            }
            return m;
        }
        if (b.lo() > 0) {
            long top = b.hi() - 1;
            return new Interval(0, a.lo() >= 0 ? Math.min(top, a.hi()) : top);
        }
        if (b.hi() < 0) {
            return new Interval(b.lo() + 1, 0);
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
}
