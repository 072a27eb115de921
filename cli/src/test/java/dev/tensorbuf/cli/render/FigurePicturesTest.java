package dev.tensorbuf.cli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.XlaShape;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The two figures of seed 000 (XLA tiled layout docs), drawn and read back. */
class FigurePicturesTest {
    static String draw(String shape) {
        return PictureSvg.draw(LayoutPicture.of(TiledPlacement.of((ArrayShape) XlaShape.parse(shape)), Optional.empty()));
    }

    /** Every logical cell's number is its linear index, and every strip slot names the index stored there. */
    static void assertLabelsMatchLayout(ArrayShape shape, SvgDoc doc) {
        Map<String, Long> expected = new LinkedHashMap<>();
        forEachIndex(shape.dims(), index -> expected.put(Placement.indexText(index), shape.linearIndex(index)));
        assertEquals(expected, doc.offsets(), shape.toString());
        Map<Long, String> slots = doc.slotIndices();
        for (Map.Entry<Long, String> slot : slots.entrySet()) {
            assertEquals(shape.logicalIndex(slot.getKey()).map(FigurePicturesTest::text).orElse("padding"), slot.getValue(),
                    "slot " + slot.getKey() + " of " + shape);
        }
        for (long pad : doc.paddingSlots()) {
            assertTrue(shape.logicalIndex(pad).isEmpty(), "slot " + pad + " drawn as padding in " + shape);
        }
    }

    static String text(List<Long> index) {
        return Placement.indexText(Extents.toArray(index));
    }

    static void forEachIndex(List<Long> dims, java.util.function.Consumer<long[]> action) {
        long[] index = new long[dims.size()];
        long count = dims.stream().reduce(1L, Math::multiplyExact);
        for (long n = 0; n < count; n++) {
            long rest = n;
            for (int d = dims.size() - 1; d >= 0; d--) {
                index[d] = rest % dims.get(d);
                rest /= dims.get(d);
            }
            action.accept(index.clone());
        }
    }

    @Test
    void figureOneCellsShowLinearIndicesAndPaddingSlots() {
        ArrayShape shape = (ArrayShape) XlaShape.parse("f32[3,5]{1,0:T(2,2)}");
        SvgDoc doc = SvgDoc.parse(draw("f32[3,5]{1,0:T(2,2)}"));
        assertLabelsMatchLayout(shape, doc);
        assertEquals(17L, doc.offsets().get("2,3"), "seed 000: element (2,3) is at 17");
        // the 4x6 padded grid: the last column and row are padding, in the slots the tiles leave free
        assertEquals(Map.of("0,5", 9L, "1,5", 11L, "2,5", 21L, "3,0", 14L, "3,1", 15L, "3,2", 18L, "3,3", 19L,
                "3,4", 22L, "3,5", 23L), doc.paddingOffsets());
        assertEquals(List.of(9L, 11L, 14L, 15L, 18L, 19L, 21L, 22L, 23L), doc.paddingSlots());
        assertEquals(15, doc.slotIndices().size());
        assertEquals(List.of("f32[3,5]{1,0:T(2,2)}"), doc.texts("title"));
    }

    @Test
    void figureTwoPairsRowsInsideEachTwoByFourTile() {
        ArrayShape shape = (ArrayShape) XlaShape.parse("bf16[4,8]{1,0:T(2,4)(2,1)}");
        SvgDoc doc = SvgDoc.parse(draw("bf16[4,8]{1,0:T(2,4)(2,1)}"));
        assertLabelsMatchLayout(shape, doc);
        long[][] figure = {
                {0, 2, 4, 6, 8, 10, 12, 14},
                {1, 3, 5, 7, 9, 11, 13, 15},
                {16, 18, 20, 22, 24, 26, 28, 30},
                {17, 19, 21, 23, 25, 27, 29, 31}};
        for (int r = 0; r < 4; r++) {
            for (int c = 0; c < 8; c++) {
                assertEquals(figure[r][c], doc.offsets().get(r + "," + c), "cell " + r + "," + c);
            }
        }
        assertTrue(doc.paddingOffsets().isEmpty());
        // 16 inner (2,1) boxes drawn as one path of 16 closed boxes; 4 outer tiles outlined in the strip
        assertEquals(16, doc.elements("path", "inner-tile").getFirst().getAttribute("d").split("Z").length);
    }

    @Test
    void pictureIsDeterministic() {
        assertEquals(draw("bf16[4,8]{1,0:T(2,4)(2,1)}"), draw("bf16[4,8]{1,0:T(2,4)(2,1)}"));
    }

    @Test
    void randomTiledShapesLabelEveryCellWithItsLinearIndex() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("FigurePicturesTest.randomTiledShapes seed=" + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int trial = 0; trial < 40; trial++) {
            int rank = 1 + random.nextInt(2);
            List<Long> dims = new ArrayList<>();
            for (int d = 0; d < rank; d++) {
                dims.add(1L + random.nextInt(9));
            }
            String m2m = rank == 1 ? "0" : random.nextBoolean() ? "1,0" : "0,1";
            StringBuilder tiles = new StringBuilder();
            int levels = random.nextInt(3);
            for (int k = 0; k < levels; k++) {
                int tileRank = 1 + random.nextInt(rank);
                tiles.append('(');
                for (int j = 0; j < tileRank; j++) {
                    tiles.append(j > 0 ? "," : "").append(1 + random.nextInt(4));
                }
                tiles.append(')');
            }
            String text = "f32" + dims.toString().replace(" ", "") + "{" + m2m + (levels > 0 ? ":T" + tiles : "") + "}";
            ArrayShape shape = (ArrayShape) XlaShape.parse(text);
            String svg = draw(text);
            SvgDoc doc = SvgDoc.parse(svg);
            assertLabelsMatchLayout(shape, doc);
            for (Map.Entry<String, Long> pad : doc.paddingOffsets().entrySet()) {
                assertTrue(shape.logicalIndex(pad.getValue()).isEmpty(), "padding cell " + pad + " of " + text
                        + " names a slot that holds an element");
            }
            assertFalse(svg.contains("NaN"), text);
        }
    }
}
