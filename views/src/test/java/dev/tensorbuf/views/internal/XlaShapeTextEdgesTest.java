package dev.tensorbuf.views.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Shape text at the edges of its tokens and values: a '-' or '<' as the last character, a
 * negative size, a non-ASCII digit right after a number, the largest minor_to_major entry and
 * memory space 0, wide tuples (width is not depth), and an error in a later layout of a tuple
 * pointing at its own entry. Also the tiling plan's levels as {@code TiledLayoutMaps} reads them.
 */
class XlaShapeTextEdgesTest {
    private static TextFormatException refused(String text) {
        return assertThrows(TextFormatException.class, () -> XlaShape.parse(text), text);
    }

    @Test
    void aMinusOrLessThanAtTheEndIsATokenNotAnIndexError() {
        TextFormatException minus = refused("f32[2,-");
        assertEquals(6, minus.position());
        assertTrue(minus.getMessage().contains("found '-'"), minus.getMessage());
        TextFormatException less = refused("f32[<");
        assertEquals(4, less.position());
        assertTrue(less.getMessage().contains("found '<'"), less.getMessage());
        // '<' not followed by '=' is no bound either.
        assertEquals(4, refused("f32[<3]").position());
    }

    @Test
    void aNegativeSizeIsReadAsANumberAndRefusedAsNegative() {
        TextFormatException e = refused("f32[-2]");
        assertEquals(4, e.position());
        assertTrue(e.getMessage().contains("dimension size -2 is negative"), e.getMessage());
        TextFormatException inList = refused("f32[3,-12]");
        assertEquals(6, inList.position());
        assertTrue(inList.getMessage().contains("dimension size -12 is negative"), inList.getMessage());
        // A bound is a number after "<=": both characters make one token.
        ArrayShape bounded = (ArrayShape) XlaShape.parse("f32[<=7]");
        assertEquals(7, bounded.dim(0));
        assertTrue(bounded.isDynamic(0));
    }

    @Test
    void aNonAsciiDigitRightAfterANumberIsNamedWhereverTheNumberStands() {
        // Where the parser expects a shape, the number itself is not read before its digits are checked.
        TextFormatException e = refused("(3\uFF13)");
        assertEquals(2, e.position());
        assertTrue(e.getMessage().contains("\uFF13"), e.getMessage());
        TextFormatException dims = refused("f32[3\uFF13]");
        assertEquals(5, dims.position());
    }

    @Test
    void theLargestIntMinorToMajorEntryIsReadAndOnePastIsRefused() {
        assertEquals(List.of(Integer.MAX_VALUE), XlaLayout.parse("{2147483647}").minorToMajor());
        TextFormatException e = assertThrows(TextFormatException.class, () -> XlaLayout.parse("{2147483648}"));
        assertTrue(e.getMessage().contains("out-of-bounds value 2147483648"), e.getMessage());
        assertEquals(1, e.position());
        // In a shape the entry is out of its rank, named by XLA's words at the entry.
        TextFormatException inShape = refused("f32[2]{2147483647}");
        assertEquals(7, inShape.position());
        assertTrue(inShape.getMessage().contains("out-of-bounds value: {2147483647}"), inShape.getMessage());
    }

    @Test
    void memorySpaceZeroIsTheDefaultAndPrintsAsNothing() {
        XlaLayout l = XlaLayout.parse("{0:S(0)}");
        assertEquals(0, l.memorySpaceId());
        assertEquals("{0}", l.toString());
        assertEquals("f32[2]{0}", XlaShape.parse("f32[2]{0:S(0)}").toString());
        TextFormatException e = assertThrows(TextFormatException.class, () -> XlaLayout.parse("{0:S(-1)}"));
        assertTrue(e.getMessage().contains("memory space id -1 is negative"), e.getMessage());
    }

    @Test
    void aWideTupleIsNotADeepOne() {
        List<XlaShape> elements = new ArrayList<>();
        StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < XlaShapeParser.MAX_DEPTH + 44; i++) {
            text.append(i > 0 ? ", " : "").append("f32[]");
            elements.add(ArrayShape.of(DType.F32));
        }
        XlaShape read = XlaShape.parse(text.append(')').toString());
        assertEquals(new XlaShape.Tuple(elements), read);
        // Deep is refused at the limit, wide nested inside deep still counts depth only.
        String deep = "(".repeat(XlaShapeParser.MAX_DEPTH - 1) + "f32[], f32[], f32[]" + ")".repeat(XlaShapeParser.MAX_DEPTH - 1);
        XlaShape.parse(deep);
        refused("(".repeat(XlaShapeParser.MAX_DEPTH) + "f32[]" + ")".repeat(XlaShapeParser.MAX_DEPTH));
    }

    @Test
    void anOutOfRankEntryInALaterLayoutIsPointedAtInThatLayout() {
        String text = "(f32[2,3]{0,1}, f32[4,5]{1,2})";
        TextFormatException e = refused(text);
        assertEquals(text.lastIndexOf('2'), e.position(), e.getMessage());
        String third = "(f32[1]{0}, f32[2,3]{1,0}, f32[2,3,4]{0,3,1})";
        assertEquals(third.lastIndexOf('3'), refused(third).position());
    }

    @Test
    void aTilingPlanListsItsLevelsAndPhysicalOrder() {
        ArrayShape s = ArrayShape.parse("bf16[3,10,20]{1,2,0:T(8,128)(2,1)}");
        TilingPlan plan = TilingPlan.of(s);
        // Physical order, major first: 0, 2, 1.
        int[] toLogical = plan.physicalToLogical();
        assertArrayEquals(new int[] {0, 2, 1}, toLogical);
        toLogical[0] = 7;
        assertArrayEquals(new int[] {0, 2, 1}, plan.physicalToLogical(), "a copy, not the plan's own array");
        List<TilingPlan.Level> levels = plan.levels();
        assertEquals(2, levels.size());
        // Level 1: [3, 20, 10] -> [3, ceil(20/8), ceil(10/128), 8, 128].
        assertArrayEquals(new long[] {3, 20, 10}, levels.get(0).dimsIn());
        assertArrayEquals(new long[] {3, 3, 1, 8, 128}, levels.get(0).dimsOut());
        // Level 2 tiles the last two (8, 128) by (2, 1).
        assertArrayEquals(new long[] {3, 3, 1, 4, 128, 2, 1}, levels.get(1).dimsOut());
        assertEquals(List.of(3L, 3L, 1L, 4L, 128L, 2L, 1L), plan.physicalDims());
        assertEquals(0, TilingPlan.of(ArrayShape.parse("f32[2,3]{1,0}")).levels().size());
    }
}
