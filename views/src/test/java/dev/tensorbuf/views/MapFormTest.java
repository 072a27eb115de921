package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MapFormTest {
    @Test
    void exampleFromJavadoc() {
        MapForm s = MapForm.of(IndexingMap.parse("(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]"));
        assertEquals(StridedLayout.of(new long[] {3, 2}, new long[] {1, 3}), ((MapForm.Strided) s).layout());
        MapForm f = MapForm.of(IndexingMap.parse("(d0) -> ((d0 mod 4) * 6 + d0 / 4), domain: d0 in [0, 23]"));
        assertTrue(f instanceof MapForm.Tiled);
        assertEquals(Optional.of("dim 0 (size 24) steps by 6 from 0 to 1 but by -17 from 3 to 4"), f.whyNotStrided());
    }

    @Test
    void simplifierDecidesStridedness() {
        MapForm f = MapForm.of(IndexingMap.parse("(d0) -> ((d0 floordiv 6) * 6 + d0 mod 6), domain: d0 in [0, 23]"));
        assertEquals(StridedLayout.packed(24), ((MapForm.Strided) f).layout());
    }

    @Test
    void constraintsAndSeveralResultsAreGeneral() {
        MapForm c = MapForm.of(IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 9], d0 mod 2 in [0, 0]"));
        assertTrue(c instanceof MapForm.General g && g.reason().contains("constraints"), c.toString());
        MapForm two = MapForm.of(IndexingMap.parse("(d0) -> (d0, d0), domain: d0 in [0, 9]"));
        assertTrue(two instanceof MapForm.General g && g.reason().contains("2 results"), two.toString());
    }
}
