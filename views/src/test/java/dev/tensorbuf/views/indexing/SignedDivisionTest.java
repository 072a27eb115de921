package dev.tensorbuf.views.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.indexing.internal.EvalNode;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code mod}, {@code floordiv} and {@code ceildiv} for every sign of dividend and divisor, as
 * XLA's SymbolicExpr defines them (symbolic_expr.cc, {@code Evaluate}): floor and ceiling division
 * round as their names say; {@code a mod b} is {@code (a % b + |b|) % b}, never negative. The
 * values are XLA's tests' ({@code SymbolicExprTest.Canonicalization_Basic},
 * {@code EvaluateDivMod}, {@code Canonicalization_DivMod}) and what its definitions give, checked
 * through every path an expression is evaluated by: constant folding, the tree evaluator, the
 * compiled evaluator, the simplifier and the range evaluator.
 */
class SignedDivisionTest {
    private static final List<String> V = List.of("v0", "v1");

    private static AffineExpr parse(String text) {
        return AffineExpr.parse(text, V, List.of(), List.of());
    }

    /** {@return e's value at d0 = x by folding, by the tree evaluator and by compiled bytecode, all equal} */
    private static long value(String op, long x, long c) {
        long folded = ((AffineExpr.Const) parse("(" + x + ") " + op + " (" + c + ")")).value();
        IndexingMap m = IndexingMap.parse("(d0) -> (d0 " + op + " (" + c + ")), domain: d0 in [" + x + ", " + x + "]");
        long tree = m.results().getFirst().evaluate(new long[] {x}, new long[0], new long[0]);
        long compiled = m.compile().evaluate(0, new long[] {x});
        assertEquals(folded, tree, op + " " + x + ", " + c + ": folding and the tree evaluator");
        assertEquals(folded, compiled, op + " " + x + ", " + c + ": folding and the compiled evaluator");
        return folded;
    }

    @Test
    void xlasCanonicalizationBasicExample() {
        // Canonicalization_Basic: (c5 / c2) % -3 canonicalizes to "2" (here it was -1).
        assertEquals(new AffineExpr.Const(2), parse("(5 / 2) mod -3"));
        assertEquals(2, value("mod", 2, -3));
    }

    @Test
    void allFourSignPairs() {
        long[][] cases = {
            // x, c, x mod c, x floordiv c, x ceildiv c
            {5, 3, 2, 1, 2},
            {-5, 3, 1, -2, -1},
            {5, -3, 2, -2, -1},
            {-5, -3, 1, 1, 2},
            {6, -3, 0, -2, -2},
            {-6, -3, 0, 2, 2},
        };
        for (long[] k : cases) {
            assertEquals(k[2], value("mod", k[0], k[1]), k[0] + " mod " + k[1]);
            assertEquals(k[3], value("/", k[0], k[1]), k[0] + " floordiv " + k[1]);
            assertEquals(k[4], value("ceildiv", k[0], k[1]), k[0] + " ceildiv " + k[1]);
        }
    }

    @Test
    void xlasEvaluateDivModProperties() {
        // EvaluateDivMod, over {5, -5, 4, -4} x {2, -2}: a remainder is 0 exactly when the division
        // is exact, and positive otherwise; ceildiv is floordiv, or floordiv + 1 when inexact.
        for (long n : new long[] {5, -5, 4, -4}) {
            for (long d : new long[] {2, -2}) {
                long mod = value("mod", n, d);
                long floor = value("/", n, d);
                long ceil = value("ceildiv", n, d);
                if (n % d == 0) {
                    assertEquals(0, mod, n + " mod " + d);
                    assertEquals(floor, ceil, n + ", " + d);
                } else {
                    assertTrue(mod > 0, n + " mod " + d + " = " + mod);
                    assertEquals(floor + 1, ceil, n + ", " + d);
                }
            }
        }
    }

