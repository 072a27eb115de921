package dev.tensorbuf.ops.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * {@link Bitcast#apply} of a view that is its buffer's whole XLA layout while its map is strides
 * with gaps ({@code f32[10,20]{1,0:T(8,128)}}: one tile column, rows 128 slots apart, 8,192
 * bytes). The answer follows from the map and the bytes the layout owns, never from the shape the
 * view was made from: the same map built by transposes or by hand bitcasts the same. Expected
 * slots come from {@link ArrayShape#linearIndex} (XLA's {@code LinearIndexForNestedTiling}) and
 * sizes from {@link ArrayShape#arraySize} (XLA's {@code ShapeUtil::ArraySize}, the first tile's).
 */
class BitcastWholeLayoutTest {
    private static final String MAP_10_BY_20 = "(d0, d1) -> (d0 * 128 + d1), domain: d0 in [0, 9], d1 in [0, 19]";

    private Allocator arena;

    @BeforeEach
    void open() {
        arena = Allocators.confined();
    }

    @AfterEach
    void close() {
        arena.close();
    }

    /** {@return a view of {@code shape} over its array size, logical element {@code k} (row-major) holding {@code k + 1}} */
    private TensorView filled(ArrayShape shape) {
        TensorView v = TensorView.of(arena.allocate(shape.arraySize()), shape);
        float[] values = new float[(int) v.elementCount()];
        for (int k = 0; k < values.length; k++) {
            values[k] = k + 1;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    /** {@return the slots {@code shape} lays its row-major values {@code k + 1} in, padding 0} */
    private static float[] expectedSlots(ArrayShape shape, int slots) {
        float[] out = new float[slots];
        long[] index = new long[shape.rank()];
        for (int k = 0; k < shape.elementCount(); k++) {
            long rest = k;
            for (int d = shape.rank() - 1; d >= 0; d--) {
                index[d] = rest % shape.dim(d);
                rest /= shape.dim(d);
            }
            out[(int) shape.linearIndex(index)] = k + 1;
        }
        return out;
    }

    private static float[] floats(TensorView v) {
        return TensorElements.of(v).toFloatArray();
    }

    private static TensorView byMap(MemoryBuffer buffer, String map, long layoutBytes, long... dims) {
        return TensorView.over(new ViewMap.Single(buffer, IndexingMap.parse(map), true, layoutBytes),
                ElementAccess.of(DType.F32), dims);
    }

    private static void refused(String part, Executable op) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, op);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    @Test
    void aTiledShapeWithOneTileColumnBitcastsItsSlots() {
        ArrayShape shape = ArrayShape.parse("f32[10,20]{1,0:T(8,128)}");
        TensorView v = filled(shape);
        assertTrue(v.form() instanceof MapForm.Strided, v.form().toString());
        assertEquals(StridedLayout.of(new long[] {10, 20}, new long[] {128, 1}), v.stridedLayout().orElseThrow());
        assertArrayEquals(expectedSlots(shape, 2048), floats(Bitcast.apply(v, "f32[2048]{0}")));
        assertArrayEquals(expectedSlots(shape, 2048), floats(Bitcast.apply(v, "f32[16,128]{1,0}")));
        // XLA sizes it by its first tile, 16 x 128 slots: T(1,128)'s 1,280 slots are another layout.
        refused("8192 bytes vs 5120 bytes", () -> Bitcast.apply(v, "f32[1280]{0}"));
        // A transpose that is a bitcast, as XLA's: the same bytes read with the dimensions swapped.
        TensorView swapped = Bitcast.apply(v, "f32[20,10]{0,1:T(8,128)}");
        for (int i = 0; i < 10; i++) {
            for (int j = 0; j < 20; j++) {
                assertEquals(i * 20 + j + 1, TensorElements.of(swapped).getFloat(j, i), "element [" + j + ", " + i + "]");
            }
        }
    }

    @Test
    void theSameMapBuiltOtherWaysBitcastsTheSame() {
        ArrayShape shape = ArrayShape.parse("f32[10,20]{1,0:T(8,128)}");
        TensorView v = filled(shape);
        float[] expected = expectedSlots(shape, 2048);
        TensorView twice = Transpose.apply(Transpose.apply(v, 1, 0), 1, 0);
        assertArrayEquals(expected, floats(Bitcast.apply(twice, "f32[2048]{0}")));
        TensorView t = Transpose.apply(v, 1, 0);
        assertArrayEquals(expected, floats(Bitcast.apply(t, "f32[2048]{0}")));
        TensorView back = Bitcast.apply(t, "f32[10,20]{1,0:T(8,128)}");
        assertArrayEquals(floats(v), floats(back));
        // The map and the bytes the layout owns, with no XLA shape behind them.
        TensorView made = byMap(v.buffer(), MAP_10_BY_20, 8192, 10, 20);
        assertArrayEquals(expected, floats(Bitcast.apply(made, "f32[2048]{0}")));
        refused("8192 bytes vs 5120 bytes", () -> Bitcast.apply(made, "f32[1280]{0}"));
        // The same map owning T(1,128)'s 5,120 bytes is that layout: the first 1,280 slots.
        TensorView rows = byMap(v.buffer(), MAP_10_BY_20, 5120, 10, 20);
        float[] first = new float[1280];
        System.arraycopy(expected, 0, first, 0, first.length);
        assertArrayEquals(first, floats(Bitcast.apply(rows, "f32[1280]{0}")));
        refused("5120 bytes vs 8192 bytes", () -> Bitcast.apply(rows, "f32[2048]{0}"));
    }

    @Test
    void aPackedMapWithTilePaddingTakesItsPaddedSize() {
        // Two rows of one 8x128 tile read as packed strides; the layout still owns 4,096 bytes.
        ArrayShape shape = ArrayShape.parse("f32[2,128]{1,0:T(8,128)}");
        TensorView v = filled(shape);
        assertEquals(StridedLayout.of(new long[] {2, 128}, new long[] {128, 1}), v.stridedLayout().orElseThrow());
        assertArrayEquals(expectedSlots(shape, 1024), floats(Bitcast.apply(v, "f32[1024]{0}")));
        refused("4096 bytes vs 1024 bytes", () -> Bitcast.apply(v, "f32[256]{0}"));
        // An untiled layout owns its elements' bytes, not the rest of a longer buffer.
        TensorView plain = TensorView.of(arena.allocate(5000), "f32[3,200]{0,1}");
        assertEquals(600, Bitcast.apply(Transpose.apply(plain, 1, 0), "f32[600]{0}").elementCount());
        refused("2400 bytes vs 5000 bytes", () -> Bitcast.apply(plain, "f32[1250]{0}"));
    }

    @Test
    void aPackedSubByteTiledShapeKeepsItsElementSize() {
        ArrayShape shape = ArrayShape.parse("s4[10,20]{1,0:T(8,128)E(4)}");
        TensorView v = TensorView.of(arena.allocate(shape.arraySize()), shape);
        long[] values = new long[200];
        for (int k = 0; k < values.length; k++) {
            values[k] = k % 15 - 7;
        }
        TensorElements.of(v).copyFrom(values);
        assertTrue(v.form() instanceof MapForm.Strided, v.form().toString());
        TensorView slots = Bitcast.apply(v, "s4[2048]{0:E(4)}");
        for (int i = 0; i < 10; i++) {
            for (int j = 0; j < 20; j++) {
                assertEquals(values[i * 20 + j], TensorElements.of(slots).getLong(shape.linearIndex(i, j)));
            }
        }
        refused("1024 bytes vs 640 bytes", () -> Bitcast.apply(v, "s4[1280]{0:E(4)}"));
    }

    @Test
    void aSizeOneDimensionHoldsTheRoomBelowTheSmallestStride() {
        // Physical (20, 1) padded to (384, 3): d1 steps by 3, d0 is always 0.
        ArrayShape shape = ArrayShape.parse("f32[1,20]{0,1:T(384,3)}");
        TensorView v = filled(shape);
        assertEquals(3L, v.stridedLayout().orElseThrow().strides().get(1));
        float[] expected = expectedSlots(shape, 1152);
        assertArrayEquals(expected, floats(Bitcast.apply(v, "f32[1152]{0}")));
        TensorView made = byMap(v.buffer(), "(d0, d1) -> (d1 * 3), domain: d0 in [0, 0], d1 in [0, 19]", 4608, 1, 20);
        assertArrayEquals(expected, floats(Bitcast.apply(made, "f32[1152]{0}")));
        // Without a size-1 dimension no XLA layout starts its elements 3 slots apart.
        TensorView alone = byMap(v.buffer(), "(d0) -> (d0 * 3), domain: d0 in [0, 19]", 4608, 20);
        refused("its smallest stride is 3, and no size-1 dimension holds the room below it",
                () -> Bitcast.apply(alone, "f32[1152]{0}"));
    }

    @Test
    void refusalsStayRefusals() {
        ArrayShape shape = ArrayShape.parse("f32[10,20]{1,0:T(8,128)}");
        TensorView v = filled(shape);
        // Part of the layout owns none of its padding, so it has no size to reinterpret.
        TensorView half = Slice.apply(v, new long[] {0, 0}, new long[] {5, 20}, new long[] {1, 1});
        refused("has strides [128, 1] for sizes [5, 20], which leave gaps or overlap",
                () -> Bitcast.apply(half, "f32[640]{0}"));
        TensorView unowned = TensorView.over(new ViewMap.Single(v.buffer(), IndexingMap.parse(MAP_10_BY_20)),
                ElementAccess.of(DType.F32), 10, 20);
        refused("has strides [128, 1] for sizes [10, 20], which leave gaps or overlap",
                () -> Bitcast.apply(unowned, "f32[2048]{0}"));
        refused("has stride -1 in dimension 1, a flip no layout describes",
                () -> Bitcast.apply(Reverse.apply(v, 1), "f32[2048]{0}"));
        MemoryBuffer buffer = v.buffer();
        refused("dimension 0's stride 11 is not a multiple of 4", () -> Bitcast.apply(byMap(buffer,
                "(d0, d1, d2) -> (d0 * 11 + d1 * 4 + d2), domain: d0 in [0, 1], d1 in [0, 1], d2 in [0, 2]", 88, 2, 2, 3),
                "f32[22]{0}"));
        refused("dimension 0's stride 3 falls inside the dimensions below it, which reach 5", () -> Bitcast.apply(
                byMap(buffer, "(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 3], d1 in [0, 4]", 80, 4, 5), "f32[20]{0}"));
        refused("its dimensions take 1280 slots with their padding, past the 1024 of its layout's 4096 bytes",
                () -> Bitcast.apply(byMap(buffer, MAP_10_BY_20, 4096, 10, 20), "f32[1024]{0}"));
    }

    /**
     * Random tiled shapes whose maps read as strides, most with gaps: each bitcast to its flat
     * slots reads every element where {@link ArrayShape#linearIndex} puts it, directly and
     * through a random transpose, and a size one slot off is refused.
     */
    @Test
    void randomStridedTiledLayoutsBitcastToTheirSlots() {
        Random random = new Random(36);
        long[] entries = {1, 2, 3, 4, 8, 16};
        int strided = 0;
        int gapped = 0;
        for (int round = 0; round < 400; round++) {
            int rank = 1 + random.nextInt(3);
            long[] dims = new long[rank];
            List<Integer> order = new ArrayList<>();
            for (int d = 0; d < rank; d++) {
                dims[d] = 1 + random.nextInt(10);
                order.add(d);
            }
            Collections.shuffle(order, random);
            long[] tile = new long[1 + random.nextInt(rank)];
            for (int k = 0; k < tile.length; k++) {
                tile[k] = entries[random.nextInt(entries.length)];
            }
            XlaLayout layout = XlaLayout.of(order.stream().mapToInt(Integer::intValue).toArray())
                    .withTiles(XlaLayout.Tile.of(tile));
            ArrayShape shape = ArrayShape.of(DType.F32, dims).withLayout(layout);
            TensorView v = filled(shape);
            if (!(v.form() instanceof MapForm.Strided s)) {
                continue;
            }
            strided++;
            int slots = (int) (shape.arraySize() / 4);
            gapped += s.layout().strides().stream().anyMatch(x -> x > 1) && slots > v.elementCount() ? 1 : 0;
            float[] expected = expectedSlots(shape, slots);
            assertArrayEquals(expected, floats(Bitcast.apply(v, "f32[" + slots + "]{0}")), shape.toString());
            int[] perm = order.stream().mapToInt(Integer::intValue).toArray();
            assertArrayEquals(expected, floats(Bitcast.apply(Transpose.apply(v, perm), "f32[" + slots + "]{0}")),
                    shape + " transposed " + order);
            refused(shape.arraySize() + " bytes vs " + (shape.arraySize() + 4) + " bytes",
                    () -> Bitcast.apply(v, "f32[" + (slots + 1) + "]{0}"));
        }
        assertTrue(strided >= 100 && gapped >= 40, strided + " strided, " + gapped + " with gaps");
    }
}
