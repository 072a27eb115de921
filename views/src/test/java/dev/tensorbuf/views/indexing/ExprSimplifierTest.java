package dev.tensorbuf.views.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.indexing.AffineExpr.Add;
import dev.tensorbuf.views.indexing.AffineExpr.CeilDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Const;
import dev.tensorbuf.views.indexing.AffineExpr.Dim;
import dev.tensorbuf.views.indexing.AffineExpr.FloorDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Max;
import dev.tensorbuf.views.indexing.AffineExpr.Min;
import dev.tensorbuf.views.indexing.AffineExpr.Mod;
import dev.tensorbuf.views.indexing.AffineExpr.Mul;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each rule of {@link ExprSimplifier} on its own, with the exact result: the conformance corpora
 * compare maps by meaning only, so a rule that stopped firing (or fired where it must not) went
 * unnoticed there. Every row is also checked against brute force over its whole domain
 * ({@link MapSemantics}), and the result may not hold more divisions or variable occurrences than
 * the input ({@link #assertNoLarger}). The rows marked XLA are the examples of XLA's indexing-map
 * simplifier ({@code xla/hlo/analysis/indexing_map_test.cc}) that the class comment quotes.
 */
class ExprSimplifierTest {

    private static void check(String in, String want) {
        IndexingMap m = IndexingMap.parse(in);
        IndexingMap s = m.simplify();
        assertEquals(want, s.toString(), in);
        assertNull(MapSemantics.difference(m, s), () -> in + " -> " + s);
        for (int i = 0; i < m.results().size(); i++) {
            assertNoLarger(m.results().get(i), s.results().get(i));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # XLA: d1 / 16 -> 0 and d0 + d1 / 16, d1 mod 16 -> d0, d1 (seed 004's first rewrite)
            (d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14] | (d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]
            # XLA: d0 mod 42 -> d0 - 42 for d0 in [53, 71]
            (d0) -> (d0 mod 42), domain: d0 in [53, 71] | (d0) -> (d0 - 42), domain: d0 in [53, 71]
            (d0) -> (d0 mod 16), domain: d0 in [16, 31] | (d0) -> (d0 - 16), domain: d0 in [16, 31]
            (d0) -> (d0 mod 16), domain: d0 in [-16, -1] | (d0) -> (d0 + 16), domain: d0 in [-16, -1]
            (d0) -> (d0 mod 16), domain: d0 in [-1, 0] | (d0) -> (d0 mod 16), domain: d0 in [-1, 0]
            (d0) -> (d0 mod 16), domain: d0 in [0, 9223372036854775807] | (d0) -> (d0 mod 16), domain: d0 in [0, 9223372036854775807]
            (d0) -> (d0 floordiv 16), domain: d0 in [0, 15] | (d0) -> (0), domain: d0 in [0, 15]
            (d0) -> (d0 floordiv 16), domain: d0 in [-16, -1] | (d0) -> (-1), domain: d0 in [-16, -1]
            (d0) -> (d0 floordiv 16), domain: d0 in [-1, 0] | (d0) -> (d0 / 16), domain: d0 in [-1, 0]
            (d0) -> (d0 floordiv 16), domain: d0 in [-9223372036854775808, 15] | (d0) -> (d0 / 16), domain: d0 in [-9223372036854775808, 15]
            (d0) -> (d0 floordiv 16), domain: d0 in [0, 9223372036854775807] | (d0) -> (d0 / 16), domain: d0 in [0, 9223372036854775807]
            (d0) -> (d0 floordiv -4), domain: d0 in [0, 100] | (d0) -> (d0 / -4), domain: d0 in [0, 100]
            (d0) -> (d0 ceildiv 16), domain: d0 in [1, 16] | (d0) -> (1), domain: d0 in [1, 16]
            (d0) -> (d0 ceildiv 16), domain: d0 in [1, 17] | (d0) -> (d0 ceildiv 16), domain: d0 in [1, 17]
            (d0) -> (d0 ceildiv 16), domain: d0 in [0, 16] | (d0) -> (d0 ceildiv 16), domain: d0 in [0, 16]
            (d0) -> (d0 ceildiv 16), domain: d0 in [-9223372036854775808, 16] | (d0) -> (d0 ceildiv 16), domain: d0 in [-9223372036854775808, 16]
            (d0) -> (d0 ceildiv d0), domain: d0 in [1, 100] | (d0) -> (d0 ceildiv d0), domain: d0 in [1, 100]
            (d0) -> (d0 floordiv d0), domain: d0 in [1, 100] | (d0) -> (d0 / d0), domain: d0 in [1, 100]
            (d0) -> (d0 mod d0), domain: d0 in [1, 100] | (d0) -> (d0 mod d0), domain: d0 in [1, 100]
            # XLA: (d0 * 16 + r) / 8 -> d0 * 2 + r / 8
            (d0, d1) -> ((d0 * 16 + d1) floordiv 8), domain: d0 in [0, 9], d1 in [0, 100] | (d0, d1) -> (d0 * 2 + d1 / 8), domain: d0 in [0, 9], d1 in [0, 100]
            (d0) -> ((d0 + 17) floordiv 8), domain: d0 in [0, 100] | (d0) -> ((d0 + 1) / 8 + 2), domain: d0 in [0, 100]
            (d0) -> ((d0 + 17) mod 8), domain: d0 in [0, 100] | (d0) -> ((d0 + 1) mod 8), domain: d0 in [0, 100]
            (d0) -> ((d0 * 3 + 17) mod 8), domain: d0 in [0, 100] | (d0) -> ((d0 * 3 + 1) mod 8), domain: d0 in [0, 100]
            (d0) -> ((d0 + 9223372036854775807) floordiv 2), domain: d0 in [-100, 0] | (d0) -> ((d0 + 1) / 2 + 4611686018427387903), domain: d0 in [-100, 0]
            (d0, d1) -> ((d0 * 16 + d1 * 16 + d1) floordiv 8), domain: d0 in [0, 100], d1 in [0, 100] | (d0, d1) -> (d0 * 2 + (d1 * 17) / 8), domain: d0 in [0, 100], d1 in [0, 100]
            # XLA: (x * 4 + s1) mod 20000 -> (x mod 5000) * 4 + s1 for s1 in [0, 3]
            (d0)[s0] -> ((d0 * 4 + s0) mod 20000), domain: d0 in [0, 100000], s0 in [0, 3] | (d0)[s0] -> ((d0 mod 5000) * 4 + s0), domain: d0 in [0, 100000], s0 in [0, 3]
            # XLA: (d1 - d0 * 3 + 6) / 9 -> (-d0 + 2) / 3 for d1 in [0, 2]
            (d0, d1) -> ((d1 - d0 * 3 + 6) floordiv 9), domain: d0 in [0, 10], d1 in [0, 2] | (d0, d1) -> ((-d0 + 2) / 3), domain: d0 in [0, 10], d1 in [0, 2]
            (d0, d1) -> ((d0 * 6 + d1) floordiv 4), domain: d0 in [0, 100], d1 in [0, 1] | (d0, d1) -> ((d0 * 3) / 2), domain: d0 in [0, 100], d1 in [0, 1]
            (d0, d1) -> ((d0 * 6 + d1) floordiv 4), domain: d0 in [0, 100], d1 in [0, 2] | (d0, d1) -> ((d0 * 6 + d1) / 4), domain: d0 in [0, 100], d1 in [0, 2]
            (d0, d1) -> ((d0 * 6 + d1) floordiv 4), domain: d0 in [0, 100], d1 in [-1, 1] | (d0, d1) -> ((d0 * 6 + d1) / 4), domain: d0 in [0, 100], d1 in [-1, 1]
            (d0, d1) -> ((d0 * 6 + d1 + 1) floordiv 4), domain: d0 in [0, 100], d1 in [0, 1] | (d0, d1) -> ((d0 * 6 + d1 + 1) / 4), domain: d0 in [0, 100], d1 in [0, 1]
            (d0, d1) -> ((d0 * 6 + d1) mod 4), domain: d0 in [0, 100], d1 in [0, 1] | (d0, d1) -> (((d0 * 3) mod 2) * 2 + d1), domain: d0 in [0, 100], d1 in [0, 1]
            (d0, d1) -> ((d0 * 6 + d1) mod 4), domain: d0 in [0, 100], d1 in [0, 2] | (d0, d1) -> ((d0 * 6 + d1) mod 4), domain: d0 in [0, 100], d1 in [0, 2]
            (d0, d1) -> ((d0 * 6 + d1 * 3) mod 12), domain: d0 in [0, 100], d1 in [0, 100] | (d0, d1) -> (((d0 * 2 + d1) mod 4) * 3), domain: d0 in [0, 100], d1 in [0, 100]
            (d0, d1, d2) -> ((d0 * 4 + d1 * 6 + d2) mod 12), domain: d0 in [0, 100], d1 in [0, 100], d2 in [0, 1] | (d0, d1, d2) -> ((d1 * 6 + d0 * 4 + d2) mod 12), domain: d0 in [0, 100], d1 in [0, 100], d2 in [0, 1]
            # two common divisors that both split: the larger one (8) is tried first
            (d0, d1)[s0] -> ((d0 * 8 + s0 * 4 + d1) mod 16), domain: d0 in [0, 100], d1 in [0, 3], s0 in [0, 1] | (d0, d1)[s0] -> ((d0 mod 2) * 8 + s0 * 4 + d1), domain: d0 in [0, 100], d1 in [0, 3], s0 in [0, 1]
            (d0, d1)[s0] -> ((d0 * 8 + s0 * 4 + d1) floordiv 16), domain: d0 in [0, 100], d1 in [0, 3], s0 in [0, 1] | (d0, d1)[s0] -> (d0 / 2), domain: d0 in [0, 100], d1 in [0, 3], s0 in [0, 1]
            # nested divisions: (x / a) / b -> x / (a * b), (y + x / a) / b -> (y * a + x) / (a * b)
            (d0) -> ((d0 floordiv 4) floordiv 8), domain: d0 in [0, 1000] | (d0) -> (d0 / 32), domain: d0 in [0, 1000]
            (d0) -> ((d0 floordiv 4) floordiv -8), domain: d0 in [0, 1000] | (d0) -> (d0 / 4 / -8), domain: d0 in [0, 1000]
            (d0) -> ((d0 floordiv -4) floordiv 8), domain: d0 in [0, 1000] | (d0) -> (d0 / -4 / 8), domain: d0 in [0, 1000]
            (d0) -> ((d0 floordiv 4611686018427387904) floordiv 4), domain: d0 in [-9223372036854775807, 9223372036854775807] | (d0) -> (d0 / 4611686018427387904 / 4), domain: d0 in [-9223372036854775807, 9223372036854775807]
            (d0, d1) -> ((d1 + d0 floordiv 4) floordiv 8), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> ((d1 * 4 + d0) / 32), domain: d0 in [0, 1000], d1 in [0, 1000]
            (d0, d1) -> ((d1 * 3 + d0 floordiv 4) floordiv 8), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> ((d1 * 12 + d0) / 32), domain: d0 in [0, 1000], d1 in [0, 1000]
            (d0, d1) -> ((d1 + d0 floordiv 4 + d0 floordiv 8) floordiv 8), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> ((d1 + d0 / 4 + d0 / 8) / 8), domain: d0 in [0, 1000], d1 in [0, 1000]
            (d0, d1) -> ((d1 + (d0 floordiv 4) * 2) floordiv 8), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> (((d0 / 4) * 2 + d1) / 8), domain: d0 in [0, 1000], d1 in [0, 1000]
            (d0, d1) -> ((d1 + d0 floordiv -4) floordiv 8), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> ((d1 + d0 / -4) / 8), domain: d0 in [0, 1000], d1 in [0, 1000]
            # (x mod a) mod b -> x mod b when b divides a; XLA's x mod c is x mod |c|
            (d0) -> ((d0 mod 16) mod 4), domain: d0 in [0, 1000] | (d0) -> (d0 mod 4), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 16) mod 16), domain: d0 in [0, 1000] | (d0) -> (d0 mod 16), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 16) mod 5), domain: d0 in [0, 1000] | (d0) -> (d0 mod 16 mod 5), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 12) mod 8), domain: d0 in [0, 100] | (d0) -> (d0 mod 12 mod 8), domain: d0 in [0, 100]
            # a negative modulus is its absolute value: 4 divides 16
            (d0) -> ((d0 mod -16) mod 4), domain: d0 in [0, 1000] | (d0) -> (d0 mod 4), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 12) mod -4), domain: d0 in [0, 100] | (d0) -> (d0 mod 4), domain: d0 in [0, 100]
            (d0) -> (d0 mod -4), domain: d0 in [0, 100] | (d0) -> (d0 mod -4), domain: d0 in [0, 100]
            (d0) -> (d0 mod -4), domain: d0 in [4, 7] | (d0) -> (d0 - 4), domain: d0 in [4, 7]
            (d0) -> ((d0 + 16) mod -4), domain: d0 in [0, 100] | (d0) -> (d0 mod 4), domain: d0 in [0, 100]
            (d0) -> ((d0 * 8 + 3) mod -4), domain: d0 in [0, 100] | (d0) -> (3), domain: d0 in [0, 100]
            (d0) -> (d0 mod -9223372036854775808), domain: d0 in [0, 100] | (d0) -> (d0 mod -9223372036854775808), domain: d0 in [0, 100]
            # in a sum: (x mod k) * c + (x / k) * (k * c) -> x * c, and its variants
            (d0) -> ((d0 mod 16) * 3 + (d0 floordiv 16) * 48), domain: d0 in [0, 1000] | (d0) -> (d0 * 3), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 16) * 3 + (d0 floordiv 16) * 47), domain: d0 in [0, 1000] | (d0) -> ((d0 / 16) * 47 + (d0 mod 16) * 3), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 16) * 3 + (d0 floordiv 8) * 48), domain: d0 in [0, 1000] | (d0) -> ((d0 / 8) * 48 + (d0 mod 16) * 3), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 4) * 3 + ((d0 mod 16) floordiv 4) * 12), domain: d0 in [0, 1000] | (d0) -> ((d0 mod 16) * 3), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 4) * 3 + ((d0 mod 18) floordiv 4) * 12), domain: d0 in [0, 1000] | (d0) -> (((d0 mod 18) / 4) * 12 + (d0 mod 4) * 3), domain: d0 in [0, 1000]
            (d0) -> ((d0 mod 4) * 3 + ((d0 mod 16) floordiv 2) * 12), domain: d0 in [0, 1000] | (d0) -> (((d0 mod 16) / 2) * 12 + (d0 mod 4) * 3), domain: d0 in [0, 1000]
            (d0, d1) -> ((d0 mod 4) * 3 + ((d1 mod 16) floordiv 4) * 12), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> (((d1 mod 16) / 4) * 12 + (d0 mod 4) * 3), domain: d0 in [0, 1000], d1 in [0, 1000]
            (d0) -> (d0 * 3 - (d0 floordiv 4) * 12), domain: d0 in [0, 1000] | (d0) -> ((d0 mod 4) * 3), domain: d0 in [0, 1000]
            (d0) -> (d0 * 3 - (d0 floordiv 4) * 13), domain: d0 in [0, 1000] | (d0) -> (d0 * 3 - (d0 / 4) * 13), domain: d0 in [0, 1000]
            (d0) -> (d0 * 5 - (d0 floordiv 4) * 12), domain: d0 in [0, 1000] | (d0) -> ((d0 mod 4) * 3 + d0 * 2), domain: d0 in [0, 1000]
            (d0) -> (d0 * 2 - (d0 floordiv 4) * 12), domain: d0 in [0, 1000] | (d0) -> (d0 * 2 - (d0 / 4) * 12), domain: d0 in [0, 1000]
            (d0) -> (d0 * -3 + (d0 floordiv 4) * 12), domain: d0 in [0, 1000] | (d0) -> ((d0 mod 4) * -3), domain: d0 in [0, 1000]
            (d0) -> (d0 * -5 + (d0 floordiv 4) * 12), domain: d0 in [0, 1000] | (d0) -> (d0 * -2 - (d0 mod 4) * 3), domain: d0 in [0, 1000]
            (d0, d1) -> (d0 * 3 + d1 * 3 - ((d0 + d1) floordiv 4) * 12), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> (((d0 + d1) mod 4) * 3), domain: d0 in [0, 1000], d1 in [0, 1000]
            (d0, d1) -> (d0 * 3 - ((d0 + d1) floordiv 4) * 12), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> (d0 * 3 - ((d0 + d1) / 4) * 12), domain: d0 in [0, 1000], d1 in [0, 1000]
            (d0, d1) -> (d1 * 3 - (d0 floordiv 4) * 12), domain: d0 in [0, 1000], d1 in [0, 1000] | (d0, d1) -> (d1 * 3 - (d0 / 4) * 12), domain: d0 in [0, 1000], d1 in [0, 1000]
            # min and max pick an operand wholly below or above the other
            (d0, d1) -> (min(d0, d1 + 10), max(d0, d1 + 10)), domain: d0 in [0, 10], d1 in [0, 5] | (d0, d1) -> (d0, d1 + 10), domain: d0 in [0, 10], d1 in [0, 5]
            (d0, d1) -> (min(d1 + 10, d0), max(d1 + 10, d0)), domain: d0 in [0, 10], d1 in [0, 5] | (d0, d1) -> (d0, d1 + 10), domain: d0 in [0, 10], d1 in [0, 5]
            (d0, d1) -> (min(d0, d1 + 10), max(d0, d1 + 10)), domain: d0 in [0, 11], d1 in [0, 5] | (d0, d1) -> (min(d0, d1 + 10), max(d0, d1 + 10)), domain: d0 in [0, 11], d1 in [0, 5]
            (d0, d1) -> (min(d0, d1 + 10), max(d0, d1 + 10)), domain: d0 in [15, 20], d1 in [0, 5] | (d0, d1) -> (d1 + 10, d0), domain: d0 in [15, 20], d1 in [0, 5]
            (d0, d1) -> (min(d0, d1 + 10), max(d0, d1 + 10)), domain: d0 in [14, 20], d1 in [0, 5] | (d0, d1) -> (min(d0, d1 + 10), max(d0, d1 + 10)), domain: d0 in [14, 20], d1 in [0, 5]
            # digits joined: x mod 3 + ((x / 3) mod 3) * 3 + (x / 9) * 9 is x
            (d0) -> (d0 mod 3 + ((d0 floordiv 3) mod 3) * 3 + (d0 floordiv 9) * 9), domain: d0 in [0, 1000] | (d0) -> (d0), domain: d0 in [0, 1000]
            (d0, d1) -> ((d0 mod 3) * 2 + ((d0 floordiv 3) mod 3) * 6 + (d0 floordiv 9) * 18 + d1), domain: d0 in [0, 1000], d1 in [0, 5] | (d0, d1) -> (d0 * 2 + d1), domain: d0 in [0, 1000], d1 in [0, 5]
            (d0) -> (d0 mod 3 + ((d0 floordiv 3) mod 3) * 3 + (d0 floordiv 9) * 8), domain: d0 in [0, 1000] | (d0) -> ((d0 / 9) * 8 + ((d0 / 3) mod 3) * 3 + d0 mod 3), domain: d0 in [0, 1000]
            (d0) -> (d0 mod 3 + d0 floordiv 9), domain: d0 in [0, 1000] | (d0) -> (d0 mod 3 + d0 / 9), domain: d0 in [0, 1000]
            (d0, d1) -> (d0 mod 3 + (d0 floordiv 3) * 3 + d1 mod 4 + (d1 floordiv 4) * 4), domain: d0 in [0, 100], d1 in [0, 100] | (d0, d1) -> (d1 + d0), domain: d0 in [0, 100], d1 in [0, 100]
            # the rules split each digit's constant on its own (a reshape of a reversed reshape, [4,3,3] -> [18,2]
            # reversed -> [3,12]); written as x - (x / c) * c the digits add up to the value. A product of
            # variables is not affine: the digits stay.
            (d0, d1) -> (((-d1 - d0 * 12 + 8) floordiv 9) * 9 + (((-d1 + 2) floordiv 3 - d0 * 4 + 2) mod 3) * 3 + (-d1 + 2) mod 3 + 27), domain: d0 in [0, 2], d1 in [0, 11] | (d0, d1) -> (-d1 - d0 * 12 + 35), domain: d0 in [0, 2], d1 in [0, 11]
            (d0, d1) -> (((-d1 - d0 * 12 + 8) floordiv 9) * 9 + (((-d1 + 2) floordiv 3 - d0 * 4 + 2) mod 3) * 3 + (-d1 + 2) mod 3 + 27 + d0 * d1), domain: d0 in [0, 2], d1 in [0, 11] | (d0, d1) -> (((-d1 - d0 * 12 + 8) / 9) * 9 + (((-d1 + 2) / 3 - d0 * 4 + 2) mod 3) * 3 + (-d1 + 2) mod 3 + d0 * d1 + 27), domain: d0 in [0, 2], d1 in [0, 11]
            (d0) -> ((d0 floordiv 8) * 1024 + (d0 mod 8) * 2), domain: d0 in [0, 63] | (d0) -> ((d0 / 8) * 1024 + (d0 mod 8) * 2), domain: d0 in [0, 63]
            # digits whose quotients name one sum in two orders (d1 * 2 + d0 * 2, d0 * 2 + d1 * 2) meet only in text order
            (d0, d1) -> ((d1 * 2 + d0 * 2 + 20) mod 4 + (((d0 * 2 + d1 * 2 + 16) floordiv 4) mod 3) * 4 + ((d1 * 2 + d0 * 2 + 28) floordiv 12 - 1) * 12), domain: d0 in [0, 2], d1 in [0, 7] | (d0, d1) -> (d0 * 2 + d1 * 2 + 16), domain: d0 in [0, 2], d1 in [0, 7]
            # digits of -d0 * 2 - d1 * 3 + 13 that add up only with each x mod c written x - (x / c) * c
            (d0, d1) -> ((d0 * -2 - d1 * 3 + 10) mod 3 + (((d0 * -2 - d1 * 3 + 16) floordiv 3 - 1) mod 4) * 3 + ((d0 * -2 - d1 * 3 + 1) floordiv 12 + 1) * 12), domain: d0 in [0, 2], d1 in [0, 3] | (d0, d1) -> (d0 * -2 - d1 * 3 + 13), domain: d0 in [0, 2], d1 in [0, 3]
            # a negative modulus is its absolute value: (x mod 4) + ((x mod -12) / 4) * 4 joins as for 12
            (d0) -> ((d0 mod 4) + ((d0 mod -12) floordiv 4) * 4), domain: d0 in [0, 100] | (d0) -> (d0 mod -12), domain: d0 in [0, 100]
            (d0) -> ((d0 mod -10) mod 4), domain: d0 in [0, 100] | (d0) -> (d0 mod -10 mod 4), domain: d0 in [0, 100]
            # beside the digits, a min or max without division (its ranges overlap, so it stays) does not stop the join
            (d0, d1) -> (((-d1 - d0 * 12 + 8) floordiv 9) * 9 + (((-d1 + 2) floordiv 3 - d0 * 4 + 2) mod 3) * 3 + (-d1 + 2) mod 3 + 27 + min(d1, d1 + d0)), domain: d0 in [0, 2], d1 in [0, 11] | (d0, d1) -> (min(d1, d0 + d1) - d1 - d0 * 12 + 35), domain: d0 in [0, 2], d1 in [0, 11]
            (d0, d1) -> (((-d1 - d0 * 12 + 8) floordiv 9) * 9 + (((-d1 + 2) floordiv 3 - d0 * 4 + 2) mod 3) * 3 + (-d1 + 2) mod 3 + 27 + max(d1, d1 + d0)), domain: d0 in [0, 2], d1 in [0, 11] | (d0, d1) -> (max(d1, d0 + d1) - d1 - d0 * 12 + 35), domain: d0 in [0, 2], d1 in [0, 11]
            # (rest + y / k) / c merges to (rest * k + y) / (k * c) unless rest * k passes 2^63 (here d0 * 2^70): then it stays
            (d0, d1) -> ((d0 * 1099511627776 + d1 floordiv 1073741824) floordiv 3), domain: d0 in [0, 1], d1 in [0, 2147483648] | (d0, d1) -> ((d0 * 1099511627776 + d1 / 1073741824) / 3), domain: d0 in [0, 1], d1 in [0, 2147483648]
            # sums in descending coefficient order, the constant last
            (d0, d1) -> (d1 + d0 * 3 - 2 + d0 * -7), domain: d0 in [0, 10], d1 in [0, 5] | (d0, d1) -> (d1 - d0 * 4 - 2), domain: d0 in [0, 10], d1 in [0, 5]
            (d0, d1) -> (d0 * d1), domain: d0 in [1, 100], d1 in [1, 100] | (d0, d1) -> (d0 * d1), domain: d0 in [1, 100], d1 in [1, 100]
            (d0, d1) -> ((d0 floordiv 16) * 2 + d1 floordiv 8), domain: d0 in [0, 15], d1 in [0, 7] | (d0, d1) -> (0), domain: d0 in [0, 15], d1 in [0, 7]
            # 64-bit limits: a rewrite whose result may overflow in the bounds is not kept
            (d0) -> (d0 * 3 + d0 mod 9), domain: d0 in [3074457345618258500, 3074457345618258602] | (d0) -> (d0 * 3 + d0 mod 9), domain: d0 in [3074457345618258500, 3074457345618258602]
            (d0) -> ((d0 + 2) floordiv 4611686018427387904), domain: d0 in [0, 9223372036854775805] | (d0) -> ((d0 + 2) / 4611686018427387904), domain: d0 in [0, 9223372036854775805]
            """)
    void rewrites(String in, String want) {
        check(in, want);
    }

    // ---- the simplifier on trees the parser's canonical constructors would already have folded ----

    private static final Dim D0 = new Dim(0);
    private static final Dim D1 = new Dim(1);

    private static ExprSimplifier over(long... bounds) {
        List<Interval> dims = new ArrayList<>();
        for (int i = 0; i < bounds.length; i += 2) {
            dims.add(new Interval(bounds[i], bounds[i + 1]));
        }
        return new ExprSimplifier(new RangeEvaluator(dims, List.of(), List.of()));
    }

    private static Const c(long v) {
        return new Const(v);
    }

    @Test
    void anExpressionWithNothingToDoComesBackAsItIs() {
        ExprSimplifier es = over(0, 9, 0, 9);
        AffineExpr e = new Add(new Mul(D1, c(3)), D0);
        assertEquals(e, es.simplify(e));
        assertSame(D0, es.simplify(D0));
        assertSame(D0, es.rewrite(D0));
    }

    /**
     * A pass joins one digit pair {@code d mod 2 + (d / 2) * 2} of a sum, so 17 pairs need 17
     * passes and the 16-pass limit leaves the last pair as it was; a last summand {@code d mod 3}
     * keeps the sum from being affine, so the digit join after the passes does not finish the
     * work. With 16 pairs every pair is joined. Both results are the sum's value at random points.
     */
    @Test
    void sixteenPassesJoinSixteenDigitPairsAndNoMore() {
        Random random = new Random(44);
        for (int pairs : new int[] {16, 17}) {
            long[] bounds = new long[2 * pairs + 2];
            AffineExpr sum = new Mod(new Dim(pairs), c(3));
            StringBuilder joined = new StringBuilder();
            for (int i = 0; i < pairs; i++) {
                Dim d = new Dim(i);
                sum = new Add(sum, new Add(new Mod(d, c(2)), new Mul(new FloorDiv(d, c(2)), c(2))));
                bounds[2 * i + 1] = 9;
                joined.insert(0, "d" + i + " + ");
            }
            bounds[2 * pairs + 1] = 9;
            AffineExpr simplified = over(bounds).simplify(sum);
            String want = pairs == 16 ? joined + "d16 mod 3"
                    : "(d16 / 2) * 2 + " + joined.substring("d16 + ".length()) + "d17 mod 3 + d16 mod 2";
            assertEquals(want, simplified.toText(), pairs + " pairs");
            for (int probe = 0; probe < 100; probe++) {
                long[] at = random.longs(pairs + 1, 0, 10).toArray();
                assertEquals(sum.evaluate(at, new long[0], new long[0]),
                        simplified.evaluate(at, new long[0], new long[0]), Arrays.toString(at));
            }
        }
    }

    @Test
    void divisionAndModuloByAConstantFoldWhereTheRangeAllows() {
        ExprSimplifier es = over(0, 15, -3, 3);
        assertEquals(c(0), es.divConst(D0, 16));
        assertEquals("d0 / -16", es.divConst(D0, -16).toText());
        assertEquals(c(-1), over(1, 16).divConst(D0, -16));
        assertEquals(new FloorDiv(D0, c(-15)), es.divConst(D0, -15));
        assertEquals(D0, es.modConst(D0, 16));
        assertEquals(new Mod(D1, c(3)), es.modConst(D1, 3));
        assertEquals(new Mod(D1, c(-3)), es.modConst(D1, -3));
        // d1 in [-3, 3]: floor(d1 / 4) is -1 or 0, d1 mod 4 not one piece
        assertEquals(new FloorDiv(D1, c(4)), es.divConst(D1, 4));
    }

    @Test
    void ceilDivisionFoldsOnlyWhenTheWholeRangeRoundsToOneValue() {
        assertEquals(c(1), over(1, 16).simplify(new CeilDiv(D0, c(16))));
        assertEquals(c(-1), over(16, 31).simplify(new CeilDiv(D0, c(-16))));
        assertEquals(new CeilDiv(D0, c(16)), over(1, 17).simplify(new CeilDiv(D0, c(16))));
        assertEquals(new CeilDiv(D0, c(16)), over(0, 16).simplify(new CeilDiv(D0, c(16))));
        // the divisor simplifies first: (d1 + 32) / 16 with d1 in [0, 15] is 2
        AffineExpr divisor = new FloorDiv(new Add(D1, c(32)), c(16));
        assertEquals(c(1), over(1, 2, 0, 15).simplify(new CeilDiv(D0, divisor)));
    }

    @Test
    void minAndMaxOfTouchingRangesPickEitherOperand() {
        ExprSimplifier es = over(0, 10, 10, 20);
        assertEquals(D0, es.simplify(new Min(D0, D1)));
        assertEquals(D0, es.simplify(new Min(D1, D0)));
        assertEquals(D1, es.simplify(new Max(D0, D1)));
        assertEquals(D1, es.simplify(new Max(D1, D0)));
        ExprSimplifier overlapping = over(0, 11, 10, 20);
        assertEquals(new Min(D0, D1), overlapping.simplify(new Min(D0, D1)));
        assertEquals(new Max(D0, D1), overlapping.simplify(new Max(D0, D1)));
    }

    @Test
    void operandsOfEveryNodeAreSimplified() {
        ExprSimplifier es = over(0, 15, 0, 100);
        AffineExpr zero = new FloorDiv(D0, c(16));
        assertEquals(D1, es.simplify(new Add(D1, zero)));
        assertEquals(c(0), es.simplify(new Mul(zero, D1)));
        assertEquals(c(0), es.simplify(new Mul(D1, zero)));
        assertEquals(new FloorDiv(D1, c(4)), es.simplify(new FloorDiv(new Add(D1, zero), new Add(c(4), zero))));
        assertEquals(new Mod(D1, c(4)), es.simplify(new Mod(new Add(D1, zero), new Add(c(4), zero))));
        assertEquals(D1, es.simplify(new Min(new Add(D1, zero), new Add(c(200), zero))));
        assertEquals(c(200), es.simplify(new Max(new Add(D1, zero), new Add(c(200), zero))));
        // a variable divisor stays a division, its operands simplified
        assertEquals(new FloorDiv(D1, D0), es.simplify(new FloorDiv(new Add(D1, zero), new Add(D0, zero))));
        assertEquals(new Mod(D1, D0), es.simplify(new Mod(new Add(D1, zero), new Add(D0, zero))));
    }

    @Test
    void greatestCommonDivisor() {
        assertEquals(6, ExprSimplifier.gcd(12, 18));
        assertEquals(6, ExprSimplifier.gcd(-12, 18));
        assertEquals(5, ExprSimplifier.gcd(0, 5));
        assertEquals(5, ExprSimplifier.gcd(5, 0));
        assertEquals(1, ExprSimplifier.gcd(7, 9));
    }

    @Test
    void sortingPutsCoefficientsInDescendingOrderAtEveryDepth() {
        AffineExpr inner = new Add(D0, new Mul(D1, c(5)));
        AffineExpr e = new Add(new Add(new Mod(inner, c(7)), new Mul(D1, c(-2))), c(3));
        assertEquals("(d1 * 5 + d0) mod 7 - d1 * 2 + 3", ExprSimplifier.sortSums(e).toText());
    }

    // ---- brute force: the simplified expression is the same function, and no larger ----

    static int divisions(AffineExpr e) {
        int[] n = {e instanceof FloorDiv || e instanceof CeilDiv || e instanceof Mod ? 1 : 0};
        Exprs.withOperands(e, x -> {
            n[0] += divisions(x);
            return x;
        });
        return n[0];
    }

    static int variables(AffineExpr e) {
        if (e instanceof Dim || e instanceof AffineExpr.Sym || e instanceof AffineExpr.Rt) {
            return 1;
        }
        int[] n = {0};
        Exprs.withOperands(e, x -> {
            n[0] += variables(x);
            return x;
        });
        return n[0];
    }

    /** No rule may trade a division for more divisions, or repeat a variable it did not have to. */
    static void assertNoLarger(AffineExpr before, AffineExpr after) {
        assertTrue(divisions(after) <= divisions(before), () -> "more divisions: " + before + " -> " + after);
        assertTrue(variables(after) <= variables(before), () -> "more variables: " + before + " -> " + after);
    }

    private static final long[] DIVISORS = {2, 3, 4, 6, 8, 9, 12, 16, -3, -4};
    private static final long[] FACTORS = {2, 3, 4, 8, 12, 16, -1, -2, -3};

    /** Raw trees (not canonical), so that the simplifier meets sums and products as written. */
    private static AffineExpr tree(Random rnd, int nd, int depth) {
        int pick = depth <= 0 ? rnd.nextInt(3) : rnd.nextInt(12);
        return switch (pick) {
            case 0, 1 -> new Dim(rnd.nextInt(nd));
            case 2 -> c(rnd.nextInt(41) - 20);
            case 3, 4 -> new Add(tree(rnd, nd, depth - 1), tree(rnd, nd, depth - 1));
            case 5, 6 -> new Mul(tree(rnd, nd, depth - 1), c(FACTORS[rnd.nextInt(FACTORS.length)]));
            case 7 -> new FloorDiv(tree(rnd, nd, depth - 1), c(DIVISORS[rnd.nextInt(DIVISORS.length)]));
            case 8, 9 -> new Mod(tree(rnd, nd, depth - 1), c(DIVISORS[rnd.nextInt(DIVISORS.length)]));
            case 10 -> new CeilDiv(tree(rnd, nd, depth - 1), c(DIVISORS[rnd.nextInt(DIVISORS.length)]));
            default -> rnd.nextBoolean() ? new Min(tree(rnd, nd, depth - 1), tree(rnd, nd, depth - 1))
                    : new Max(tree(rnd, nd, depth - 1), tree(rnd, nd, depth - 1));
        };
    }

    /**
     * 3,000 random trees over one or two dimensions with small bounds (fixed seeds, so a mutant
     * meets the same trees every run): the simplified tree evaluates to the original's value at
     * every point of the domain, and holds no more divisions or variable occurrences.
     */
    @Test
    void simplifiedTreesAreTheSameFunctionAndNoLarger() {
        int changed = 0;
        for (long seed = 0; seed < 3; seed++) {
            Random rnd = new Random(seed);
            for (int n = 0; n < 1000; n++) {
                int nd = 1 + rnd.nextInt(2);
                List<Interval> bounds = new ArrayList<>();
                for (int k = 0; k < nd; k++) {
                    long lo = rnd.nextInt(3) == 0 ? -rnd.nextInt(20) : rnd.nextInt(5);
                    bounds.add(new Interval(lo, lo + rnd.nextInt(40)));
                }
                AffineExpr e = tree(rnd, nd, 1 + rnd.nextInt(4));
                AffineExpr s = new ExprSimplifier(new RangeEvaluator(bounds, List.of(), List.of())).simplify(e);
                String at = "seed " + seed + " tree " + n + ": " + e + " on " + bounds + " -> " + s;
                for (long[] p : MapSemantics.all(bounds)) {
                    assertEquals(Exprs.evaluate(e, p, new long[0], new long[0]),
                            Exprs.evaluate(s, p, new long[0], new long[0]), () -> at + " at " + Arrays.toString(p));
                }
                assertNoLarger(e, s);
                changed += s.equals(e) ? 0 : 1;
            }
        }
        assertTrue(changed > 1200, "only " + changed + " of 3000 trees changed");
    }
}
