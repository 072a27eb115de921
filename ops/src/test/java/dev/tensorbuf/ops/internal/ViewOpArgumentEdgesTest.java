package dev.tensorbuf.ops.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The argument checks of the view ops at their exact edges, as XLA's shape inference draws them:
 * the last value each accepts (with the elements it then reads) and the first it refuses, by name.
 * {@code f32[3,4]} holds 0..11 row-major throughout.
 */
class ViewOpArgumentEdgesTest {
    private Allocator arena;
    private TensorView v;

    @BeforeEach
    void open() {
        arena = Allocators.confined();
        v = TensorView.of(arena.allocate(48), "f32[3,4]{1,0}");
        float[] values = new float[12];
        for (int i = 0; i < 12; i++) {
            values[i] = i;
        }
        TensorElements.of(v).copyFrom(values);
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private static float[] read(TensorView t) {
        return TensorElements.of(t).toFloatArray();
    }

    private static void refused(String part, Executable op) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, op);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    @Test
    void sliceAcceptsStartAtLimitAndLimitAtTheSizeAndRefusesOnePast() {
        // start == limit == size: empty, accepted.
        assertEquals(List.of(0L, 4L), Slice.apply(v, new long[] {3, 0}, new long[] {3, 4}, new long[] {1, 1}).dims());
        // limit == size, stride 1: the last row.
        assertArrayEquals(new float[] {8, 9, 10, 11},
                read(Slice.apply(v, new long[] {2, 0}, new long[] {3, 4}, new long[] {1, 1})));
        // stride 3 over [1, 4): columns 1 only, ceil(3 / 3) = 1.
        assertArrayEquals(new float[] {1, 5, 9}, read(Slice.apply(v, new long[] {0, 1}, new long[] {3, 4}, new long[] {1, 3})));
        refused("dim 0 has start -1", () -> Slice.apply(v, new long[] {-1, 0}, new long[] {3, 4}, new long[] {1, 1}));
        refused("dim 1 has start 3, limit 2", () -> Slice.apply(v, new long[] {0, 3}, new long[] {3, 2}, new long[] {1, 1}));
        refused("dim 0 has start 0, limit 4", () -> Slice.apply(v, new long[] {0, 0}, new long[] {4, 4}, new long[] {1, 1}));
        refused("stride 0", () -> Slice.apply(v, new long[] {0, 0}, new long[] {3, 4}, new long[] {1, 0}));
        refused("1 starts for rank 2",
                () -> Slice.apply(v, new long[] {0}, new long[] {3, 4}, new long[] {1, 1}));
    }

    @Test
    void aSliceOfOneElementIgnoresAStrideThatWouldOverflow() {
        // One element per dimension never steps: the stride is not multiplied into the map.
        TensorView one = Slice.apply(v, new long[] {1, 2}, new long[] {2, 3}, new long[] {Long.MAX_VALUE, Long.MAX_VALUE});
        assertArrayEquals(new float[] {6}, read(one));
        assertEquals("(d0, d1) -> (6), domain: d0 in [0, 0], d1 in [0, 0]", one.indexingMap().toString());
        // Two elements do step: stride 2 over [0, 3) of the rows.
        assertArrayEquals(new float[] {0, 8}, read(Slice.apply(v, new long[] {0, 0}, new long[] {3, 1}, new long[] {2, 1})));
    }

    @Test
    void reverseTakesDimensionsZeroToRankMinusOneOnce() {
        assertArrayEquals(new float[] {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}, read(Reverse.apply(v, 1)));
        assertArrayEquals(new float[] {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}, read(Reverse.apply(v, 0)));
        refused("dimension -1 is out of range [0, 2)", () -> Reverse.apply(v, -1));
        refused("dimension 2 is out of range [0, 2)", () -> Reverse.apply(v, 2));
        refused("dimension 1 is out of range [0, 2) or repeated", () -> Reverse.apply(v, 1, 1));
    }

