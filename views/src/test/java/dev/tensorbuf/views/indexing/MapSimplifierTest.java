package dev.tensorbuf.views.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link MapSimplifier}'s constraint rewrites, residue merging and bound tightening, each with its
 * exact result and checked against brute force over the domain ({@link MapSemantics}): the same
 * points are in the domain and map to the same values.
 */
class MapSimplifierTest {

    private static IndexingMap check(String in, String want) {
        IndexingMap m = IndexingMap.parse(in);
        IndexingMap s = m.simplify();
        assertEquals(want, s.toString(), in);
        assertNull(MapSemantics.difference(m, s), () -> in + " -> " + s);
        assertTrue(s.constraints().size() <= m.constraints().size(), () -> "more constraints: " + s);
        return s;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # e + k in [a, b] -> e in [a - k, b - k]; a constraint on one variable becomes its bounds
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 + 3 in [10, 20] | (d0, d1) -> (d0, d1), domain: d0 in [7, 17], d1 in [0, 99]
            (d0) -> (d0), domain: d0 in [0, 99], d0 in [10, 20] | (d0) -> (d0), domain: d0 in [10, 20]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 * 2 + d1 * 2 + 6 in [10, 30] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 in [2, 12]
            # a common factor divides out, rounding the bounds inwards
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 * 4 + d1 * 6 in [3, 50] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d1 * 3 + d0 * 2 in [2, 25]
            # e * k and e / k, k positive or negative
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) * 3 in [4, 20] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 in [2, 6]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) * -3 in [-20, -4] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], -d0 - d1 in [-6, -2]
            (d0) -> (d0), domain: d0 in [0, 99], d0 * -3 in [-20, -4] | (d0) -> (d0), domain: d0 in [2, 6]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) floordiv 3 in [2, 5] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 in [6, 17]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) floordiv -3 in [-5, -2] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 in [4, 15]
            (d0) -> (d0), domain: d0 in [-99, 99], d0 floordiv -3 in [-5, 2] | (d0) -> (d0), domain: d0 in [-8, 15]
            (d0) -> (d0), domain: d0 in [0, 4611686018427387904], d0 floordiv 3 in [0, 1000000000] | (d0) -> (d0), domain: d0 in [0, 3000000002]
            # bounds of 2^40 or more are left alone (their products could pass 2^63); 2^40 - 1 is not
            (d0) -> (d0), domain: d0 in [-9999999999999, 9999999999999], d0 floordiv 3 in [-2000000000000, 2000000000000] | (d0) -> (d0), domain: d0 in [-9999999999999, 9999999999999], d0 / 3 in [-2000000000000, 2000000000000]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 9999], d1 in [0, 9999], (d0 + d1) floordiv 3 in [10, 1099511627775] | (d0, d1) -> (d0, d1), domain: d0 in [0, 9999], d1 in [0, 9999], d0 + d1 in [30, 3298534883327]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 9999], d1 in [0, 9999], (d0 + d1) floordiv 3 in [10, 1099511627776] | (d0, d1) -> (d0, d1), domain: d0 in [0, 9999], d1 in [0, 9999], (d0 + d1) / 3 in [10, 1099511627776]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 9999], d1 in [0, 9999], (d0 + d1) floordiv 3 in [-1099511627775, 100] | (d0, d1) -> (d0, d1), domain: d0 in [0, 9999], d1 in [0, 9999], d0 + d1 in [-3298534883325, 302]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 9999], d1 in [0, 9999], (d0 + d1) floordiv 3 in [-1099511627776, 100] | (d0, d1) -> (d0, d1), domain: d0 in [0, 9999], d1 in [0, 9999], (d0 + d1) / 3 in [-1099511627776, 100]
            (d0) -> (d0), domain: d0 in [0, 99], d0 floordiv 3 in [-9223372036854775808, 5] | (d0) -> (d0), domain: d0 in [0, 99], d0 / 3 in [-9223372036854775808, 5]
            (d0) -> (d0), domain: d0 in [0, 99], d0 * 3 + 1 in [4, 20] | (d0) -> (d0), domain: d0 in [1, 6]
            # g * e + r in [g * a, g * b + g - 1] with r in [0, g - 1] is e in [a, b]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 3], d0 * 4 + d1 + 2 in [10, 25] | (d0, d1) -> (d0, d1), domain: d0 in [2, 5], d1 in [0, 3]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 1], d0 * 2 + d1 in [0, 1] | (d0, d1) -> (0, d1), domain: d0 in [0, 0], d1 in [0, 1]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 1], d0 * 2 + d1 in [2, 3] | (d0, d1) -> (1, d1), domain: d0 in [1, 1], d1 in [0, 1]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 3], d0 * 4 + d1 in [8, 23] | (d0, d1) -> (d0, d1), domain: d0 in [2, 5], d1 in [0, 3]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 3], d0 * -4 + d1 in [-24, -13] | (d0, d1) -> (d0, d1), domain: d0 in [4, 6], d1 in [0, 3]
            (d0, d1, d2) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d2 in [0, 1], d0 * 4 + d1 * 2 + d2 in [8, 23] | (d0, d1, d2) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d2 in [0, 1], d0 * 2 + d1 in [4, 11]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 3], d0 * 4 + d1 in [9, 23] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 3], d0 * 4 + d1 in [9, 23]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 3], d0 * 4 + d1 in [8, 22] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 3], d0 * 4 + d1 in [8, 22]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 4], d0 * 4 + d1 in [8, 23] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 4], d0 * 4 + d1 in [8, 23]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [-1, 3], d0 * 4 + d1 in [8, 23] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [-1, 3], d0 * 4 + d1 in [8, 23]
            # two single-residue constraints on one variable merge (Chinese remainder), up to a modulus of 2^20
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 4 in [1, 1], d0 mod 6 in [3, 3] | (d0) -> (d0), domain: d0 in [9, 93], d0 mod 12 in [9, 9]
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 4 in [1, 1], d0 mod 6 in [3, 3], d0 mod 5 in [4, 4] | (d0) -> (d0), domain: d0 in [9, 69], d0 mod 60 in [9, 9]
            (d0) -> (d0), domain: d0 in [0, 9999999], d0 mod 1024 in [1, 1], d0 mod 2048 in [1, 1] | (d0) -> (d0), domain: d0 in [1, 9998337], d0 mod 2048 in [1, 1]
            (d0) -> (d0), domain: d0 in [0, 9999999], d0 mod 4096 in [1, 1], d0 mod 384 in [1, 1] | (d0) -> (d0), domain: d0 in [1, 9990145], d0 mod 12288 in [1, 1]
            (d0) -> (d0), domain: d0 in [0, 9999999], d0 mod 1048576 in [1, 1], d0 mod 3 in [1, 1] | (d0) -> (d0), domain: d0 in [1, 9437185], d0 mod 1048576 in [1, 1], d0 mod 3 in [1, 1]
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 4 in [1, 2], d0 mod 6 in [3, 3] | (d0) -> (d0), domain: d0 in [9, 93], d0 mod 4 in [1, 2], d0 mod 6 in [3, 3]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 mod 4 in [1, 1], d1 mod 6 in [3, 3] | (d0, d1) -> (d0, d1), domain: d0 in [1, 97], d1 in [3, 99], d0 mod 4 in [1, 1], d1 mod 6 in [3, 3]
            (d0) -> (d0), domain: d0 in [0, 9999999], d0 mod 1048576 in [1, 1], d0 mod 524288 in [1, 1] | (d0) -> (d0), domain: d0 in [1, 9437185], d0 mod 1048576 in [1, 1]
            (d0) -> (d0), domain: d0 in [0, 9999999], d0 mod 1048576 in [1, 1], d0 mod 2097152 in [1, 1] | (d0) -> (d0), domain: d0 in [1, 8388609], d0 mod 1048576 in [1, 1], d0 mod 2097152 in [1, 1]
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 6 in [3, 3], d0 mod 4 in [1, 1] | (d0) -> (d0), domain: d0 in [9, 93], d0 mod 12 in [9, 9]
            (d0)[s0] -> (d0, s0), domain: d0 in [0, 99], s0 in [0, 99], s0 mod 4 in [1, 1], s0 mod 6 in [3, 3] | (d0)[s0] -> (d0, s0), domain: d0 in [0, 99], s0 in [9, 93], s0 mod 12 in [9, 9]
            (d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [0, 99], d0 mod 4 in [1, 1], s0 mod 4 in [1, 1] | (d0)[s0] -> (d0), domain: d0 in [1, 97], s0 in [1, 97], d0 mod 4 in [1, 1], s0 mod 4 in [1, 1]
            # v mod m in [a, b] moves v's bounds to the nearest allowed values
            (d0) -> (d0), domain: d0 in [4, 99], d0 mod 8 in [2, 3] | (d0) -> (d0), domain: d0 in [10, 99], d0 mod 8 in [2, 3]
            (d0) -> (d0), domain: d0 in [0, 93], d0 mod 8 in [2, 3] | (d0) -> (d0), domain: d0 in [2, 91], d0 mod 8 in [2, 3]
            (d0) -> (d0), domain: d0 in [0, 92], d0 mod 8 in [6, 7] | (d0) -> (d0), domain: d0 in [6, 87], d0 mod 8 in [6, 7]
            (d0) -> (d0), domain: d0 in [0, 92], d0 mod 8 in [6, 9] | (d0) -> (d0), domain: d0 in [6, 87], d0 mod 8 in [6, 9]
            # moduli near 2^63: their lcm would wrap, so they are not merged (d0 = 1 is the one point)
            (d0) -> (d0), domain: d0 in [0, 4611686018427387914], d0 mod 4611686018427387904 in [1, 1], d0 mod 3 in [1, 1] | (d0) -> (1), domain: d0 in [1, 1]
            (d0) -> (d0), domain: d0 in [0, 99], (d0 * 2) mod 8 in [2, 2] | (d0) -> (d0), domain: d0 in [1, 97], d0 mod 4 in [1, 1]
            (d0) -> (d0), domain: d0 in [0, 9223372036854775807], d0 mod 8 in [2, 3] | (d0) -> (d0), domain: d0 in [0, 9223372036854775807], d0 mod 8 in [2, 3]
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 8 in [2, 5] | (d0) -> (d0), domain: d0 in [2, 99], d0 mod 8 in [2, 5]
            (d0) -> (d0), domain: d0 in [3, 99], d0 mod 8 in [0, 0] | (d0) -> (d0), domain: d0 in [8, 96], d0 mod 8 in [0, 0]
            (d0) -> (d0), domain: d0 in [5, 99], d0 mod 8 in [2, 3] | (d0) -> (d0), domain: d0 in [10, 99], d0 mod 8 in [2, 3]
            (d0) -> (d0), domain: d0 in [0, 98], d0 mod 8 in [2, 3] | (d0) -> (d0), domain: d0 in [2, 98], d0 mod 8 in [2, 3]
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 8 in [-3, 3] | (d0) -> (d0), domain: d0 in [0, 99], d0 mod 8 in [-3, 3]
            (d0)[s0] -> (d0 + s0), domain: d0 in [0, 99], s0 in [0, 30], s0 mod 8 in [6, 7] | (d0)[s0] -> (d0 + s0), domain: d0 in [0, 99], s0 in [6, 30], s0 mod 8 in [6, 7]
            (d0){rt0} -> (d0 + rt0), domain: d0 in [0, 99], rt0 in [0, 30], rt0 mod 8 in [6, 7] | (d0){rt0} -> (d0 + rt0), domain: d0 in [0, 99], rt0 in [6, 30], rt0 mod 8 in [6, 7]
            (d0) -> (d0), domain: d0 in [-9223372036854775808, 99], d0 mod 8 in [2, 3] | (d0) -> (d0), domain: d0 in [-9223372036854775808, 99], d0 mod 8 in [2, 3]
            (d0) -> (d0), domain: d0 in [9223372036854775800, 9223372036854775806], d0 mod 8 in [2, 3] | (d0) -> (d0), domain: d0 in [9223372036854775802, 9223372036854775803]
            (d0) -> (d0), domain: d0 in [-9223372036854775807, -9223372036854775800], d0 mod 8 in [2, 3] | (d0) -> (d0), domain: d0 in [-9223372036854775806, -9223372036854775805]
            # a constraint that always holds goes; point dimensions become constants
            (d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [0, 9], d0 + s0 in [0, 500] | (d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [0, 9]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 in [0, 300] | (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99]
            (d0, d1) -> (d0 + d1), domain: d0 in [0, 99], d1 in [5, 5] | (d0, d1) -> (d0 + 5), domain: d0 in [0, 99], d1 in [5, 5]
            (d0) -> (d0), domain: d0 in [0, 99], d0 floordiv 4 in [2, 2], d0 mod 4 in [1, 1] | (d0) -> (9), domain: d0 in [9, 9]
            # a rewrite that would make an evaluating constraint overflow is not taken
            (d0) -> (d0 * 3 + d0 mod 9), domain: d0 in [0, 99], d0 + 5 in [-9223372036854775808, 50] | (d0) -> (d0 * 3 + d0 mod 9), domain: d0 in [0, 45]
            """)
    void rewrites(String in, String want) {
        check(in, want);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 4 in [1, 1], d0 mod 6 in [2, 2]
            (d0) -> (d0), domain: d0 in [0, 99], d0 * 2 in [300, 400]
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 8 in [9, 12]
            (d0) -> (d0), domain: d0 in [0, 99], d0 mod 8 in [-3, -1]
            (d0) -> (d0), domain: d0 in [10, 12], d0 mod 8 in [0, 0]
            (d0) -> (d0), domain: d0 in [9223372036854775800, 9223372036854775806], d0 mod 16 in [0, 0]
            (d0) -> (d0), domain: d0 in [-9223372036854775807, -9223372036854775800], d0 mod 16 in [15, 15]
            (d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 99], d0 - d1 in [200, 300]
            (d0) -> (d0), domain: d0 in [14, 17], d0 mod 8 in [3, 4]
            """)
    void constraintsThatNeverHoldMakeTheMapKnownEmpty(String in) {
        IndexingMap m = IndexingMap.parse(in);
        IndexingMap s = m.simplify();
        assertTrue(s.isKnownEmpty(), () -> in + " -> " + s);
        assertTrue(!MapSemantics.hasFeasiblePoint(m), in);
    }

    @Test
    void pointDimensionsStayWhenAskedTo() {
        IndexingMap m = IndexingMap.parse("(d0, d1) -> (d0 + d1), domain: d0 in [0, 99], d1 in [5, 5]");
        assertEquals("(d0, d1) -> (d0 + d1), domain: d0 in [0, 99], d1 in [5, 5]",
                m.simplify(IndexingMap.PointDims.PRESERVE).toString());
        assertEquals("(d0, d1) -> (d0, 5), domain: d0 in [7, 17], d1 in [5, 5]",
                IndexingMap.parse("(d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [5, 5], d0 + 3 in [10, 20]")
                        .simplify().toString());
    }

    /** Folding a point dimension in can overflow a constant where evaluation does not: the dimension then stays. */
    @Test
    void aPointDimensionWhoseFoldOverflowsStays() {
        // d0 = 1 folds d0 * 2^62 + 2^62 into the constant 2^63; in order, d1 + d0 * 2^62 + 2^62 evaluates.
        IndexingMap m = IndexingMap.parse("(d0, d1) -> (d1 + d0 * 4611686018427387904 + 4611686018427387904),"
                + " domain: d0 in [1, 1], d1 in [-4611686018427387904, -4611686018427387900]");
        assertEquals("(d0, d1) -> (d0 * 4611686018427387904 + d1 + 4611686018427387904),"
                + " domain: d0 in [1, 1], d1 in [-4611686018427387904, -4611686018427387900]", m.simplify().toString());
        assertEquals(4611686018427387908L, m.simplify().evaluate(new long[] {1, -4611686018427387900L})[0]);
    }

    /**
     * Each round folds the point dimensions found in the round before: a chain d0 = 1, d1 + d0 = 3,
     * ..., d10 + d9 = 21 resolves one link a round and stops after 8, with d9 and d10 still open.
     */
    @Test
    void simplificationStopsAfterEightRounds() {
        StringBuilder dims = new StringBuilder("d0");
        StringBuilder domain = new StringBuilder("d0 in [1, 1]");
        StringBuilder links = new StringBuilder();
        for (int i = 1; i <= 10; i++) {
            dims.append(", d").append(i);
            domain.append(", d").append(i).append(" in [0, 100]");
            links.append(", d").append(i).append(" + d").append(i - 1).append(" in [").append(2 * i + 1).append(", ")
                    .append(2 * i + 1).append("]");
        }
        IndexingMap m = IndexingMap.parse("(" + dims + ") -> (d10), domain: " + domain + links);
        assertEquals("(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10) -> (d10), domain: d0 in [1, 1], d1 in [2, 2],"
                + " d2 in [3, 3], d3 in [4, 4], d4 in [5, 5], d5 in [6, 6], d6 in [7, 7], d7 in [8, 8], d8 in [9, 9],"
                + " d9 in [0, 100], d10 in [0, 100], d10 + d9 in [21, 21], d9 + d8 in [19, 19]", m.simplify().toString());
        // A second call goes on from there.
        assertEquals("(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10) -> (11), domain: d0 in [1, 1], d1 in [2, 2],"
                + " d2 in [3, 3], d3 in [4, 4], d4 in [5, 5], d5 in [6, 6], d6 in [7, 7], d7 in [8, 8], d8 in [9, 9],"
                + " d9 in [10, 10], d10 in [11, 11]", m.simplify().simplify().toString());
    }

    /**
     * One constraint is rewritten at most 8 times a round, over at most 8 rounds: of a chain
     * {@code ((d0 + d1) floordiv -2 + 1) floordiv -2 ...} (a negative divisor keeps ExprSimplifier
     * from merging the quotients), one rewrite a step, 64 steps end in one call and the 65th waits
     * for the next. Both say d0 + d1 = 0.
     */
    @Test
    void sixtyFourRewritesOfOneConstraintAndNoMore() {
        for (int steps : new int[] {64, 65}) {
            String chain = "d0 + d1";
            for (int i = 1; i <= steps; i++) {
                chain = i % 2 == 1 ? "(" + chain + ") floordiv -2" : chain + " + 1";
            }
            String in = "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 9], " + chain + " in [0, 0]";
            String left = steps == 64 ? "d0 + d1 in [-4294967295, 0]" : "(d0 + d1) / -2 in [0, 4294967295]";
            IndexingMap once = check(in, "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 9], " + left);
            String done = steps == 64 ? left : "d0 + d1 in [-8589934591, 0]";
            assertEquals("(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 9], " + done,
                    once.simplify().toString(), steps + " steps");
        }
    }

    @Test
    void knownEmptyAndUndefinedMapsComeBackAsTheyAre() {
        IndexingMap empty = IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 99], d0 * 2 in [300, 400]").simplify();
        assertSame(empty, empty.simplify());
        IndexingMap undefined = IndexingMap.undefined();
        assertSame(undefined, undefined.simplify());
    }

    /** A constraint that may overflow over the bounds is still rewritten: its rewrites only shrink it. */
    @Test
    void constraintsThatMayOverflowAreRewrittenToo() {
        IndexingMap sum = IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 4611686018427387904], d0 * 4 + 8 in [16, 400]");
        assertEquals("(d0) -> (d0), domain: d0 in [2, 98]", sum.simplify().toString());
        IndexingMap product = IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 4611686018427387904],"
                + " (d0 + 8) * 4 in [36, 400]");
        assertEquals("(d0) -> (d0), domain: d0 in [1, 92]", product.simplify().toString());
        for (long d0 = 0; d0 <= 100; d0++) {
            long[] at = {d0};
            assertEquals(sum.contains(at, new long[0], new long[0]), d0 >= 2 && d0 <= 98);
            assertEquals(product.contains(at, new long[0], new long[0]), d0 >= 1 && d0 <= 92);
        }
    }

    @Test
    void chineseRemainder() {
        assertEquals(9, MapSimplifier.crt(4, 1, 6, 3));
        assertEquals(-1, MapSimplifier.crt(4, 1, 6, 2));
        assertEquals(59, MapSimplifier.crt(4, 3, 15, 14));
        assertEquals(0, MapSimplifier.crt(4, 0, 6, 0));
        assertEquals(11, MapSimplifier.crt(12, 11, 4, 3));
        // residues outside [0, m) have no solution
        assertEquals(-1, MapSimplifier.crt(4, 4, 6, 0));
        assertEquals(-1, MapSimplifier.crt(4, 4, 6, 2));
        assertEquals(-1, MapSimplifier.crt(4, -1, 6, 0));
        assertEquals(-1, MapSimplifier.crt(4, 0, 6, 6));
        assertEquals(-1, MapSimplifier.crt(4, 0, 6, -1));
    }

    @Test
    void constraintsAreMetInAnyOrder() {
        IndexingMap a = IndexingMap.of(List.of(Variable.of(0, 99)), List.of(), List.of(), List.of(AffineExpr.dim(0)),
                Map.of(AffineExpr.dim(0).mod(6), Interval.point(3)));
        IndexingMap b = a.withConstraint(AffineExpr.dim(0).mod(4), Interval.point(1));
        assertEquals("(d0) -> (d0), domain: d0 in [9, 93], d0 mod 12 in [9, 9]", b.simplify().toString());
    }
}
