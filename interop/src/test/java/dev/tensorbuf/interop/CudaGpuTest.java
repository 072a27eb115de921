package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.HostCopies;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real CUDA runtime on a real GPU; skipped, with the probe's reason, where there is none
 * (failed instead under {@code -Dtensorbuf.gpu.required=true}; run against {@link FakeCuda} under
 * {@code -Dtensorbuf.gpu.fake=true}: see {@link GpuTests}). gpu/check.sh runs it on a GPU machine.
 */
class CudaGpuTest {

    /** Where the host side of a transfer lives. */
    enum Host { PAGEABLE, PINNED }

    @Test
    void roundTripsViewsOfEveryLayoutThroughDeviceMemory() {
        CudaRuntime cuda = GpuTests.cuda();
        assertTrue(cuda.deviceCount() >= 1);
        try (Allocator arena = Allocators.confined(); CudaRuntime.CudaStream stream = cuda.createStream()) {
            TensorView wide = TensorView.of(arena.allocate(4 * 4 * 6), "f32[4,6]{1,0}");
            float[] values = new float[24];
            for (int i = 0; i < 24; i++) {
                values[i] = i * 0.25f;
            }
            TensorElements.of(wide).copyFrom(values);
            TensorView window = Ops.slice(wide, new long[] {1, 1}, new long[] {4, 5}, new long[] {1, 1});
            TensorView transposed = Ops.transpose(wide, 1, 0);
            for (TensorView source : new TensorView[] {wide, window, transposed}) {
                TensorView onDevice = cuda.upload(source, 0);
                try (MemoryBuffer pinned = cuda.mallocHost(4 * source.elementCount())) {
                    TensorView back = TensorView.strided(pinned, source.access(), HostCopies.rowMajor(source));
                    cuda.download(onDevice, back);
                    stream.synchronize();
                    assertArrayEquals(TensorElements.of(source).toFloatArray(), TensorElements.of(back).toFloatArray());
                } finally {
                    onDevice.buffer().close();
                }
            }
        }
    }

    static Stream<Arguments> views() {
        List<Arguments> all = new ArrayList<>();
        for (String dtype : List.of("f32", "bf16", "u8", "s4")) {
            for (String layout : List.of("strided", "transposed", "sliced", "tiled")) {
                for (Host host : Host.values()) {
                    all.add(Arguments.of(dtype, layout, host));
                }
            }
        }
        return all.stream();
    }

    private static String shape(String dtype, boolean tiled) {
        String packing = dtype.equals("s4") ? "E(4)" : "";
        String tiles = tiled ? "T(2,4)" : "";
        String suffix = tiles.isEmpty() && packing.isEmpty() ? "" : ":" + tiles + packing;
        return dtype + "[6,8]{1,0" + suffix + "}";
    }

    private static MemoryBuffer hostBuffer(CudaRuntime cuda, Allocator arena, Host host, long bytes) {
        return host == Host.PINNED ? cuda.mallocHost(bytes) : arena.allocate(bytes);
    }

    /** The view of {@code layout} over a [6,8] base of {@code dtype} in {@code buffer}. */
    private static TensorView view(MemoryBuffer buffer, String dtype, String layout) {
        TensorView base = TensorView.of(buffer, shape(dtype, layout.equals("tiled")));
        return switch (layout) {
            case "strided" -> Ops.slice(base, new long[] {1, 0}, new long[] {6, 8}, new long[] {2, 3});
            case "transposed" -> Ops.transpose(base, 1, 0);
            case "sliced" -> Ops.slice(base, new long[] {1, 1}, new long[] {5, 7}, new long[] {1, 1});
            default -> base;
        };
    }

    /** Distinct, finite values in every element of the base (so a misplaced element shows). */
    private static void fill(TensorView base, String dtype) {
        AtomicInteger i = new AtomicInteger();
        TensorElements.of(base).forEachIndex(index -> {
            int n = i.getAndIncrement();
            switch (dtype) {
                case "f32", "bf16" -> TensorElements.of(base).setFloat(n * 0.25f - 3, index);
                case "u8" -> TensorElements.of(base).setLong((n * 37 + 11) % 256, index);
                default -> TensorElements.of(base).setLong(n % 16 - 8, index);
            }
        });
    }

