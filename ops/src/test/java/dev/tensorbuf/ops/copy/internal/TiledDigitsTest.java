package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.ArrayShape;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link TiledDigits}: XLA tiled layouts as mixed-radix digits with strides, and each dimension's
 * digit space cut into boxes of data and of padding. The strides are XLA's tiled offsets
 * ({@code f32[R,C]{1,0:T(8,128)}}: tile row-major, then row and column in the tile); a box list
 * is checked to cover exactly the dimension's indices (data) and the rest of its digit space
 * (padding).
 */
class TiledDigitsTest {
    private static TiledDigits of(String shape) {
        return (TiledDigits) TiledDigits.of(ArrayShape.parse(shape));
    }

    private static TiledDigits.Digit digit(int dim, long radix, long factor, long stride) {
        return new TiledDigits.Digit(dim, radix, factor, stride);
    }

    private static TiledDigits.Range range(int digit, long lo, long count) {
        return new TiledDigits.Range(digit, lo, count);
    }

    @Test
    void aTwoDimensionalTileGivesOuterThenInnerDigits() {
        // f32[3,300]: one tile row of three 8x128 tiles (3072 slots); radix-1 digits left out.
        TiledDigits t = of("f32[3,300]{1,0:T(8,128)}");
        assertEquals(List.of(digit(1, 3, 128, 1024), digit(0, 8, 1, 128), digit(1, 128, 1, 1)), t.digits());
        assertArrayEquals(new long[] {3, 300}, t.sizes());
        assertEquals(3072, t.slots());
        assertArrayEquals(new int[] {1}, t.digitsOf(0));
        assertArrayEquals(new int[] {0, 2}, t.digitsOf(1));
    }

    @Test
    void dataAndPaddingBoxesCoverEachDimensionExactly() {
        TiledDigits t = of("f32[3,300]{1,0:T(8,128)}");
        assertEquals(List.of(List.of(range(1, 0, 3))), t.validPieces(0));
        assertEquals(List.of(List.of(range(1, 3, 5))), t.padPieces(0));
        // Columns 0-255 (two whole tiles), then 256-299 in the third.
        assertEquals(List.of(List.of(range(0, 0, 2), range(2, 0, 128)), List.of(range(0, 2, 1), range(2, 0, 44))),
                t.validPieces(1));
        assertEquals(List.of(List.of(range(0, 2, 1), range(2, 44, 84))), t.padPieces(1));
    }

    @Test
    void aDimensionThatFillsItsTilesHasNoPadding() {
        TiledDigits t = of("f32[16,256]{1,0:T(8,128)}");
        assertEquals(List.of(digit(0, 2, 8, 2048), digit(1, 2, 128, 1024), digit(0, 8, 1, 128), digit(1, 128, 1, 1)),
                t.digits());
        assertEquals(List.of(List.of(range(0, 0, 2), range(2, 0, 8))), t.validPieces(0));
        assertEquals(List.of(), t.padPieces(0));
        assertEquals(4096, t.slots());
    }

    @Test
    void aTileEntryAboveTheDimensionPadsItsTopDigitOnly() {
        // f32[2,5]{1,0:T(4,8)}: one tile; rows 2-3 and columns 5-7 padding.
        TiledDigits t = of("f32[2,5]{1,0:T(4,8)}");
        assertEquals(List.of(digit(0, 4, 1, 8), digit(1, 8, 1, 1)), t.digits());
        assertEquals(List.of(List.of(range(0, 0, 2))), t.validPieces(0));
        assertEquals(List.of(List.of(range(0, 2, 2))), t.padPieces(0));
        assertEquals(List.of(List.of(range(1, 0, 5))), t.validPieces(1));
        assertEquals(List.of(List.of(range(1, 5, 3))), t.padPieces(1));
        assertEquals(32, t.slots());
    }

    @Test
    void aSizeOneDimensionIsOneSlotOfData() {
        TiledDigits t = of("f32[1,4]{1,0:T(2,4)}");
        assertEquals(List.of(digit(0, 2, 1, 4), digit(1, 4, 1, 1)), t.digits());
        // An untiled size-1 dimension has no digit at all.
        TiledDigits flat = of("f32[1,4]{1,0}");
        assertArrayEquals(new int[0], flat.digitsOf(0));
        assertEquals(List.of(List.of()), flat.validPieces(0));
        assertEquals(List.of(), flat.padPieces(0));
        TiledDigits empty = of("f32[0,4]{1,0}");
        assertEquals(List.of(), empty.validPieces(0));
    }

    @Test
    void nestedTilesAndMinorToMajorOrder() {
        // bf16 (8,128)(2,1): rows split again in pairs; the pair is the innermost digit.
        TiledDigits t = of("bf16[16,128]{1,0:T(8,128)(2,1)}");
        assertEquals(List.of(digit(0, 2, 8, 1024), digit(0, 4, 2, 256), digit(1, 128, 1, 2), digit(0, 2, 1, 1)),
                t.digits());
        assertArrayEquals(new int[] {0, 1, 3}, t.digitsOf(0));
        // Column-major {0,1}: dimension 1 is the major one.
        TiledDigits cm = of("f32[6,3]{0,1:T(2,4)}");
        assertEquals(List.of(digit(1, 2, 2, 16), digit(0, 2, 4, 8), digit(1, 2, 1, 4), digit(0, 4, 1, 1)),
                cm.digits());
    }

    @Test
    void aTileOfHigherRankAddsPseudoDimensions() {
        // f32[5] under T(2,4): a leading pseudo dimension of size 1, padded to 2 rows.
        TiledDigits t = of("f32[5]{0:T(2,4)}");
        assertArrayEquals(new long[] {5, 1}, t.sizes());
        assertEquals(List.of(digit(0, 2, 4, 8), digit(1, 2, 1, 4), digit(0, 4, 1, 1)), t.digits());
        assertEquals(List.of(List.of(range(1, 0, 1))), t.validPieces(1));
        assertEquals(List.of(List.of(range(1, 1, 1))), t.padPieces(1));
        assertEquals(16, t.slots());
    }

    @Test
    void layoutsWithNoDigitFormSayWhy() {
        assertEquals("tile (3) does not divide the inner tile dimension of size 128",
                TiledDigits.of(ArrayShape.parse("f32[16,256]{1,0:T(8,128)(3)}")));
        assertEquals("packed E(4) elements", TiledDigits.of(ArrayShape.parse("s4[8]{0:E(4)}")));
        assertEquals("packed E(16) elements", TiledDigits.of(ArrayShape.parse("f32[8]{0:E(16)}")));
        assertEquals("split configs", TiledDigits.of(ArrayShape.parse("f32[4,256]{1,0:T(2,128)SC(1:64)}")));
        assertEquals("combined dimensions in tile (2,*,128)",
                TiledDigits.of(ArrayShape.parse("f32[2,3,256]{2,1,0:T(2,*,128)}")));
        // An element size that is the type's own width packs nothing.
        assertEquals(List.of(digit(0, 8, 1, 1)), of("f32[8]{0:E(32)}").digits());
    }
}
