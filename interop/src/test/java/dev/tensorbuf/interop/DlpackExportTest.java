package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.DlpackStructs;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.PrimitiveIterator;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Exports views to a C consumer, which reads them through the struct and calls our deleter. */
class DlpackExportTest {
    private static final int NDIM = 0, CODE = 1, BITS = 2, LANES = 3, DEVICE = 4, DEVICE_ID = 5, BYTE_OFFSET = 6,
            DATA_NULL = 7, STRIDES_NULL = 8, SHAPE = 9, STRIDES = 13, MAJOR = 17, MINOR = 18, FLAGS = 19;

    private NativePeer peer;
    private Allocator arena;
    private int pendingBefore;

    @BeforeEach
    void setUp() {
        peer = NativePeer.get();
        arena = Allocators.shared();
        pendingBefore = Dlpack.pendingExports();
    }

    @AfterEach
    void tearDown() {
        arena.close();
        assertEquals(pendingBefore, Dlpack.pendingExports(), "every export was released");
    }

    /** The C peer's checksum: sum over row-major k of (k + 1) * element k. */
    static double checksum(TensorView view) {
        double sum = 0;
        long k = 1;
        for (PrimitiveIterator.OfDouble it = TensorElements.of(view).doubles(); it.hasNext(); k++) {
            sum += k * it.nextDouble();
        }
        return sum;
    }

