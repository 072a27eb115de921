package dev.tensorbuf.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.internal.Bitcast;
import dev.tensorbuf.ops.internal.Broadcast;
import dev.tensorbuf.ops.internal.Concatenate;
import dev.tensorbuf.ops.internal.DynamicSlice;
import dev.tensorbuf.ops.internal.Pad;
import dev.tensorbuf.ops.internal.Reshape;
import dev.tensorbuf.ops.internal.Reverse;
import dev.tensorbuf.ops.internal.Slice;
import dev.tensorbuf.ops.internal.Transpose;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each op's Javadoc example, as its first test. */
class OpExamplesTest {
    private Allocator arena;

    @BeforeEach
    void open() {
        arena = Allocators.confined();
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private TensorView view(String shape, int bytes) {
        return TensorView.of(arena.allocate(bytes), shape);
    }

    @Test
    void transposeExampleFromJavadoc() {
        TensorView v = view("f32[2,3]{1,0}", 24);
        assertEquals("(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]",
                Transpose.apply(v, 1, 0).indexingMap().toString());
    }

    @Test
    void sliceExampleFromJavadoc() {
        TensorView v = view("f32[4,6]{1,0}", 96);
        assertEquals("(d0, d1) -> (d0 * 6 + d1 * 2 + 6), domain: d0 in [0, 1], d1 in [0, 2]",
                Slice.apply(v, new long[] {1, 0}, new long[] {3, 6}, new long[] {1, 2}).indexingMap().toString());
    }

    @Test
    void reverseExampleFromJavadoc() {
        TensorView v = view("f32[2,3]{1,0}", 24);
        assertEquals("(d0, d1) -> (d0 * 3 - d1 + 2), domain: d0 in [0, 1], d1 in [0, 2]",
                Reverse.apply(v, 1).indexingMap().toString());
    }

    @Test
    void broadcastExampleFromJavadoc() {
        TensorView v = view("f32[3]{0}", 12);
        assertEquals("(d0, d1) -> (d1), domain: d0 in [0, 1], d1 in [0, 2]",
                Broadcast.apply(v, new long[] {2, 3}, 1).indexingMap().toString());
    }

    @Test
    void dynamicSliceExampleFromJavadoc() {
        TensorView v = view("f32[8]{0}", 32);
        assertEquals("(d0) -> (d0 + 4), domain: d0 in [0, 3]",
                DynamicSlice.apply(v, new long[] {6}, new long[] {4}).indexingMap().toString());
    }

    @Test
    void padExampleFromJavadoc() {
        TensorView v = view("f32[2]{0}", 8);
        TensorElements.of(v).copyFrom(new float[] {1, 2});
        assertArrayEquals(new float[] {0, 1, 0, 2, 0, 0},
                TensorElements.of(Pad.apply(v, new long[] {1}, new long[] {2}, new long[] {1}, 0)).toFloatArray());
        assertEquals("(d0) -> ((d0 - 1) / 2), domain: d0 in [1, 3], (d0 - 1) mod 2 in [0, 0]",
                Pad.outputToInput(new long[] {2}, new long[] {1}, new long[] {2}, new long[] {1}).toString());
    }

    @Test
    void reshapeExampleFromJavadoc() {
        TensorView v = view("f32[4,6]{1,0}", 96);
        assertEquals(StridedLayout.of(new long[] {2, 12}, new long[] {12, 1}),
                Reshape.apply(v, 2, 12).stridedLayout().orElseThrow());
        assertEquals(Optional.of("dim 0 (size 24) steps by 6 from 0 to 1 but by -17 from 3 to 4"),
                Reshape.apply(Transpose.apply(v, 1, 0), 24).form().whyNotStrided());
    }

    @Test
    void bitcastExampleFromJavadoc() {
        TensorView v = view("f32[2,3]{1,0}", 24);
        assertEquals("(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]",
                Bitcast.apply(v, "f32[3,2]{0,1}").indexingMap().toString());
        assertEquals("[(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1], reshape [3, 2] -> [6]]",
                Bitcast.steps(ArrayShape.parse("f32[2,3]{0,1}"), ArrayShape.parse("f32[6]{0}")).toString());
    }

    /**
     * A packed 4-bit view read back as another packed shape: the source's element size counts, so
     * 128 nibbles are 64 bytes on both sides (it was refused as "128 bytes vs 64 bytes").
     */
    @Test
    void aPackedFourBitViewBitcastsToAnotherPackedShape() {
        TensorView v = view("s4[16,8]{1,0:E(4)}", 64);
        long[] values = new long[128];
        for (int i = 0; i < values.length; i++) {
            values[i] = i % 16 - 8;
        }
        TensorElements.of(v).copyFrom(values);
        assertArrayEquals(values, TensorElements.of(Bitcast.apply(v, "s4[128]{0:E(4)}")).toLongArray());
        TensorView cols = Bitcast.apply(Transpose.apply(v, 1, 0), "s4[8,16]{0,1:E(4)}");
        for (int i = 0; i < 16; i++) {
            for (int j = 0; j < 8; j++) {
                assertEquals(values[i * 8 + j], TensorElements.of(cols).getLong(j, i), "element [" + j + ", " + i + "]");
            }
        }
    }

    @Test
    void concatenateExampleFromJavadoc() {
        TensorView a = view("f32[2]{0}", 8);
        TensorView b = view("f32[3]{0}", 12);
        TensorElements.of(a).copyFrom(new float[] {1, 2});
        TensorElements.of(b).copyFrom(new float[] {3, 4, 5});
        assertArrayEquals(new float[] {1, 2, 3, 4, 5}, TensorElements.of(Concatenate.apply(0, a, b)).toFloatArray());
        assertEquals("(d0) -> (d0 - 2), domain: d0 in [2, 4]", Concatenate.outputToPart(new long[] {5}, 0, 2, 3).toString());
    }

    @Test
    void opsExampleFromJavadoc() {
        TensorView v = view("f32[4,6]{1,0}", 96);
        TensorView w = Ops.reverse(Ops.slice(Ops.transpose(v, 1, 0), new long[] {0, 1}, new long[] {6, 3}, new long[] {2, 1}), 1);
        assertEquals(StridedLayout.of(new long[] {3, 2}, new long[] {2, -6}, 12), w.stridedLayout().orElseThrow());
    }

    @Test
    void sliceOfTiledViewStaysTiled() {
        TensorView v = view("f32[4,6]{1,0:T(2,2)}", 96);
        MapForm f = Slice.apply(v, new long[] {2, 0}, new long[] {4, 6}, new long[] {1, 1}).form();
        assertTrue(f instanceof MapForm.Tiled, f.toString());
    }

    /**
     * A review found the bitcast of a transposed tiled view refused as "not an XLA layout": it is
     * one, the permuted shape over the same bytes, as XLA's transposes that are bitcasts.
     */
    @Test
    void aTransposedTiledViewIsThePermutedShapeAndBitcastsItsBytes() {
        TensorView tiled = view("f32[3,5]{1,0:T(2,2)}", 96);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 5; j++) {
                TensorElements.of(tiled).setFloat(10 * i + j, i, j);
            }
        }
        TensorView t = Transpose.apply(tiled, 1, 0);
        // The layout comes from the map's form, not from the op that made the view.
        assertEquals("f32[5,3]{0,1:T(2,2)}", ((MapForm.Tiled) t.form()).xlaShape(DType.F32).orElseThrow().toString());
        // A 2x2 corner lies in one tile: its map is strides, no tiled layout.
        assertTrue(Slice.apply(t, new long[] {0, 0}, new long[] {2, 2}, new long[] {1, 1}).form() instanceof MapForm.Strided);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 5; j++) {
                assertEquals(10 * i + j, TensorElements.of(t).getFloat(j, i));
            }
        }
        // Tile rows of Figure 1 in memory order; the 9 padding slots read 0.
        float[] bytes = new float[24];
        TensorView flat = Bitcast.apply(t, "f32[24]{0}");
        for (int k = 0; k < 24; k++) {
            bytes[k] = TensorElements.of(flat).getFloat(k);
        }
        assertArrayEquals(new float[] {0, 1, 10, 11, 2, 3, 12, 13, 4, 0, 14, 0, 20, 21, 0, 0, 22, 23, 0, 0, 24, 0, 0, 0},
                bytes);
    }

    /** As XLA's, broadcast dimensions out of order transpose: output (i, k, j) reads input (j, i). */
    @Test
    void aBroadcastWithDimensionsOutOfOrderTransposes() {
        TensorView v = view("f32[4,5]{1,0}", 80);
        for (int j = 0; j < 4; j++) {
            for (int i = 0; i < 5; i++) {
                TensorElements.of(v).setFloat(10 * j + i, j, i);
            }
        }
        TensorView b = Broadcast.apply(v, new long[] {5, 3, 4}, 2, 0);
        for (int i = 0; i < 5; i++) {
            for (int k = 0; k < 3; k++) {
                for (int j = 0; j < 4; j++) {
                    assertEquals(10 * j + i, TensorElements.of(b).getFloat(i, k, j));
                }
            }
        }
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> Broadcast.apply(view("f32[4,4]{1,0}", 64), new long[] {4, 4}, 1, 1));
        assertTrue(twice.getMessage().contains("broadcast dimension 1 -> 1 must name a distinct output dim of size 4"),
                twice.getMessage());
    }

    @Test
    void badArgumentsNameTheProblem() {
        TensorView v = view("f32[4,6]{1,0}", 96);
        IllegalArgumentException slice = assertThrows(IllegalArgumentException.class,
                () -> Slice.apply(v, new long[] {0, 5}, new long[] {4, 7}, new long[] {1, 1}));
        assertTrue(slice.getMessage().contains("dim 1 has start 5, limit 7, stride 1; need 0 <= start <= limit <= 6"),
                slice.getMessage());
        IllegalArgumentException reshape = assertThrows(IllegalArgumentException.class, () -> Reshape.apply(v, 5, 5));
        assertTrue(reshape.getMessage().contains("(24 elements) to [5, 5] (25 elements)"), reshape.getMessage());
        IllegalArgumentException perm = assertThrows(IllegalArgumentException.class, () -> Transpose.apply(v, 0, 0));
        assertTrue(perm.getMessage().contains(": dimensions [0, 0] are not a permutation of [0, 2)"), perm.getMessage());
        IllegalArgumentException bitcast = assertThrows(IllegalArgumentException.class,
                () -> Bitcast.apply(Slice.apply(v, new long[] {0, 0}, new long[] {4, 3}, new long[] {1, 1}), "f32[12]"));
        assertTrue(bitcast.getMessage().contains("has strides [6, 1] for sizes [4, 3], which leave gaps or overlap"),
                bitcast.getMessage());
        IllegalArgumentException flipped = assertThrows(IllegalArgumentException.class,
                () -> Bitcast.apply(Reverse.apply(v, 1), "f32[24]"));
        assertTrue(flipped.getMessage().contains("has stride -1 in dimension 1, a flip no layout describes"),
                flipped.getMessage());
        IllegalArgumentException concat = assertThrows(IllegalArgumentException.class,
                () -> Concatenate.apply(0, List.of(v, view("f32[4,5]{1,0}", 80))));
        assertEquals("concatenate along dimension 0: part 1, f32[4,5]{1,0}, does not match the first part, f32[4,6]{1,0}:"
                + " its dims [4, 5] differ from the first part's [4, 6] outside dimension 0", concat.getMessage());
        IllegalArgumentException types = assertThrows(IllegalArgumentException.class,
                () -> Concatenate.apply(0, List.of(v, view("s32[4,6]{1,0}", 96))));
        assertTrue(types.getMessage().endsWith(": its elements are s32 in 32 bits each, the first part's f32 in 32"),
                types.getMessage());
    }

    /** Ops whose result needs no map of their own return the strided view they amount to. */
    @Test
    void cropsSinglePartsAndUnsteppedSlicesStayStrided() {
        TensorView v = view("f32[4,6]{1,0}", 96);
        float[] values = new float[24];
        for (int i = 0; i < values.length; i++) {
            values[i] = i;
        }
        TensorElements.of(v).copyFrom(values);
        TensorView crop = Pad.apply(v, new long[] {-1, 0}, new long[] {-1, -2}, new long[] {0, 0}, 0);
        assertEquals(Optional.of(StridedLayout.of(new long[] {2, 4}, new long[] {6, 1}, 6)), crop.stridedLayout());
        assertArrayEquals(new float[] {6, 7, 8, 9, 12, 13, 14, 15}, TensorElements.of(crop).toFloatArray());
        assertTrue(Pad.apply(v, new long[] {0, 0}, new long[] {0, 0}, new long[] {0, 0}, 0).isStrided());
        IllegalArgumentException fill = assertThrows(IllegalArgumentException.class,
                () -> Pad.apply(v, new long[] {-1, 0}, new long[] {0, 0}, new long[] {0, 0}, TensorView.scalar(
                        dev.tensorbuf.views.DType.S32, 0)));
        assertTrue(fill.getMessage().contains("must be a rank-0 f32 view"), fill.getMessage());
        assertTrue(Concatenate.apply(1, List.of(v)).isStrided());
        IllegalArgumentException dim = assertThrows(IllegalArgumentException.class, () -> Concatenate.apply(2, List.of(v)));
        assertTrue(dim.getMessage().contains("2"), dim.getMessage());
        TensorView far = Slice.apply(v, new long[] {1, 0}, new long[] {4, 6}, new long[] {Long.MAX_VALUE, 1});
        assertEquals(List.of(1L, 6L), far.dims());
        assertArrayEquals(new float[] {6, 7, 8, 9, 10, 11}, TensorElements.of(far).toFloatArray());
        IllegalArgumentException tuple = assertThrows(IllegalArgumentException.class, () -> Bitcast.apply(v, "(f32[24])"));
        assertTrue(tuple.getMessage().contains("needs an array shape, not (f32[24])"), tuple.getMessage());
    }

    /** A double holds integers exactly only to 2^53; an integer fill keeps INT64_MAX and 2^53 + 1. */
    @Test
    void integerFillsAreExact() {
        TensorView ids = view("s64[2]{0}", 16);
        TensorElements.of(ids).copyFrom(new long[] {1, 2});
        TensorView padded = Ops.pad(ids, new long[] {1}, new long[] {1}, new long[] {0}, Long.MAX_VALUE);
        assertArrayEquals(new long[] {Long.MAX_VALUE, 1, 2, Long.MAX_VALUE}, TensorElements.of(padded).toLongArray());
        TensorView odd = Pad.apply(ids, new long[] {0}, new long[] {1}, new long[] {0}, (1L << 53) + 1);
        assertEquals((1L << 53) + 1, TensorElements.of(odd).getLong(2));
        TensorView floats = view("f32[1]{0}", 4);
        assertEquals(7f, TensorElements.of(Ops.pad(floats, new long[] {1}, new long[] {0}, new long[] {0}, 7)).getFloat(0));
        IllegalArgumentException u8 = assertThrows(IllegalArgumentException.class,
                () -> Ops.pad(view("u8[2]{0}", 2), new long[] {1}, new long[] {0}, new long[] {0}, 256));
        assertTrue(u8.getMessage().contains("256"), u8.getMessage());
    }
}
