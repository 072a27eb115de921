package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CudaRuntime.CudaStream}'s asynchronous copies and {@link CudaRuntime.CudaEvent}s over {@link FakeCuda}, whose
 * streams run their work on threads of their own, after the call that queued it has returned.
 */
class CudaStreamTest {
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
        fake.release();
        arena.close();
    }

    private TensorView pinnedF32(String shape, int count, float first) {
        TensorView v = TensorView.of(cuda.mallocHost(4L * count), shape);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = first + i;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    /** The fake's device bytes, read behind the runtime's back, as floats. */
    private static float[] deviceFloats(TensorView onDevice) {
        int n = (int) onDevice.elementCount();
        return RestrictedNative.segment(onDevice.buffer().address(), 4L * n, Arena.global()).toArray(ValueLayout.JAVA_FLOAT);
    }

    @Test
    void uploadReturnsBeforeTheCopyRunsAndTheEventSaysWhenItHas() {
        TensorView host = pinnedF32("f32[2,3]{1,0}", 6, 1);
        TensorView onDevice = TensorView.of(cuda.malloc(0, 24), "f32[2,3]{1,0}");
        try (CudaRuntime.CudaStream stream = cuda.createStream()) {
            fake.hold();
            stream.upload(host, onDevice);
            CudaRuntime.CudaEvent uploaded = stream.record();
            assertArrayEquals(new float[6], deviceFloats(onDevice), "copied before the stream ran");
            assertFalse(uploaded.isComplete());
            fake.release();
            uploaded.synchronize();
            assertTrue(uploaded.isComplete());
            assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, deviceFloats(onDevice));
            uploaded.close();
        }
        assertEquals(1, fake.count("cudaMemcpyAsync"));
        assertEquals(0, fake.count("cudaMemcpy"));
    }

    @Test
    void copiesOnOneStreamRunInTheOrderQueued() {
        TensorView first = pinnedF32("f32[4]{0}", 4, 10);
        TensorView second = pinnedF32("f32[4]{0}", 4, 20);
        TensorView onDevice = TensorView.of(cuda.malloc(0, 16), "f32[4]{0}");
        TensorView back = pinnedF32("f32[4]{0}", 4, 0);
        try (CudaRuntime.CudaStream stream = cuda.createStream()) {
            fake.hold();
            stream.upload(first, onDevice);
            stream.upload(second, onDevice);
            stream.download(onDevice, back);
            stream.upload(first, onDevice);
            assertArrayEquals(new float[] {0, 1, 2, 3}, TensorElements.of(back).toFloatArray());
            fake.release();
            stream.synchronize();
        }
        assertArrayEquals(new float[] {20, 21, 22, 23}, TensorElements.of(back).toFloatArray(), "download saw the second upload");
        assertArrayEquals(new float[] {10, 11, 12, 13}, deviceFloats(onDevice), "the last upload wins");
    }

    /** Views give a dim of size 1 stride 0; a batch of one is still packed, and moves in one copy. */
    @Test
    void batchOfOneMovesInOneCopyAsPackedRowMajor() {
        TensorView host = pinnedF32("f32[1,3,2,2]{3,2,1,0}", 12, 0);
        TensorView onDevice = TensorView.of(cuda.malloc(0, 48), "f32[1,3,2,2]{3,2,1,0}");
        try (CudaRuntime.CudaStream stream = cuda.createStream()) {
            stream.upload(host, onDevice);
            stream.synchronize();
        }
        assertEquals(1, fake.count("cudaMemcpyAsync"));
        TensorView back = TensorView.of(arena.allocate(48), "f32[1,3,2,2]{3,2,1,0}");
        cuda.download(onDevice, back);
        assertEquals(1, fake.count("cudaMemcpy"));
        assertArrayEquals(TensorElements.of(host).toFloatArray(), TensorElements.of(back).toFloatArray());
        TensorView again = cuda.upload(back, 0);
        assertEquals(2, fake.count("cudaMemcpy"));
        assertEquals(0, fake.count("cudaMemcpy2D"));
        again.buffer().close();
    }

    @Test
    void rowPitchedViewsMoveInOneMemcpy2DAsync() {
        TensorView wide = pinnedF32("f32[3,5]{1,0}", 15, 0);
        TensorView window = Ops.slice(wide, new long[] {0, 1}, new long[] {3, 4}, new long[] {1, 1});
        TensorView onDevice = TensorView.of(cuda.malloc(0, 36), "f32[3,3]{1,0}");
        TensorView target = Ops.slice(pinnedF32("f32[3,5]{1,0}", 15, 100), new long[] {0, 2}, new long[] {3, 5},
                new long[] {1, 1});
        try (CudaRuntime.CudaStream stream = cuda.createStream()) {
            stream.upload(window, onDevice);
            stream.download(onDevice, target);
            stream.synchronize();
        }
        assertEquals(2, fake.count("cudaMemcpy2DAsync"));
        assertArrayEquals(new float[] {1, 2, 3, 6, 7, 8, 11, 12, 13}, TensorElements.of(target).toFloatArray());
    }

    @Test
    void elapsedTimeNeedsBothEventsComplete() {
        TensorView host = pinnedF32("f32[4]{0}", 4, 0);
        TensorView onDevice = TensorView.of(cuda.malloc(0, 16), "f32[4]{0}");
        try (CudaRuntime.CudaStream stream = cuda.createStream()) {
            fake.hold();
            CudaRuntime.CudaEvent start = stream.record();
            stream.upload(host, onDevice);
            CudaRuntime.CudaEvent end = stream.record();
            CudaRuntime.CudaException early = assertThrows(CudaRuntime.CudaException.class, () -> end.millisSince(start));
            assertEquals("cudaErrorNotReady", early.errorName());
            fake.release();
            end.synchronize();
            assertTrue(start.isComplete());
            assertTrue(end.millisSince(start) >= 0);
            start.close();
            end.close();
            start.close();
            assertEquals(2, fake.count("cudaEventDestroy"));
            IllegalStateException closed = assertThrows(IllegalStateException.class, end::synchronize);
            assertEquals("CUDA event 0x" + Long.toHexString(end.handle()) + " is closed", closed.getMessage());
        }
    }

    /** The DMA engine must never write into memory given back: a buffer closed mid-copy is freed after it. */
    @Test
    void aBufferClosedWhileItsCopyIsQueuedIsFreedOnlyOnceTheStreamIsPastIt() {
        TensorView host = pinnedF32("f32[4]{0}", 4, 0);
        TensorView onDevice = TensorView.of(cuda.malloc(0, 16), "f32[4]{0}");
        try (CudaRuntime.CudaStream stream = cuda.createStream()) {
            fake.hold();
            stream.upload(host, onDevice);
            CudaRuntime.CudaEvent done = stream.record();
            host.buffer().close();
            onDevice.buffer().close();
            assertEquals(0, fake.count("cudaFreeHost"));
            assertEquals(0, fake.count("cudaFree"));
            fake.release();
            done.synchronize();
            assertEquals(1, fake.count("cudaFreeHost"));
            assertEquals(1, fake.count("cudaFree"));
            done.close();
        }
    }

    @Test
    void closeWaitsForQueuedCopiesAndEndsTheirLoans() {
        TensorView host = pinnedF32("f32[4]{0}", 4, 5);
        TensorView onDevice = TensorView.of(cuda.malloc(0, 16), "f32[4]{0}");
        CudaRuntime.CudaStream stream = cuda.createStream();
        stream.upload(host, onDevice);
        host.buffer().close();
        stream.close();
        assertEquals(1, fake.count("cudaFreeHost"));
        assertArrayEquals(new float[] {5, 6, 7, 8}, deviceFloats(onDevice));
        assertEquals(List.of("cudaStreamSynchronize", "cudaStreamDestroy", "cudaFreeHost"),
                fake.calls.subList(fake.calls.size() - 3, fake.calls.size()));
    }

    @Test
    void pageableHostMemoryIsRefusedWhereCudaWouldSerialize() {
        MemoryBuffer pageable = arena.allocate(16);
        MemoryBuffer onDevice = cuda.malloc(0, 16);
        try (CudaRuntime.CudaStream stream = cuda.createStream()) {
            IllegalArgumentException raw = assertThrows(IllegalArgumentException.class,
                    () -> stream.memcpyAsync(onDevice, 0, pageable, 0, 16));
            assertTrue(raw.getMessage().startsWith("cudaMemcpyAsync from host memory (16 bytes at 0x"), raw.getMessage());
            assertTrue(raw.getMessage().endsWith("would serialize the copy with the host; use pinned memory"
                    + " (CudaRuntime.mallocHost), or the synchronous CudaRuntime.memcpy"), raw.getMessage());
            IllegalArgumentException into = assertThrows(IllegalArgumentException.class,
                    () -> stream.memcpyAsync(pageable, 0, onDevice, 0, 16));
            assertTrue(into.getMessage().startsWith("cudaMemcpyAsync into host memory"), into.getMessage());
            TensorView view = TensorView.of(pageable, "f32[4]{0}");
            TensorView deviceView = TensorView.of(onDevice, "f32[4]{0}");
            IllegalArgumentException up = assertThrows(IllegalArgumentException.class, () -> stream.upload(view, deviceView));
            assertEquals("asynchronous upload of " + view + ": its memory is host memory, not pinned; CUDA would serialize"
                    + " the copy with the host (use CudaRuntime.mallocHost memory, or the synchronous CudaRuntime.upload and"
                    + " download)", up.getMessage());
            assertThrows(IllegalArgumentException.class, () -> stream.download(deviceView, view));
        }
        assertEquals(0, fake.count("cudaMemcpyAsync"));
    }

    @Test
    void badSizesAndShapesAreRefusedBeforeAnythingIsQueued() {
        MemoryBuffer pinned = cuda.mallocHost(16);
        MemoryBuffer onDevice = cuda.malloc(0, 16);
        try (CudaRuntime.CudaStream stream = cuda.createStream()) {
            IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                    () -> stream.memcpyAsync(onDevice, 0, pinned, 0, -1));
            assertEquals("cudaMemcpyAsync of -1 bytes: bytes must be >= 0", negative.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> stream.memcpyAsync(onDevice, 8, pinned, 0, 16));
            assertThrows(IndexOutOfBoundsException.class, () -> stream.memcpyAsync(onDevice, 0, pinned, 1, 16));
            assertThrows(NullPointerException.class, () -> stream.memcpyAsync(null, 0, pinned, 0, 16));

            TensorView host = TensorView.of(pinned, "f32[4]{0}");
            TensorView wrongDims = TensorView.of(onDevice, "f32[2,2]{1,0}");
            IllegalArgumentException dims = assertThrows(IllegalArgumentException.class, () -> stream.upload(host, wrongDims));
            assertEquals("asynchronous upload of " + host + " into " + wrongDims + ": types or dims differ", dims.getMessage());

            TensorView square = TensorView.of(cuda.mallocHost(16), "f32[2,2]{1,0}");
            TensorView transposed = Ops.transpose(square, 1, 0);
            IllegalArgumentException layout = assertThrows(IllegalArgumentException.class,
                    () -> stream.upload(transposed, wrongDims));
            assertTrue(layout.getMessage().startsWith("asynchronous upload of " + transposed + ": its layout is neither packed"
                    + " row-major nor row-pitched"), layout.getMessage());
            IllegalArgumentException notPacked = assertThrows(IllegalArgumentException.class,
                    () -> stream.download(Ops.transpose(wrongDims, 1, 0), square));
            assertTrue(notPacked.getMessage().contains("the device view must be packed row-major"), notPacked.getMessage());
        }
        assertEquals(0, fake.count("cudaMemcpyAsync"));
    }

    @Test
    void aClosedStreamRefusesWorkAndAStreamTheRuntimeDoesNotKnowIsAnError() {
        MemoryBuffer pinned = cuda.mallocHost(16);
        MemoryBuffer onDevice = cuda.malloc(0, 16);
        CudaRuntime.CudaStream stream = cuda.createStream();
        stream.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class,
                () -> stream.memcpyAsync(onDevice, 0, pinned, 0, 16));
        assertEquals("CUDA stream 0x5000 is closed", closed.getMessage());
        assertThrows(IllegalStateException.class, stream::record);

        CudaRuntime.CudaStream stranger = new CudaRuntime.CudaStream(cuda, fake, 0xdead);
        CudaRuntime.CudaException e = assertThrows(CudaRuntime.CudaException.class, () -> stranger.memcpyAsync(onDevice, 0, pinned, 0, 16));
        assertEquals("cudaMemcpyAsync(16 bytes, kind 1) on CUDA stream 0xdead failed: cudaErrorInvalidResourceHandle (400):"
                + " invalid resource handle", e.getMessage());
        pinned.close();
        assertEquals(1, fake.count("cudaFreeHost"), "a refused copy keeps no loan");
    }

    @Test
    void stagingHarnessUploadsEveryBatchAndChecksIt() {
        Map<String, Object> r = CudaStagingSpeed.measure(cuda, 2, 5, 7, 3, 5, 3);
        assertEquals(true, r.get("bytes_checked"));
        assertEquals(5, r.get("batches"));
        assertEquals(2L * 3 * 5 * 7 * 4, r.get("f32_bytes_per_batch"));
        for (String key : List.of("first_serial_s", "serial_s", "overlapped_s", "stage_s", "upload_gpu_s", "pipeline_gbps", "overlap")) {
            assertTrue(Double.isFinite((Double) r.get(key)), key + " = " + r.get(key));
        }
        assertEquals(3, ((List<?>) r.get("serial_s_runs")).size());
        assertEquals(3, ((List<?>) r.get("overlapped_s_runs")).size());
        assertTrue(((List<?>) r.get("serial_s_runs")).contains(r.get("serial_s")), "the median is one of the runs");
        assertTrue(((List<?>) r.get("overlapped_s_runs")).contains(r.get("overlapped_s")), "the median is one of the runs");
        // a cold serial pass and an overlapped one, then 3 of each: 8 passes of 5 batches, one cudaMemcpyAsync a batch
        assertEquals(40, fake.count("cudaMemcpyAsync"));
    }

    @Test
    void stagingHarnessCatchesABatchThatArrivedWrong() {
        fake.corruptAsyncCopies = true;
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CudaStagingSpeed.measure(cuda, 1, 4, 4, 3, 3, 2));
        assertEquals("first serial run: batch 0 on the device differs from its staging at byte 0 of 192", e.getMessage());
    }
}