    private TensorView f32(long rows, long cols) {
        TensorView v = TensorView.of(arena.allocate(4 * rows * cols), "f32[" + rows + "," + cols + "]{1,0}");
        float[] values = new float[(int) (rows * cols)];
        for (int i = 0; i < values.length; i++) {
            values[i] = i + 0.5f;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    @Test
    void transposedViewExportsInPlaceWithItsStrides() {
        TensorView t = Ops.transpose(f32(2, 3), 1, 0);
        AtomicInteger released = new AtomicInteger();
        MemorySegment m = Dlpack.exportVersioned(t, Dlpack.ExportOptions.defaults().withOnRelease(released::incrementAndGet));
        long[] d = peer.describeVersioned(m);
        assertEquals(2, d[NDIM]);
        assertEquals(2, d[CODE]);
        assertEquals(32, d[BITS]);
        assertEquals(1, d[LANES]);
        assertEquals(1, d[DEVICE]);
        assertEquals(0, d[DEVICE_ID]);
        assertEquals(0, d[BYTE_OFFSET]);
        assertEquals(0, d[STRIDES_NULL]);
        assertArrayEquals(new long[] {3, 2, 1, 3}, new long[] {d[SHAPE], d[SHAPE + 1], d[STRIDES], d[STRIDES + 1]});
        assertEquals(1, d[MAJOR]);
        assertEquals(3, d[MINOR]);
        assertEquals(0, d[FLAGS], "neither read-only nor copied");
        assertEquals(checksum(t), peer.checksumVersioned(m));
        assertEquals(pendingBefore + 1, Dlpack.pendingExports());
        peer.deleteVersioned(m);
        assertEquals(1, released.get());
    }

    @Test
    void sliceExportsItsOffsetAsByteOffset() {
        TensorView s = Ops.slice(f32(4, 5), new long[] {1, 2}, new long[] {3, 5}, new long[] {1, 1});
        MemorySegment m = Dlpack.exportVersioned(s);
        long[] d = peer.describeVersioned(m);
        assertEquals(4 * 7, d[BYTE_OFFSET]);
        assertArrayEquals(new long[] {5, 1}, new long[] {d[STRIDES], d[STRIDES + 1]});
        assertEquals(checksum(s), peer.checksumVersioned(m));
        peer.deleteVersioned(m);
    }

    @Test
    void consumerWritesLandInOurBufferWithoutACopy() {
        TensorView v = f32(2, 3);
        MemorySegment m = Dlpack.exportVersioned(v);
        assertEquals(0, peer.writeF32Versioned(m));
        assertArrayEquals(new float[] {0, 10, 20, 30, 40, 50}, TensorElements.of(v).toFloatArray());
        peer.deleteVersioned(m);
    }

    @Test
    void readOnlyBufferSetsTheReadOnlyFlag() {
        TensorView v = f32(2, 3);
        TensorView ro = TensorView.strided(v.buffer().asReadOnly(), DType.F32, StridedLayout.packed(2, 3));
        MemorySegment m = Dlpack.exportVersioned(ro);
        assertEquals(DlpackStructs.FLAG_READ_ONLY, peer.describeVersioned(m)[FLAGS]);
        assertEquals(-1, peer.writeF32Versioned(m), "the consumer honours READ_ONLY");
        peer.deleteVersioned(m);
        MemorySegment asked = Dlpack.exportVersioned(v, Dlpack.ExportOptions.defaults().withReadOnly(true));
        assertEquals(DlpackStructs.FLAG_READ_ONLY, peer.describeVersioned(asked)[FLAGS]);
        peer.deleteVersioned(asked);
    }

    @Test
    void tiledViewIsCopiedWithIsCopiedSet() {
        TensorView tiled = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
        float[] values = new float[15];
        for (int i = 0; i < 15; i++) {
            values[i] = i * 1.5f;
        }
        TensorElements.of(tiled).copyFrom(values);
        MemorySegment m = Dlpack.exportVersioned(tiled);
        long[] d = peer.describeVersioned(m);
        assertEquals(DlpackStructs.FLAG_IS_COPIED, d[FLAGS]);
        assertArrayEquals(new long[] {5, 1}, new long[] {d[STRIDES], d[STRIDES + 1]});
        assertEquals(checksum(tiled), peer.checksumVersioned(m));
        peer.deleteVersioned(m);
    }

    @Test
    void reversedViewIsCopiedWithNonNegativeStridesWhenAsked() {
        // torch.from_dlpack aborts the process on a negative stride; this option is what keeps it safe.
        TensorView reversed = Ops.reverse(f32(2, 3), 1);
        MemorySegment inPlace = Dlpack.exportVersioned(reversed);
        long[] d = peer.describeVersioned(inPlace);
        assertEquals(0, d[FLAGS], "by default described in place, as NumPy does");
        assertArrayEquals(new long[] {3, -1}, new long[] {d[STRIDES], d[STRIDES + 1]});
        peer.deleteVersioned(inPlace);

        Dlpack.ExportOptions positive = Dlpack.ExportOptions.defaults().withNonNegativeStrides(true);
        MemorySegment m = Dlpack.exportVersioned(reversed, positive);
        long[] c = peer.describeVersioned(m);
        assertEquals(DlpackStructs.FLAG_IS_COPIED, c[FLAGS]);
        assertEquals(0, c[BYTE_OFFSET]);
        assertArrayEquals(new long[] {2, 3, 3, 1}, new long[] {c[SHAPE], c[SHAPE + 1], c[STRIDES], c[STRIDES + 1]});
        assertEquals(checksum(reversed), peer.checksumVersioned(m));
        peer.deleteVersioned(m);

        try (Dlpack.Tensor back = Dlpack.importVersioned(Dlpack.exportVersioned(reversed,
                positive.withCopyIfNotStrided(false)))) {
            assertArrayEquals(new float[] {2.5f, 1.5f, 0.5f, 5.5f, 4.5f, 3.5f}, TensorElements.of(back.view()).toFloatArray(),
                    "copied even when copyIfNotStrided is false: the option asks for this copy");
        }
        TensorView upsideDown = Ops.reverse(f32(2, 3), 0);
        MemorySegment legacy = Dlpack.exportLegacy(upsideDown, positive);
        long[] l = peer.describeLegacy(legacy);
        assertArrayEquals(new long[] {3, 1}, new long[] {l[STRIDES], l[STRIDES + 1]});
        assertEquals(checksum(upsideDown), peer.checksumLegacy(legacy));
        peer.deleteLegacy(legacy);

        MemorySegment forward = Dlpack.exportVersioned(Ops.transpose(f32(2, 3), 1, 0), positive);
        assertEquals(0, peer.describeVersioned(forward)[FLAGS], "no negative stride: still in place");
        peer.deleteVersioned(forward);
    }

    @Test
    void tiledViewIsRefusedWhenCopiesAreNot() {
        TensorView tiled = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Dlpack.exportVersioned(tiled, Dlpack.ExportOptions.defaults().withCopyIfNotStrided(false)));
        assertTrue(e.getMessage().contains("needs a copy, which copyIfNotStrided=false refuses: DLPack describes strided"
                + " views only"), e.getMessage());
    }

    @Test
    void rankPastWhatAnImportAcceptsIsRefusedAtExport() {
        // Review: rank 65 exported, then our own import refused it ("ndim 65: expected 0 to 64").
        long[] ones = new long[65];
        Arrays.fill(ones, 1);
        ones[64] = 2;
        TensorView deep = TensorView.strided(arena.allocate(8), DType.F32, StridedLayout.packed(ones));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dlpack.exportVersioned(deep));
        assertTrue(e.getMessage().endsWith(": rank 65 is more than the 64 dimensions a DLPack import accepts, ours"
                + " included"), e.getMessage());
        long[] sixtyFour = Arrays.copyOf(ones, 64);
        TensorView deepest = TensorView.strided(arena.allocate(8), DType.F32, StridedLayout.packed(sixtyFour));
        try (Dlpack.Tensor back = Dlpack.importVersioned(Dlpack.exportVersioned(deepest))) {
            assertEquals(64, back.view().rank());
        }
    }

