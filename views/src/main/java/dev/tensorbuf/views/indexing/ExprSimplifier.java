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
import dev.tensorbuf.views.indexing.Exprs.Sum;
import dev.tensorbuf.views.indexing.Exprs.Term;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Range-aware rewrites of one expression (seed 004, XLA's indexing-map simplifier). Every rule is
 * an identity on the variables' bounds:
 * <ul>
 * <li>{@code x / c} and {@code x mod c} fold when x stays within one multiple of c
 *     ({@code d1 / 16 -> 0}, {@code d0 mod 42 -> d0 - 42} for d0 in [53, 71]);</li>
 * <li>summands that are multiples of c leave the division ({@code (d0 * 16 + r) / 8 ->
 *     d0 * 2 + r / 8}) and drop out of the modulo; a constant splits likewise;</li>
 * <li>a common divisor g of c and some summands leaves both when the rest, with the constant
 *     mod g, lies in [0, g-1] ({@code (x * 4 + s1) mod 20000 -> (x mod 5000) * 4 + s1} for s1 in
 *     [0, 3]; {@code (d1 - d0 * 3 + 6) / 9 -> (-d0 + 2) / 3} for d1 in [0, 2]);</li>
 * <li>nested divisions merge ({@code (x / a) / b -> x / (a * b)},
 *     {@code (y + x / a) / b -> (y * a + x) / (a * b)}), and {@code (x mod a) mod b -> x mod b}
 *     when b divides a;</li>
 * <li>in a sum, {@code (x mod k) * c + (x / k) * (k * c) -> x * c},
 *     {@code (x mod k) * c + ((x mod m) / k) * (k * c) -> (x mod m) * c} when k divides m, and
 *     {@code x * c - (x / k) * (k * c) -> (x mod k) * c};</li>
 * <li>{@code min}/{@code max} pick an operand whose range lies wholly below or above the other;</li>
 * <li>last, a sum with a modulo that is affine at a few probe points is tried with every
 *     {@code x mod c} written {@code x - (x / c) * c}, kept when no division is left
 *     ({@link #digitsJoined}).</li>
 * </ul>
 * Sums come out with their terms in descending coefficient order, the constant last.
 *
 * <p>Evaluation checks every sum and product for 64-bit overflow, so an identity over the
 * integers can still fail where the original evaluates: {@code (d0 + d1 / 3) / 12 -> (d0 * 3 + d1)
 * / 36} overflows in {@code d0 * 3} for d0 near 2^62, and putting {@code -d2 + d0 + d1} in
 * coefficient order overflows in {@code d0 + d1}. A rewrite is kept only when every sum and
 * product of its result stays within a long over the variables' bounds ({@link #fits}); a rewrite
 * whose own arithmetic overflows (a constant past 2^63) is skipped. An expression that may
 * overflow somewhere in its bounds is left as it is.
 */
final class ExprSimplifier {
    /**
     * Bounds the passes over an expression whose rewrites might never settle. A pass applies one
     * sum rule to each sum, so a sum of more than 16 digit pairs is left partly joined.
     */
    private static final int MAX_PASSES = 16;
    private final RangeEvaluator ranges;

    ExprSimplifier(RangeEvaluator ranges) {
        this.ranges = ranges;
    }

    AffineExpr simplify(AffineExpr e) {
        AffineExpr start = guarded(e, () -> Exprs.canonical(e));
        AffineExpr cur = rewriteFully(start);
        if (cur instanceof Add && hasModTerm(cur) && ranges.affineOnProbes(cur)) {
            AffineExpr before = cur;
            cur = guarded(before, () -> digitsJoined(before));
        }
        // Each step is guarded: what comes back is e itself or an expression that fits.
        AffineExpr unsorted = cur;
        return guarded(unsorted, () -> sortSums(unsorted));
    }

    /**
     * {@return {@code rewrite}'s result when it {@link #fits}; else, or when the rewrite itself
     * overflows, {@code before}} Also when {@code before} does not fit: by ranges it may overflow
     * somewhere, but it may still evaluate where a rewrite would not ({@code d0 * 3 + d0 mod 9}
     * with d0 near 2^63 / 3 evaluates at its lowest d0, {@code d0 * 4 - c} nowhere).
     */
    private AffineExpr guarded(AffineExpr before, Supplier<AffineExpr> rewrite) {
        try {
            AffineExpr after = rewrite.get();
            if (after == before || fits(after)) {
                return after;
            }
        } catch (IllegalArgumentException | ArithmeticException overflow) {
            // Exprs' exact arithmetic: a folded constant or coefficient past 2^63. The rewrite is
            // an identity over the integers only; over longs it has no value, so it is skipped.
        }
        return before;
    }

    /** {@return whether {@code e} evaluates without overflow over the bounds: {@link RangeEvaluator#fits}} */
    boolean fits(AffineExpr e) {
        return ranges.fits(e);
    }

    private AffineExpr rewriteFully(AffineExpr e) {
        return repeated(e, this::rewrite, x -> false);
    }

    /**
     * {@return {@code pass} applied to {@code e} until it changes nothing or {@code done} holds,
     * at most {@link #MAX_PASSES} times} One loop for both repetitions, so the one limit is
     * tested once: a pass applies one rule to each sum, and a sum of 17 digit pairs needs 17.
     */
    private static AffineExpr repeated(AffineExpr e, UnaryOperator<AffineExpr> pass, Predicate<AffineExpr> done) {
        AffineExpr cur = e;
        for (int i = 0; i < MAX_PASSES && !done.test(cur); i++) {
            AffineExpr next = pass.apply(cur);
            if (next.equals(cur)) {
                break;
            }
            cur = next;
        }
        return cur;
    }

    /**
     * {@return {@code e} as an affine sum when writing each {@code x mod c} as
     * {@code x - (x / c) * c} lets every quotient cancel; else {@code e}}. The rules take the
     * constant and the multiples out of each modulo and quotient on its own, so a value cut into
     * digits ({@code x mod 3 + ((x / 3) mod 3) * 3 + (x / 9) * 9}) can come out in pieces no sum
     * rule sees as one value, the same quotient written with its summands in another order.
     * Sums are put in one order (by their text) so that equal quotients meet and cancel; the
     * result is kept only when no division is left, which makes it an identity, not a guess.
     */
    private AffineExpr digitsJoined(AffineExpr e) {
        AffineExpr cur = repeated(e, x -> inTextOrder(rewriteFully(inTextOrder(Exprs.canonical(expandMods(x))))),
                x -> !hasDivision(x));
        return hasDivision(cur) ? e : cur;
    }

    /** True when a summand of the sum {@code e} is a modulo by a positive constant, times a constant. */
    private static boolean hasModTerm(AffineExpr e) {
        for (Term t : Exprs.sum(e).terms()) {
            if (t.base() instanceof Mod(AffineExpr x, Const(long c)) && c > 0) {
                return true;
            }
        }
        return false;
    }

    /** {@code e} with every {@code x mod c} (c > 0) written {@code x - (x / c) * c}. */
    private static AffineExpr expandMods(AffineExpr e) {
        if (e instanceof Mod(AffineExpr l, Const c) && c.value() > 0) {
            AffineExpr x = expandMods(l);
            return new Add(x, new Mul(new FloorDiv(x, c), new Const(-c.value())));
        }
        return Exprs.withOperands(e, ExprSimplifier::expandMods);
    }

    /** {@code e} with the summands of every sum ordered by their text, so equal sums are equal records. */
    private static AffineExpr inTextOrder(AffineExpr e) {
        return ordered(e, Comparator.comparing((Term t) -> t.base().toString()).thenComparingLong(Term::coeff));
    }

    /** {@return whether {@code e} holds a division or modulo} */
    private static boolean hasDivision(AffineExpr e) {
        return switch (e) {
            case FloorDiv f -> true;
            case CeilDiv c -> true;
            case Mod m -> true;
            case Add(AffineExpr l, AffineExpr r) -> hasDivision(l) || hasDivision(r);
            case Mul(AffineExpr l, AffineExpr r) -> hasDivision(l) || hasDivision(r);
            case Min(AffineExpr l, AffineExpr r) -> hasDivision(l) || hasDivision(r);
            case Max(AffineExpr l, AffineExpr r) -> hasDivision(l) || hasDivision(r);
            default -> false;
        };
    }

    Interval range(AffineExpr e) {
        return ranges.range(e);
    }

    private static boolean bounded(Interval r) {
        return !r.isEmpty() && r.lo() != Long.MIN_VALUE && r.hi() != Long.MAX_VALUE;
    }

    /** One pass over {@code e}; each node's rewrite is {@link #guarded}. */
    AffineExpr rewrite(AffineExpr e) {
        return guarded(e, () -> rewriteNode(e));
    }

    private AffineExpr rewriteNode(AffineExpr e) {
        return switch (e) {
            case Dim d -> d;
            case Sym s -> s;
            case Rt r -> r;
            case Const c -> c;
            case Add a -> sumRules(rewriteSum(a));
            case Mul(AffineExpr l, AffineExpr r) -> Exprs.mul(rewrite(l), rewrite(r));
            case FloorDiv(AffineExpr l, AffineExpr r) -> {
                AffineExpr x = rewrite(l);
                AffineExpr y = rewrite(r);
                yield y instanceof Const(long c) && c != 0 ? divConst(x, c) : Exprs.floorDiv(x, y);
            }
            case CeilDiv(AffineExpr l, AffineExpr r) -> {
                AffineExpr x = rewrite(l);
                AffineExpr y = rewrite(r);
                if (y instanceof Const(long c) && c != 0) {
                    Interval rx = range(x);
                    if (bounded(rx) && Exprs.ceilDiv(rx.lo(), c) == Exprs.ceilDiv(rx.hi(), c)) {
                        yield new Const(Exprs.ceilDiv(rx.lo(), c));
                    }
                }
                yield Exprs.ceilDiv(x, y);
            }
            case Mod(AffineExpr l, AffineExpr r) -> {
                AffineExpr x = rewrite(l);
                AffineExpr y = rewrite(r);
                yield y instanceof Const(long c) && c != 0 ? modConst(x, c) : Exprs.mod(x, y);
            }
            case Min(AffineExpr l, AffineExpr r) -> minMax(rewrite(l), rewrite(r), true);
            case Max(AffineExpr l, AffineExpr r) -> minMax(rewrite(l), rewrite(r), false);
        };
    }

    private AffineExpr minMax(AffineExpr a, AffineExpr b, boolean min) {
        Interval ra = range(a);
        Interval rb = range(b);
        if (ra.hi() <= rb.lo()) {
            return min ? a : b;
        }
        if (rb.hi() <= ra.lo()) {
            return min ? b : a;
        }
        return min ? Exprs.min(a, b) : Exprs.max(a, b);
    }

    private AffineExpr rewriteSum(AffineExpr e) {
        Sum s = Exprs.sum(e);
        AffineExpr out = new Const(s.constant());
        for (Term t : s.terms()) {
            out = Exprs.add(out, Exprs.mul(rewrite(t.base()), new Const(t.coeff())));
        }
        return out;
    }

    /** Rules that look at several summands at once. */
    private AffineExpr sumRules(AffineExpr e) {
        if (!(e instanceof Add)) {
            return e;
        }
        List<Term> terms = Exprs.sum(e).terms();
        long constant = Exprs.sum(e).constant();
        for (int i = 0; i < terms.size(); i++) {
            Term t = terms.get(i);
            // (x mod k) * c + (x / k) * (k * c) -> x * c, and, k dividing m,
            // (x mod k) * c + ((x mod m) / k) * (k * c) -> (x mod m) * c
            if (t.base() instanceof Mod(AffineExpr x, Const(long k)) && k > 0) {
                AffineExpr div = divConst(x, k);
                for (int j = 0; j < terms.size(); j++) {
                    Term u = terms.get(j);
                    if (j == i || u.coeff() != mulOrZero(t.coeff(), k)) {
                        continue;
                    }
                    if (u.base().equals(div)) {
                        return rebuild(terms, constant, i, j, Exprs.mul(x, new Const(t.coeff())));
                    }
                    // m may be negative: XLA's x mod m is x mod |m|, and k divides both or neither.
                    if (u.base() instanceof FloorDiv(Mod(AffineExpr y, Const(long m)), Const(long kk))
                            && kk == k && m % k == 0 && y.equals(x)) {
                        return rebuild(terms, constant, i, j, Exprs.mul(Exprs.mod(x, new Const(m)), new Const(t.coeff())));
                    }
                }
            }
            // x * c - (x / k) * (k * c) -> (x mod k) * c, when the sum holds x * c
            if (t.base() instanceof FloorDiv(AffineExpr x, Const(long k)) && k > 0 && t.coeff() % k == 0) {
                long c = -(t.coeff() / k);
                if (c != 0 && holds(terms, i, x, c)) {
                    AffineExpr rest = rebuild(terms, constant, i, -1, null);
                    rest = Exprs.add(rest, Exprs.mul(x, new Const(-c)));
                    return Exprs.add(Exprs.mul(Exprs.mod(x, new Const(k)), new Const(c)), rest);
                }
            }
        }
        return e;
    }

    private static long mulOrZero(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return hi == (lo >> 63) ? lo : 0;
    }

    /** True when the sum (without term {@code skip}) holds every summand of {@code x * c}. */
    private static boolean holds(List<Term> terms, int skip, AffineExpr x, long c) {
        // x is not a constant (x / k would have folded). want is 0 when the product overflows:
        // no summand has coefficient 0, so none is found.
        Sum xs = Exprs.sum(x);
        for (Term need : xs.terms()) {
            long want = mulOrZero(need.coeff(), c);
            boolean found = false;
            for (int j = 0; j < terms.size(); j++) {
                Term have = terms.get(j);
                if (j != skip && have.base().equals(need.base())
                        && Long.signum(have.coeff()) == Long.signum(want)
                        && Math.abs(have.coeff()) >= Math.abs(want)) {
                    found = true;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    /** The sum without terms i and j (j may be -1), with {@code first} in front when given. */
    private static AffineExpr rebuild(List<Term> terms, long constant, int i, int j, AffineExpr first) {
        AffineExpr out = first == null ? new Const(0) : first;
        for (int k = 0; k < terms.size(); k++) {
            if (k != i && k != j) {
                out = Exprs.add(out, Exprs.mul(terms.get(k).base(), new Const(terms.get(k).coeff())));
            }
        }
        return Exprs.add(out, new Const(constant));
    }

    /** {@code x / c} for a non-zero constant c; x is already simplified. */
    AffineExpr divConst(AffineExpr x, long c) {
        Interval r = range(x);
        if (bounded(r) && Math.floorDiv(r.lo(), c) == Math.floorDiv(r.hi(), c)) {
            return new Const(Math.floorDiv(r.lo(), c));
        }
        if (c < 0) {
            return Exprs.floorDiv(x, new Const(c));
        }
        // (x / a) / b is the nested merge below with nothing beside x / a.
        Sum s = Exprs.sum(x);
        List<Term> quotient = new ArrayList<>();
        List<Term> rest = new ArrayList<>();
        for (Term t : s.terms()) {
            if (t.coeff() % c == 0) {
                quotient.add(new Term(t.base(), t.coeff() / c));
            } else {
                rest.add(t);
            }
        }
        long q = Math.floorDiv(s.constant(), c);
        long rem = Math.floorMod(s.constant(), c);
        if (!quotient.isEmpty() || q != 0) {
            AffineExpr inner = divConst(new Sum(rest, rem).build(), c);
            return Exprs.add(new Sum(quotient, q).build(), inner);
        }
        for (long g : commonDivisors(rest, c)) {
            Split split = splitByDivisor(rest, rem, g);
            if (split != null) {
                return divConst(split.multiples(), c / g);
            }
        }
        AffineExpr nested = null;
        long k = 0;
        for (Term t : rest) {
            if (t.coeff() == 1 && t.base() instanceof FloorDiv(AffineExpr y, Const(long kk)) && kk > 0) {
                if (nested != null) {
                    nested = null;
                    break;
                }
                nested = t.base();
                k = kk;
            }
        }
        if (nested instanceof FloorDiv(AffineExpr y, Const cc) && mulOrZero(k, c) != 0) {
            // (rest + y / k) / c == (rest * k + y) / (k * c) for integer rest and k, c > 0.
            AffineExpr others = new Const(rem);
            for (Term t : rest) {
                if (t.base() != nested) {
                    others = Exprs.add(others, Exprs.mul(t.base(), new Const(t.coeff())));
                }
            }
            try {
                AffineExpr merged = Exprs.add(Exprs.mul(others, new Const(k)), y);
                return divConst(merged, k * c);
            } catch (IllegalArgumentException overflow) {
                return Exprs.floorDiv(x, new Const(c));
            }
        }
        return Exprs.floorDiv(x, new Const(c));
    }

    /** {@code x mod c} for a non-zero constant c; x is already simplified. */
    AffineExpr modConst(AffineExpr x, long c) {
        if (c < 0) {
            // XLA's x mod c is x mod |c|: simplify as that, and keep the divisor as written when
            // nothing simplifies.
            if (c == Long.MIN_VALUE) {
                return Exprs.mod(x, new Const(c));
            }
            AffineExpr asPositive = modConst(x, -c);
            return asPositive.equals(Exprs.mod(x, new Const(-c))) ? Exprs.mod(x, new Const(c)) : asPositive;
        }
        Interval r = range(x);
        if (bounded(r) && Math.floorDiv(r.lo(), c) == Math.floorDiv(r.hi(), c)) {
            long q = Math.floorDiv(r.lo(), c);
            // Exact: for x near Long.MIN_VALUE, -q * c is 2^63, which wrapped to its negation.
            return Exprs.add(x, new Const(Math.multiplyExact(Math.negateExact(q), c)));
        }
        // (y mod k) mod c is y mod c when c divides k, also a negative k (y mod |k|).
        if (x instanceof Mod(AffineExpr y, Const(long k)) && k % c == 0) {
            return modConst(y, c);
        }
        Sum s = Exprs.sum(x);
        List<Term> rest = new ArrayList<>();
        for (Term t : s.terms()) {
            if (t.coeff() % c != 0) {
                rest.add(t);
            }
        }
        long rem = Math.floorMod(s.constant(), c);
        if (rest.size() != s.terms().size() || rem != s.constant()) {
            return modConst(new Sum(rest, rem).build(), c);
        }
        for (long g : commonDivisors(rest, c)) {
            Split split = splitByDivisor(rest, rem, g);
            if (split != null) {
                AffineExpr inner = modConst(split.multiples(), c / g);
                return Exprs.add(Exprs.mul(inner, new Const(g)), split.small());
            }
        }
        return Exprs.mod(x, new Const(c));
    }

    /**
     * Divisors g in (1, c) shared by c and some summand's coefficient, largest first. Below c:
     * both callers pass only summands c does not divide.
     */
    private static TreeSet<Long> commonDivisors(List<Term> terms, long c) {
        TreeSet<Long> out = new TreeSet<>(Comparator.reverseOrder());
        for (Term t : terms) {
            long g = gcd(Math.abs(t.coeff()), c);
            if (g > 1) {
                out.add(g);
            }
        }
        return out;
    }

    /** A sum split as {@code multiples * g + small}, with small in [0, g-1]. */
    private record Split(AffineExpr multiples, AffineExpr small) {
    }

    /**
     * {@return the summands and constant split as {@code multiples * g + small} when the small
     * part (summands not divisible by g, plus the constant mod g) lies in [0, g-1]; else null}.
     * The constant's multiple of g goes with the multiples: {@code (d1 - d0 * 3 + 6) / 9} with
     * d1 in [0, 2] is {@code (-d0 + 2) / 3}.
     */
    private Split splitByDivisor(List<Term> terms, long constant, long g) {
        List<Term> multiples = new ArrayList<>();
        List<Term> small = new ArrayList<>();
        for (Term t : terms) {
            if (t.coeff() % g == 0) {
                multiples.add(new Term(t.base(), t.coeff() / g));
            } else {
                small.add(t);
            }
        }
        AffineExpr smallExpr = new Sum(small, Math.floorMod(constant, g)).build();
        Interval rs = range(smallExpr);
        if (multiples.isEmpty() || rs.isEmpty() || rs.lo() < 0 || rs.hi() >= g) {
            return null;
        }
        return new Split(new Sum(multiples, Math.floorDiv(constant, g)).build(), smallExpr);
    }

    static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return Math.abs(a);
    }

    /** Orders every sum by descending coefficient (stable), the constant last. */
    static AffineExpr sortSums(AffineExpr e) {
        return ordered(e, Comparator.comparingLong(Term::coeff).reversed());
    }

    /** {@return {@code e} with the summands of every sum, at every depth, sorted by {@code order}} */
    private static AffineExpr ordered(AffineExpr e, Comparator<Term> order) {
        if (!(e instanceof Add)) {
            return Exprs.withOperands(e, x -> ordered(x, order));
        }
        Sum s = Exprs.sum(e);
        List<Term> terms = new ArrayList<>();
        for (Term t : s.terms()) {
            terms.add(new Term(ordered(t.base(), order), t.coeff()));
        }
        terms.sort(order);
        return new Sum(terms, s.constant()).build();
    }
}