    private static byte[] bytes(MemoryBuffer b, long count) {
        return b.segment().asSlice(0, count).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * Upload packs the view row-major on the device; its bytes, read back raw with cudaMemcpy, are
     * those of a reference packed element by element here; download into the same layout in fresh
     * memory gives every element's bits back.
     */
    @ParameterizedTest(name = "{0} {1} from {2} memory")
    @MethodSource("views")
    void uploadsAndDownloadsByteForByte(String dtype, String layout, Host host) {
        CudaRuntime cuda = GpuTests.cuda();
        try (Allocator arena = Allocators.confined()) {
            long room = 4L * 48;
            MemoryBuffer sourceBuffer = hostBuffer(cuda, arena, host, room);
            MemoryBuffer targetBuffer = hostBuffer(cuda, arena, host, room);
            try {
                fill(TensorView.of(sourceBuffer, shape(dtype, layout.equals("tiled"))), dtype);
                TensorView source = view(sourceBuffer, dtype, layout);
                ElementAccess packed = HostCopies.packedAccess(source);
                long bytes = packed.byteSize(source.elementCount());
                TensorView reference = TensorView.strided(arena.allocate(bytes), packed, HostCopies.rowMajor(source));
                TensorElements.of(source).forEachIndex(index -> TensorElements.of(reference).setBits(TensorElements.of(source).getBits(index), index));

                TensorView onDevice = cuda.upload(source, 0);
                try {
                    assertEquals(MemorySpace.Kind.DEVICE, onDevice.buffer().memorySpace().kind());
                    assertFalse(onDevice.isHostAccessible());
                    MemoryBuffer raw = hostBuffer(cuda, arena, host, bytes);
                    try {
                        cuda.memcpy(raw, 0, onDevice.buffer(), 0, bytes);
                        assertArrayEquals(bytes(reference.buffer(), bytes), bytes(raw, bytes), "device bytes of " + source);
                    } finally {
                        raw.close();
                    }
                    TensorView target = view(targetBuffer, dtype, layout);
                    cuda.download(onDevice, target);
                    TensorElements.of(source).forEachIndex(index -> assertEquals(TensorElements.of(source).getBits(index), TensorElements.of(target).getBits(index),
                            () -> "element " + java.util.Arrays.toString(index) + " of " + target));
                } finally {
                    onDevice.buffer().close();
                }
            } finally {
                sourceBuffer.close();
                targetBuffer.close();
            }
        }
    }

    /**
     * Pitched rows (as cudaMallocPitch lays them out) move host to device, device to device and back
     * with cudaMemcpy2D: the rows arrive whole, and the bytes between rows of the target stay untouched.
     */
    @Test
    void memcpy2DMovesPitchedRows() {
        CudaRuntime cuda = GpuTests.cuda();
        long width = 20;
        long rows = 5;
        try (Allocator arena = Allocators.confined();
                MemoryBuffer src = cuda.mallocHost(32 * rows);
                MemoryBuffer device = cuda.malloc(0, 64 * rows);
                MemoryBuffer device2 = cuda.malloc(0, 40 * rows)) {
            MemorySegment s = src.segment();
            for (long i = 0; i < s.byteSize(); i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
            }
            MemoryBuffer dst = arena.allocate(24 * rows);
            dst.segment().fill((byte) 0xEE);
            cuda.memcpy2D(device, 0, 64, src, 0, 32, width, rows);
            cuda.memcpy2D(device2, 0, 40, device, 0, 64, width, rows);
            cuda.memcpy2D(dst, 0, 24, device2, 0, 40, width, rows);
            for (long r = 0; r < rows; r++) {
                for (long c = 0; c < 24; c++) {
                    byte expected = c < width ? s.get(ValueLayout.JAVA_BYTE, r * 32 + c) : (byte) 0xEE;
                    assertEquals(expected, dst.segment().get(ValueLayout.JAVA_BYTE, r * 24 + c), "row " + r + " byte " + c);
                }
            }
        }
    }

    /**
     * A device view exported as DLPack says kDLCUDA and the device ordinal, and imported back it is
     * the same device memory: downloading it gives the uploaded values; each deleter runs once.
     */
    @Test
    void deviceViewTravelsAsKDLCUDA() {
        CudaRuntime cuda = GpuTests.cuda();
        try (Allocator arena = Allocators.confined()) {
            TensorView host = TensorView.of(arena.allocate(4 * 12), "f32[3,4]{1,0}");
            TensorElements.of(host).copyFrom(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
            TensorView onDevice = cuda.upload(host, 0);
            AtomicInteger released = new AtomicInteger();
            int pending = Dlpack.pendingExports();
            MemorySegment managed = Dlpack.exportVersioned(onDevice,
                    Dlpack.ExportOptions.defaults().withOnRelease(released::incrementAndGet));
            try (Dlpack.Tensor t = Dlpack.importVersioned(managed)) {
                assertEquals(DLDeviceType.CUDA, t.view().buffer().memorySpace().dlpackDevice().orElseThrow());
                assertEquals(0, t.view().buffer().memorySpace().deviceOrdinal());
                assertEquals(onDevice.buffer().address(), t.root().address());
                TensorView back = TensorView.of(arena.allocate(4 * 12), "f32[3,4]{1,0}");
                cuda.download(t.view(), back);
                assertArrayEquals(TensorElements.of(host).toFloatArray(), TensorElements.of(back).toFloatArray());
                assertEquals(0, released.get());
            }
            assertEquals(1, released.get());
            assertEquals(pending, Dlpack.pendingExports());
            onDevice.buffer().close();
        }
    }

    /** Pinned views queued on one stream, packed and row-pitched, arrive and come back in order. */
    @Test
    void asynchronousCopiesOnAStreamRoundTripPinnedViews() {
        CudaRuntime cuda = GpuTests.cuda();
        long n = 1 << 20;
        try (CudaRuntime.CudaStream stream = cuda.createStream();
                MemoryBuffer pinned = cuda.mallocHost(4 * n);
                MemoryBuffer pinnedBack = cuda.mallocHost(4 * n);
                MemoryBuffer device = cuda.malloc(0, 4 * n)) {
            TensorView host = TensorView.of(pinned, "f32[1024,1024]{1,0}");
            float[] values = new float[(int) n];
            for (int i = 0; i < n; i++) {
                values[i] = i * 0.5f - 7;
            }
            TensorElements.of(host).copyFrom(values);
            TensorView onDevice = TensorView.of(device, "f32[1024,1024]{1,0}");
            CudaRuntime.CudaEvent start = stream.record();
            stream.upload(host, onDevice);
            TensorView back = TensorView.of(pinnedBack, "f32[1024,1024]{1,0}");
            stream.download(onDevice, back);
            CudaRuntime.CudaEvent end = stream.record();
            end.synchronize();
            assertTrue(end.millisSince(start) >= 0);
            assertArrayEquals(values, TensorElements.of(back).toFloatArray());

            TensorView window = Ops.slice(host, new long[] {0, 8}, new long[] {1024, 520}, new long[] {1, 1});
            TensorView windowOnDevice = TensorView.of(device.slice(0, 4L * 1024 * 512), "f32[1024,512]{1,0}");
            stream.upload(window, windowOnDevice);
            TensorView windowBack = Ops.slice(back, new long[] {0, 100}, new long[] {1024, 612}, new long[] {1, 1});
            stream.download(windowOnDevice, windowBack);
            stream.synchronize();
            assertArrayEquals(TensorElements.of(window).toFloatArray(), TensorElements.of(windowBack).toFloatArray());
            start.close();
            end.close();
        }
    }
}