    @Test
    void paddedViewIsCopiedWithItsFillValues() {
        TensorView padded = Ops.pad(f32(2, 2), new long[] {1, 0}, new long[] {0, 1}, new long[] {0, 0}, -1);
        MemorySegment m = Dlpack.exportLegacy(padded);
        assertEquals(checksum(padded), peer.checksumLegacy(m));
        assertEquals(-1.0, TensorElements.of(padded).getFloat(0, 0));
        peer.deleteLegacy(m);
    }

    @Test
    void paddedC128ViewIsCopiedWithAllSixteenBytesOfEachElement() {
        // c128 elements do not fit the 64-bit element path: the copy goes by real and imaginary parts.
        TensorView z = TensorView.of(arena.allocate(32), "c128[2]{0}");
        TensorElements.of(z).setComplex(1.5, -2, 0);
        TensorElements.of(z).setComplex(1e300, Double.MIN_VALUE, 1);
        TensorView padded = Ops.pad(z, new long[] {1}, new long[] {0}, new long[] {0}, 4);
        try (Dlpack.Tensor back = Dlpack.importVersioned(Dlpack.exportVersioned(padded))) {
            TensorView v = back.view();
            assertEquals(List.of(4.0, 0.0, 1.5, -2.0, 1e300, Double.MIN_VALUE),
                    List.of(TensorElements.of(v).getReal(0), TensorElements.of(v).getImag(0), TensorElements.of(v).getReal(1), TensorElements.of(v).getImag(1), TensorElements.of(v).getReal(2), TensorElements.of(v).getImag(2)));
        }
    }

    @Test
    void packedInt4ExportsPackedAndUnpackedInt4SaysPadded() {
        TensorView packed = TensorView.of(arena.allocate(4), "s4[6]{0:E(4)}");
        TensorElements.of(packed).copyFrom(new long[] {1, -2, 3, -4, 7, -8});
        MemorySegment m = Dlpack.exportVersioned(packed);
        long[] d = peer.describeVersioned(m);
        assertEquals(4, d[BITS]);
        assertEquals(0, d[FLAGS]);
        assertEquals(checksum(packed), peer.checksumVersioned(m));
        peer.deleteVersioned(m);

        TensorView unpacked = TensorView.strided(arena.allocate(6), DType.S4, StridedLayout.packed(6));
        TensorElements.of(unpacked).copyFrom(new long[] {1, -2, 3, -4, 7, -8});
        MemorySegment padded = Dlpack.exportVersioned(unpacked);
        assertEquals(DlpackStructs.FLAG_IS_SUBBYTE_TYPE_PADDED, peer.describeVersioned(padded)[FLAGS]);
        assertEquals(checksum(unpacked), peer.checksumVersioned(padded));
        peer.deleteVersioned(padded);

        MemorySegment legacy = Dlpack.exportLegacy(unpacked);
        assertEquals(checksum(unpacked), peer.checksumLegacy(legacy), "the legacy struct gets a packed copy");
        peer.deleteLegacy(legacy);
    }

