package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.DlpackStructs;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import dev.tensorbuf.views.TensorElements;

/** Imports tensors a C producer made, and checks the producer's deleter runs exactly once. */
class DlpackImportTest {
    private NativePeer peer;

    @BeforeEach
    void compilePeer() {
        peer = NativePeer.get();
        peer.reset();
    }

    @Test
    void importsStridedF32WithByteOffsetAndRowPitch() {
        Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(0));
        assertEquals(List.of(2L, 3L), t.view().dims());
        assertArrayEquals(new float[] {2, 3, 4, 6, 7, 8}, TensorElements.of(t.view()).toFloatArray());
        assertEquals(MemorySpace.HOST, t.root().memorySpace());
        assertEquals(3, t.minorVersion());
        assertFalse(t.isReadOnly());
        assertEquals(0, peer.deleterCalls(), "nothing released before close");
        t.close();
        assertEquals(1, peer.deleterCalls());
        t.close();
        assertEquals(1, peer.deleterCalls(), "a second close does not call the deleter again");
        assertThrows(IllegalStateException.class, () -> TensorElements.of(t.view()).getFloat(0, 0));
    }

    @Test
    void importsPackedInt4WithByteOffset() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(1))) {
            assertEquals(DType.S4, t.view().dtype());
            assertEquals(4, t.view().access().storageBits());
            assertArrayEquals(new long[] {1, -2, 3, -4, 7}, TensorElements.of(t.view()).toLongArray());
        }
        assertEquals(1, peer.deleterCalls());
    }

    @Test
    void importsPaddedInt4OneBytePerElement() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(9))) {
            assertEquals(8, t.view().access().storageBits());
            assertArrayEquals(new long[] {-3, 5}, TensorElements.of(t.view()).toLongArray());
        }
    }

    @Test
    void importsPackedUint1Bits() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(4))) {
            assertEquals(DType.U1, t.view().dtype());
            assertArrayEquals(new long[] {1, 0, 1, 1, 0, 0, 1, 0, 1, 1}, TensorElements.of(t.view()).toLongArray());
            assertEquals(2, t.root().byteSize());
        }
    }

    @Test
    void readOnlyFlagMakesTheViewReadOnly() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(2))) {
            assertTrue(t.isReadOnly());
            assertTrue(t.view().buffer().isReadOnly());
            // The root too: writing through it used to reach the producer's (possibly protected) memory.
            assertTrue(t.root().isReadOnly());
            assertTrue(t.root().segment().isReadOnly());
            assertThrows(IllegalArgumentException.class, () -> t.root().segment().set(ValueLayout.JAVA_LONG, 0, 1));
            assertArrayEquals(new long[] {10, 20, 30}, TensorElements.of(t.view()).toLongArray());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TensorElements.of(t.view()).setLong(1, 0));
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
        }
        assertEquals(1, peer.deleterCalls());
    }

    @Test
    void negativeStrideReadsBackwardsFromByteOffset() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(3))) {
            assertArrayEquals(new double[] {3, 2, 1, 0}, TensorElements.of(t.view()).toDoubleArray());
            assertEquals(32, t.root().byteSize(), "the buffer spans the four doubles the strides reach");
        }
    }

    /** NumPy exports {@code a[::-1]} with data at its element 0, the last in memory; DLPack allows it and np.from_dlpack accepts it. */
    @Test
    void negativeStrideMayReachBeforeTheDataPointer() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(10))) {
            assertArrayEquals(new double[] {3, 2, 1, 0}, TensorElements.of(t.view()).toDoubleArray());
            assertEquals(32, t.root().byteSize(), "the buffer spans the four doubles the strides reach");
            assertEquals(StridedLayout.of(new long[] {4}, new long[] {-1}, 3), t.view().stridedLayout().orElseThrow());
        }
        assertEquals(1, peer.deleterCalls());
    }

    @Test
    void zeroSizeTensorWithNullDataImports() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(5))) {
            assertEquals(0, t.view().elementCount());
            assertEquals(0, t.root().byteSize());
        }
        assertEquals(1, peer.deleterCalls());
    }

    @Test
    void nullStridesMeanRowMajorBeforeDlpack12() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(6))) {
            assertEquals(1, t.minorVersion());
            assertArrayEquals(new float[] {1, 2, 3, 4}, TensorElements.of(t.view()).toFloatArray());
            assertEquals(List.of(2L, 1L), t.view().stridedLayout().orElseThrow().strides());
        }
        try (Dlpack.Tensor t = Dlpack.importLegacy(peer.makeLegacy(6))) {
            assertFalse(t.versioned());
            assertArrayEquals(new float[] {1, 2, 3, 4}, TensorElements.of(t.view()).toFloatArray());
        }
        assertEquals(2, peer.deleterCalls());
    }

    @Test
    void legacyStructImportsWithItsOwnDeleter() {
        try (Dlpack.Tensor t = Dlpack.importLegacy(peer.makeLegacy(0))) {
            assertArrayEquals(new float[] {2, 3, 4, 6, 7, 8}, TensorElements.of(t.view()).toFloatArray());
            assertEquals(0, t.flags());
        }
        assertEquals(1, peer.deleterCalls());
    }

    @Test
    void deviceTensorBecomesADeviceBufferWithoutHostAccess() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(8))) {
            MemorySpace space = t.root().memorySpace();
            assertEquals(MemorySpace.Kind.DEVICE, space.kind());
            assertEquals(1, space.deviceOrdinal());
            assertEquals(DLDeviceType.CUDA, space.dlpackDevice().orElseThrow());
            assertEquals(0x7f00_0000_0000L, t.root().address());
            assertEquals(16, t.root().byteSize());
            assertFalse(t.view().isHostAccessible());
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> TensorElements.of(t.view()).getFloat(0));
            assertTrue(e.getMessage().contains("not host-accessible"), e.getMessage());
        }
        assertEquals(1, peer.deleterCalls());
    }

    /** Managed memory was labelled HBM; it is kept from Java all the same, as a kernel may use it meanwhile. */
    @Test
    void managedMemoryIsKeptFromJavaAndNamedForWhatItIs() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(11))) {
            MemorySpace space = t.root().memorySpace();
            assertEquals(MemorySpace.Kind.DEVICE, space.kind());
            assertEquals(DLDeviceType.CUDA_MANAGED, space.dlpackDevice().orElseThrow());
            assertFalse(t.view().isHostAccessible());
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> TensorElements.of(t.view()).getFloat(0));
            assertEquals("f32[4] strides [1] is over a buffer in S(0) kDLCUDAManaged memory (host or device: Java treats"
                    + " it as device memory), which is not host-accessible: element access needs host memory; copy it to"
                    + " a host buffer first", e.getMessage());
        }
        assertEquals(1, peer.deleterCalls());
    }

    @ParameterizedTest(name = "kind {0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "20|DLManagedTensorVersioned has ndim -1: expected 0 to 64",
        "21|DLManagedTensorVersioned has ndim 1000: expected 0 to 64",
        "22|DLManagedTensorVersioned has NULL data but 6 elements (shape [2, 3])",
        "23|unknown DLPack type code 99: expected 0 to 17",
        "24|has 4 lanes of {code 2, 32 bits}: only one lane is supported",
        "25|no element type for DLPack {kDLFloat, 24} (code 2, bits 24)",
        "26|unknown DLPack device type 6 (known codes: 1-4, 7-18)",
        "27|has DLPack version 2.3, but only major version 1 is understood; released it through its deleter",
        "28|DLManagedTensorVersioned: size -3 of dim 1 is negative in shape [2, -3]",
        "29|has byte_offset 9223372036854775808, past 2^63 - 1",
        "30|has ndim 2 but a NULL shape",
        "31|at data pointer 0x8 reaches 16 bytes below address 0",
        "32|DLManagedTensorVersioned: element count of shape [4611686018427387903, 3] overflows a long",
        "7|of DLPack 1.3 has NULL strides for ndim 2: since DLPack 1.2 strides must be given",
    })
    void malformedTensorIsRefusedByMessageAndReleasedOnce(int kind, String message) {
        MemorySegment m = peer.makeVersioned(kind);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dlpack.importVersioned(m));
        assertTrue(e.getMessage().contains(message), e.getMessage());
        assertEquals(1, peer.deleterCalls(), "a refused import still releases the tensor, once");
    }

    @Test
    void unknownVersionWithANullDeleterSaysNothingWasReleased() {
        StructLayout layout = DlpackStructs.DL_MANAGED_TENSOR_VERSIONED;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment managed = arena.allocate(layout);
            managed.set(ValueLayout.JAVA_INT, DlpackStructs.offset(layout, "version", "major"), 2);
            managed.set(ValueLayout.ADDRESS, DlpackStructs.offset(layout, "deleter"), MemorySegment.NULL);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dlpack.importVersioned(managed));
            assertTrue(e.getMessage().endsWith("has DLPack version 2.0, but only major version 1 is understood; read no"
                    + " further (it has a NULL deleter, so nothing was released)"), e.getMessage());
        }
    }

    @Test
    void nullPointerIsRefusedWithoutCallingAnything() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Dlpack.importVersioned(MemorySegment.NULL));
        assertEquals("NULL DLManagedTensorVersioned pointer", e.getMessage());
    }

    /**
     * DLPack has no field for the size of the producer's allocation, so strides reaching past it
     * cannot be detected: the import trusts the producer and spans what the strides reach.
     */
    @Test
    void importSpansExactlyWhatTheStridesReachBecauseTheProducerSizeIsUnknowable() {
        try (Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(0))) {
            // byte_offset 8, elements at 0..6 floats from there: 7 floats reached, 28 bytes
            assertEquals(28, t.root().byteSize());
        }
    }

    @Test
    void closingFromManyThreadsAtOnceCallsTheDeleterOnce() throws InterruptedException {
        for (int round = 0; round < 20; round++) {
            Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(0));
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    t.close();
                }));
            }
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
        }
        assertEquals(20, peer.deleterCalls());
    }

    @Test
    void closingOnAnotherThreadReleasesAndRevokesTheSegment() throws InterruptedException {
        Dlpack.Tensor t = Dlpack.importVersioned(peer.makeVersioned(0));
        MemorySegment kept = t.view().buffer().segment();
        Thread closer = Thread.ofPlatform().start(t::close);
        closer.join();
        assertEquals(1, peer.deleterCalls());
        assertThrows(IllegalStateException.class, () -> kept.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, 0));
    }
}
