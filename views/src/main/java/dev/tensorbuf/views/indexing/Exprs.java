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
import dev.tensorbuf.views.indexing.internal.EvalNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/** The canonicalising constructors, evaluation and substitution behind {@link AffineExpr}. */
final class Exprs {
    private Exprs() {}

    /** One summand of a flattened sum: {@code base * coeff}. */
    record Term(AffineExpr base, long coeff) {}

    /** A flattened sum: terms in first-seen order plus a constant. */
    record Sum(List<Term> terms, long constant) {
        AffineExpr build() {
            AffineExpr out = null;
            for (Term t : terms) {
                if (t.coeff == 0) {
                    continue;
                }
                AffineExpr term = t.coeff == 1 ? t.base : new Mul(t.base, new Const(t.coeff));
                out = out == null ? term : new Add(out, term);
            }
            if (out == null) {
                return new Const(constant);
            }
            return constant == 0 ? out : new Add(out, new Const(constant));
        }
    }

    static void checkIndex(int index, String kind) {
        if (index < 0) {
            throw new IndexOutOfBoundsException(kind + " index " + index + " is negative");
        }
    }

    static void checkOperands(AffineExpr lhs, AffineExpr rhs) {
        Objects.requireNonNull(lhs, "lhs");
        Objects.requireNonNull(rhs, "rhs");
    }

