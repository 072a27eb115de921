package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.views.indexing.IndexingMap;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** The indexing map a layout lowers to evaluates to the direct linear index at every element. */
class XlaLayoutIndexingMapTest {

    @Test
    void exampleFromJavadoc() {
        IndexingMap map = ((ArrayShape) XlaShape.parse("f32[3,5]{1,0:T(2,2)}")).toIndexingMap();
        assertEquals(17, map.evaluate(2, 3)[0]);
        // Term order is the indexing package's canonical order; compare as functions on the domain.
        assertSameFunction(IndexingMap.parse("(d0, d1) -> ((d0 / 2) * 12 + (d1 / 2) * 4 + (d0 mod 2) * 2 + d1 mod 2),"
                + " domain: d0 in [0, 2], d1 in [0, 4]"), map, 3, 5);
    }

    @Test
    void combinedDimensionsFlattenBeforeTiling() {
        // seed 000: f32[2,7,8,11,10] with T(*,*,2,*,3) is f32[112,110] tiled (2,3)
        ArrayShape combined = (ArrayShape) XlaShape.parse("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
        ArrayShape flat = (ArrayShape) XlaShape.parse("f32[112,110]{1,0:T(2,3)}");
        IndexingMap map = combined.toIndexingMap();
        assertEquals(flat.linearIndex(1 * 56 + 3 * 8 + 5, 7 * 10 + 9), map.evaluate(1, 3, 5, 7, 9)[0]);
    }

    @Test
    void untiledRowMajorLowersToAStridedMap() {
        IndexingMap map = ((ArrayShape) XlaShape.parse("f32[2,3]{0,1}")).toIndexingMap();
        assertSameFunction(IndexingMap.parse("(d0, d1) -> (d0 + d1 * 2), domain: d0 in [0, 1], d1 in [0, 2]"), map, 2, 3);
    }

    private static void assertSameFunction(IndexingMap expected, IndexingMap actual, long rows, long cols) {
        assertEquals(expected.dimBounds(), actual.dimBounds());
        for (long i = 0; i < rows; i++) {
            for (long j = 0; j < cols; j++) {
                assertArrayEquals(expected.evaluate(i, j), actual.evaluate(i, j), actual + " at " + i + "," + j);
            }
        }
    }

    @Test
    void mapEvaluatesToTheLinearIndexOnEveryElementOfRandomTiledShapes() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("XlaLayoutIndexingMapTest seed: " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int c = 0; c < 300; c++) {
            ArrayShape shape = TiledLayoutPropertyTest.randomShape(random);
            String context = "seed " + seed + ", case " + c + ": " + shape;
            IndexingMap map = shape.toIndexingMap();
            assertEquals(shape.rank(), map.dims().size(), context);
            long count = shape.elementCount();
            for (long id = 0; id < count; id++) {
                long[] index = TiledLayoutPropertyTest.unravel(id, shape);
                assertArrayEquals(new long[] {shape.linearIndex(index)}, map.evaluate(index), context + " at " + id);
            }
        }
    }
}
