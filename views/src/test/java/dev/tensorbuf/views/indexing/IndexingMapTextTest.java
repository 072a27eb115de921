package dev.tensorbuf.views.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.text.TextFormatException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class IndexingMapTextTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            (d0 -> (d0), domain: d0 in [0, 3]                        | expected ')'                        | 4
            (d0) (d0), domain: d0 in [0, 3]                          | expected '->'                       | 5
            (d0) -> d0, domain: d0 in [0, 3]                         | expected '('                        | 8
            (d0) -> (d0, domain: d0 in [0, 3]                        | unknown variable 'domain'          | 13
            (d0) -> (d0), domain: d0 in [0, 3                        | expected ']'                        | 33
            (d0) -> (d0), domain: d0 in 0, 3]                        | expected '['                        | 28
            (d0) -> (d0), domain: d0 [0, 3]                          | expected 'in'                       | 25
            (d0) -> (d0), domain: d1 in [0, 3]                       | expected the domain of 'd0', got 'd1' | 22
            (d0) -> (d0), domain: d0 in [a, 3]                       | expected an integer                 | 29
            (d0) -> (d0), domain: d0 in [0, 99999999999999999999]    | does not fit in 64 bits             | 32
            (d0) -> (d1), domain: d0 in [0, 3]                       | unknown variable 'd1'               | 9
            (d0) -> (d0 +), domain: d0 in [0, 3]                     | expected an expression, got ')'     | 13
            (d0) -> (d0 * ), domain: d0 in [0, 3]                    | expected an expression, got ')'     | 14
            (d0, d0) -> (d0), domain: d0 in [0, 3], d0 in [0, 3]     | duplicate variable name 'd0'        | 5
            (d0)[mod] -> (d0), domain: d0 in [0, 3], mod in [0, 1]   | 'mod' is a keyword                  | 5
            (d0) -> (d0)                                             | expected ', domain:'                | 12
            (d0) -> (d0), domains: d0 in [0, 3]                      | expected 'domain'                   | 14
            (d0) -> (d0), domain d0 in [0, 3]                        | expected ':'                        | 21
            (d0) -> (d0), domain: d0 in [0, 3] extra                 | unexpected text after the map       | 35
            (d0) -> (min(d0 5)), domain: d0 in [0, 3]                | expected ','                        | 16
            (d0) -> (d0), domain: d0 in [0, 3], d0 mod 2             | expected 'in'                       | 44
            KNOWN FULL                                               | expected 'EMPTY'                    | 6
            (d0) -> (d0 # 2), domain: d0 in [0, 3]                   | expected ')'                        | 12
            """)
    void malformedTextNamesTheProblemAndPosition(String text, String message, int position) {
        TextFormatException e = assertThrows(TextFormatException.class, () -> IndexingMap.parse(text));
        assertTrue(e.getMessage().contains(message), e.getMessage());
        assertEquals(position, e.position(), e.getMessage());
        assertEquals(text, e.input());
    }

    /** XLA reads ASCII digits only; Java's parsers would read each of these as its value. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            (d0) -> (d0), domain: d0 in [０, 3]                       | '０' (U+FF10 FULLWIDTH DIGIT ZERO) is not an ASCII digit | 29
            (d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [３, 19] | '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit | 52
            (d0) -> (d0), domain: d0 in [-٣, 5]                      | '٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit | 30
            (d0) -> (d0 * ३), domain: d0 in [0, 3]                   | '३' (U+0969 DEVANAGARI DIGIT THREE) is not an ASCII digit | 14
            (d0) -> (d0²), domain: d0 in [0, 3]                      | '²' (U+00B2 SUPERSCRIPT TWO) is not an ASCII digit | 11
            (d３) -> (d３), domain: d３ in [0, 3]                       | '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit | 2
            """)
    void nonAsciiDigitsAreRefusedNamingTheCharacterAndPosition(String text, String message, int position) {
        TextFormatException e = assertThrows(TextFormatException.class, () -> IndexingMap.parse(text));
        assertEquals(message + " at position " + position + " of '" + text + "'", e.getMessage());
        assertEquals(position, e.position());
    }

    /** A review printed a compiled map and saw Tree[nodes=[Ldev...EvalNode;@...]. */
    @Test
    void aCompiledMapPrintsAsItsMap() {
        IndexingMap.Compiled f = IndexingMap.parse("(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]").compile();
        assertEquals(21, f.evaluate(0, new long[] {2, 5}));
        assertEquals("compiled (d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]", f.toString());
    }

    /**
     * Constraints equal after canonicalisation ({@code d0 + d0} and {@code d0 * 2}) were refused as
     * duplicates, though IndexingMap.of, withConstraint and XLA's AddConstraint intersect them.
     */
    @Test
    void repeatedConstraintsIntersectAsTheApiDoes() {
        IndexingMap m = IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 3], d0 + d0 in [0, 4], d0 * 2 in [0, 2]");
        IndexingMap api = IndexingMap.of(List.of(Variable.of(0, 3)), List.of(), List.of(AffineExpr.dim(0)))
                .withConstraint(AffineExpr.dim(0).times(2), new Interval(0, 4))
                .withConstraint(AffineExpr.dim(0).times(2), new Interval(0, 2));
        assertEquals(api, m);
        assertEquals("(d0) -> (d0), domain: d0 in [0, 3], d0 * 2 in [0, 2]", m.toString());
        assertEquals(new Interval(0, 2), m.constraints().get(AffineExpr.dim(0).times(2)));
        assertEquals("(d0) -> (d0), domain: d0 in [0, 1]", m.simplify().toString());
        assertEquals("(d0) -> (d0), domain: d0 in [0, 3], d0 + 1 in [1, 1]",
                IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 3], d0 + 1 in [0, 1], 1 + d0 in [1, 2]").toString());
        // Constant constraints: 0 in [0, 5] and 0 in [-1, 0] hold; 0 in [0, 5] and 0 in [2, 3] cannot.
        assertEquals("(d0) -> (d0), domain: d0 in [0, 3]",
                IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 3], d0 - d0 in [0, 5], 0 in [-1, 0]").toString());
        assertTrue(IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 3], d0 - d0 in [0, 5], d0 * 0 in [2, 3]")
                .isKnownEmpty());
        assertTrue(IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 3], d0 * 2 in [0, 1], d0 + d0 in [4, 6]")
                .isKnownEmpty());
    }

    @Test
    void exampleFromJavadoc() {
        IndexingMap m = IndexingMap.parse(
                "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 7], d1 in [0, 15]");
        assertEquals("(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]", m.simplify().toString());
        assertEquals(5, m.evaluate(new long[] {2, 5})[1]);
        assertEquals("(d0, d1) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 2]", IndexingMap.identity(2, 3).toString());
    }

    @Test
    void composeExampleTransposesAStridedMap() {
        IndexingMap transpose = IndexingMap.parse("(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]");
        IndexingMap strided = IndexingMap.parse("(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]");
        assertEquals("(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]",
                IndexingMap.compose(strided, transpose).toString());
    }

    @Test
    void builderAndExpressionFactoriesPrintAsXla() {
        IndexingMap m = IndexingMap.builder().dim(0, 1).dim(0, 2)
                .result(AffineExpr.dim(0).times(3).plus(AffineExpr.dim(1))).build();
        assertEquals("(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]", m.toString());
        AffineExpr e = AffineExpr.dim(0).times(4).plus(AffineExpr.dim(1)).floorDiv(4);
        assertEquals("(d0 * 4 + d1) / 4", e.toString());
        assertEquals(2, e.evaluate(new long[] {2, 3}, new long[0], new long[0]));
        assertEquals("-d0 - 1", AffineExpr.dim(0).plus(1).negate().toString());
        assertEquals("d0", AffineExpr.dim(0).times(6).floorDiv(6).toString());
    }

    @Test
    void printsBothSpellingsAndParsesOldOnes() {
        IndexingMap m = IndexingMap.parse("(d0) -> (d0 floordiv 4), domain: d0 in [0, 15]");
        assertEquals("(d0) -> (d0 / 4), domain: d0 in [0, 15]", m.toText(IndexingMap.Notation.XLA));
        assertEquals("(d0) -> (d0 floordiv 4), domain: d0 in [0, 15]", m.toText(IndexingMap.Notation.MLIR));
        IndexingMap old = IndexingMap.parse("(d0)[s0]{rt0} -> ((d0 floorDiv 2) ceilDiv 3 + s0 * -1 + rt0 mod 2),\n"
                + "domain:\nd0 in [0, 9],\ns0 in [-2, 2],\nrt0 in [0, 1]");
        assertEquals("(d0)[s0]{rt0} -> ((d0 / 2) ceildiv 3 - s0 + rt0 mod 2), domain: d0 in [0, 9], s0 in [-2, 2],"
                + " rt0 in [0, 1]", old.toString());
        assertEquals("() -> ()", IndexingMap.parse("() -> ()").toString());
        assertEquals("UNDEFINED", IndexingMap.parse("UNDEFINED").toString());
    }

    @Test
    void constraintsPrintSortedByText() {
        IndexingMap m = IndexingMap.parse("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9],"
                + " d1 mod 2 in [0, 0], d0 + d1 in [0, 5]");
        assertEquals("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 5], d1 mod 2 in [0, 0]",
                m.toString());
    }

    @Test
    void expressionUsingAMissingVariableIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IndexingMap.of(List.of(Variable.of(0, 3)), List.of(), List.of(AffineExpr.dim(2))));
        assertTrue(e.getMessage().contains("uses d2 but the map has 1 dimension(s)"), e.getMessage());
    }

    @Test
    void evaluationOverflowNamesTheNumbers() {
        IndexingMap m = IndexingMap.parse("(d0) -> (d0 * 4611686018427387904), domain: d0 in [0, 3]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.evaluate(3));
        assertTrue(e.getMessage().contains("overflow in 3 * 4611686018427387904"), e.getMessage());
        IllegalArgumentException z = assertThrows(IllegalArgumentException.class,
                () -> IndexingMap.parse("()[s0, s1] -> (s0 / s1), domain: s0 in [0, 3], s1 in [0, 4]")
                        .evaluate(new long[0], new long[] {1, 0}, new long[0]));
        assertTrue(z.getMessage().contains("division by zero in s0 / s1"), z.getMessage());
    }

    @Test
    void foldingThatOverflowsNamesWhereItHappened() {
        // The parser folds like terms, so the sum of two halves of 2^63 overflows at the '+'.
        String text = "(d0) -> (d0 * 4611686018427387904 + d0 * 4611686018427387904), domain: d0 in [0, 2]";
        TextFormatException sum = assertThrows(TextFormatException.class, () -> IndexingMap.parse(text));
        assertEquals(text.indexOf('+'), sum.position());
        assertEquals("overflow in 4611686018427387904 + 4611686018427387904", sum.problem());
        String twice = "(d0) -> (d0 * 4611686018427387904 * 4), domain: d0 in [0, 2]";
        TextFormatException product = assertThrows(TextFormatException.class, () -> IndexingMap.parse(twice));
        assertEquals(twice.lastIndexOf('*'), product.position());
        // Composition has no text position: it names both maps.
        IndexingMap producer = IndexingMap.parse("(d0) -> (d0 * 2), domain: d0 in [0, 3]");
        IndexingMap consumer = IndexingMap.parse("(d0) -> (d0 * 4611686018427387904), domain: d0 in [0, 6]");
        IllegalArgumentException composed = assertThrows(IllegalArgumentException.class,
                () -> IndexingMap.compose(consumer, producer));
        assertEquals("cannot compose " + consumer + " after " + producer + ": overflow in 2 * 4611686018427387904",
                composed.getMessage());
    }

    /** "The first map" once meant compose's second argument: the message now says which is applied first. */
    @Test
    void countsThatDoNotMatchNameTheMapAppliedFirst() {
        IndexingMap twoResults = IndexingMap.parse("(d0) -> (d0, d0), domain: d0 in [0, 3]");
        IndexingMap oneDim = IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 3]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IndexingMap.compose(oneDim, twoResults));
        assertEquals("cannot compose: the map applied first, (d0) -> (d0, d0), domain: d0 in [0, 3], has 2 result(s)"
                + " but the map applied second, (d0) -> (d0), domain: d0 in [0, 3], has 1 dimension(s); the counts"
                + " must be equal", e.getMessage());
    }

    @Test
    void expressionsTooLargeToSimplifyAreRefusedWhereTheyGrowTooLarge() {
        // 2000 chained mods or nested parentheses overflowed the Java stack in the simplifier or the parser.
        String mods = "(d0) -> (d0" + " mod 3".repeat(2000) + "), domain: d0 in [0, 9]";
        TextFormatException e = assertThrows(TextFormatException.class, () -> IndexingMap.parse(mods));
        assertTrue(e.getMessage().startsWith("expression with more than 512 operators, too large to simplify"), e.getMessage());
        assertEquals("(d0) -> (d0".length() + 512 * " mod 3".length() + " mod".length(), e.position(), "just after the 513th");
        String parens = "(d0) -> (" + "(".repeat(3000) + "d0" + ")".repeat(3000) + ")";
        assertThrows(TextFormatException.class, () -> IndexingMap.parse(parens));
        // The count is per expression: each result and constraint may have 512.
        String wide = "(d0) -> (d0" + " mod 3".repeat(500) + ", d0" + " mod 3".repeat(500) + "), domain: d0 in [0, 9]";
        assertEquals("(d0) -> (d0 mod 3, d0 mod 3), domain: d0 in [0, 9]", IndexingMap.parse(wide).simplify().toString());
    }

    @Test
    void pointDimensionsAreSubstitutedOnlyByDefault() {
        IndexingMap m = IndexingMap.parse("(d0) -> (d0), domain: d0 in [5, 5]");
        assertEquals("(d0) -> (d0), domain: d0 in [5, 5]", m.simplify(IndexingMap.PointDims.PRESERVE).toString());
        assertEquals("(d0) -> (5), domain: d0 in [5, 5]", m.simplify().toString());
    }

    /**
     * A constant's multiple of the common divisor leaves the division and the modulo with the
     * other multiples (found by ViewOpAgreementTest: a reverse composed into a reshape's map).
     */
    @Test
    void aConstantMultipleOfTheCommonDivisorLeavesDivisionAndModulo() {
        assertEquals("(d0, d1) -> ((-d0 + 2) / 3), domain: d0 in [0, 11], d1 in [0, 2]",
                IndexingMap.parse("(d0, d1) -> ((d1 - d0 * 3 + 6) floordiv 9), domain: d0 in [0, 11], d1 in [0, 2]")
                        .simplify().toString());
        assertEquals("(d0, d1) -> (((d0 + 2) mod 3) * 3 + d1), domain: d0 in [0, 11], d1 in [0, 2]",
                IndexingMap.parse("(d0, d1) -> ((d0 * 3 + d1 + 6) mod 9), domain: d0 in [0, 11], d1 in [0, 2]")
                        .simplify().toString());
        // The reshape [4,3,3] -> [12,3] of f32[4,3,3]{1,0,2}, reversed along dim 0, is strided again.
        assertEquals("(d0, d1) -> (d1 * 12 - d0 + 11), domain: d0 in [0, 11], d1 in [0, 2]",
                IndexingMap.parse("(d0, d1) -> (((d0 * -3 + d1 + 33) floordiv 3) mod 3 + ((d0 * -3 + d1 + 33) floordiv 9) * 3"
                        + " + ((d0 * -3 + d1 + 33) mod 3) * 12), domain: d0 in [0, 11], d1 in [0, 2]").simplify().toString());
    }

    /**
     * {@code (x mod k) + ((x mod m) / k) * k} is {@code x mod m} when k divides m (found by
     * ViewOpAgreementTest: two reshapes in a row, [4,3,3] -> [3,2,6] -> [36], composed as maps).
     */
    @Test
    void aModuloAndTheQuotientOfAWiderModuloRecombine() {
        assertEquals("(d0) -> (d0 mod 6), domain: d0 in [0, 35]",
                IndexingMap.parse("(d0) -> (((d0 mod 6) floordiv 3) * 3 + d0 mod 3), domain: d0 in [0, 35]").simplify().toString());
        assertEquals("(d0) -> (d0), domain: d0 in [0, 35]",
                IndexingMap.parse("(d0) -> ((d0 floordiv 6) * 6 + ((d0 mod 6) floordiv 3) * 3 + d0 mod 3), domain: d0 in [0, 35]")
                        .simplify().toString());
        // Not when k does not divide m: (d0 mod 5) / 3 and d0 mod 3 do not recombine.
        assertEquals("(d0) -> (((d0 mod 5) / 3) * 3 + d0 mod 3), domain: d0 in [0, 35]",
                IndexingMap.parse("(d0) -> (((d0 mod 5) floordiv 3) * 3 + d0 mod 3), domain: d0 in [0, 35]").simplify().toString());
    }

    /**
     * A value cut into digits whose constant the rules split differently per digit (a reshape of
     * a reversed reshape, [4,3,3] -> [18,2] reversed -> [3,12], composed as maps) is the value;
     * digits that do not add up to an affine value keep their moduli.
     */
    @Test
    void digitsSplitApartByTheirConstantsAddUpToTheValue() {
        assertEquals("(d0, d1) -> (-d1 - d0 * 12 + 35), domain: d0 in [0, 2], d1 in [0, 11]",
                IndexingMap.parse("(d0, d1) -> (((-d1 - d0 * 12 + 8) floordiv 9) * 9 + (((-d1 + 2) floordiv 3 - d0 * 4 + 2) mod 3) * 3"
                        + " + (-d1 + 2) mod 3 + 27), domain: d0 in [0, 2], d1 in [0, 11]").simplify().toString());
        assertEquals("(d0) -> ((d0 / 8) * 1024 + (d0 mod 8) * 2), domain: d0 in [0, 63]",
                IndexingMap.parse("(d0) -> ((d0 floordiv 8) * 1024 + (d0 mod 8) * 2), domain: d0 in [0, 63]").simplify().toString());
    }
}
