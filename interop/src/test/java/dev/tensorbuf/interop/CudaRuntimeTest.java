package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link CudaRuntime} over a fake function table: every path but the GPU itself. */
class CudaRuntimeTest {
    private FakeCuda fake;
    private CudaRuntime cuda;
    private Allocator arena;

    @BeforeEach
    void setUp() {
        fake = new FakeCuda();
        cuda = new CudaRuntime(fake);
        arena = Allocators.confined();
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private TensorView f32(String shape, int count) {
        TensorView v = TensorView.of(arena.allocate(4L * count), shape);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = i;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    /**
     * On a machine without a GPU the real probe says why: either no library (naming each name
     * tried) or, where libcudart is installed without a driver, the real runtime's own error text,
     * which also exercises the FFM bindings of cudaGetDeviceCount, cudaGetErrorName and cudaGetErrorString.
     */
    @Test
    void realProbeWithoutAGpuSaysWhy() {
        CudaRuntime.Availability a = CudaRuntime.probe();
        assumeTrue(a.runtime().isEmpty(), "a usable CUDA runtime is present here (" + a.reason() + "); CudaGpuTest covers it");
        if (a.reason().startsWith("CUDA runtime not found")) {
            assertTrue(a.reason().startsWith("CUDA runtime not found: tried libcudart.so: "), a.reason());
            for (String name : CudaRuntime.LIBRARY_NAMES) {
                assertTrue(a.reason().contains(name + ": "), a.reason());
            }
        } else {
            assertTrue(a.reason().matches("libcudart\\.so[.0-9]* loaded, but (cudaGetDeviceCount failed: cudaError\\w+"
                    + " \\(\\d+\\): .+|it sees no CUDA device)"), a.reason());
        }
    }

    @Test
    void probeSaysWhyAnInstalledRuntimeIsUnusable() {
        fake.failures.put("cudaGetDeviceCount", 100);
        CudaRuntime.Availability noDevice = CudaRuntime.probe(() -> fake);
        assertTrue(noDevice.runtime().isEmpty());
        assertEquals("fake loaded, but cudaGetDeviceCount failed: cudaErrorNoDevice (100): no CUDA-capable device is detected",
                noDevice.reason());
        FakeCuda none = new FakeCuda();
        none.devices = 0;
        assertEquals("fake loaded, but it sees no CUDA device", CudaRuntime.probe(() -> none).reason());
        FakeCuda two = new FakeCuda();
        two.devices = 2;
        CudaRuntime.Availability ok = CudaRuntime.probe(() -> two);
        assertTrue(ok.runtime().isPresent());
        assertEquals("fake loaded, 2 device(s)", ok.reason());
    }

    @Test
    void errorCodeBecomesAMessageWithNameAndText() {
        fake.failures.put("cudaMalloc", 2);
        CudaRuntime.CudaException e = assertThrows(CudaRuntime.CudaException.class, () -> cuda.malloc(0, 1024));
        assertEquals("cudaMalloc(1024 bytes) on device 0 failed: cudaErrorMemoryAllocation (2): out of memory", e.getMessage());
        assertEquals(2, e.code());
        assertEquals("cudaErrorMemoryAllocation", e.errorName());
    }

    @Test
    void deviceBufferIsFreedOnceAndStaysOffTheHost() {
        MemoryBuffer b = cuda.malloc(1, 64);
        assertEquals(MemorySpace.Kind.DEVICE, b.memorySpace().kind());
        assertEquals(1, b.memorySpace().deviceOrdinal());
        assertThrows(UnsupportedOperationException.class, b::segment);
        b.close();
        b.close();
        assertEquals(1, fake.count("cudaFree"));
    }

    @Test
    void failingFreeThrowsOnceAndIsNotRetried() {
        MemoryBuffer b = cuda.malloc(0, 64);
        fake.failures.put("cudaFree", 400);
        CudaRuntime.CudaException e = assertThrows(CudaRuntime.CudaException.class, b::close);
        assertTrue(e.getMessage().startsWith("cudaFree(0x"), e.getMessage());
        assertTrue(e.getMessage().endsWith("failed: cudaErrorInvalidResourceHandle (400): invalid resource handle"), e.getMessage());
        b.close();
        assertEquals(1, fake.count("cudaFree"));
    }

    @Test
    void pinnedHostMemoryIsReadableHereAndFreedWithCudaFreeHost() {
        try (MemoryBuffer pinned = cuda.mallocHost(16)) {
            assertEquals(MemorySpace.PINNED_HOST, pinned.memorySpace());
            pinned.segment().set(ValueLayout.JAVA_INT, 4, 7);
            assertEquals(7, pinned.segment().get(ValueLayout.JAVA_INT, 4));
        }
        assertEquals(1, fake.count("cudaFreeHost"));
    }

    @Test
    void packedViewUploadsInOneMemcpyAndDownloadsBack() {
        TensorView host = f32("f32[2,3]{1,0}", 6);
        TensorView onDevice = cuda.upload(host, 0);
        assertEquals(List.of("cudaSetDevice", "cudaMalloc", "cudaMemcpy"), fake.calls);
        assertFalse(onDevice.isHostAccessible());
        TensorView back = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
        cuda.download(onDevice, back);
        assertArrayEquals(TensorElements.of(host).toFloatArray(), TensorElements.of(back).toFloatArray());
        onDevice.buffer().close();
    }

    @Test
    void rowPitchedViewUploadsInOneMemcpy2D() {
        TensorView wide = f32("f32[3,5]{1,0}", 15);
        TensorView window = Ops.slice(wide, new long[] {0, 1}, new long[] {3, 4}, new long[] {1, 1});
        TensorView onDevice = cuda.upload(window, 0);
        assertEquals(1, fake.count("cudaMemcpy2D"));
        assertEquals(0, fake.count("cudaMemcpy"));
        TensorView back = TensorView.of(arena.allocate(36), "f32[3,3]{1,0}");
        cuda.download(onDevice, back);
        assertArrayEquals(new float[] {1, 2, 3, 6, 7, 8, 11, 12, 13}, TensorElements.of(back).toFloatArray());
        TensorView pitchedTarget = Ops.slice(TensorView.of(arena.allocate(60), "f32[3,5]{1,0}"),
                new long[] {0, 2}, new long[] {3, 5}, new long[] {1, 1});
        cuda.download(onDevice, pitchedTarget);
        assertEquals(2, fake.count("cudaMemcpy2D"));
        assertArrayEquals(TensorElements.of(window).toFloatArray(), TensorElements.of(pitchedTarget).toFloatArray());
    }

    @Test
    void otherLayoutsConvertOnTheHostAroundOneMemcpy() {
        TensorView columnMajor = f32("f32[2,3]{0,1}", 6);
        TensorView onDevice = cuda.upload(columnMajor, 0);
        assertEquals(1, fake.count("cudaMemcpy"));
        TensorView tiled = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
        TensorView transposedBack = Ops.transpose(TensorView.of(arena.allocate(24), "f32[3,2]{1,0}"), 1, 0);
        cuda.download(onDevice, transposedBack);
        assertArrayEquals(TensorElements.of(columnMajor).toFloatArray(), TensorElements.of(transposedBack).toFloatArray());
        TensorView tiledSource = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
        TensorElements.of(tiledSource).copyFrom(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
        TensorView up = cuda.upload(tiledSource, 0);
        cuda.download(up, tiled);
        assertArrayEquals(TensorElements.of(tiledSource).toFloatArray(), TensorElements.of(tiled).toFloatArray());
    }

    @Test
    void downloadRefusesADeviceViewThatIsNotPackedRowMajor() {
        TensorView onDevice = cuda.upload(f32("f32[2,3]{1,0}", 6), 0);
        TensorView transposed = Ops.transpose(onDevice, 1, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> cuda.download(transposed, TensorView.of(arena.allocate(24), "f32[3,2]{1,0}")));
        assertTrue(e.getMessage().contains("the device view must be packed row-major"), e.getMessage());
    }

    /** Worded as every host copy in interop words it (Errors.notHostAccessible). */
    @Test
    void uploadAndDownloadRefuseAHostSideOnTheDevice() {
        TensorView onDevice = cuda.upload(f32("f32[2,3]{1,0}", 6), 0);
        IllegalArgumentException up = assertThrows(IllegalArgumentException.class, () -> cuda.upload(onDevice, 0));
        assertEquals("upload of " + onDevice + ": its memory is not host-accessible", up.getMessage());
        IllegalArgumentException down = assertThrows(IllegalArgumentException.class, () -> cuda.download(onDevice, onDevice));
        assertEquals("download into " + onDevice + ": its memory is not host-accessible", down.getMessage());
    }

    @Test
    void memcpy2DRefusesAPitchBelowTheWidth() {
        MemoryBuffer d = cuda.malloc(0, 64);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> cuda.memcpy2D(d, 0, 8, arena.allocate(64), 0, 16, 12, 2));
        assertEquals("cudaMemcpy2D of rows of 12 bytes with pitches 8 (dst) and 16 (src): a pitch must be at least the width",
                e.getMessage());
    }

    @Test
    void streamSynchronizesUntilClosed() {
        CudaRuntime.CudaStream s = cuda.createStream();
        assertEquals(0x5000, s.handle());
        s.synchronize();
        s.close();
        s.close();
        assertEquals(1, fake.count("cudaStreamDestroy"));
        IllegalStateException e = assertThrows(IllegalStateException.class, s::synchronize);
        assertEquals("CUDA stream 0x5000 is closed", e.getMessage());
    }
}
