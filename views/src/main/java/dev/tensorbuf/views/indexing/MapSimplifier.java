package dev.tensorbuf.views.indexing;

import dev.tensorbuf.views.indexing.AffineExpr.Add;
import dev.tensorbuf.views.indexing.AffineExpr.Const;
import dev.tensorbuf.views.indexing.AffineExpr.Dim;
import dev.tensorbuf.views.indexing.AffineExpr.FloorDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Mod;
import dev.tensorbuf.views.indexing.AffineExpr.Mul;
import dev.tensorbuf.views.indexing.AffineExpr.Rt;
import dev.tensorbuf.views.indexing.AffineExpr.Sym;
import dev.tensorbuf.views.indexing.Exprs.Sum;
import dev.tensorbuf.views.indexing.Exprs.Term;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Simplifies a whole map until nothing changes: point dimensions become constants (optional),
 * results and constraints go through {@link ExprSimplifier}, and constraints are rewritten:
 * {@code e + k in [a, b] -> e in [a - k, b - k]}, {@code e * k} and {@code e / k} likewise,
 * a common factor of a sum divides out, {@code g * e + r in [g * a, g * b + g - 1]} with
 * r in [0, g - 1] becomes {@code e in [a, b]}; a constraint on one variable becomes its bounds,
 * {@code v mod m in [a, b]} tightens v's bounds, two single-residue constraints on the same
 * variable merge (Chinese remainder), a constraint that always holds goes, and one that never
 * holds makes the map known empty.
 */
final class MapSimplifier {
    private static final int MAX_ROUNDS = 8;
    private static final long MAX_MERGED_MODULUS = 1L << 20;

    private MapSimplifier() {}