    @Test
    void extremesDoNotOverflow() {
        assertEquals(Long.MAX_VALUE, EvalNode.mod(-1, Long.MIN_VALUE));
        assertEquals(0, EvalNode.mod(Long.MIN_VALUE, Long.MIN_VALUE));
        assertEquals(5, EvalNode.mod(5, Long.MIN_VALUE));
        assertEquals(Long.MAX_VALUE - 1, EvalNode.mod(-2, Long.MIN_VALUE));
        assertEquals(1, EvalNode.mod(Long.MIN_VALUE + 1, -2));
        assertEquals(new Interval(Long.MAX_VALUE - 4, Long.MAX_VALUE), new Interval(-5, -1).mod(Long.MIN_VALUE));
    }

    @Test
    void xlasNegativeDivisorCanonicalForms() {
        // Canonicalization_DivMod: v0 ceildiv -2 is "v0 floordiv 2 * -1"; (v0 * 6) floordiv -3 and
        // (v0 * 6) ceildiv -3 are "v0 * -2"; v0 ceildiv -1 is "v0 * -1".
        assertEquals(parse("(v0 / 2) * -1"), parse("v0 ceildiv -2"));
        assertEquals(parse("v0 * -2"), parse("(v0 * 6) / -3"));
        assertEquals(parse("v0 * -2"), parse("(v0 * 6) ceildiv -3"));
        assertEquals(parse("v0 * -1"), parse("v0 ceildiv -1"));
    }

    @Test
    void rangesOfANegativeModulusAreNonNegative() {
        IndexingMap m = IndexingMap.parse("(d0) -> (d0), domain: d0 in [-7, 7]");
        AffineExpr d0 = AffineExpr.dim(0);
        assertEquals(new Interval(0, 2), m.range(d0.mod(-3)));
        assertEquals(new Interval(1, 2), IndexingMap.parse("(d0) -> (d0), domain: d0 in [4, 5]").range(d0.mod(-3)));
        assertEquals(new Interval(1, 2), new Interval(-5, -4).mod(-3));
        assertEquals(new Interval(0, 2), new Interval(-5, 4).mod(-3));
        // A divisor known only to be negative: the remainder stays below its largest magnitude.
        IndexingMap both = IndexingMap.parse("(d0, d1) -> (d0), domain: d0 in [0, 100], d1 in [-4, -2]");
        assertEquals(new Interval(0, 3), both.range(AffineExpr.dim(0).mod(AffineExpr.dim(1))));
    }

    @Test
    void simplifyingNegativeDivisorsKeepsTheMeaning() {
        String[] exprs = {"d0 mod -3", "(d0 * 3 + 1) mod -3", "(d0 mod 6) mod -3", "(d0 mod -6) mod 3", "d0 ceildiv -4",
            "(d0 + 5) / -2 + d0 mod -2", "((d0 * 4) mod -8) / 2", "(d0 mod -5) * 2 + d0 / -5"};
        for (String e : exprs) {
            IndexingMap in = IndexingMap.parse("(d0) -> (" + e + "), domain: d0 in [-20, 20]");
            IndexingMap out = in.simplify();
            String diff = MapSemantics.difference(in, out);
            assertNull(diff, e + " simplified to " + out + ": " + diff);
            for (long x = -20; x <= 20; x++) {
                assertTrue(out.results().getFirst().evaluate(new long[] {x}, new long[0], new long[0])
                        == in.results().getFirst().evaluate(new long[] {x}, new long[0], new long[0]), e + " at " + x);
            }
        }
        // (d0 * 3 + 1) mod -3 is 1 everywhere, as (d0 * 3 + 1) mod 3 is.
        assertEquals(new AffineExpr.Const(1),
                IndexingMap.parse("(d0) -> ((d0 * 3 + 1) mod -3), domain: d0 in [-20, 20]").simplify().results().getFirst());
        Random rnd = new Random(41);
        for (int i = 0; i < 200; i++) {
            long a = rnd.nextLong(-50, 50);
            long c = rnd.nextBoolean() ? rnd.nextLong(1, 9) : -rnd.nextLong(1, 9);
            long m = value("mod", a, c);
            assertTrue(m >= 0 && m < Math.abs(c), a + " mod " + c + " = " + m);
            assertEquals(Math.floorMod(a, Math.abs(c)), m, a + " mod " + c);
        }
    }
}