    @Test
    void int4SliceStartingInsideAByteIsCopied() {
        TensorView packed = TensorView.of(arena.allocate(4), "s4[6]{0:E(4)}");
        TensorElements.of(packed).copyFrom(new long[] {1, -2, 3, -4, 7, -8});
        TensorView odd = Ops.slice(packed, new long[] {1}, new long[] {6}, new long[] {1});
        MemorySegment m = Dlpack.exportVersioned(odd);
        assertEquals(DlpackStructs.FLAG_IS_COPIED, peer.describeVersioned(m)[FLAGS]);
        assertEquals(checksum(odd), peer.checksumVersioned(m));
        peer.deleteVersioned(m);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Dlpack.exportVersioned(odd, Dlpack.ExportOptions.defaults().withCopyIfNotStrided(false)));
        assertTrue(e.getMessage().contains("its first element starts at bit 4 of a byte"), e.getMessage());
    }

    @Test
    void deleterCalledFromAThreadTheJvmNeverSawReleasesOnce() {
        AtomicInteger released = new AtomicInteger();
        MemorySegment m = Dlpack.exportVersioned(f32(2, 2), Dlpack.ExportOptions.defaults().withOnRelease(released::incrementAndGet));
        assertEquals(0, peer.deleteVersionedOnNewThread(m));
        assertEquals(1, released.get());
    }

    @Test
    void closeBufferOnReleaseHandsTheBufferOver() {
        MemoryBuffer root = arena.allocate(16);
        TensorView v = TensorView.strided(root, DType.F32, StridedLayout.packed(4));
        MemorySegment m = Dlpack.exportVersioned(v, Dlpack.ExportOptions.defaults().withCloseBufferOnRelease(true));
        assertTrue(root.isAlive());
        peer.deleteVersioned(m);
        assertFalse(root.isAlive());

        TensorView ofSlice = TensorView.strided(arena.allocate(32).slice(0, 16), DType.F32, StridedLayout.packed(4));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Dlpack.exportVersioned(ofSlice, Dlpack.ExportOptions.defaults().withCloseBufferOnRelease(true)));
        assertTrue(e.getMessage().contains("closeBufferOnRelease needs a root buffer"), e.getMessage());

        // Refused before the copy these views need is made (it used to leak): a tiled view of a
        // slice, and a padded view, which is two pieces.
        TensorView tiledOfSlice = TensorView.of(arena.allocate(192).slice(0, 96), "f32[3,5]{1,0:T(2,2)}");
        e = assertThrows(IllegalArgumentException.class,
                () -> Dlpack.exportVersioned(tiledOfSlice, Dlpack.ExportOptions.defaults().withCloseBufferOnRelease(true)));
        assertTrue(e.getMessage().contains("closeBufferOnRelease needs a root buffer"), e.getMessage());
        TensorView padded = Ops.pad(f32(2, 2), new long[] {1, 0}, new long[] {0, 1}, new long[] {0, 0}, -1);
        e = assertThrows(IllegalArgumentException.class,
                () -> Dlpack.exportVersioned(padded, Dlpack.ExportOptions.defaults().withCloseBufferOnRelease(true)));
        assertTrue(e.getMessage().contains("closeBufferOnRelease hands over one buffer, but the view is made of 2 pieces"),
                e.getMessage());

        // A copied view of a root hands that root over.
        MemoryBuffer tiledRoot = arena.allocate(96);
        MemorySegment copied = Dlpack.exportVersioned(TensorView.of(tiledRoot, "f32[3,5]{1,0:T(2,2)}"),
                Dlpack.ExportOptions.defaults().withCloseBufferOnRelease(true));
        assertEquals(DlpackStructs.FLAG_IS_COPIED, peer.describeVersioned(copied)[FLAGS]);
        peer.deleteVersioned(copied);
        assertFalse(tiledRoot.isAlive());
    }

    @Test
    void legacyExportRefusesReadOnlyMemoryItCannotMarkReadOnly() {
        TensorView v = f32(2, 3);
        TensorView ro = TensorView.strided(v.buffer().asReadOnly(), DType.F32, StridedLayout.packed(2, 3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dlpack.exportLegacy(ro));
        assertTrue(e.getMessage().contains("the buffer is read-only and the legacy struct has no flag to say so;"
                + " export DLManagedTensorVersioned"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> Dlpack.exportLegacy(v, Dlpack.ExportOptions.defaults().withReadOnly(true)));
        assertTrue(e.getMessage().contains("readOnly asked, but the legacy struct has no flag"), e.getMessage());

        // A read-only view that is copied anyway goes out as its own writable copy.
        MemoryBuffer tiled = arena.allocate(96);
        TensorView roTiled = TensorView.of(tiled.asReadOnly(), "f32[3,5]{1,0:T(2,2)}");
        MemorySegment m = Dlpack.exportLegacy(roTiled);
        assertEquals(checksum(roTiled), peer.checksumLegacy(m));
        peer.deleteLegacy(m);
    }

    @Test
    void roundTripThroughOurOwnImportCallsOurDeleterOnceFromAnotherThread() throws InterruptedException {
        TensorView t = Ops.transpose(f32(2, 3), 1, 0);
        AtomicInteger released = new AtomicInteger();
        MemorySegment m = Dlpack.exportVersioned(t, Dlpack.ExportOptions.defaults().withOnRelease(released::incrementAndGet));
        Dlpack.Tensor back = Dlpack.importVersioned(m);
        assertArrayEquals(TensorElements.of(t).toFloatArray(), TensorElements.of(back.view()).toFloatArray());
        Thread closer = Thread.ofPlatform().start(back::close);
        closer.join();
        back.close();
        assertEquals(1, released.get());

        MemorySegment legacy = Dlpack.exportLegacy(t);
        try (Dlpack.Tensor again = Dlpack.importLegacy(legacy)) {
            assertArrayEquals(TensorElements.of(t).toFloatArray(), TensorElements.of(again.view()).toFloatArray());
        }
    }

    @Test
    void deviceBufferExportsItsAddressAndDevice() {
        MemoryBuffer gpu = MemoryBuffer.foreign(0x7f00_0000_1000L, 128, MemorySpace.DEVICE.withDeviceOrdinal(2), "fake", () -> { });
        TensorView v = TensorView.strided(gpu, DType.F32, StridedLayout.of(new long[] {2, 4}, new long[] {1, 2}, 1));
        MemorySegment m = Dlpack.exportVersioned(v);
        long[] d = peer.describeVersioned(m);
        assertEquals(2, d[DEVICE]);
        assertEquals(2, d[DEVICE_ID]);
        assertEquals(4, d[BYTE_OFFSET]);
        Dlpack.release(m, true);

        TensorView tiledOnGpu = TensorView.of(gpu, "f32[3,5]{1,0:T(2,2)}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dlpack.exportVersioned(tiledOnGpu));
        assertTrue(e.getMessage().contains("needs a copy on the host, but its memory is not host-accessible"), e.getMessage());
    }

    @Test
    void fastDeviceMemoryHasNoDlpackDevice() {
        MemoryBuffer vmem = MemoryBuffer.foreign(0x1000L, 64, MemorySpace.DEVICE_FAST, "fake", () -> { });
        TensorView v = TensorView.strided(vmem, DType.F32, StridedLayout.packed(4));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dlpack.exportVersioned(v));
        assertTrue(e.getMessage().contains("S(1) on-device fast memory (VMEM) has no DLPack device type"), e.getMessage());
    }

    @Test
    void emptyViewExportsNullData() {
        TensorView empty = TensorView.strided(arena.allocate(8), DType.F32, StridedLayout.packed(0, 3));
        MemorySegment m = Dlpack.exportVersioned(empty);
        long[] d = peer.describeVersioned(m);
        assertEquals(1, d[DATA_NULL]);
        assertEquals(0, d[SHAPE]);
        assertEquals(0, d[FLAGS], "an empty strided view is described, not copied");
        peer.deleteVersioned(m);
        // A read-only empty view (an empty .npy mapped) stays read-only rather than becoming a copy.
        TensorView mapped = TensorView.strided(arena.allocate(8).asReadOnly(), DType.F32, StridedLayout.packed(3, 0));
        MemorySegment r = Dlpack.exportVersioned(mapped);
        assertEquals(DlpackStructs.FLAG_READ_ONLY, peer.describeVersioned(r)[FLAGS]);
        peer.deleteVersioned(r);
    }

    /**
     * A review closed a pooled buffer while its export was still with the consumer; the pool gave
     * the block to its next user, and the consumer read that user's 9.0 where the tensor held 1.0.
     */
    @Test
    void anExportHoldsItsBufferSoAPoolDoesNotReuseTheBlockBeforeTheDeleter() {
        try (PooledAllocator pool = PooledAllocator.builder().name("export").build()) {
            MemoryBuffer b = pool.allocate(24);
            TensorView v = TensorView.strided(b, DType.F32, StridedLayout.packed(6));
            TensorElements.of(v).copyFrom(new float[] {1, 1, 1, 1, 1, 1});
            MemorySegment m = Dlpack.exportVersioned(v);
            b.close(); // too early: the consumer still reads through m
            assertFalse(b.isAlive());
            MemoryBuffer next = pool.allocate(24);
            next.segment().fill((byte) 0x41); // 12.0f in every float, were it the same block
            assertEquals(1 + 2 + 3 + 4 + 5 + 6, peer.checksumVersioned(m), 0.0, "the consumer reads what was exported");
            long bothOut = pool.stats().liveBytes(); // the exported block, still out, and the new one
            peer.deleteVersioned(m);
            assertEquals(bothOut / 2, pool.stats().liveBytes(), "the deleter gave the exported block back");
            next.close();
        }
    }

    @Test
    void closedBufferCannotBeExported() {
        MemoryBuffer b = arena.allocate(16);
        TensorView v = TensorView.strided(b, DType.F32, StridedLayout.packed(4));
        b.close();
        assertThrows(IllegalStateException.class, () -> Dlpack.exportVersioned(v));
    }
}
