package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.PrimitiveIterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TensorViewTest {
    private Allocator arena;

    @BeforeEach
    void open() {
        arena = Allocators.confined();
    }

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void aOneBufferViewOverAMapWithConstraintsIsRefused() {
        IndexingMap partial = IndexingMap.parse("(d0) -> (d0), domain: d0 in [0, 7], d0 mod 3 in [0, 1]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorView.over(new ViewMap.Single(arena.allocate(32), partial), ElementAccess.of(DType.F32), 8));
        assertTrue(e.getMessage().endsWith("has constraints: a one-buffer view reads every index; make it a piece of a"
                + " ViewMap.Padded or ViewMap.Concatenated for a partial map"), e.getMessage());
    }

    @Test
    void buffersAreTheOneBufferOrEveryPiecesWithoutBuildingAOneBufferViewsMap() {
        MemoryBuffer a = arena.allocate(8);
        MemoryBuffer b = arena.allocate(12);
        TensorView left = TensorView.of(a, "f32[2]{0}");
        TensorView right = TensorView.of(b, "f32[3]{0}");
        assertEquals(List.of(a), left.buffers());
        assertFalse(left.mapBuilt(), "a one-buffer view names its buffer without its map");
        assertEquals(List.of(a, b), TensorView.concatenated(0, List.of(left, right)).buffers());
        TensorView fill = TensorView.scalar(DType.F32, 0);
        TensorView padded = left.padded(Remap.Pad.of(new long[] {2}, new long[] {1}, new long[] {1}, new long[] {0}), fill);
        assertEquals(List.of(a, fill.buffer()), padded.buffers());
    }

    @Test
    void exampleFromJavadoc() {
        TensorView v = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
        TensorElements.of(v).setFloat(7f, 2, 3);
        assertEquals(7f, v.buffer().segment().getAtIndex(ValueLayout.JAVA_FLOAT, 17));
        MapForm.Tiled tiled = (MapForm.Tiled) v.form();
        assertEquals(Optional.of(v.shape()), tiled.xlaShape(DType.F32));
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> TensorElements.of(v).getFloat(2, 5));
        assertEquals("index 5 out of bounds [0, 5) for dim 1 of f32[3,5]{1,0:T(2,2)}", e.getMessage());
    }

    @Test
    void tiledViewPlacesEveryElementAtFigure1Position() {
        // Seed Figure 1: f32[3,5] in 2x2 tiles; slot -> element (row-major value r*5+c), -1 = padding.
        int[] figure1 = {0, 1, 5, 6, 2, 3, 7, 8, 4, -1, 9, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, -1, -1, -1};
        TensorView v = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
        float[] values = new float[15];
        for (int i = 0; i < 15; i++) {
            values[i] = i;
        }
        TensorElements.of(v).copyFrom(values);
        for (int slot = 0; slot < figure1.length; slot++) {
            float stored = v.buffer().segment().getAtIndex(ValueLayout.JAVA_FLOAT, slot);
            assertEquals(figure1[slot] < 0 ? 0f : figure1[slot], stored, "slot " + slot);
        }
        assertArrayEquals(values, TensorElements.of(v).toFloatArray());
    }

    @Test
    void outOfBoundsIndexNamesDimBoundsAndShape() {
        TensorView v = TensorView.of(arena.allocate(32), "f32[2,4]{1,0}");
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> TensorElements.of(v).getFloat(1, 7));
        assertEquals("index 7 out of bounds [0, 4) for dim 1 of f32[2,4]{1,0}", e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> TensorElements.of(v).setFloat(1f, -1, 0));
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class, () -> TensorElements.of(v).getFloat(1));
        assertTrue(rank.getMessage().contains("index [1] has rank 1 but f32[2,4]{1,0} has rank 2"), rank.getMessage());
    }

    @Test
    void viewOfAConfinedBufferReadInBulkFromAnotherThreadNamesTheViewAndTheThread() throws Exception {
        TensorView v = TensorView.of(arena.allocate(32), "f32[4,2]{0,1}");
        CompletableFuture<float[]> all = CompletableFuture.supplyAsync(() -> TensorElements.of(v).toFloatArray());
        ExecutionException bulk = assertThrows(ExecutionException.class, all::get);
        assertInstanceOf(WrongThreadException.class, bulk.getCause());
        assertTrue(bulk.getCause().getMessage().startsWith("cannot use " + v + " from thread \""),
                bulk.getCause().getMessage());
        assertTrue(bulk.getCause().getMessage().endsWith("\": its memory belongs to a confined arena, which is for the"
                + " thread that made it (use Allocators.shared() or a pool to share buffers between threads)"),
                bulk.getCause().getMessage());
        // A single element read or write names the buffer, its arena and the thread (the buffer checks
        // its owner itself; FFM's own exception named neither).
        String element = "buffer of 32 bytes from confined arena cannot be used from thread \"";
        String cure = "\": a confined arena is for the thread that made it (use Allocators.shared() or a pool to share"
                + " buffers between threads)";
        CompletableFuture<Float> read = CompletableFuture.supplyAsync(() -> TensorElements.of(v).getFloat(3, 1));
        Throwable one = assertThrows(ExecutionException.class, read::get).getCause();
        assertInstanceOf(WrongThreadException.class, one);
        assertTrue(one.getMessage().startsWith(element) && one.getMessage().endsWith(cure), one.getMessage());
        TensorView tiled = TensorView.of(arena.allocate(64), "f32[3,3]{1,0:T(2,2)}");
        CompletableFuture<Void> write = CompletableFuture.runAsync(() -> TensorElements.of(tiled).setFloat(1f, 2, 2));
        Throwable written = assertThrows(ExecutionException.class, write::get).getCause();
        assertInstanceOf(WrongThreadException.class, written);
        assertTrue(written.getMessage().startsWith(element.replace("32", "64")) && written.getMessage().endsWith(cure),
                written.getMessage());
        TensorElements.of(v).setFloat(2.5f, 3, 1);
        assertEquals(2.5f, TensorElements.of(v).getFloat(3, 1), "its own thread still reads and writes it");
    }

    @Test
    void bufferTooSmallNamesFirstOffendingIndex() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorView.of(arena.allocate(28), "f32[2,4]{1,0}"));
        assertTrue(e.getMessage().contains("index [1, 3] reaches element offset 7, beyond the buffer of 7 elements (28 bytes)"),
                e.getMessage());
        // Column-major: offset d1 * 2 + d0; offset 6 first at [0, 3] in logical order.
        IllegalArgumentException col = assertThrows(IllegalArgumentException.class,
                () -> TensorView.of(arena.allocate(24), "f32[2,4]{0,1}"));
        assertTrue(col.getMessage().contains("index [0, 3] reaches element offset 6"), col.getMessage());
        IllegalArgumentException strided = assertThrows(IllegalArgumentException.class,
                () -> TensorView.strided(arena.allocate(40), DType.F32, StridedLayout.of(new long[] {3, 4}, new long[] {4, 1}, 1)));
        assertTrue(strided.getMessage().contains("index [2, 1] reaches element offset 10"), strided.getMessage());
    }

    @Test
    void anElementSizeItCannotStoreSaysWhatItCan() {
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
                () -> TensorView.of(arena.allocate(16), "f32[4]{0:E(16)}"));
        assertEquals("f32[4]{0:E(16)}: elements of f32 stored in E(16) bits are not supported; E(0) or E(32) stores"
                + " them at their own width", wide.getMessage());
        IllegalArgumentException narrow = assertThrows(IllegalArgumentException.class,
                () -> TensorView.of(arena.allocate(4), "s4[4]{0:E(2)}"));
        assertEquals("s4[4]{0:E(2)}: elements of s4 stored in E(2) bits are not supported; E(4) packs them, E(0) or"
                + " E(8) stores one a byte", narrow.getMessage());
    }

    @Test
    void aTiledViewNeedsXlasArraySizeTilePaddingIncluded() {
        // Figure 1: 15 elements in 24 slots. The last element (2, 4) sits in slot 20, so 84 bytes
        // hold every element, but the copy engine writes (zeroes) the padding through slot 23.
        for (long bytes : new long[] {80, 84, 95}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TensorView.of(arena.allocate(bytes), "f32[3,5]{1,0:T(2,2)}"));
            assertEquals("view of f32[3,5]{1,0:T(2,2)}: a buffer of " + bytes + " bytes is too small; XLA's ArraySize"
                    + " for the shape is 96 bytes, tile padding included", e.getMessage());
        }
        assertEquals(15, TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}").elementCount());
    }

    @Test
    void writesIntoReadOnlyMemoryNameTheIndexAndTheView() {
        TensorView ro = TensorView.of(arena.allocate(24).asReadOnly(), "f32[2,3]{1,0}");
        assertEquals(0f, TensorElements.of(ro).getFloat(1, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TensorElements.of(ro).setFloat(1f, 1, 2));
        assertTrue(e.getMessage().startsWith("cannot write index [1, 2] of f32[2,3]{1,0}"), e.getMessage());
        assertTrue(e.getMessage().contains("its memory is read-only"), e.getMessage());
    }

    @Test
    void laterTileThatDoesNotDivideTheFirstIsExplainedNotJustOutOfBounds() {
        // T(2,3) then (1,2): the second tile pads 3 to 4 inside each 2x3 tile, 8 slots, while
        // XLA's ArraySize counts the first tile alone: 6 slots, 24 bytes.
        ArrayShape shape = (ArrayShape) XlaShape.parse("f32[2,3]{1,0:T(2,3)(1,2)}");
        assertEquals(24, shape.arraySize());
        assertEquals(8, shape.physicalElementCount());
        assertEquals(32, shape.physicalByteSize());
        assertEquals(3, ((ArrayShape) XlaShape.parse("s4[5]{0:T(6)E(4)}")).physicalByteSize(), "6 nibbles");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorView.of(arena.allocate(shape.arraySize()), shape));
        assertEquals("f32[2,3]{1,0:T(2,3)(1,2)}: its tiles address 8 element slots (32 bytes), but XLA sizes a buffer by"
                + " the first tile alone (ArraySize 24 bytes, this buffer 24): a later tile pads inside the tiles before"
                + " it; each tile must divide the dimensions it tiles", e.getMessage());
        // Given the slots, the view works, and XLA's own nested tilings (dividing) need nothing extra.
        assertEquals(6, TensorView.of(arena.allocate(32), shape).elementCount());
        ArrayShape bf16 = (ArrayShape) XlaShape.parse("bf16[16,256]{1,0:T(8,128)(2,1)}");
        assertEquals(bf16.arraySize(), 2 * bf16.physicalElementCount());
        TensorView.of(arena.allocate(bf16.arraySize()), bf16);
    }

    @Test
    void deviceBufferRefusesElementAccess() {
        MemoryBuffer device = MemoryBuffer.foreign(0x1000, 64, MemorySpace.DEVICE, "test", () -> { });
        TensorView v = TensorView.of(device, "f32[4,4]{1,0}");
        assertFalse(v.isHostAccessible());
        assertTrue(v.isStrided());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> TensorElements.of(v).getFloat(0, 0));
        assertTrue(e.getMessage().contains("not host-accessible: element access needs host memory"), e.getMessage());
        device.close();
    }

    @Test
    void hugeDeviceBufferCountsItsElementsWithoutOverflow() {
        // 2^62 bytes: 8 * bytes would overflow a long and the buffer looked empty.
        MemoryBuffer huge = MemoryBuffer.foreign(0x1000, 1L << 62, MemorySpace.DEVICE, "test", () -> { });
        assertEquals(1L << 60, TensorView.of(huge, "f32[1073741824,1073741824]{1,0}").elementCount());
        assertEquals(1L << 62, TensorView.of(huge, "s4[1073741824,4294967296]{1,0:E(4)}").elementCount());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorView.of(huge, "f32[1073741824,1073741825]{1,0}"));
        assertTrue(e.getMessage().contains("beyond the buffer of 1152921504606846976 elements"), e.getMessage());
        huge.close();
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"PRED", "S4", "S8", "S16", "S32", "S64", "U4", "U8", "U16", "U32", "U64",
            "F16", "BF16", "F32", "F64", "F8E5M2", "F8E4M3FN", "F8E4M3", "F8E5M2FNUZ", "F8E4M3FNUZ", "F4E2M1FN"})
    void getSetRoundTripsEveryNumericType(DType type) {
        TensorView v = TensorView.of(arena.allocate(64), ArrayShape.of(type, 2, 3));
        double[] values = type == DType.PRED ? new double[] {1, 0, 1, 1, 0, 0}
                : type.kind() == DType.Kind.UNSIGNED ? new double[] {0, 1, 2, 3, 5, 7}
                : new double[] {0, 1, -2, 3, -4, 1.5};
        if (type.kind() != DType.Kind.FLOAT) {
            values[5] = type == DType.PRED ? 0 : 6;
        }
        int k = 0;
        for (long i = 0; i < 2; i++) {
            for (long j = 0; j < 3; j++) {
                TensorElements.of(v).setDouble(values[k++], i, j);
            }
        }
        assertArrayEquals(values, TensorElements.of(v).toDoubleArray());
        assertEquals(values[4], TensorElements.of(v).getDouble(1, 1));
        if (type.kind() != DType.Kind.FLOAT) {
            TensorElements.of(v).setLong(1, 0, 2);
            assertEquals(1, TensorElements.of(v).getLong(0, 2));
        } else {
            TensorElements.of(v).setFloat(0.5f, 0, 2);
            assertEquals(0.5f, TensorElements.of(v).getFloat(0, 2));
        }
    }

    @Test
    void s4PackedUnderE4TwoElementsAByte() {
        TensorView v = TensorView.of(arena.allocate(4), "s4[2,3]{1,0:E(4)}");
        TensorElements.of(v).copyFrom(new long[] {1, -2, 3, -4, 5, -6});
        assertEquals((byte) 0xe1, v.buffer().segment().get(ValueLayout.JAVA_BYTE, 0));
        assertEquals((byte) 0xc3, v.buffer().segment().get(ValueLayout.JAVA_BYTE, 1));
        assertArrayEquals(new long[] {1, -2, 3, -4, 5, -6}, TensorElements.of(v).toLongArray());
        assertThrows(IllegalArgumentException.class, () -> TensorView.of(arena.allocate(2), "s4[2,3]{1,0:E(4)}"));
        TensorView unpacked = TensorView.of(arena.allocate(6), "s4[2,3]{1,0}");
        TensorElements.of(unpacked).setLong(-2, 0, 1);
        assertEquals((byte) 0x0e, unpacked.buffer().segment().get(ValueLayout.JAVA_BYTE, 1));
    }

    @Test
    void stridedViewWithZeroAndNegativeStrides() {
        MemoryBuffer b = arena.allocate(24);
        TensorView base = TensorView.strided(b, DType.F32, StridedLayout.packed(6));
        TensorElements.of(base).copyFrom(new float[] {10, 11, 12, 13, 14, 15});
        // Reversed rows of a [2,3] with a broadcast middle dim: offset 3 - 3*d0 + d2.
        TensorView v = TensorView.strided(b, DType.F32, StridedLayout.of(new long[] {2, 4, 3}, new long[] {-3, 0, 1}, 3));
        assertEquals(13f, TensorElements.of(v).getFloat(0, 0, 0));
        assertEquals(12f, TensorElements.of(v).getFloat(1, 3, 2));
        assertArrayEquals(new float[] {13, 14, 15, 13, 14, 15, 13, 14, 15, 13, 14, 15,
                10, 11, 12, 10, 11, 12, 10, 11, 12, 10, 11, 12}, TensorElements.of(v).toFloatArray());
        assertEquals("f32[2,4,3] strides [-3, 0, 1] offset 3", v.toString());
        assertEquals(StridedLayout.of(new long[] {2, 4, 3}, new long[] {-3, 0, 1}, 3), v.stridedLayout().orElseThrow());
    }

    @Test
    void toStringShowsXlaTextAndStrides() {
        assertEquals("f32[2,4]{0,1} strides [1, 2]", TensorView.of(arena.allocate(32), "f32[2,4]{0,1}").toString());
        assertEquals("f32[3,5]{1,0:T(2,2)}", TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}").toString());
        assertEquals("f32[2,3] strides [1, 2]",
                TensorView.strided(arena.allocate(24), DType.F32, StridedLayout.of(new long[] {2, 3}, new long[] {1, 2})).toString());
    }

    @Test
    void formOfTiledViewNamesDimensionAndSteps() {
        TensorView v = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
        MapForm f = v.form();
        assertFalse(v.isStrided());
        assertTrue(v.stridedLayout().isEmpty());
        assertTrue(f.whyNotStrided().orElseThrow().contains("dim 0 (size 3) steps by 2 from 0 to 1 but by 10 from 1 to 2"),
                f.whyNotStrided().orElseThrow());
    }

    @Test
    void iterationVisitsIndicesInLogicalOrder() {
        TensorView v = TensorView.of(arena.allocate(24), "s32[2,3]{0,1}");
        TensorElements.of(v).copyFrom(new int[] {0, 1, 2, 3, 4, 5});
        List<String> seen = new ArrayList<>();
        TensorElements.of(v).forEachIndex(i -> seen.add(i[0] + "," + i[1] + "=" + TensorElements.of(v).getLong(i)));
        assertEquals(List.of("0,0=0", "0,1=1", "0,2=2", "1,0=3", "1,1=4", "1,2=5"), seen);
        PrimitiveIterator.OfDouble it = TensorElements.of(v).doubles();
        double sum = 0;
        while (it.hasNext()) {
            sum += it.nextDouble();
        }
        assertEquals(15, sum);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, TensorElements.of(v).toIntArray());
        // Column-major storage: element (0, 1) lives at offset 2.
        assertEquals(1, v.buffer().segment().getAtIndex(ValueLayout.JAVA_INT, 2));
    }

    @Test
    void bulkLengthMismatchNamesCounts() {
        TensorView v = TensorView.of(arena.allocate(24), "f32[2,3]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TensorElements.of(v).copyFrom(new float[5]));
        assertTrue(e.getMessage().contains("array of 5 values"), e.getMessage());
    }

    @Test
    void bulkWritesIntoAViewThatSharesSlotsAreRefused() {
        MemoryBuffer row = arena.allocate(12);
        TensorView broadcast = TensorView.strided(row, DType.F32, StridedLayout.of(new long[] {2, 3}, new long[] {0, 1}));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorElements.of(broadcast).copyFrom(new float[] {1, 2, 3, 4, 5, 6}));
        assertEquals("cannot write 6 values into " + broadcast + ": it reads several indices from one slot (a broadcast,"
                + " or overlapping strides), so all but one value would be lost; write what it was made from instead",
                e.getMessage());
        assertArrayEquals(new float[3], TensorElements.of(TensorView.strided(row, DType.F32, StridedLayout.packed(3))).toFloatArray());
        // Overlapping without a zero stride: index (0, 1) and (1, 0) share offset 1.
        TensorView sliding = TensorView.strided(row, DType.S32, StridedLayout.of(new long[] {2, 2}, new long[] {1, 1}));
        assertThrows(IllegalArgumentException.class, () -> TensorElements.of(sliding).copyFrom(new int[] {1, 2, 3, 4}));
        // One slot per index, however strided: written.
        TensorView gapped = TensorView.strided(row, DType.S32, StridedLayout.of(new long[] {2}, new long[] {2}));
        TensorElements.of(gapped).copyFrom(new int[] {7, 9});
        assertArrayEquals(new int[] {7, 0, 9}, TensorElements.of(TensorView.strided(row, DType.S32, StridedLayout.packed(3))).toIntArray());
    }

    @Test
    void bulkWritesIntoAViewWithoutStridesThatSharesSlotsAreRefusedBeforeAnyWrite() {
        MemoryBuffer row = arena.allocate(12);
        TensorView three = TensorView.strided(row, DType.F32, StridedLayout.packed(3));
        // [0, 1, 2, 0, 1, 2]: a map that is not one-to-one, so no strides describe it.
        TensorView cycled = three.remap(IndexingMap.parse("(d0) -> (d0 mod 3), domain: d0 in [0, 5]"), 6);
        assertFalse(cycled.isStrided());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorElements.of(cycled).copyFrom(new float[] {1, 2, 3, 4, 5, 6}));
        assertEquals("cannot write 6 values into " + cycled + ": index [0] and index [3] share one slot, so all but one"
                + " value would be lost; write what it was made from instead", e.getMessage());
        assertArrayEquals(new float[3], TensorElements.of(three).toFloatArray());
        // One buffer concatenated with itself writes each slot twice as well.
        TensorView twice = TensorView.concatenated(0, List.of(three, three));
        e = assertThrows(IllegalArgumentException.class, () -> TensorElements.of(twice).copyFrom(new int[] {1, 2, 3, 4, 5, 6}));
        assertTrue(e.getMessage().contains("index [0] and index [3] share one slot"), e.getMessage());
        assertArrayEquals(new float[3], TensorElements.of(three).toFloatArray());
        // A pad's fill cannot be written: refused before the elements ahead of it are written.
        TensorView padded = three.padded(Remap.Pad.of(new long[] {3}, new long[] {0}, new long[] {1}, new long[] {0}),
                TensorView.scalar(DType.F32, 0));
        assertThrows(IllegalArgumentException.class, () -> TensorElements.of(padded).copyFrom(new float[] {1, 2, 3, 4}));
        assertArrayEquals(new float[3], TensorElements.of(three).toFloatArray());
        // A map that is one-to-one, without strides, is written.
        TensorView rotated = three.remap(IndexingMap.parse("(d0) -> ((d0 + 1) mod 3), domain: d0 in [0, 2]"), 3);
        assertFalse(rotated.isStrided());
        TensorElements.of(rotated).copyFrom(new float[] {7, 8, 9});
        assertArrayEquals(new float[] {9, 7, 8}, TensorElements.of(three).toFloatArray());
    }

    @Test
    void remapComposesTransposeIntoTheMap() {
        TensorView v = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
        TensorElements.of(v).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
        TensorView t = v.remap(IndexingMap.parse("(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]"), 3, 2);
        assertEquals("(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]", t.indexingMap().toString());
        assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, TensorElements.of(t).toFloatArray());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> v.remap(IndexingMap.parse("(d0, d1) -> (d1 + 1, d0), domain: d0 in [0, 2], d1 in [0, 1]"), 3, 2));
        assertTrue(e.getMessage().contains("result 0 of map") && e.getMessage().contains("ranges over [1, 2], outside dim 0 [0, 2)"),
                e.getMessage());
    }

    @Test
    void paddedViewReadsFillAndRefusesWritesThere() {
        TensorView v = TensorView.of(arena.allocate(8), "f32[2]");
        TensorElements.of(v).copyFrom(new float[] {1, 2});
        TensorView p = v.padded(IndexingMap.parse("(d0) -> (d0 - 1), domain: d0 in [1, 2]"), new long[] {4},
                TensorView.scalar(DType.F32, -1));
        assertArrayEquals(new float[] {-1, 1, 2, -1}, TensorElements.of(p).toFloatArray());
        TensorElements.of(p).setFloat(5f, 2);
        assertEquals(5f, TensorElements.of(v).getFloat(1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TensorElements.of(p).setFloat(0f, 3));
        assertTrue(e.getMessage().contains("index [3] of f32[4] padded is padding"), e.getMessage());
        assertTrue(p.form() instanceof MapForm.General g && g.reason().contains("padded view"));
    }

    @Test
    void integerScalarExampleFromJavadoc() {
        assertEquals(Long.MAX_VALUE, TensorElements.of(TensorView.scalar(DType.S64, Long.MAX_VALUE)).getLong());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TensorView.scalar(DType.U8, 256));
        assertTrue(e.getMessage().contains("256"), e.getMessage());
        assertEquals(3.0f, TensorElements.of(TensorView.scalar(DType.BF16, 3)).getFloat());
        assertEquals(-1.0, TensorElements.of(TensorView.scalar(DType.C64, -1L)).getReal());
    }

    @Test
    void aClosedBufferIsRefusedWhenTheViewIsMade() {
        Allocator arena = Allocators.confined();
        MemoryBuffer b = arena.allocate(96);
        b.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TensorView.of(b, "f32[24]"));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> TensorView.strided(b, DType.F32, StridedLayout.packed(24)));
        arena.close();
    }
}
