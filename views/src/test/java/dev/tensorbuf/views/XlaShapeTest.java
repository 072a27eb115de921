package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.tensorbuf.views.text.TextFormatException;
import org.junit.jupiter.api.Test;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaLayout.SplitConfig;

class XlaShapeTest {

    private static ArrayShape array(String text) {
        return (ArrayShape) XlaShape.parse(text);
    }

    @Test
    void exampleFromJavadoc() {
        assertEquals("(f32[1572864]{0}, s8[5120,1024]{1,0})", XlaShape.parse("(f32[1572864], s8[ 5120,1024 ])").toString());
        ArrayShape a = array("f32[3,5]{1,0:T(2,2)}");
        assertEquals(17, a.linearIndex(2, 3));
        assertEquals(List.of(2L, 3L, 2L, 2L), a.physicalDims());
        assertEquals(24, a.physicalElementCount());
        assertEquals(96, a.arraySize());
        assertEquals(Optional.empty(), a.logicalIndex(9));
    }

    @Test
    void layoutJavadocExample() {
        XlaLayout l = XlaLayout.parse("{1,0:T(8,128)(2,1)S(1)}");
        assertEquals(List.of(1, 0), l.minorToMajor());
        assertEquals(List.of(Tile.of(8, 128), Tile.of(2, 1)), l.tiles());
        assertEquals(1, l.memorySpaceId());
        assertEquals("{1,0:T(8,128)(2,1)S(1)}", l.toString());
    }

    @Test
    void tileAndSplitConfigPrintAsXla() {
        assertEquals("(2,*,128)", Tile.of(2, Tile.COMBINE, 128).toString());
        assertEquals(1024, Tile.of(8, 128).elementCount());
        assertEquals("(1:40,130)", SplitConfig.of(1, 40, 130).toString());
    }

    @Test
    void everyAttributePrintsInXlasFixedOrder() {
        String text = "{1,0:T(2,2)L(4)E(4)S(1)SC(0:1)M(8)}";
        assertEquals(text, XlaLayout.parse(text).toString());
        XlaLayout sparse = XlaLayout.parse("{1,0:#(u32)*(u16)}");
        assertEquals("{1,0:#(u32)*(u16)}", sparse.toString());
    }

    @Test
    void dimLevelTypesAreReadAndDropped() {
        assertEquals("f32[2,3]{1,0:T(2,2)}", XlaShape.parse("f32[2,3]{1,0:D(D,C+~)T(2,2)}").toString());
    }

    @Test
    void whitespaceAndCommentsMayStandBetweenAllTokens() {
        assertEquals("f32[1,2]{0,1:T(2,*,128)}",
                XlaShape.parse(" f32 [ 1 , 2 ] { 0 , 1 : T ( 2 , * , 128 ) } ").toString());
        assertEquals("(f32[], f32[])", XlaShape.parse("(f32[], /* a comment */ f32[])").toString());
    }