    static long addExact(long a, long b) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("overflow in " + a + " + " + b, e);
        }
    }

    static long mulExact(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("overflow in " + a + " * " + b, e);
        }
    }

    /** How many levels of a tree its hash looks at. */
    private static final int HASH_DEPTH = 4;

    /**
     * {@return a hash of the top {@value #HASH_DEPTH} levels of {@code e}} A record hashes its whole
     * tree, and canonical sums hash their terms at every level they are rebuilt, so building a
     * deep map (a long chain of reshapes) hashed each subtree once per level above it. Equal
     * trees still hash alike; trees that differ only further down are told apart by equals.
     */
    static int boundedHash(AffineExpr e) {
        return boundedHash(e, HASH_DEPTH);
    }

    private static int boundedHash(AffineExpr e, int depth) {
        return switch (e) {
            case Dim d -> d.hashCode();
            case Sym s -> 7 + 31 * s.hashCode();
            case Rt r -> 11 + 31 * r.hashCode();
            case Const c -> c.hashCode();
            case Add(AffineExpr l, AffineExpr r) -> node(1, l, r, depth);
            case Mul(AffineExpr l, AffineExpr r) -> node(2, l, r, depth);
            case FloorDiv(AffineExpr l, AffineExpr r) -> node(3, l, r, depth);
            case CeilDiv(AffineExpr l, AffineExpr r) -> node(4, l, r, depth);
            case Mod(AffineExpr l, AffineExpr r) -> node(5, l, r, depth);
            case Min(AffineExpr l, AffineExpr r) -> node(6, l, r, depth);
            case Max(AffineExpr l, AffineExpr r) -> node(7, l, r, depth);
        };
    }

    private static int node(int kind, AffineExpr lhs, AffineExpr rhs, int depth) {
        return depth == 0 ? kind : (kind * 31 + boundedHash(lhs, depth - 1)) * 31 + boundedHash(rhs, depth - 1);
    }

    /** Flattens {@code e * mult} into a sum of terms. */
    static Sum sum(AffineExpr e) {
        Map<AffineExpr, Long> coeffs = new LinkedHashMap<>();
        long[] constant = {0};
        collect(e, 1, coeffs, constant);
        return toSum(coeffs, constant[0]);
    }

    private static Sum toSum(Map<AffineExpr, Long> coeffs, long constant) {
        List<Term> terms = new ArrayList<>(coeffs.size());
        coeffs.forEach((b, c) -> {
            if (c != 0) {
                terms.add(new Term(b, c));
            }
        });
        return new Sum(terms, constant);
    }

    private static void collect(AffineExpr e, long mult, Map<AffineExpr, Long> coeffs, long[] constant) {
        switch (e) {
            case Add(AffineExpr l, AffineExpr r) -> {
                collect(l, mult, coeffs, constant);
                collect(r, mult, coeffs, constant);
            }
            case Const(long v) -> constant[0] = addExact(constant[0], mulExact(v, mult));
            case Mul(AffineExpr x, Const(long c)) -> collect(x, mulExact(c, mult), coeffs, constant);
            default -> coeffs.merge(e, mult, Exprs::addExact);
        }
    }

    static AffineExpr add(AffineExpr a, AffineExpr b) {
        if (a instanceof Const(long x) && b instanceof Const(long y)) {
            return new Const(addExact(x, y));
        }
        Map<AffineExpr, Long> coeffs = new LinkedHashMap<>();
        long[] constant = {0};
        collect(a, 1, coeffs, constant);
        collect(b, 1, coeffs, constant);
        return toSum(coeffs, constant[0]).build();
    }

    static AffineExpr mul(AffineExpr a, AffineExpr b) {
        if (a instanceof Const(long x) && b instanceof Const(long y)) {
            return new Const(mulExact(x, y));
        }
        if (a instanceof Const) {
            return mul(b, a);
        }
        if (b instanceof Const(long c)) {
            if (c == 0) {
                return new Const(0);
            }
            if (c == 1) {
                return a;
            }
            if (a instanceof Add) {
                Map<AffineExpr, Long> coeffs = new LinkedHashMap<>();
                long[] constant = {0};
                collect(a, c, coeffs, constant);
                return toSum(coeffs, constant[0]).build();
            }
            if (a instanceof Mul(AffineExpr x, Const(long k))) {
                return mul(x, new Const(mulExact(k, c)));
            }
            return new Mul(a, b);
        }
        // Hoist constant factors so that a product has at most one, on the right.
        if (a instanceof Mul(AffineExpr x, Const(long k))) {
            return mul(mul(x, b), new Const(k));
        }
        if (b instanceof Mul(AffineExpr y, Const(long k))) {
            return mul(mul(a, y), new Const(k));
        }
        return new Mul(a, b);
    }

    /** {@return {@code e / c} when every term and the constant of {@code e} divide by c, else null} */
    static AffineExpr exactQuotient(AffineExpr e, long c) {
        Sum s = sum(e);
        if (c == 0 || s.constant % c != 0) {
            return null;
        }
        List<Term> out = new ArrayList<>();
        for (Term t : s.terms) {
            if (t.coeff % c != 0) {
                return null;
            }
            out.add(new Term(t.base, t.coeff / c));
        }
        return new Sum(out, s.constant / c).build();
    }

    static AffineExpr floorDiv(AffineExpr a, AffineExpr b) {
        if (b instanceof Const(long c) && c != 0) {
            if (a instanceof Const(long x)) {
                return new Const(Math.floorDiv(x, c));
            }
            if (c == 1) {
                return a;
            }
            AffineExpr q = exactQuotient(a, c);
            if (q != null) {
                return q;
            }
        }
        return new FloorDiv(a, b);
    }

    static AffineExpr ceilDiv(AffineExpr a, AffineExpr b) {
        if (b instanceof Const(long c) && c != 0) {
            if (a instanceof Const(long x)) {
                return new Const(ceilDiv(x, c));
            }
            if (c == 1) {
                return a;
            }
            AffineExpr q = exactQuotient(a, c);
            if (q != null) {
                return q;
            }
            if (c < 0 && c != Long.MIN_VALUE) {
                // ceil(x / -k) = -floor(x / k): XLA's canonical form for a negative divisor.
                return mul(floorDiv(a, new Const(-c)), new Const(-1));
            }
        }
        return new CeilDiv(a, b);
    }

    static long ceilDiv(long x, long c) {
        // Not -floorDiv(-x, c): -Long.MIN_VALUE wraps, and ceilDiv(MIN, 2) came out positive.
        return Math.ceilDiv(x, c);
    }

    static AffineExpr mod(AffineExpr a, AffineExpr b) {
        if (b instanceof Const(long c) && c != 0) {
            if (a instanceof Const(long x)) {
                return new Const(EvalNode.mod(x, c));
            }
            if (c == 1 || c == -1 || exactQuotient(a, c) != null) {
                return new Const(0);
            }
        }
        return new Mod(a, b);
    }

    static AffineExpr min(AffineExpr a, AffineExpr b) {
        if (a instanceof Const(long x) && b instanceof Const(long y)) {
            return new Const(Math.min(x, y));
        }
        if (a.equals(b)) {
            return a;
        }
        if (add(a, mul(b, new Const(-1))) instanceof Const(long d)) {
            return d <= 0 ? a : b;
        }
        return new Min(a, b);
    }

    static AffineExpr max(AffineExpr a, AffineExpr b) {
        if (a instanceof Const(long x) && b instanceof Const(long y)) {
            return new Const(Math.max(x, y));
        }
        if (a.equals(b)) {
            return a;
        }
        if (add(a, mul(b, new Const(-1))) instanceof Const(long d)) {
            return d >= 0 ? a : b;
        }
        return new Max(a, b);
    }

    /** {@return {@code e} with {@code f} applied to each direct operand, rebuilt as is (no folding); leaves unchanged} */
    static AffineExpr withOperands(AffineExpr e, UnaryOperator<AffineExpr> f) {
        return switch (e) {
            case Dim d -> d;
            case Sym s -> s;
            case Rt r -> r;
            case Const c -> c;
            case Add(AffineExpr l, AffineExpr r) -> new Add(f.apply(l), f.apply(r));
            case Mul(AffineExpr l, AffineExpr r) -> new Mul(f.apply(l), f.apply(r));
            case FloorDiv(AffineExpr l, AffineExpr r) -> new FloorDiv(f.apply(l), f.apply(r));
            case CeilDiv(AffineExpr l, AffineExpr r) -> new CeilDiv(f.apply(l), f.apply(r));
            case Mod(AffineExpr l, AffineExpr r) -> new Mod(f.apply(l), f.apply(r));
            case Min(AffineExpr l, AffineExpr r) -> new Min(f.apply(l), f.apply(r));
            case Max(AffineExpr l, AffineExpr r) -> new Max(f.apply(l), f.apply(r));
        };
    }

    static AffineExpr canonical(AffineExpr e) {
        return switch (e) {
            case Dim d -> d;
            case Sym s -> s;
            case Rt r -> r;
            case Const c -> c;
            case Add(AffineExpr l, AffineExpr r) -> add(canonical(l), canonical(r));
            case Mul(AffineExpr l, AffineExpr r) -> mul(canonical(l), canonical(r));
            case FloorDiv(AffineExpr l, AffineExpr r) -> floorDiv(canonical(l), canonical(r));
            case CeilDiv(AffineExpr l, AffineExpr r) -> ceilDiv(canonical(l), canonical(r));
            case Mod(AffineExpr l, AffineExpr r) -> mod(canonical(l), canonical(r));
            case Min(AffineExpr l, AffineExpr r) -> min(canonical(l), canonical(r));
            case Max(AffineExpr l, AffineExpr r) -> max(canonical(l), canonical(r));
        };
    }

    static long evaluate(AffineExpr e, long[] d, long[] s, long[] rt) {
        return switch (e) {
            case Dim(int i) -> value(d, i, "d");
            case Sym(int i) -> value(s, i, "s");
            case Rt(int i) -> value(rt, i, "rt");
            case Const(long v) -> v;
            case Add(AffineExpr l, AffineExpr r) -> addExact(evaluate(l, d, s, rt), evaluate(r, d, s, rt));
            case Mul(AffineExpr l, AffineExpr r) -> mulExact(evaluate(l, d, s, rt), evaluate(r, d, s, rt));
            case FloorDiv(AffineExpr l, AffineExpr r) ->
                    Math.floorDiv(evaluate(l, d, s, rt), divisor(evaluate(r, d, s, rt), e));
            case CeilDiv(AffineExpr l, AffineExpr r) ->
                    ceilDiv(evaluate(l, d, s, rt), divisor(evaluate(r, d, s, rt), e));
            case Mod(AffineExpr l, AffineExpr r) ->
                    EvalNode.mod(evaluate(l, d, s, rt), divisor(evaluate(r, d, s, rt), e));
            case Min(AffineExpr l, AffineExpr r) -> Math.min(evaluate(l, d, s, rt), evaluate(r, d, s, rt));
            case Max(AffineExpr l, AffineExpr r) -> Math.max(evaluate(l, d, s, rt), evaluate(r, d, s, rt));
        };
    }

    private static long value(long[] values, int i, String prefix) {
        if (i >= values.length) {
            throw new IndexOutOfBoundsException("no value for " + prefix + i + ": " + values.length
                    + " value(s) given");
        }
        return values[i];
    }

    static long divisor(long v, AffineExpr e) {
        if (v == 0) {
            throw new IllegalArgumentException("division by zero in " + e.toText());
        }
        return v;
    }

    static AffineExpr replace(AffineExpr e, List<AffineExpr> dims, List<AffineExpr> syms, List<AffineExpr> rts) {
        return switch (e) {
            case Dim(int i) -> pick(e, dims, i);
            case Sym(int i) -> pick(e, syms, i);
            case Rt(int i) -> pick(e, rts, i);
            case Const c -> c;
            case Add(AffineExpr l, AffineExpr r) -> add(replace(l, dims, syms, rts), replace(r, dims, syms, rts));
            case Mul(AffineExpr l, AffineExpr r) -> mul(replace(l, dims, syms, rts), replace(r, dims, syms, rts));
            case FloorDiv(AffineExpr l, AffineExpr r) ->
                    floorDiv(replace(l, dims, syms, rts), replace(r, dims, syms, rts));
            case CeilDiv(AffineExpr l, AffineExpr r) ->
                    ceilDiv(replace(l, dims, syms, rts), replace(r, dims, syms, rts));
            case Mod(AffineExpr l, AffineExpr r) -> mod(replace(l, dims, syms, rts), replace(r, dims, syms, rts));
            case Min(AffineExpr l, AffineExpr r) -> min(replace(l, dims, syms, rts), replace(r, dims, syms, rts));
            case Max(AffineExpr l, AffineExpr r) -> max(replace(l, dims, syms, rts), replace(r, dims, syms, rts));
        };
    }

    private static AffineExpr pick(AffineExpr e, List<AffineExpr> with, int i) {
        if (with == null) {
            return e;
        }
        if (i >= with.size()) {
            throw new IndexOutOfBoundsException("no replacement for " + e.toText() + ": " + with.size()
                    + " given");
        }
        AffineExpr r = with.get(i);
        return r == null ? e : r;
    }

    /** Visits every variable: kind 0 = dim, 1 = range var, 2 = runtime var. */
    interface VarVisitor {
        void visit(int kind, int index);
    }

    static void forEachVar(AffineExpr e, VarVisitor v) {
        switch (e) {
            case Dim(int i) -> v.visit(0, i);
            case Sym(int i) -> v.visit(1, i);
            case Rt(int i) -> v.visit(2, i);
            case Const c -> { }
            case Add(AffineExpr l, AffineExpr r) -> { forEachVar(l, v); forEachVar(r, v); }
            case Mul(AffineExpr l, AffineExpr r) -> { forEachVar(l, v); forEachVar(r, v); }
            case FloorDiv(AffineExpr l, AffineExpr r) -> { forEachVar(l, v); forEachVar(r, v); }
            case CeilDiv(AffineExpr l, AffineExpr r) -> { forEachVar(l, v); forEachVar(r, v); }
            case Mod(AffineExpr l, AffineExpr r) -> { forEachVar(l, v); forEachVar(r, v); }
            case Min(AffineExpr l, AffineExpr r) -> { forEachVar(l, v); forEachVar(r, v); }
            case Max(AffineExpr l, AffineExpr r) -> { forEachVar(l, v); forEachVar(r, v); }
        }
    }
}