    @Test
    void transposeTakesAPermutationOfTheRank() {
        assertArrayEquals(new float[] {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, read(Transpose.apply(v, 1, 0)));
        assertThrows(IllegalArgumentException.class, () -> Transpose.apply(v, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> Transpose.apply(v, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> Transpose.apply(v, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> Transpose.apply(v, 0));
    }

    @Test
    void broadcastNamesDistinctOutputDimensionsOfTheSameSize() {
        // Output dims 0 and 2 of [3, 2, 4]: the last one accepted.
        TensorView b = Broadcast.apply(v, new long[] {3, 2, 4}, 0, 2);
        assertEquals(List.of(3L, 2L, 4L), b.dims());
        assertEquals(7f, TensorElements.of(b).getFloat(1, 1, 3));
        assertEquals(7f, TensorElements.of(b).getFloat(1, 0, 3));
        refused("broadcast dimension 1 -> 3", () -> Broadcast.apply(v, new long[] {3, 2, 4}, 0, 3));
        refused("broadcast dimension 0 -> -1", () -> Broadcast.apply(v, new long[] {3, 2, 4}, -1, 2));
        refused("broadcast dimension 1 -> 0", () -> Broadcast.apply(v, new long[] {3, 4, 4}, 0, 0));
        refused("broadcast dimension 1 -> 1", () -> Broadcast.apply(v, new long[] {3, 5, 4}, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> Broadcast.apply(v, new long[] {3, 4}, 0));
    }

    @Test
    void padTakesInteriorZeroAndASizeOfZeroButNothingBelow() {
        // Interior 0, high -4: every column cropped, size 0 accepted.
        assertEquals(List.of(3L, 0L), Pad.apply(v, new long[] {0, 0}, new long[] {0, -4}, new long[] {0, 0}, 0).dims());
        refused("gives size -1", () -> Pad.apply(v, new long[] {0, 0}, new long[] {0, -5}, new long[] {0, 0}, 0));
        refused("interior must be >= 0", () -> Pad.apply(v, new long[] {0, 0}, new long[] {0, 0}, new long[] {0, -1}, 0));
        refused("overflow", () -> Pad.apply(v, new long[] {0, Long.MAX_VALUE}, new long[] {0, 1}, new long[] {0, 0}, 0));
        // Interior 1 between columns: 0 - 1 - 0 - 2 ...
        assertArrayEquals(new float[] {8, -1, 9, -1, 10, -1, 11},
                read(Pad.apply(v, new long[] {-2, 0}, new long[] {0, 0}, new long[] {0, 1}, -1)));
    }

    @Test
    void aPadThatOnlyCropsIsAStridedSliceAndOneThatAddsIsNot() {
        // low 0, high 0, interior 0 in one dim, a crop in the other: no fill is read.
        TensorView crop = Pad.apply(v, new long[] {0, -1}, new long[] {0, 0}, new long[] {0, 0}, 0);
        assertTrue(crop.stridedLayout().isPresent(), crop.toString());
        assertArrayEquals(new float[] {1, 2, 3, 5, 6, 7, 9, 10, 11}, read(crop));
        assertTrue(Pad.apply(v, new long[] {0, 0}, new long[] {0, 0}, new long[] {0, 0}, 0).stridedLayout().isPresent());
        // One element of fill at either edge or inside is no longer a slice.
        for (long[][] p : new long[][][] {{{1, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 1}, {0, 0}}, {{0, 0}, {0, 0}, {1, 0}}}) {
            TensorView padded = Pad.apply(v, p[0], p[1], p[2], -1);
            assertFalse(padded.stridedLayout().isPresent(), padded.toString());
        }
        assertArrayEquals(new float[] {-1, -1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                read(Pad.apply(v, new long[] {1, 0}, new long[] {0, 0}, new long[] {0, 0}, -1)));
        refused("fill", () -> Pad.apply(v, new long[] {0, -1}, new long[] {0, 0}, new long[] {0, 0},
                TensorView.scalar(dev.tensorbuf.views.DType.S32, 0)));
    }

    @Test
    void dynamicSliceTakesSizesFromZeroToTheDimension() {
        assertEquals(List.of(0L, 4L), DynamicSlice.apply(v, new long[] {1, 0}, new long[] {0, 4}).dims());
        // Size 3 of 3 rows: the offset 2 clamps to 0.
        assertArrayEquals(new float[] {1, 5, 9}, read(DynamicSlice.apply(v, new long[] {2, 1}, new long[] {3, 1})));
        // Offsets below 0 clamp to 0, past the end to dim - size.
        assertArrayEquals(new float[] {2, 3}, read(DynamicSlice.apply(v, new long[] {-5, 9}, new long[] {1, 2})));
        refused("size -1 of dim 0", () -> DynamicSlice.apply(v, new long[] {0, 0}, new long[] {-1, 4}));
        refused("size 5 of dim 1 is outside [0, 4]", () -> DynamicSlice.apply(v, new long[] {0, 0}, new long[] {3, 5}));
        assertArrayEquals(new long[] {0, 2}, DynamicSlice.clampedStarts(new long[] {3, 4}, new long[] {-1, 7}, new long[] {3, 2}));
    }

    @Test
    void reshapeTakesSizeZeroButNotBelowAndKeepsTheCount() {
        assertArrayEquals(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, read(Reshape.apply(v, 2, 6)));
        TensorView empty = TensorView.of(arena.allocate(4), "f32[0,3]{1,0}");
        assertEquals(List.of(3L, 0L), Reshape.apply(empty, 3, 0).dims());
        refused("negative size -1", () -> Reshape.apply(empty, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> Reshape.apply(v, 2, 5));
    }

    @Test
    void everyPerDimensionArgumentMustHaveOneEntryPerDimension() {
        long[] one = {0};
        long[] two = {0, 0};
        long[] full = {3, 4};
        long[] unit = {1, 1};
        refused("1 limits for rank 2", () -> Slice.apply(v, two, one, unit));
        refused("1 strides for rank 2", () -> Slice.apply(v, two, full, one));
        refused("1 low paddings for rank 2", () -> Pad.apply(v, one, two, two, 0));
        refused("1 high paddings for rank 2", () -> Pad.apply(v, two, one, two, 0));
        refused("1 interior paddings for rank 2", () -> Pad.apply(v, two, two, one, 0));
        refused("1 offsets for rank 2", () -> DynamicSlice.apply(v, one, unit));
        refused("1 sizes for rank 2", () -> DynamicSlice.apply(v, two, one));
    }

    @Test
    void padMessagesNameTheDimensionAndTheSum() {
        refused("pad of f32[3,4]{1,0}: dim 1 with low 0, high -5, interior 0 gives size -1",
                () -> Pad.apply(v, new long[] {0, 0}, new long[] {0, -5}, new long[] {0, 0}, 0));
        refused("size 9223372036854775807 + 1 + 4 + 3 * 0",
                () -> Pad.apply(v, new long[] {0, Long.MAX_VALUE}, new long[] {0, 1}, new long[] {0, 0}, 0));
        // A fractional fill keeps its fraction: the double overload, not a rounded integer.
        assertArrayEquals(new float[] {2.5f, 0, 1, 2, 3},
                read(Pad.apply(Slice.apply(v, new long[] {0, 0}, new long[] {1, 4}, new long[] {1, 1}),
                        new long[] {0, 1}, new long[] {0, 0}, new long[] {0, 0}, 2.5)));
    }

    @Test
    void anEmptyDynamicSliceKeepsItsClampedStartsAndUnitSteps() {
        // Size 0 rows at offset 9: clamped to 3 (= 3 - 0), offsets kept as a slice keeps them.
        dev.tensorbuf.views.Remap.Affine r = DynamicSlice.bind(DynamicSlice.outputToInput(new long[] {3, 4},
                new long[] {0, 2}), new long[] {9, 1});
        assertEquals(2, r.inputRank());
        assertArrayEquals(new long[] {0, 2}, r.outputDims());
        assertEquals(3, r.offset(0));
        assertEquals(1, r.offset(1));
        assertEquals(1, r.coefficient(0, 0));
        assertEquals(1, r.coefficient(1, 1));
        assertEquals(0, r.coefficient(0, 1));
        // Not empty: the same steps read from the map's terms.
        dev.tensorbuf.views.Remap.Affine full = DynamicSlice.bind(DynamicSlice.outputToInput(new long[] {3, 4},
                new long[] {2, 2}), new long[] {9, 1});
        assertEquals(1, full.offset(0));
        assertEquals(1, full.coefficient(0, 0));
        assertEquals(1, full.coefficient(1, 1));
    }
}
