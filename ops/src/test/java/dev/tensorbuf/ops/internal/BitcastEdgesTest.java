package dev.tensorbuf.ops.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * {@link Bitcast#apply} where the source is not a whole buffer from its start: a strided view at
 * an element offset (its bytes start there), a packed view whose offset falls inside a byte
 * (refused), a tiled view (its physical slots, in XLA's tiled order) and pieces of one that are
 * not the whole layout (refused, not read as if they were), and the refusals naming why a view
 * has no layout to reinterpret.
 */
class BitcastEdgesTest {
    private Allocator arena;

    @BeforeEach
    void open() {
        arena = Allocators.confined();
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private TensorView counting(String shape, long bytes, int count) {
        TensorView v = TensorView.of(arena.allocate(bytes), shape);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = i;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private static void refused(String part, Executable op) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, op);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    @Test
    void aStridedViewAtAnOffsetReinterpretsFromItsFirstElement() {
        TensorView v = counting("f32[4,6]{1,0}", 96, 24);
        TensorView rows = Slice.apply(v, new long[] {1, 0}, new long[] {3, 6}, new long[] {1, 1});
        TensorView flat = Bitcast.apply(rows, "f32[12]{0}");
        float[] expected = new float[12];
        for (int i = 0; i < 12; i++) {
            expected[i] = 6 + i;
        }
        assertArrayEquals(expected, TensorElements.of(flat).toFloatArray());
        // The result shares the source's buffer and starts at its offset, row 1.
        assertSame(rows.buffer(), flat.buffer());
        assertEquals(6, flat.stridedLayout().orElseThrow().offset());
    }

    /** A tiled target is laid over the bytes from the source's first element (no view op's map does it). */
    @Test
    void aStridedViewAtAnOffsetLaysATiledTargetFromItsFirstElement() {
        TensorView v = counting("f32[4,6]{1,0}", 96, 24);
        TensorView rows = Slice.apply(v, new long[] {1, 0}, new long[] {3, 6}, new long[] {1, 1});
        TensorView tiled = Bitcast.apply(rows, "f32[12]{0:T(4)}");
        float[] expected = new float[12];
        for (int i = 0; i < 12; i++) {
            expected[i] = 6 + i;
        }
        assertArrayEquals(expected, TensorElements.of(tiled).toFloatArray());
        assertEquals(96 - 24, tiled.buffer().byteSize());
    }

    /**
     * A whole tiled layout whose tail padding ({@code L(3000)}) is not a multiple of its rows'
     * stride: the plainest layout of its strides makes up its bytes with the same {@code L(n)}.
     */
    @Test
    void aWholeLayoutWithTailPaddingBitcastsToItsSlots() {
        ArrayShape shape = ArrayShape.parse("f32[10,20]{1,0:T(8,128)L(3000)}");
        assertEquals(12_000, shape.arraySize());
        TensorView v = TensorView.of(arena.allocate(shape.arraySize()), shape);
        float[] values = new float[200];
        for (int i = 0; i < 200; i++) {
            values[i] = i + 1;
        }
        TensorElements.of(v).copyFrom(values);
        TensorView slots = Bitcast.apply(v, "f32[3000]{0}");
        for (int r = 0; r < 10; r++) {
            for (int c = 0; c < 20; c += 7) {
                assertEquals(values[r * 20 + c], TensorElements.of(slots).getFloat(r * 128L + c), "element [" + r + ", " + c + "]");
            }
        }
        refused("12000 bytes vs 11996 bytes", () -> Bitcast.apply(v, "f32[2999]{0}"));
    }

    @Test
    void aPackedViewMustStartAtAByte() {
        TensorView v = TensorView.of(arena.allocate(8), "s4[16]{0:E(4)}");
        long[] values = new long[16];
        for (int i = 0; i < 16; i++) {
            values[i] = i - 8;
        }
        TensorElements.of(v).copyFrom(values);
        refused("element offset 1 is not at a byte",
                () -> Bitcast.apply(Slice.apply(v, new long[] {1}, new long[] {5}, new long[] {1}), "s4[4]{0:E(4)}"));
        TensorView fromByteOne = Bitcast.apply(Slice.apply(v, new long[] {2}, new long[] {6}, new long[] {1}),
                "s4[2,2]{1,0:E(4)}");
        assertArrayEquals(new long[] {-6, -5, -4, -3}, TensorElements.of(fromByteOne).toLongArray());
    }

    @Test
    void aTiledViewReinterpretsItsPhysicalSlots() {
        // Two tile columns: not a strided layout, so the tiled one is what the bytes follow.
        ArrayShape shape = ArrayShape.parse("f32[10,130]{1,0:T(8,128)}");
        TensorView v = TensorView.of(arena.allocate(shape.arraySize()), shape);
        float[] values = new float[1300];
        for (int i = 0; i < 1300; i++) {
            values[i] = i + 1;
        }
        TensorElements.of(v).copyFrom(values);
        TensorView slots = Bitcast.apply(v, "f32[4096]{0}");
        for (long r : new long[] {0, 7, 8, 9}) {
            for (long c : new long[] {0, 127, 128, 129}) {
                assertEquals(values[(int) (r * 130 + c)], TensorElements.of(slots).getFloat(shape.linearIndex(r, c)),
                        "element [" + r + ", " + c + "]");
            }
        }
    }

    @Test
    void aPackedTiledViewKeepsItsElementSize() {
        ArrayShape shape = ArrayShape.parse("s4[4,16]{1,0:T(2,8)E(4)}");
        TensorView v = TensorView.of(arena.allocate(shape.arraySize()), shape);
        long[] values = new long[64];
        for (int i = 0; i < 64; i++) {
            values[i] = i % 16 - 8;
        }
        TensorElements.of(v).copyFrom(values);
        TensorView slots = Bitcast.apply(v, "s4[64]{0:E(4)}");
        for (long r = 0; r < 4; r++) {
            for (long c = 0; c < 16; c += 5) {
                assertEquals(values[(int) (r * 16 + c)], TensorElements.of(slots).getLong(shape.linearIndex(r, c)));
            }
        }
    }

    @Test
    void aPieceOfATiledViewIsNotItsWholeLayout() {
        ArrayShape shape = ArrayShape.parse("f32[10,130]{1,0:T(8,128)}");
        TensorView v = TensorView.of(arena.allocate(shape.arraySize()), shape);
        // Rows 6-9 cross a tile row: neither strided nor the layout from its start.
        TensorView rows = Slice.apply(v, new long[] {6, 0}, new long[] {10, 130}, new long[] {1, 1});
        refused("reads its bytes in place", () -> Bitcast.apply(rows, "f32[4096]{0}"));
        // Not strided: the refusal shows the map that is not.
        refused("this one has the map (d0, d1) -> (", () -> Bitcast.apply(rows, "f32[4096]{0}"));
    }

    @Test
    void aLayoutWhoseSlotsPassXlasArraySizeIsRefused() {
        ArrayShape shape = ArrayShape.parse("f32[10,130]{1,0:T(8,128)}");
        TensorView v = TensorView.of(arena.allocate(shape.arraySize()), shape);
        // Ten columns of two tile rows: read as T(16,128)(2,8,128), whose array size (8,192 bytes,
        // first tile only) ends before row 9's elements (slot 2,176).
        TensorView cols = Slice.apply(v, new long[] {0, 0}, new long[] {10, 10}, new long[] {1, 1});
        refused("past XLA's array size of 8192 bytes", () -> Bitcast.apply(cols, "f32[2048]{0}"));
    }

    @Test
    void refusalsSayWhyAViewHasNoLayout() {
        TensorView v = counting("f32[4,6]{1,0}", 96, 24);
        refused("a padded or concatenated view has no layout to reinterpret",
                () -> Bitcast.apply(Pad.apply(v, new long[] {1, 0}, new long[] {0, 0}, new long[] {0, 0}, 0), "f32[30]{0}"));
        refused("has stride -1 in dimension 1, a flip no layout describes",
                () -> Bitcast.apply(Reverse.apply(v, 1), "f32[24]{0}"));
        // A stride of 0 repeats elements: not a flip, an overlap.
        TensorView row = Slice.apply(v, new long[] {0, 0}, new long[] {1, 6}, new long[] {1, 1});
        refused("which leave gaps or overlap",
                () -> Bitcast.apply(Broadcast.apply(Reshape.apply(row, 6), new long[] {4, 6}, 1), "f32[24]{0}"));
        // Every other column leaves gaps.
        refused("has strides [6, 2] for sizes [4, 3], which leave gaps or overlap",
                () -> Bitcast.apply(Slice.apply(v, new long[] {0, 0}, new long[] {4, 6}, new long[] {1, 2}), "f32[12]{0}"));
    }

    @Test
    void aShapeWithoutLayoutHasXlasDescendingOrder() {
        ArrayShape plain = ArrayShape.of(DType.F32, 2, 3, 4).withoutLayout();
        assertEquals(List.of(2, 1, 0), Bitcast.minorToMajor(plain));
        assertEquals(List.of(2L, 3L, 4L), Bitcast.physicalDims(plain));
    }
}
