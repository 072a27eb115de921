package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ViewCopyTest {
    private final Allocator allocator = Allocators.confined();
    private final CopyEngine engine = CopyEngine.of(1);

    @AfterEach
    void close() {
        allocator.close();
    }

    private TensorView iota(String shape) {
        ArrayShape s = (ArrayShape) XlaShape.parse(shape);
        TensorView v = TensorView.of(allocator.allocate(Math.max(1, s.arraySize())), s);
        float[] values = new float[(int) v.elementCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = i * 0.5f - 3;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private static void assertSameElements(TensorView expected, TensorView actual) {
        assertEquals(expected.dims(), actual.dims());
        TensorElements.of(expected).forEachIndex(i -> assertEquals(TensorElements.of(expected).getDouble(i), TensorElements.of(actual).getDouble(i), 0.0,
                () -> "element " + java.util.Arrays.toString(i)));
    }

    /**
     * A reshape of a transpose is neither strided nor tiled; a review copied one made per call
     * 20,000 times and counted 20,000 hidden classes loaded, 60-360 us a copy. Equal maps now share
     * one emitted evaluator (MapCompilerTest checks the sharing); here, views made per call still
     * copy their own values, whatever evaluator they are given.
     */
    @Test
    void generalViewsMadePerCallCopyTheirOwnValues() {
        TensorView src = iota("f32[3,4]{1,0}");
        TensorView dst = TensorView.of(allocator.allocate(48), "f32[3,4]{1,0}");
        for (int round = 0; round < 50; round++) {
            TensorView reshaped = Ops.reshape(Ops.transpose(src, 1, 0), 3, 4);
            assertTrue(reshaped.stridedLayout().isEmpty(), "a general view, as in the review");
            engine.copy(reshaped, dst);
            // Transpose then reshape: element (r, c) of dst is element k = 4r + c of src.T in C order.
            for (int k = 0; k < 12; k++) {
                assertEquals((k % 3 * 4 + k / 3) * 0.5f - 3, TensorElements.of(dst).getFloat(k / 4, k % 4), "element " + k);
            }
            TensorView other = Ops.reshape(Ops.transpose(src, 1, 0), 2, 6); // a different map each other round
            TensorView dst2 = TensorView.of(allocator.allocate(48), "f32[2,6]{1,0}");
            engine.copy(other, dst2);
            for (int k = 0; k < 12; k++) {
                assertEquals((k % 3 * 4 + k / 3) * 0.5f - 3, TensorElements.of(dst2).getFloat(k / 6, k % 6), "element " + k);
            }
        }
    }

    @Test
    void exampleFromJavadoc() {
        TensorView nchw = iota("f32[1,3,4,4]{3,2,1,0}");
        TensorView nhwc = TensorView.of(allocator.allocate(4 * 48), "f32[1,4,4,3]{3,2,1,0}");
        engine.copy(Ops.transpose(nchw, 0, 2, 3, 1), nhwc);
        assertEquals(TensorElements.of(nchw).getFloat(0, 2, 1, 3), TensorElements.of(nhwc).getFloat(0, 1, 3, 2));
        assertSameElements(Ops.transpose(nchw, 0, 2, 3, 1), nhwc);
    }

    @Test
    void materializeIntoATiledLayoutZeroesPaddingAndKeepsValues() {
        TensorView src = iota("f32[3,5]{1,0}");
        TensorView tiled = engine.materialize(src, (ArrayShape) XlaShape.parse("f32[3,5]{1,0:T(2,2)}"), allocator);
        assertSameElements(src, tiled);
        // Figure 1: element [2,4] sits at slot 20 of the 24-slot buffer; slot 9 is padding.
        assertEquals(TensorElements.of(src).getFloat(2, 4), tiled.buffer().segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, 20));
        assertEquals(0f, tiled.buffer().segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, 9));
    }

    /**
     * A view made from a tiled shape whose map is a whole tiled layout, recovered from the map,
     * gets its padding zeroed by a copy into it. So does one whose map simplifies to strides with
     * a gap after each row ({@code T(1,128)}: rows 128 slots apart), its map being its buffer's
     * whole layout, and a rank-1 strided one ({@code bf16[15]{0:T(4)}}: tail padding past the
     * last element), and {@code bf16[3,9]{1,0:T(8,128)(2,1)}}, whose 3 rows in a tile of 8 read
     * like a tile of 4 rows as well, a layout half the size: the view knows its layout's bytes
     * ({@code ViewMap.Single.layoutBytes}), and packed {@code s4[3,5]{1,0:T(2,8)E(4)}}, strided, its
     * half-byte gaps included. The buffer starts as 0x77 in every byte.
     */
    @Test
    void copyingIntoATiledViewZeroesItsPaddingWhereItsMapSaysWhichItIs() {
        for (String text : List.of("bf16[3,5]{1,0:T(1,128)}", "f32[3,5]{1,0:T(1,8)}", "bf16[15]{0:T(4)}",
                "f16[9]{0:T(4)(1,1)}", "f32[3,5]{1,0:T(2,2)}", "bf16[3,9]{1,0:T(8,128)(2,1)}", "f32[3,5]{0,1:T(4)}",
                "s4[3,5]{1,0:T(2,8)E(4)}", "s8[3,5]{1,0:T(2,4)}")) {
            ArrayShape shape = (ArrayShape) XlaShape.parse(text);
            TensorView src = TensorView.of(allocator.allocate(4 * shape.elementCount()), ArrayShape.of(DType.F32,
                    Extents.toArray(shape.dims())));
            float[] values = new float[(int) shape.elementCount()];
            for (int i = 0; i < values.length; i++) {
                values[i] = i % 13 - 6; // whole and within s4's range, so every type holds them
            }
            TensorElements.of(src).copyFrom(values);
            long bytes = Math.max(shape.physicalByteSize(), shape.arraySize());
            TensorView dst = TensorView.of(allocator.allocate(bytes), shape);
            dst.buffer().segment().fill((byte) 0x77);
            boolean strided = dst.form() instanceof MapForm.Strided;
            assertEquals(List.of("bf16[3,5]{1,0:T(1,128)}", "f32[3,5]{1,0:T(1,8)}", "bf16[15]{0:T(4)}", "f16[9]{0:T(4)(1,1)}",
                    "f32[3,5]{0,1:T(4)}", "s4[3,5]{1,0:T(2,8)E(4)}").contains(text), strided,
                    text + ": strided");
            engine.copy(src, dst);
            assertSameElements(src, dst);
            long bits = shape.requireLayout().elementSizeInBits() != 0 ? shape.requireLayout().elementSizeInBits()
                    : 8L * shape.dtype().byteWidth();
            byte[] memory = dst.buffer().segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            for (long slot = 0; slot * bits < 8 * bytes; slot++) {
                boolean element = slot < shape.physicalElementCount() && shape.logicalIndex(slot).isPresent();
                if (element) {
                    continue;
                }
                for (long bit = slot * bits; bit < (slot + 1) * bits; bit++) {
                    long at = bit;
                    assertEquals(0, (memory[(int) (at / 8)] >> (at % 8)) & 1,
                            () -> text + ": padding slot " + at / bits + " holds " + memory[(int) (at / 8)]);
                }
            }
        }
    }

    private TensorView values(String shape, float... values) {
        TensorView v = TensorView.of(allocator.allocate(4L * values.length), shape);
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    /** NumPy's a[::-1] = a, a[1:] = a[:-1]: the source is read whole first. Disjoint halves copy directly. */
    @Test
    void viewsOfOneBufferCopyAsNumPyDoes() {
        TensorView v = values("f32[6]", 0, 1, 2, 3, 4, 5);
        engine.copy(Ops.reverse(v, 0), v);
        assertArrayEquals(new float[] {5, 4, 3, 2, 1, 0}, TensorElements.of(v).toFloatArray());
        engine.copy(Ops.slice(v, new long[] {0}, new long[] {5}, new long[] {1}),
                Ops.slice(v, new long[] {1}, new long[] {6}, new long[] {1}));
        assertArrayEquals(new float[] {5, 5, 4, 3, 2, 1}, TensorElements.of(v).toFloatArray());
        TensorView image = values("f32[4,3]", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        engine.copy(Ops.slice(image, new long[] {0, 0}, new long[] {2, 3}, new long[] {1, 1}),
                Ops.slice(image, new long[] {2, 0}, new long[] {4, 3}, new long[] {1, 1}));
        assertArrayEquals(new float[] {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}, TensorElements.of(image).toFloatArray());
        // Even elements into odd ones: interleaved, so through the temporary; a concatenation too.
        TensorView eight = values("f32[8]", 0, 1, 2, 3, 4, 5, 6, 7);
        engine.copy(Ops.slice(eight, new long[] {0}, new long[] {8}, new long[] {2}),
                Ops.slice(eight, new long[] {1}, new long[] {8}, new long[] {2}));
        assertArrayEquals(new float[] {0, 0, 2, 2, 4, 4, 6, 6}, TensorElements.of(eight).toFloatArray());
        engine.copy(Ops.slice(eight, new long[] {0}, new long[] {4}, new long[] {1}), Ops.concatenate(0, List.of(
                Ops.slice(eight, new long[] {4}, new long[] {6}, new long[] {1}),
                Ops.slice(eight, new long[] {6}, new long[] {8}, new long[] {1}))));
        assertArrayEquals(new float[] {0, 0, 2, 2, 0, 0, 2, 2}, TensorElements.of(eight).toFloatArray());
    }

    @Test
    void aDestinationWritingOneSlotTwiceIsRefusedWhateverItsForm() {
        TensorView row = values("f32[3]", 1, 2, 3);
        TensorView six = values("f32[6]", 1, 2, 3, 4, 5, 6);
        TensorView spread = Ops.reshape(Ops.transpose(Ops.broadcast(row, new long[] {2, 3}, 1), 1, 0), 6);
        var e = assertThrows(IllegalArgumentException.class, () -> engine.copy(six, spread));
        assertTrue(e.getMessage().contains("writes index [0] and index [1] to one slot"), e.getMessage());
        TensorView twice = Ops.concatenate(0, List.of(row, row));
        e = assertThrows(IllegalArgumentException.class, () -> engine.copy(six, twice));
        assertTrue(e.getMessage().contains("writes index [0] and index [3] to one slot"), e.getMessage());
        TensorView folded = row.remap(dev.tensorbuf.views.indexing.IndexingMap.parse("(d0) -> (d0 mod 3), domain: d0 in [0, 5]"), 6);
        e = assertThrows(IllegalArgumentException.class, () -> engine.copy(six, folded));
        assertTrue(e.getMessage().contains("writes index [0] and index [3] to one slot"), e.getMessage());
        assertArrayEquals(new float[] {1, 2, 3}, TensorElements.of(row).toFloatArray(), "refused before anything is written");
        // Strides that do not nest, at the Access level.
        Access rows = Access.strided(allocator.allocate(16).segment(), DType.F32,
                StridedLayout.of(new long[] {3, 2}, new long[] {1, 1}));
        Access src = Access.strided(allocator.allocate(24).segment(), DType.F32, StridedLayout.packed(3, 2));
        e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(engine, src, rows));
        assertTrue(e.getMessage().contains("destination f32[3, 2] writes index [0, 1] and index [1, 0] to one slot"
                + " (element offset 1)"), e.getMessage());
        // A concatenation of two disjoint halves of one buffer is a fine destination.
        TensorView both = values("f32[6]", 0, 0, 0, 0, 0, 0);
        engine.copy(six, Ops.concatenate(0, List.of(Ops.slice(both, new long[] {3}, new long[] {6}, new long[] {1}),
                Ops.slice(both, new long[] {0}, new long[] {3}, new long[] {1}))));
        assertArrayEquals(new float[] {4, 5, 6, 1, 2, 3}, TensorElements.of(both).toFloatArray());
    }

    /** A mapped side is checked when planning, as strided ones are: nothing is written, and the error names the index. */
    @Test
    void aMappedAccessOutsideItsSegmentIsRefusedBeforeAnythingIsWritten() {
        var dstMemory = allocator.allocate(24).segment();
        Access src = Access.strided(allocator.allocate(24).segment(), DType.F32, StridedLayout.packed(2, 3));
        src.segment().fill((byte) 1);
        Access dst = Access.mapped(dstMemory, DType.F32, dev.tensorbuf.views.indexing.IndexingMap.parse(
                "(d0, d1) -> (d1 * 4 + d0), domain: d0 in [0, 1], d1 in [0, 2]"));
        var e = assertThrows(IndexOutOfBoundsException.class, () -> AccessCopies.copy(engine, src, dst));
        assertTrue(e.getMessage().contains("destination f32[2, 3]: index [0, 2] reaches element offset 8, beyond the buffer"
                + " of 6 elements (24 bytes)"), e.getMessage());
        for (long b = 0; b < 24; b++) {
            assertEquals(0, dstMemory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, b));
        }
    }

    /** Image staging between views: one planned copy, and through temporaries for views over several pieces. */
    @Test
    void aPerChannelScaleAndBiasRunsBetweenViews() {
        TensorView pixels = TensorView.of(allocator.allocate(2 * 4 * 3), "u8[1,2,4,3]{3,2,1,0}"); // NHWC
        int[] bytes = new int[24];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (i * 37) % 256;
        }
        TensorElements.of(pixels).copyFrom(bytes);
        List<Float> scale = List.of(0.5f, 2f, -1f);
        List<Float> bias = List.of(1f, 0f, 3f);
        ChannelAffine affine = new ChannelAffine(1, scale, bias);
        TensorView nchw = Ops.transpose(pixels, 0, 3, 1, 2);
        TensorView planned = TensorView.of(allocator.allocate(96), "f32[1,3,2,4]{3,2,1,0}");
        engine.copy(nchw, planned, affine);
        TensorView joined = TensorView.concatenated(2, List.of(
                Ops.slice(nchw, new long[] {0, 0, 0, 0}, new long[] {1, 3, 1, 4}, new long[] {1, 1, 1, 1}),
                Ops.slice(nchw, new long[] {0, 0, 1, 0}, new long[] {1, 3, 2, 4}, new long[] {1, 1, 1, 1})));
        TensorView halves = values("f32[1,3,2,4]", new float[24]);
        TensorView intoPieces = TensorView.concatenated(2, List.of(
                Ops.slice(halves, new long[] {0, 0, 0, 0}, new long[] {1, 3, 1, 4}, new long[] {1, 1, 1, 1}),
                Ops.slice(halves, new long[] {0, 0, 1, 0}, new long[] {1, 3, 2, 4}, new long[] {1, 1, 1, 1})));
        TensorView fromPieces = TensorView.of(allocator.allocate(96), "f32[1,3,2,4]{3,2,1,0}");
        engine.copy(joined, fromPieces, affine);
        engine.copy(joined, intoPieces, affine);
        TensorElements.of(nchw).forEachIndex(i -> {
            int c = (int) i[1];
            float expected = Math.fma((float) TensorElements.of(nchw).getLong(i), scale.get(c), bias.get(c));
            assertEquals(expected, TensorElements.of(planned).getFloat(i), () -> "element " + java.util.Arrays.toString(i));
            assertEquals(expected, TensorElements.of(fromPieces).getFloat(i));
            assertEquals(expected, TensorElements.of(halves).getFloat(i));
        });
        assertEquals(ArrayShape.parse("f32[1,3,2,4]{3,2,1,0}"), planned.shape());
        assertEquals(2048, ArrayShape.parse("bf16[8,128]{1,0:T(8,128)(2,1)}").arraySize()); // ArrayShape.parse's example
        IllegalArgumentException tuple = assertThrows(IllegalArgumentException.class, () -> ArrayShape.parse("(f32[2], s32[])"));
        assertEquals("an array shape is needed, not the tuple (f32[2]{0}, s32[])", tuple.getMessage());
    }

    /**
     * A destination closed while a copy writes it keeps its memory until the copy ends: its
     * deleter (a pool's reuse, in real use) sees every element written, never a copy still going.
     * Without the copy's hold, the close in the middle ran the deleter with most of 16M elements
     * still to come.
     */
    @Test
    void aBufferClosedDuringACopyKeepsItsMemoryUntilTheCopyEnds() throws Exception {
        int n = 16 << 20;
        try (java.lang.foreign.Arena memory = java.lang.foreign.Arena.ofShared()) {
            TensorView src = TensorView.of(dev.tensorbuf.memory.MemoryBuffer.foreign(memory.allocate(4L * n, 64),
                    dev.tensorbuf.memory.MemorySpace.HOST, "source", () -> { }), "f32[" + n + "]");
            var bytes = memory.allocate(4L * n, 64);
            bytes.fill((byte) 0x7f);
            long[] writtenAtDelete = {-1};
            dev.tensorbuf.memory.MemoryBuffer out = dev.tensorbuf.memory.MemoryBuffer.foreign(bytes, dev.tensorbuf.memory.MemorySpace.HOST,
                    "test", () -> {
                        // The last element of each thread's half first: a count alone could trail the writers.
                        boolean ends = bytes.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, n - 1) == 0
                                && bytes.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, n / 2 - 1) == 0;
                        long zeros = 0;
                        for (long i = 0; i < n; i++) {
                            zeros += bytes.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, i) == 0 ? 1 : 0;
                        }
                        writtenAtDelete[0] = ends ? zeros : -zeros;
                    });
            TensorView dst = TensorView.of(out, "f32[" + n + "]");
            Thread copier = Thread.ofPlatform().start(() -> CopyEngine.of(2).copy(src, dst));
            // Close once the copy writes, so the close lands while it runs (or just after).
            while (bytes.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 0) != 0 && copier.isAlive()) {
                Thread.onSpinWait();
            }
            out.close();
            copier.join();
            assertEquals(n, writtenAtDelete[0], "elements written when the memory was given back");
        }
    }

    /**
     * A hold cannot keep an allocator open; a copy whose allocator closes under it names the side
     * that lost its memory. Whether the close lands mid-copy is up to the scheduler (and FFM
     * refuses a close that meets a bulk copy), so up to 20 trials run until one does.
     */
    @Test
    void aCopyWhoseAllocatorClosesNamesTheSide() throws Exception {
        int n = 16 << 20;
        try (java.lang.foreign.Arena memory = java.lang.foreign.Arena.ofShared()) {
            TensorView src = TensorView.of(dev.tensorbuf.memory.MemoryBuffer.foreign(memory.allocate(4L * n, 64),
                    dev.tensorbuf.memory.MemorySpace.HOST, "source", () -> { }), "f32[" + n + "]");
            List<String> missed = new java.util.ArrayList<>();
            for (int trial = 0; trial < 20; trial++) {
                Throwable failure = closeTheDestinationMidCopy(src, n);
                if (failure != null) {
                    assertTrue(failure.getMessage().contains("the destination f32[16777216]") && failure.getMessage()
                            .contains("lost its memory during the copy"), failure.getMessage());
                    return;
                }
                missed.add("trial " + trial);
            }
            org.junit.jupiter.api.Assumptions.abort("no close landed inside the copy in " + missed.size() + " trials");
        }
    }

    /** {@return what the copy threw, or null if the close came after it or met a bulk copy} */
    private static Throwable closeTheDestinationMidCopy(TensorView src, int n) throws InterruptedException {
        dev.tensorbuf.memory.Allocator shared = dev.tensorbuf.memory.Allocators.shared();
        try {
            dev.tensorbuf.memory.MemoryBuffer out = shared.allocate(4L * n);
            out.segment().fill((byte) 0x7f);
            TensorView dst = TensorView.of(out, "f32[" + n + "]");
            Throwable[] failure = {null};
            Thread copier = Thread.ofPlatform().start(() -> {
                try {
                    CopyEngine.of(2).copy(src, dst);
                } catch (RuntimeException e) {
                    failure[0] = e;
                }
            });
            var bytes = out.segment();
            while (bytes.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 0) != 0 && copier.isAlive()) {
                Thread.onSpinWait();
            }
            boolean closed;
            try {
                shared.close();
                closed = true;
            } catch (IllegalStateException busy) {
                closed = false; // the arena was inside a bulk copy: FFM refuses that close
            }
            copier.join();
            return closed ? failure[0] : null;
        } finally {
            try {
                shared.close();
            } catch (IllegalStateException ignored) {
                // closed above, or still busy: the arena goes with the JVM
            }
        }
    }

    /** Raw segments have no buffer to hold or name, but the plan still knows which side it is. */
    @Test
    void aRawCopyWhoseArenaIsClosedNamesTheSide() {
        java.lang.foreign.Arena open = java.lang.foreign.Arena.ofConfined();
        java.lang.foreign.Arena closing = java.lang.foreign.Arena.ofConfined();
        try (open) {
            Access src = Access.strided(open.allocate(4 * 6), DType.F32, StridedLayout.packed(2, 3));
            Access dst = Access.strided(closing.allocate(2 * 6), DType.BF16, StridedLayout.packed(2, 3));
            closing.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> AccessCopies.copy(CopyEngine.of(1), src, dst));
            assertEquals("the destination of the copy (bf16[2,3], 12 bytes) lost its memory: its arena is closed",
                    e.getMessage());
            IllegalStateException back = assertThrows(IllegalStateException.class, () -> AccessCopies.copy(CopyEngine.of(1), dst, src));
            assertTrue(back.getMessage().startsWith("the source of the copy (bf16[2,3]"), back.getMessage());
        }
    }

    @Test
    void paddedAndConcatenatedViewsCopyElementByElement() {
        TensorView a = iota("f32[2,3]{1,0}");
        TensorView b = iota("f32[1,3]{1,0}");
        TensorView joined = Ops.concatenate(0, List.of(a, b));
        TensorView padded = Ops.pad(joined, new long[] {1, 0}, new long[] {0, 2}, new long[] {0, 0}, 7.0);
        TensorView out = engine.materialize(padded, DType.F32, StridedLayout.packed(4, 5), allocator);
        assertSameElements(padded, out);
        assertEquals(7.0f, TensorElements.of(out).getFloat(0, 0));
        assertEquals(TensorElements.of(b).getFloat(0, 2), TensorElements.of(out).getFloat(3, 2));
    }

    @Test
    void elementByElementCopiesConvertAndRefuseAsThePlannedOnesDo() {
        // A one-part concatenation is copied element by element; its values must come out as a planned copy's.
        TensorView f = iota("f32[2,3]{1,0}"); // -3, -2.5, -2, -1.5, -1, -0.5
        TensorView planned = TensorView.of(allocator.allocate(24), "s32[2,3]{1,0}");
        TensorView elements = TensorView.of(allocator.allocate(24), "s32[2,3]{1,0}");
        engine.copy(f, planned);
        engine.copy(TensorView.concatenated(0, List.of(f)), elements);
        assertSameElements(planned, elements);
        assertEquals(-2, TensorElements.of(elements).getLong(0, 1), "toward zero, as XLA's convert");
        TensorView pred = TensorView.of(allocator.allocate(6), "pred[2,3]{1,0}");
        engine.copy(TensorView.concatenated(0, List.of(f)), pred);
        assertEquals(1, TensorElements.of(pred).getLong(1, 2));
        // In place, element by element, would read what it already wrote: it goes through a temporary.
        TensorView m = iota("f32[3,3]{1,0}");
        float[] before = TensorElements.of(m).toFloatArray();
        engine.copy(TensorView.concatenated(0, List.of(Ops.transpose(m, 1, 0))), m);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                assertEquals(before[3 * j + i], TensorElements.of(m).getFloat(i, j));
            }
        }
        IllegalArgumentException e;
        TensorView one = TensorView.of(allocator.allocate(12), "f32[3]{0}");
        TensorView broadcast = Ops.broadcast(one, new long[] {2, 3}, 1);
        e = assertThrows(IllegalArgumentException.class, () -> engine.copy(TensorView.concatenated(0, List.of(f)), broadcast));
        assertTrue(e.getMessage().contains("a destination may not overlap itself"), e.getMessage());
    }

    @Test
    void emptyArraysCopyAsNothingThroughEveryEntryPoint() {
        java.lang.foreign.MemorySegment bytes = java.lang.foreign.Arena.ofAuto().allocate(8);
        Access src = Access.strided(bytes, DType.F32, StridedLayout.packed(2, 0));
        Access dst = Access.strided(java.lang.foreign.Arena.ofAuto().allocate(8), DType.F32, StridedLayout.of(new long[] {2, 0}, new long[] {1, 2}));
        AccessCopies.copy(engine, src, dst);
        assertEquals(0, AccessCopies.steps(AccessCopies.plan(src, dst, null)).size());
        Access tiled = Access.tiled(java.lang.foreign.Arena.ofAuto().allocate(8), (ArrayShape) XlaShape.parse("f32[2,0]{1,0:T(2,2)}"));
        AccessCopies.copy(engine, src, tiled);
    }

    @Test
    void materializeGivesNestedTilingsEverySlotTheyAddress() {
        // T(2)(4): the second tile pads each 2-element tile to 4 slots, beyond XLA's ArraySize of 4 floats.
        TensorView src = iota("f32[4]{0}");
        ArrayShape nested = (ArrayShape) XlaShape.parse("f32[4]{0:T(2)(4)}");
        assertEquals(16, nested.arraySize());
        TensorView out = engine.materialize(src, nested, allocator);
        assertSameElements(src, out);
        assertEquals(32, out.buffer().byteSize());
    }

    @Test
    void convertsTypesThroughTheEngine() {
        TensorView src = iota("f32[4,6]{1,0}");
        TensorView bf16 = engine.materialize(src, DType.BF16, StridedLayout.of(TensorFormat.HW, 4, 6), allocator);
        assertSameElements(src, bf16);
    }

    @Test
    void refusesMismatchedDimsAndReadOnlyDestinations() {
        TensorView src = iota("f32[2,3]{1,0}");
        TensorView other = iota("f32[3,2]{1,0}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> engine.copy(src, other));
        assertTrue(e.getMessage().contains("dims [2, 3] differ from [3, 2]"), e.getMessage());
        TensorView readOnly = TensorView.of(allocator.allocate(24).asReadOnly(), "f32[2,3]{1,0}");
        assertThrows(IllegalArgumentException.class, () -> engine.copy(src, readOnly));
    }

    /** A pad's fill and a read-only piece are refused before the first element is written, not after the last writable one. */
    @Test
    void unwritableIndicesOfASeveralPieceDestinationAreRefusedBeforeAnyWrite() {
        TensorView v = TensorView.of(allocator.allocate(16), "f32[4]{0}");
        IllegalArgumentException pad = assertThrows(IllegalArgumentException.class, () -> engine.copy(iota("f32[6]{0}"),
                Ops.pad(v, new long[] {0}, new long[] {2}, new long[] {0}, 0.0)));
        assertTrue(pad.getMessage().startsWith("index [4] of "), pad.getMessage());
        assertTrue(pad.getMessage().endsWith(" is padding: it reads the fill value and cannot be written"), pad.getMessage());
        assertArrayEquals(new float[4], TensorElements.of(v).toFloatArray(), "the unpadded part is as it was");

        TensorView first = TensorView.of(allocator.allocate(16), "f32[4]{0}");
        TensorView readOnly = TensorView.of(allocator.allocate(16).asReadOnly(), "f32[4]{0}");
        IllegalArgumentException ro = assertThrows(IllegalArgumentException.class,
                () -> engine.copy(iota("f32[8]{0}"), Ops.concatenate(0, List.of(first, readOnly))));
        assertTrue(ro.getMessage().startsWith("cannot write index [4] of "), ro.getMessage());
        assertTrue(ro.getMessage().endsWith(": its memory is read-only (a read-only buffer, a mapped file or a constant)"),
                ro.getMessage());
        assertArrayEquals(new float[4], TensorElements.of(first).toFloatArray(), "the writable piece is as it was");
    }

    /**
     * A pooled buffer comes back with its last user's bytes. Whether materialize fills it first
     * or the copy writes every byte, none of them survive: tile padding, tail padding L(n) and the
     * spare nibble of packed s4 read as zero.
     */
    @Test
    void materializeIntoAReusedPoolBufferLeavesNoOldByte() {
        try (var pool = dev.tensorbuf.memory.PooledAllocator.builder().name("reused").build()) {
            for (String text : List.of("f32[3,5]{1,0:T(2,2)}", "f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)L(7)}",
                    "f32[3,5]{1,0:L(7)}", "s4[5]{0:E(4)}", "bf16[3,5]{1,0:T(1,128)}")) {
                ArrayShape shape = ArrayShape.parse(text);
                long bytes = Math.max(shape.physicalByteSize(), shape.arraySize());
                for (int round = 0; round < 2; round++) {
                    var old = pool.allocate(bytes);
                    old.segment().fill((byte) 0x77);
                    old.close();
                    TensorView src = iota(shape.rank() == 2 ? "f32[3,5]{1,0}" : "f32[5]{0}");
                    TensorView made = engine.materialize(src, shape, pool);
                    byte[] all = made.buffer().segment().asSlice(0, bytes).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                    TensorView expected = engine.materialize(src, shape, allocator);
                    byte[] fresh = expected.buffer().segment().asSlice(0, bytes).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                    assertArrayEquals(fresh, all, text + ": every byte as in fresh zeroed memory");
                    made.buffer().close();
                }
            }
        }
    }

    @Test
    void aFailedMaterializeFreesItsBuffer() {
        dev.tensorbuf.memory.PooledAllocator pool = dev.tensorbuf.memory.PooledAllocator.builder().name("t").build();
        TensorView src = iota("f32[2,2]{1,0}");
        TensorElements.of(src).setFloat(Float.NaN, 1, 1);
        assertThrows(IllegalArgumentException.class,
                () -> engine.materialize(src, DType.S32, StridedLayout.packed(2, 2), pool));
        assertEquals(0, pool.stats().liveBytes(), pool.stats().toString());
        pool.close();
    }

    @Test
    void stridedMaterializeHoldsUnpackedSubByteElements() {
        TensorView src = iota("f32[3,5]{1,0}");
        TensorView s8 = engine.materialize(src, DType.S8, StridedLayout.packed(3, 5), allocator);
        TensorView s4 = engine.materialize(s8, DType.S4, StridedLayout.packed(3, 5), allocator);
        assertEquals(15, s4.buffer().byteSize());
        assertSameElements(s8, s4);
    }
}