    static IndexingMap simplify(IndexingMap m, boolean substitutePointDims) {
        if (m.isUndefined() || m.isKnownEmpty()) {
            return m;
        }
        IndexingMap cur = m;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            IndexingMap next = round(cur, substitutePointDims);
            if (next.equals(cur) || next.isKnownEmpty()) {
                return next;
            }
            cur = next;
        }
        return cur;
    }

    private static IndexingMap round(IndexingMap m, boolean substitutePointDims) {
        List<Variable> d = new ArrayList<>(m.dims());
        List<Variable> s = new ArrayList<>(m.rangeVars());
        List<Variable> r = new ArrayList<>(m.runtimeVars());
        List<AffineExpr> points = null;
        if (substitutePointDims) {
            points = new ArrayList<>();
            for (Variable v : d) {
                points.add(v.bounds().isPoint() ? new Const(v.bounds().lo()) : null);
            }
        }
        ExprSimplifier es = new ExprSimplifier(new RangeEvaluator(m.dimBounds(), m.rangeVarBounds(),
                m.runtimeVarBounds()));
        List<AffineExpr> results = new ArrayList<>();
        for (AffineExpr e : m.results()) {
            results.add(es.simplify(withPoints(e, points)));
        }
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>();
        boolean empty = false;
        for (Map.Entry<AffineExpr, Interval> c : m.constraints().entrySet()) {
            AffineExpr e = es.simplify(withPoints(c.getKey(), points));
            Interval in = c.getValue();
            for (int i = 0; i < MAX_ROUNDS; i++) {
                Rewritten next;
                try {
                    next = rewriteConstraint(e, in, es);
                } catch (IllegalArgumentException | ArithmeticException overflow) {
                    break; // a bound or coefficient past 2^63: the constraint stays as it is
                }
                if (next == null) {
                    break;
                }
                AffineExpr simplified = es.simplify(next.expr);
                // Constraints are evaluated too (IndexingMap.contains): one that evaluates must not
                // become one that overflows.
                if (!es.fits(simplified) && es.fits(e)) {
                    break;
                }
                e = simplified;
                in = next.in;
            }
            empty |= IndexingMap.addConstraint(e, in, d, s, r, cons);
        }
        empty |= mergeResidues(cons);
        empty |= tightenByResidues(cons, d, s, r);
        RangeEvaluator after = new RangeEvaluator(bounds(d), bounds(s), bounds(r));
        Map<AffineExpr, Interval> kept = new LinkedHashMap<>();
        for (Map.Entry<AffineExpr, Interval> c : cons.entrySet()) {
            Interval range = after.range(c.getKey());
            if (c.getValue().contains(range)) {
                continue;
            }
            if (range.intersect(c.getValue()).isEmpty()) {
                empty = true;
            }
            kept.put(c.getKey(), c.getValue());
        }
        // No variable's bounds are empty unless flagged: the map's were not (IndexingMap.of and
        // Composer mark such maps known empty), and addConstraint and tightenByResidues say when
        // they empty one.
        return IndexingMap.make(d, s, r, results, kept, empty);
    }

    /**
     * {@return {@code e} with point dimensions replaced by their values, or {@code e} itself when
     * folding them in overflows a constant (the simplifier must not fail on a map that evaluates)}
     */
    private static AffineExpr withPoints(AffineExpr e, List<AffineExpr> points) {
        if (points == null) {
            return e;
        }
        try {
            return e.replace(points, null, null);
        } catch (IllegalArgumentException | ArithmeticException overflow) {
            return e;
        }
    }

    private static List<Interval> bounds(List<Variable> vars) {
        return vars.stream().map(Variable::bounds).toList();
    }

    private record Rewritten(AffineExpr expr, Interval in) {}

    /** One exact rewrite of {@code e in [lo, hi]}, or null when none applies. */
    private static Rewritten rewriteConstraint(AffineExpr e, Interval in, ExprSimplifier es) {
        long lo = in.lo();
        long hi = in.hi();
        if (e instanceof Add) {
            Sum s = Exprs.sum(e);
            if (s.constant() != 0) {
                long k = s.constant();
                return new Rewritten(new Sum(s.terms(), 0).build(),
                        new Interval(Interval.satAdd(lo, -k), Interval.satAdd(hi, -k)));
            }
            long g = 0;
            for (Term t : s.terms()) {
                g = ExprSimplifier.gcd(g, Math.abs(t.coeff()));
            }
            if (g > 1) {
                return new Rewritten(new Sum(divide(s.terms(), g), 0).build(),
                        new Interval(Exprs.ceilDiv(lo, g), Math.floorDiv(hi, g)));
            }
            return splitIndependent(s, lo, hi, es);
        }
        if (e instanceof Mul(AffineExpr x, Const(long c)) && c != 0) {
            return c > 0
                    ? new Rewritten(x, new Interval(Exprs.ceilDiv(lo, c), Math.floorDiv(hi, c)))
                    : new Rewritten(x, new Interval(Exprs.ceilDiv(hi, c), Math.floorDiv(lo, c)));
        }
        if (e instanceof FloorDiv(AffineExpr x, Const(long c)) && c != 0 && isBounded(lo, hi)) {
            try {
                if (c > 0) {
                    return new Rewritten(x, new Interval(Math.multiplyExact(lo, c),
                            Math.addExact(Math.multiplyExact(hi, c), c - 1)));
                }
                return new Rewritten(x, new Interval(Math.addExact(Math.multiplyExact(hi + 1, c), 1),
                        Math.multiplyExact(lo, c)));
            } catch (ArithmeticException overflow) {
                return null;
            }
        }
        return null;
    }

    private static boolean isBounded(long lo, long hi) {
        return lo != Long.MIN_VALUE && hi != Long.MAX_VALUE && Math.abs(lo) < (1L << 40) && Math.abs(hi) < (1L << 40);
    }

    private static List<Term> divide(List<Term> terms, long g) {
        List<Term> out = new ArrayList<>();
        for (Term t : terms) {
            out.add(new Term(t.base(), t.coeff() / g));
        }
        return out;
    }

    /** {@code g * e + r in [g * a, g * b + g - 1]} with r in [0, g - 1] is {@code e in [a, b]}. */
    private static Rewritten splitIndependent(Sum s, long lo, long hi, ExprSimplifier es) {
        for (Term pivot : s.terms()) {
            // g = 1 leaves no summand in rest below; g = |Long.MIN_VALUE| is negative, where
            // floorMod(hi, g) <= 0 is never g - 1.
            long g = Math.abs(pivot.coeff());
            if (Math.floorMod(lo, g) != 0 || Math.floorMod(hi, g) != g - 1) {
                continue;
            }
            List<Term> multiples = new ArrayList<>();
            List<Term> rest = new ArrayList<>();
            for (Term t : s.terms()) {
                if (t.coeff() % g == 0) {
                    multiples.add(new Term(t.base(), t.coeff() / g));
                } else {
                    rest.add(t);
                }
            }
            Interval rr = es.range(new Sum(rest, 0).build());
            if (!rest.isEmpty() && rr.lo() >= 0 && rr.hi() < g) {
                return new Rewritten(new Sum(multiples, 0).build(),
                        new Interval(Math.floorDiv(lo, g), Math.floorDiv(Math.addExact(Math.subtractExact(hi, g), 1), g)));
            }
        }
        return null;
    }

    /** A single-variable residue constraint {@code v mod m in [a, b]}, m > 0. */
    private record Residue(AffineExpr var, long m) {}

    private static Residue residue(AffineExpr e) {
        if (e instanceof Mod(AffineExpr v, Const(long m)) && m > 0
                && (v instanceof Dim || v instanceof Sym || v instanceof Rt)) {
            return new Residue(v, m);
        }
        return null;
    }

    /** Merges {@code v mod m1 in [r1, r1]} and {@code v mod m2 in [r2, r2]}; true when incompatible. */
    private static boolean mergeResidues(Map<AffineExpr, Interval> cons) {
        boolean merged = true;
        while (merged) {
            merged = false;
            List<Map.Entry<AffineExpr, Interval>> list = new ArrayList<>(cons.entrySet());
            outer:
            for (int i = 0; i < list.size(); i++) {
                Residue a = residue(list.get(i).getKey());
                Interval ia = list.get(i).getValue();
                if (a == null || !ia.isPoint()) {
                    continue;
                }
                for (int j = i + 1; j < list.size(); j++) {
                    Residue b = residue(list.get(j).getKey());
                    Interval ib = list.get(j).getValue();
                    if (b == null || !ib.isPoint() || !a.var.equals(b.var)) {
                        continue;
                    }
                    long g = ExprSimplifier.gcd(a.m, b.m);
                    // For positive integers, x * y > M exactly when x > M / y (floored): the lcm's
                    // limit, checked before multiplying, as moduli near 2^63 wrapped it.
                    if (a.m / g > MAX_MERGED_MODULUS / b.m) {
                        continue;
                    }
                    long lcm = a.m / g * b.m;
                    long r = crt(a.m, ia.lo(), b.m, ib.lo());
                    if (r < 0) {
                        return true;
                    }
                    cons.remove(list.get(i).getKey());
                    cons.remove(list.get(j).getKey());
                    cons.merge(Exprs.mod(a.var, new Const(lcm)), Interval.point(r), Interval::intersect);
                    merged = true;
                    break outer;
                }
            }
        }
        return false;
    }

    /** {@return x in [0, lcm) with x = r1 mod m1 and x = r2 mod m2, or -1 when none exists} */
    static long crt(long m1, long r1, long m2, long r2) {
        // x stays non-negative, so x % m2 lies in [0, m2): an r2 outside it is never met.
        if (r1 < 0 || r1 >= m1) {
            return -1;
        }
        // The solutions repeat every lcm, which divides m1 * m2 (moduli up to 2^20 here).
        for (long x = r1; x < m1 * m2; x += m1) {
            if (x % m2 == r2) {
                return x;
            }
        }
        return -1;
    }

    /** Moves each variable's bounds to the nearest values with an allowed residue. */
    private static boolean tightenByResidues(Map<AffineExpr, Interval> cons, List<Variable> d, List<Variable> s,
                                             List<Variable> r) {
        for (Map.Entry<AffineExpr, Interval> c : cons.entrySet()) {
            Residue res = residue(c.getKey());
            if (res == null) {
                continue;
            }
            Interval allowed = c.getValue().intersect(new Interval(0, res.m - 1));
            if (allowed.isEmpty()) {
                continue; // v mod m's range, within [0, m - 1], misses the constraint: round finds it empty
            }
            List<Variable> vars = res.var instanceof Dim ? d : res.var instanceof Sym ? s : r;
            int i = switch (res.var) {
                case Dim(int k) -> k;
                case Sym(int k) -> k;
                case Rt(int k) -> k;
                default -> throw new AssertionError(res.var);
            };
            Interval b = vars.get(i).bounds();
            if (b.lo() == Long.MIN_VALUE || b.hi() == Long.MAX_VALUE) {
                continue;
            }
            long lo;
            long hi;
            try {
                lo = up(b.lo(), res.m, allowed);
                hi = down(b.hi(), res.m, allowed);
            } catch (ArithmeticException overflow) {
                continue; // the next allowed value lies past a long: the bounds stay as they are
            }
            vars.set(i, vars.get(i).withBounds(new Interval(lo, hi)));
            if (lo > hi) {
                return true;
            }
        }
        return false;
    }

    private static long up(long v, long m, Interval allowed) {
        long rem = Math.floorMod(v, m);
        if (allowed.contains(rem)) {
            return v;
        }
        return rem < allowed.lo() ? Math.addExact(v, allowed.lo() - rem)
                : Math.addExact(Math.addExact(v, m - rem), allowed.lo());
    }

    private static long down(long v, long m, Interval allowed) {
        long rem = Math.floorMod(v, m);
        if (allowed.contains(rem)) {
            return v;
        }
        return rem > allowed.hi() ? Math.subtractExact(v, rem - allowed.hi())
                : Math.subtractExact(Math.subtractExact(v, rem), m - allowed.hi());
    }
}
