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

    /**
     * An empty array is strided, as NumPy's is, so DLPack and DirectML describe it without a copy.
     * A known-empty map keeps no result to read strides from (any strides place no element);
     * a view keeps its own.
     */
    @Test
    void aZeroSizeDimensionKeepsTheMapStrided() {
        MapForm f = MapForm.of(IndexingMap.parse("(d0, d1) -> (d0 * 5 + d1), domain: d0 in [0, -1], d1 in [0, 4]"));
        assertEquals(StridedLayout.of(new long[] {0, 5}, new long[] {0, 0}), ((MapForm.Strided) f).layout());
        try (var allocator = dev.tensorbuf.memory.Allocators.confined()) {
            TensorView packed = TensorView.strided(allocator.allocate(0), DType.F32, StridedLayout.packed(0, 5));
            assertEquals(Optional.of(StridedLayout.packed(0, 5)), packed.stridedLayout());
            TensorView xla = TensorView.of(allocator.allocate(0), "f32[3,0]{0,1}");
            assertEquals(Optional.of(StridedLayout.of(new long[] {3, 0}, new long[] {1, 3})), xla.stridedLayout());
            TensorView sliced = dev.tensorbuf.views.TensorView.strided(allocator.allocate(60), DType.F32,
                    StridedLayout.packed(3, 5)).remap(IndexingMap.parse(
                    "(d0, d1) -> (d0, d1 + 2), domain: d0 in [0, 2], d1 in [0, -1]"), 3, 0);
            assertTrue(sliced.isStrided(), sliced.form().toString());
        }
    }

    @Test
    void aConstraintThatCannotHoldIsGeneral() {
        MapForm f = MapForm.of(IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 9], d0 * 2 + 1 in [4, 4]"));
        assertTrue(f instanceof MapForm.General g && g.reason().contains("empty"), f.toString());
    }
}