    @Test
    void tuplesAnnotateEveryFifthSeparatorAndReadTheirOwnOutput() {
        List<XlaShape> elements = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            elements.add(ArrayShape.of(DType.S32));
        }
        XlaShape.Tuple t = new XlaShape.Tuple(elements);
        String text = t.toString();
        assertEquals("(s32[], s32[], s32[], s32[], s32[], /*index=5*/s32[], s32[], s32[], s32[], s32[], "
                + "/*index=10*/s32[])", text);
        assertEquals(t, XlaShape.parse(text));
        assertEquals("()", XlaShape.parse("( )").toString());
    }

    @Test
    void scalarLayoutPrintsOnlyWhenItSaysMoreThanBraces() {
        assertEquals("f32[]", XlaShape.parse("f32[]").toString());
        assertEquals("u32[]{:S(2)}", XlaShape.parse("u32[]{:S(2)}").toString());
        assertEquals("u32[]{:T(128)}", XlaShape.parse("u32[]{ : T(128)}").toString());
    }

    @Test
    void dynamicDimensionsPrintAsBoundOrQuestionMark() {
        ArrayShape a = array("f32[<=3,?,4]");
        assertEquals("f32[<=3,?,4]{2,1,0}", a.toString());
        assertTrue(a.isDynamic(0) && a.isDynamic(1) && !a.isDynamic(2));
        assertEquals(ArrayShape.UNBOUNDED, a.dim(1));
        assertEquals(12, array("f32[<=3,4]").elementCount());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, a::elementCount);
        assertTrue(e.getMessage().contains("dimension 1 of f32[<=3,?,4]{2,1,0} is unbounded"), e.getMessage());
        assertNotEquals(array("f32[3]"), array("f32[<=3]"));
    }

    @Test
    void buffersTokensAndOpaquesRoundTrip() {
        for (String s : List.of("b(s32[3,4]{1,0})", "token[]", "opaque[]", "(b(f32[2]{0}), token[])")) {
            assertEquals(s, XlaShape.parse(s).toString());
        }
        assertEquals(0, XlaShape.parse("token[]").byteSizeOf(8));
        assertEquals(16, XlaShape.parse("(f32[2], s8[3])").byteSizeOf(8));
        assertEquals("(f32[2], s8[3])", XlaShape.parse("(f32[2]{0}, s8[3]{0})").toStringWithoutLayout());
    }

    @Test
    void parsePositionReadsOneShapeOutOfLongerText() {
        String hlo = "ENTRY %e (p: f32[2,4]) -> f32[2,4] {\n  ROOT %p = f32[2,4]{0,1} parameter(0)\n}";
        ParsePosition pos = new ParsePosition(hlo.indexOf("f32"));
        assertEquals("f32[2,4]{1,0}", XlaShape.parse(hlo, pos).toString());
        assertEquals(')', hlo.charAt(pos.getIndex()));
        pos.setIndex(hlo.indexOf("-> ") + 3);
        assertEquals("f32[2,4]{1,0}", XlaShape.parse(hlo, pos).toString());
        assertEquals(" {", hlo.substring(pos.getIndex(), pos.getIndex() + 2));
        pos.setIndex(hlo.indexOf("= ") + 2);
        assertEquals("f32[2,4]{0,1}", XlaShape.parse(hlo, pos).toString());
        TextFormatException e = assertThrows(TextFormatException.class,
                () -> XlaShape.parse(hlo, new ParsePosition(hlo.indexOf("parameter"))));
        assertEquals(hlo.indexOf("parameter"), e.position());
    }

    @Test
    void layoutEqualityIgnoresDynamicShapeMetadataPrefixBytesAsXlaDoes() {
        assertEquals(XlaLayout.parse("{1,0}"), XlaLayout.parse("{1,0:M(8)}"));
        assertEquals(XlaLayout.parse("{1,0}").hashCode(), XlaLayout.parse("{1,0:M(8)}").hashCode());
        assertNotEquals(XlaLayout.parse("{1,0}"), XlaLayout.parse("{1,0:S(1)}"));
    }

    @Test
    void arraySizeUsesTheFirstTileLargestSplitAndTailPadding() {
        assertEquals(28311552, array("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}").arraySize());
        // 3x5 padded to 4x6 = 24 elements, rounded up to L(7) = 28, times 4 bytes
        assertEquals(112, array("f32[3,5]{1,0:T(2,2)L(7)}").arraySize());
        // L only applies when there are tiles (XLA's ArraySize falls back to ByteSizeOfElements)
        assertEquals(60, array("f32[3,5]{1,0:L(7)}").arraySize());
        // the largest piece of dim 1 (SC(0:...) is the physical major dim = logical 0): 150 -> max(30,120)=120
        assertEquals(120 * 8 * 4, array("f32[150,5]{1,0:T(1,8)SC(0:30)}").arraySize());
        // XLA takes split indices past the dimension as they are; a piece past a long is refused, naming the split.
        IllegalArgumentException split = assertThrows(IllegalArgumentException.class,
                () -> array("u8[4,4]{1,0:T(2,2)SC(0:9223372036854775807)}").arraySize());
        assertTrue(split.getMessage().startsWith("the byte size of u8[4,4]{1,0:T(2,2)SC(0:9223372036854775807)} overflows a"
                + " long: its largest split pieces are [9223372036854775807, 4] ("), split.getMessage());
        // combined dims before the first tile: 2x7 -> 14 rows, padded to 16 by T(8,...)
        assertEquals(16 * 128 * 2, array("bf16[2,7,100]{2,1,0:T(*,8,128)}").arraySize());
    }

    @Test
    void arrayDataSizeFollowsXlasFirstTileLinearIndex() {
        // rank 1: XLA's LayoutUtil::LinearIndex returns the index itself, even under a 2-D tile
        assertEquals(8 * 4, array("f32[8]{0:T(2,2)}").arrayDataSize());
        // last element (2,4) sits at slot 20 of Figure 1
        assertEquals(21 * 4, array("f32[3,5]{1,0:T(2,2)}").arrayDataSize());
        assertEquals(0, array("f32[0,5]").arrayDataSize());
    }

    @Test
    void starInTheMostMinorTilePositionHasNothingToCombineWith() {
        ArrayShape a = array("f32[4,4]{1,0:T(2,*)}");
        assertEquals("f32[4,4]{1,0:T(2,*)}", a.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.linearIndex(0, 0));
        assertTrue(e.getMessage().contains("ends in '*'"), e.getMessage());
    }

    @Test
    void indexOutsideADimensionNamesItsBounds() {
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                () -> ArrayShape.of(DType.F32, 2, 4).linearIndex(1, 7));
        assertEquals("index 7 out of bounds [0, 4) for dim 1 of f32[2,4]{1,0}", e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> array("f32[3,5]{1,0:T(2,2)}").logicalIndex(24));
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class,
                () -> ArrayShape.of(DType.F32, 2, 4).linearIndex(1));
        assertEquals("index [1] has rank 1 but f32[2,4]{1,0} has rank 2", rank.getMessage());
    }

    @Test
    void physicalSizeOverflowIsAnIllegalArgumentNamingTheNumbers() {
        ArrayShape a = array("s8[3037000499,3037000499]{1,0:T(2,2)}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, a::physicalElementCount);
        assertTrue(e.getMessage().contains("overflows a long"), e.getMessage());
    }

    @Test
    void laidOutGivesXlasDefaultLayoutOnlyToAShapeWithout() {
        assertEquals("f32[2,3]{1,0}", array("f32[2,3]").withoutLayout().laidOut().toString());
        assertEquals("f32[2,3]{0,1:T(2)}", array("f32[2,3]{0,1:T(2)}").laidOut().toString());
        assertEquals("f32[]", array("f32[]").withoutLayout().laidOut().toString());
    }

    /** A review found f32[2^63 - 1, 0] refused as overflowing while f32[0, 2^63 - 1] was empty. */
    @Test
    void aZeroDimensionEmptiesAShapeInAnyOrder() {
        for (String text : new String[] {"f32[9223372036854775807,0]", "f32[0,9223372036854775807]",
                "f32[9223372036854775807,0]{0,1:T(2,2)}", "f32[0,9223372036854775807]{0,1:T(2,2)}",
                "s4[9223372036854775807,0,3]{2,1,0:T(2,4)(2,1)E(4)}"}) {
            ArrayShape a = array(text);
            assertEquals(0, a.elementCount(), text);
            assertEquals(0, a.physicalElementCount(), text);
            assertEquals(0, a.arraySize(), text);
        }
        assertThrows(IllegalArgumentException.class, () -> array("f32[9223372036854775807,2]"));
    }

    @Test
    void shapesWithoutLayoutPrintWithoutOneAndRefuseLayoutMath() {
        ArrayShape bare = ArrayShape.of(DType.F32, 2, 3).withoutLayout();
        assertEquals("f32[2,3]", bare.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bare.linearIndex(0, 0));
        assertEquals("shape f32[2,3] does not have a layout", e.getMessage());
        assertEquals(24, bare.byteSizeOfElements());
    }

    @Test
    void packedDescendingIsRowMajorWithSubByteTypesPacked() {
        assertEquals("{1,0:E(4)}", XlaLayout.packedDescending(DType.S4, 2).toString());
        assertEquals("{0:E(2)}", XlaLayout.packedDescending(DType.U2, 1).toString());
        assertEquals("{2,1,0}", XlaLayout.packedDescending(DType.F32, 3).toString());
        assertEquals("{:E(4)}", XlaLayout.packedDescending(DType.F4E2M1FN, 0).toString());
        // f4 [3, 4]: 12 elements, 6 bytes, as safetensors' F4 holds them.
        assertEquals(6, ArrayShape.of(DType.F4E2M1FN, 3, 4).withLayout(XlaLayout.packedDescending(DType.F4E2M1FN, 2)).arraySize());
    }
}
