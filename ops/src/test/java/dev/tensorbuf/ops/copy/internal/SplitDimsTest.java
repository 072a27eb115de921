package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.indexing.IndexingMap;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class SplitDimsTest {
    private static Optional<SplitDims.Split> split(String map) {
        return SplitDims.of(IndexingMap.parse(map), Long.MAX_VALUE);
    }

    @Test
    void aFlattenedTransposeSplitsIntoTheTransposedDims() {
        // f32[4,6,5] transposed by {2,0,1} to [5,4,6] and flattened: d0 = 24 a + 6 b + c reads a + 30 b + 5 c.
        var found = split("(d0) -> (((d0 floordiv 6) mod 4) * 30 + (d0 mod 6) * 5 + d0 floordiv 24), domain: d0 in [0, 119]");
        assertEquals(Optional.of(new SplitDims.Split(List.of(new TiledDigits.Digit(0, 5, 24, 1),
                new TiledDigits.Digit(0, 4, 6, 30), new TiledDigits.Digit(0, 6, 1, 5)), 0)), found);
    }

    @Test
    void theOffsetAndUnsplitDimensionsAreKept() {
        var found = split("(d0, d1) -> (d1 * 100 + (d0 mod 3) * 10 + d0 floordiv 3 + 7), domain: d0 in [0, 5], d1 in [0, 1]");
        assertEquals(Optional.of(new SplitDims.Split(List.of(new TiledDigits.Digit(0, 2, 3, 1),
                new TiledDigits.Digit(0, 3, 1, 10), new TiledDigits.Digit(1, 2, 1, 100)), 7)), found);
    }

    @Test
    void mapsNoSplitMakesStridedHaveNone() {
        // 4 is coprime to 15: a permutation of [0, 15) that no radix undoes.
        assertEquals(Optional.empty(), split("(d0, d1) -> (((d0 * 5 + d1) * 4) mod 15), domain: d0 in [0, 2], d1 in [0, 4]"));
        // A radix that does not divide the size: [10] read as [?, 4].
        assertEquals(Optional.empty(), split("(d0) -> ((d0 mod 4) * 3 + d0 floordiv 4), domain: d0 in [0, 9]"));
    }

    @Test
    void aSplitIsFoundOnceAndKept() {
        IndexingMap map = IndexingMap.parse("(d0) -> ((d0 mod 8) * 9 + d0 floordiv 8), domain: d0 in [0, 71]");
        Optional<SplitDims.Split> first = SplitDims.of(map, Long.MAX_VALUE);
        assertSame(first, SplitDims.of(IndexingMap.parse(map.toString()), Long.MAX_VALUE), "an equal map is a cache hit");
    }
}
