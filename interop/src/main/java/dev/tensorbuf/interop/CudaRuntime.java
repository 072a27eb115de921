package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.CudaBindings;
import dev.tensorbuf.interop.internal.CudaFunctions;
import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.HostCopies;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The CUDA runtime ({@code libcudart}) through FFM, when it is installed: device and pinned host
 * memory as {@link MemoryBuffer}s, plain and 2-D copies, streams, and upload and download of views with
 * any layout conversion done on the host (a view that is neither packed nor row-pitched is copied
 * into a packed host buffer first, then moved in one {@code cudaMemcpy}). These calls return when
 * the copy is done; {@link CudaStream} queues copies of pinned memory asynchronously, and
 * {@link CudaEvent} tells when they are done.
 *
 * <p>Nothing is loaded until {@link #probe()}; without the library or a device the result says why
 * instead of throwing. Device buffers live in {@link MemorySpace#DEVICE} with the device's ordinal
 * and are freed with {@code cudaFree} on close; pinned host buffers in {@link MemorySpace#PINNED_HOST},
 * freed with {@code cudaFreeHost}. Every failing call throws {@link CudaException} naming the call,
 * the error code, its name and the runtime's text.
 * {@snippet :
 * CudaRuntime.Availability a = CudaRuntime.probe();
 * if (a.runtime().isEmpty()) {
 *     a.reason();   // e.g. "CUDA runtime not found: tried libcudart.so: ... cannot open shared object file ..."
 *     return;
 * }
 * CudaRuntime cuda = a.runtime().get();
 * try (Allocator arena = Allocators.confined()) {
 *     TensorView image = TensorView.of(arena.allocate(4 * 6), "f32[2,3]{0,1}");   // column-major
 *     TensorView onGpu = cuda.upload(image, 0);   // row-major f32[2,3] in device 0's memory
 *     TensorView back = TensorView.of(arena.allocate(4 * 6), "f32[2,3]{1,0}");
 *     cuda.download(onGpu, back);
 *     onGpu.buffer().close();                     // cudaFree
 * }
 * }
 */
public final class CudaRuntime {
    /** The library names tried, in order: the unversioned link, then the versioned sonames. */
    public static final List<String> LIBRARY_NAMES = List.of(
            "libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0");

    private static volatile Availability probed;

    private final CudaFunctions cuda;

    CudaRuntime(CudaFunctions cuda) {
        this.cuda = Objects.requireNonNull(cuda, "cuda");
    }

    /**
     * Whether the runtime can be used here.
     *
     * @param runtime the runtime, when the library loaded and reports at least one device
     * @param reason why there is none, or which library was loaded and how many devices it sees
     */
    public record Availability(Optional<CudaRuntime> runtime, String reason) {
        /** @throws NullPointerException for null parts */
        public Availability {
            Objects.requireNonNull(runtime, "runtime");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** {@return whether the library loads and sees a device, the reason otherwise; probed once per JVM} */
    public static Availability probe() {
        Availability a = probed;
        if (a == null) {
            a = probe(() -> CudaBindings.load(LIBRARY_NAMES));
            probed = a;
        }
        return a;
    }

    /** {@return the probe of a function table (the real one, or a test's)} */
    static Availability probe(Supplier<CudaFunctions> loader) {
        CudaFunctions functions;
        try {
            functions = loader.get();
        } catch (IllegalArgumentException e) {
            return new Availability(Optional.empty(), e.getMessage());
        }
        CudaRuntime runtime = new CudaRuntime(functions);
        int count;
        try {
            count = runtime.deviceCount();
        } catch (CudaException e) {
            return new Availability(Optional.empty(), functions.source() + " loaded, but " + e.getMessage());
        }
        if (count == 0) {
            return new Availability(Optional.empty(), functions.source() + " loaded, but it sees no CUDA device");
        }
        return new Availability(Optional.of(runtime), functions.source() + " loaded, " + count + " device(s)");
    }

    /** Throws the {@link CudaException} for a non-zero {@code cudaError_t}. */
    void check(int error, String call) {
        if (error != 0) {
            throw new CudaException(call, error, cuda.cudaGetErrorName(error), cuda.cudaGetErrorString(error));
        }
    }

    /** {@return the number of CUDA devices} @throws CudaException e.g. {@code cudaErrorNoDevice (100)} */
    public int deviceCount() {
        int[] count = new int[1];
        check(cuda.cudaGetDeviceCount(count), "cudaGetDeviceCount");
        return count[0];
    }

    /**
     * {@return {@code bytes} of device memory on {@code device}, freed with {@code cudaFree} on close}
     *
     * @throws IllegalArgumentException if {@code bytes < 0} or {@code device < 0}
     * @throws CudaException if the runtime refuses
     */
    public MemoryBuffer malloc(int device, long bytes) {
        if (bytes < 0 || device < 0) {
            throw new IllegalArgumentException("cudaMalloc of " + bytes + " bytes on device " + device
                    + ": bytes and device must be >= 0");
        }
        check(cuda.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        long[] p = new long[1];
        check(cuda.cudaMalloc(p, bytes), "cudaMalloc(" + bytes + " bytes) on device " + device);
        long address = p[0];
        return NativeMemory.wrap(address, bytes, MemorySpace.DEVICE.withDeviceOrdinal(device), "cuda",
                () -> check(cuda.cudaFree(address), "cudaFree(0x" + Long.toHexString(address) + ")"));
    }

    /**
     * {@return {@code bytes} of page-locked host memory, readable here, freed with
     * {@code cudaFreeHost} on close}
     *
     * @throws IllegalArgumentException if {@code bytes < 0}
     * @throws CudaException if the runtime refuses
     */
    public MemoryBuffer mallocHost(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("cudaMallocHost of " + bytes + " bytes: bytes must be >= 0");
        }
        long[] p = new long[1];
        check(cuda.cudaMallocHost(p, bytes), "cudaMallocHost(" + bytes + " bytes)");
        long address = p[0];
        return NativeMemory.wrap(address, bytes, MemorySpace.PINNED_HOST, "cuda",
                () -> check(cuda.cudaFreeHost(address), "cudaFreeHost(0x" + Long.toHexString(address) + ")"));
    }

    /**
     * Copies {@code bytes} from {@code src} at {@code srcOffset} to {@code dst} at {@code dstOffset},
     * the direction taken from the buffers' memory spaces.
     *
     * @throws IndexOutOfBoundsException if a range leaves its buffer
     * @throws CudaException if the runtime refuses
     */
    public void memcpy(MemoryBuffer dst, long dstOffset, MemoryBuffer src, long srcOffset, long bytes) {
        long to = dst.slice(dstOffset, bytes).address();
        long from = src.slice(srcOffset, bytes).address();
        int kind = kind(src, dst);
        check(cuda.cudaMemcpy(to, from, bytes, kind), "cudaMemcpy(" + bytes + " bytes, kind " + kind + ")");
    }

    /**
     * Copies {@code height} rows of {@code widthBytes} bytes between buffers whose rows start
     * {@code dstPitch} and {@code srcPitch} bytes apart ({@code cudaMemcpy2D}).
     *
     * @throws IllegalArgumentException if a pitch is below the width
     * @throws IndexOutOfBoundsException if the rows leave a buffer
     * @throws CudaException if the runtime refuses
     */
    public void memcpy2D(MemoryBuffer dst, long dstOffset, long dstPitch, MemoryBuffer src, long srcOffset, long srcPitch,
            long widthBytes, long height) {
        if (dstPitch < widthBytes || srcPitch < widthBytes) {
            throw new IllegalArgumentException("cudaMemcpy2D of rows of " + widthBytes + " bytes with pitches "
                    + dstPitch + " (dst) and " + srcPitch + " (src): a pitch must be at least the width");
        }
        long to = dst.slice(dstOffset, span(height, dstPitch, widthBytes)).address();
        long from = src.slice(srcOffset, span(height, srcPitch, widthBytes)).address();
        int kind = kind(src, dst);
        check(cuda.cudaMemcpy2D(to, dstPitch, from, srcPitch, widthBytes, height, kind),
                "cudaMemcpy2D(" + height + " rows of " + widthBytes + " bytes, pitches " + dstPitch + "/" + srcPitch + ")");
    }

    private static long span(long rows, long pitch, long width) {
        return rows == 0 ? 0 : Math.addExact(Math.multiplyExact(rows - 1, pitch), width);
    }

    static int kind(MemoryBuffer src, MemoryBuffer dst) {
        boolean fromHost = src.memorySpace().hostAccessible();
        boolean toHost = dst.memorySpace().hostAccessible();
        return fromHost ? (toHost ? CudaFunctions.HOST_TO_HOST : CudaFunctions.HOST_TO_DEVICE)
                : (toHost ? CudaFunctions.DEVICE_TO_HOST : CudaFunctions.DEVICE_TO_DEVICE);
    }

    /** {@return a new stream} @throws CudaException if the runtime refuses */
    public CudaStream createStream() {
        long[] s = new long[1];
        check(cuda.cudaStreamCreate(s), "cudaStreamCreate");
        return new CudaStream(this, cuda, s[0]);
    }

    /**
     * {@return a packed row-major copy of a host view in new device memory of {@code device}}
     * Packed views move in one {@code cudaMemcpy}, row-pitched ones in one {@code cudaMemcpy2D};
     * any other layout is first copied into a packed host buffer. Close the result's buffer to free it.
     *
     * @throws IllegalArgumentException if the view is not host-accessible
     * @throws CudaException if the runtime refuses
     */
    public TensorView upload(TensorView host, int device) {
        if (!host.isHostAccessible()) {
            throw Errors.notHostAccessible("upload of " + host);
        }
        ElementAccess access = HostCopies.packedAccess(host);
        long bytes = access.byteSize(host.elementCount());
        MemoryBuffer onDevice = malloc(device, bytes);
        try {
            HostCopies.transfer(host, onDevice, true, this::memcpy, this::memcpy2D);
        } catch (RuntimeException e) {
            onDevice.close();
            throw e;
        }
        return TensorView.strided(onDevice, access, HostCopies.rowMajor(host));
    }

    /**
     * Copies a packed row-major device view (as {@link #upload} makes) into a host view of any
     * layout with the same type and dims.
     *
     * @throws IllegalArgumentException if the device view is not packed row-major, or the types or dims differ
     * @throws CudaException if the runtime refuses
     */
    public void download(TensorView device, TensorView host) {
        if (!host.isHostAccessible()) {
            throw Errors.notHostAccessible("download into " + host);
        }
        requirePackedRowMajor("download of " + device, device);
        if (device.dtype() != host.dtype() || !device.dims().equals(host.dims())) {
            throw Errors.typesOrDimsDiffer("download", device, host);
        }
        HostCopies.transfer(host, device.buffer(), false, this::memcpy, this::memcpy2D);
    }

    /** Refuses a device-side view that is not packed row-major from its buffer's first byte. */
    static void requirePackedRowMajor(String what, TensorView device) {
        StridedLayout packed = HostCopies.rowMajor(device);
        if (!device.stridedLayout().map(l -> l.offset() == 0 && HostCopies.isRowMajor(l)).orElse(false)
                || !device.access().equals(HostCopies.packedAccess(device))) {
            throw new IllegalArgumentException(what + ": the device view must be packed row-major ("
                    + packed + "), as upload makes it");
        }
    }
}
