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
import java.util.ArrayDeque;

/**
 * The CUDA runtime ({@code libcudart}) through FFM, when it is installed: device and pinned host
 * memory as {@link MemoryBuffer}s, plain and 2-D copies, streams, and upload and download of views with
 * any layout conversion done on the host (a view that is neither packed nor row-pitched is copied
 * into a packed host buffer first, then moved in one {@code cudaMemcpy}). These calls return when
 * the copy is done; {@link CudaRuntime.CudaStream} queues copies of pinned memory asynchronously, and
 * {@link CudaRuntime.CudaEvent} tells when they are done.
 *
 * <p>Nothing is loaded until {@link #probe()}; without the library or a device the result says why
 * instead of throwing. Device buffers live in {@link MemorySpace#DEVICE} with the device's ordinal
 * and are freed with {@code cudaFree} on close; pinned host buffers in {@link MemorySpace#PINNED_HOST},
 * freed with {@code cudaFreeHost}. Every failing call throws {@link CudaRuntime.CudaException} naming the call,
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

    /** Throws the {@link CudaRuntime.CudaException} for a non-zero {@code cudaError_t}. */
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

    /**
     * A CUDA runtime call returned an error: the call, the {@code cudaError_t} code, its name and the
     * runtime's own text.
     * {@snippet :
     * // cudaMalloc of 1 TiB on a 80 GB GPU:
     * e.getMessage(); // "cudaMalloc(1099511627776 bytes) on device 0 failed: cudaErrorMemoryAllocation (2): out of memory"
     * e.code();       // 2
     * }
     */
    public static final class CudaException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        private final int code;
        private final String errorName;

        /**
         * @param call the call with its arguments, e.g. {@code "cudaMalloc(1024 bytes) on device 0"}
         * @param code the {@code cudaError_t} value
         * @param errorName {@code cudaGetErrorName} of the code
         * @param errorString {@code cudaGetErrorString} of the code
         */
        public CudaException(String call, int code, String errorName, String errorString) {
            super(call + " failed: " + errorName + " (" + code + "): " + errorString);
            this.code = code;
            this.errorName = errorName;
        }

        /** {@return the {@code cudaError_t} value} */
        public int code() {
            return code;
        }

        /** {@return the error's enumerator name, e.g. {@code "cudaErrorMemoryAllocation"}} */
        public String errorName() {
            return errorName;
        }
    }

    /**
     * A CUDA event ({@code cudaEvent_t}) recorded on a {@link CudaRuntime.CudaStream} by {@link CudaRuntime.CudaStream#record()}:
     * it completes when every copy queued on the stream before it has. Waiting for one lets a double
     * buffer reuse the host buffer of batch {@code k} while batch {@code k + 1} still moves, which a
     * {@link CudaRuntime.CudaStream#synchronize()} (waiting for both) would not.
     * {@snippet :
     * CudaRuntime.CudaEvent start = stream.record();
     * stream.upload(pinnedBatch, deviceBatch);   // 38.5 MB
     * CudaRuntime.CudaEvent end = stream.record();
     * end.synchronize();
     * end.millisSince(start);                    // e.g. 0.72: the upload's time on the GPU, about 53 GB/s
     * }
     */
    public static final class CudaEvent implements AutoCloseable {
        private final CudaRuntime runtime;
        private final CudaFunctions cuda;
        private final long handle;
        private final CudaStream stream;
        /** The stream's count of queued copies when this was recorded: complete means past those. */
        private final long copies;
        private boolean closed;

        CudaEvent(CudaRuntime runtime, CudaFunctions cuda, long handle, CudaStream stream, long copies) {
            this.runtime = runtime;
            this.cuda = cuda;
            this.handle = handle;
            this.stream = stream;
            this.copies = copies;
        }

        /** {@return the {@code cudaEvent_t} value} */
        public long handle() {
            return handle;
        }

        private String name() {
            return "CUDA event 0x" + Long.toHexString(handle);
        }

        private synchronized void requireOpen() {
            if (closed) {
                throw Errors.closed(name());
            }
        }

        /**
         * {@return whether the work before the event has finished ({@code cudaEventQuery}), without waiting}
         *
         * @throws IllegalStateException if the event is closed
         * @throws CudaException if the runtime reports an error other than "not ready"
         */
        public boolean isComplete() {
            requireOpen();
            int error = cuda.cudaEventQuery(handle);
            if (error == CudaFunctions.NOT_READY) {
                return false;
            }
            runtime.check(error, "cudaEventQuery(0x" + Long.toHexString(handle) + ")");
            stream.release(copies);
            return true;
        }

        /**
         * Waits until the work before the event has finished ({@code cudaEventSynchronize}); the
         * buffers of the copies before it may then be reused or closed.
         *
         * @throws IllegalStateException if the event is closed
         * @throws CudaException if the runtime reports an error
         */
        public void synchronize() {
            requireOpen();
            runtime.check(cuda.cudaEventSynchronize(handle), "cudaEventSynchronize(0x" + Long.toHexString(handle) + ")");
            stream.release(copies);
        }

        /**
         * {@return the milliseconds the GPU took from {@code start} to this event ({@code cudaEventElapsedTime}),
         * both complete; resolution about half a microsecond}
         *
         * @throws IllegalStateException if either event is closed
         * @throws CudaException if either is not complete ({@code cudaErrorNotReady}) or the runtime refuses
         */
        public double millisSince(CudaEvent start) {
            Objects.requireNonNull(start, "start");
            requireOpen();
            start.requireOpen();
            float[] ms = new float[1];
            runtime.check(cuda.cudaEventElapsedTime(ms, start.handle, handle),
                    "cudaEventElapsedTime(0x" + Long.toHexString(start.handle) + ", 0x" + Long.toHexString(handle) + ")");
            return ms[0];
        }

        /** Destroys the event; later calls do nothing. @throws CudaException if the runtime reports an error */
        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            runtime.check(cuda.cudaEventDestroy(handle), "cudaEventDestroy(0x" + Long.toHexString(handle) + ")");
        }
    }

    /**
     * A CUDA stream ({@code cudaStream_t}): copies queued on it run in order, asynchronously to the
     * host and to other streams, so the host can prepare the next batch while this one moves.
     *
     * <p><b>Pinned memory only.</b> The asynchronous copies ({@link #memcpyAsync}, {@link #upload},
     * {@link #download}) refuse pageable host memory with an {@link IllegalArgumentException}: CUDA
     * copies pageable memory through a bounce buffer of its own and, for device to host, returns only
     * when the copy is done, so the call would quietly serialize what the caller meant to overlap. Use
     * {@link CudaRuntime#mallocHost} memory, or the synchronous {@link CudaRuntime#memcpy}. For the
     * same reason a view whose layout needs converting on the host (neither packed nor row-pitched) is
     * refused: stage it into a packed pinned buffer with the copy engine first, then upload that.
     *
     * <p><b>Lifetimes.</b> Each buffer a queued copy reads or writes is {@linkplain MemoryBuffer#lend() lent}
     * until the stream is known to be past that copy: {@link #synchronize()}, {@link #close()}, or an
     * event recorded after it that {@linkplain CudaRuntime.CudaEvent#synchronize() was waited for} or
     * {@linkplain CudaRuntime.CudaEvent#isComplete() found complete}. Closing such a buffer meanwhile frees it only
     * then, and its allocator refuses to close, so the DMA engine never writes into freed memory.
     * {@snippet :
     * try (CudaRuntime.CudaStream s = cuda.createStream();
     *      MemoryBuffer pinned = cuda.mallocHost(4 * 6)) {
     *     TensorView host = TensorView.of(pinned, "f32[2,3]{1,0}");
     *     host.copyFrom(new float[] {0, 1, 2, 3, 4, 5});
     *     TensorView onGpu = TensorView.of(cuda.malloc(0, 4 * 6), "f32[2,3]{1,0}");
     *     s.upload(host, onGpu);         // returns at once: cudaMemcpyAsync on s
     *     CudaRuntime.CudaEvent uploaded = s.record();
     *     // ... stage the next batch into another pinned buffer here ...
     *     uploaded.synchronize();        // host may now overwrite `pinned`
     *     uploaded.close();
     * }   // close waits for the stream, then destroys it
     * }
     */
    public static final class CudaStream implements AutoCloseable {
        private final CudaRuntime runtime;
        private final CudaFunctions cuda;
        private final long handle;
        /** Buffers lent to queued copies, oldest first; guarded by {@code this}. */
        private final ArrayDeque<Loan> loans = new ArrayDeque<>();
        /** How many copies have been queued; an event remembers the count at its record. Guarded by {@code this}. */
        private long queued;
        private boolean closed;

        private record Loan(long copy, MemoryBuffer.Hold hold) {
        }

        CudaStream(CudaRuntime runtime, CudaFunctions cuda, long handle) {
            this.runtime = runtime;
            this.cuda = cuda;
            this.handle = handle;
        }

        /** {@return the {@code cudaStream_t} value, to reach other native code (a kernel launch, a library call) through FFM} */
        public long handle() {
            return handle;
        }

        private String name() {
            return "CUDA stream 0x" + Long.toHexString(handle);
        }

        private synchronized void requireOpen() {
            if (closed) {
                throw Errors.closed(name());
            }
        }

        /**
         * Queues a copy of {@code bytes} from {@code src} at {@code srcOffset} to {@code dst} at
         * {@code dstOffset} ({@code cudaMemcpyAsync}), the direction taken from the memory spaces, and
         * returns without waiting for it.
         *
         * @throws IllegalArgumentException if {@code bytes < 0}, or a host side is not pinned
         * @throws IndexOutOfBoundsException if a range leaves its buffer
         * @throws IllegalStateException if the stream or a buffer is closed
         * @throws CudaException if the runtime refuses
         */
        public void memcpyAsync(MemoryBuffer dst, long dstOffset, MemoryBuffer src, long srcOffset, long bytes) {
            Objects.requireNonNull(dst, "dst");
            Objects.requireNonNull(src, "src");
            if (bytes < 0) {
                throw new IllegalArgumentException("cudaMemcpyAsync of " + bytes + " bytes: bytes must be >= 0");
            }
            MemoryBuffer to = dst.slice(dstOffset, bytes);
            MemoryBuffer from = src.slice(srcOffset, bytes);
            requirePinned("cudaMemcpyAsync from", src);
            requirePinned("cudaMemcpyAsync into", dst);
            int kind = CudaRuntime.kind(src, dst);
            enqueue(to, from, () -> cuda.cudaMemcpyAsync(to.address(), from.address(), bytes, kind, handle),
                    () -> "cudaMemcpyAsync(" + bytes + " bytes, kind " + kind + ") on " + name());
        }

        private void memcpy2DAsync(MemoryBuffer dst, long dstOffset, long dstPitch, MemoryBuffer src, long srcOffset, long srcPitch,
                long widthBytes, long height) {
            MemoryBuffer to = dst.slice(dstOffset, span(height, dstPitch, widthBytes));
            MemoryBuffer from = src.slice(srcOffset, span(height, srcPitch, widthBytes));
            requirePinned("cudaMemcpy2DAsync from", src);
            requirePinned("cudaMemcpy2DAsync into", dst);
            int kind = CudaRuntime.kind(src, dst);
            enqueue(to, from, () -> cuda.cudaMemcpy2DAsync(to.address(), dstPitch, from.address(), srcPitch, widthBytes, height,
                    kind, handle), () -> "cudaMemcpy2DAsync(" + height + " rows of " + widthBytes + " bytes, pitches " + dstPitch
                    + "/" + srcPitch + ") on " + name());
        }

        private static long span(long rows, long pitch, long width) {
            return rows == 0 ? 0 : Math.addExact(Math.multiplyExact(rows - 1, pitch), width);
        }

        private interface Call {
            int run();
        }

        /** Lends both buffers, then queues the call; a refused call ends its loans at once. */
        private synchronized void enqueue(MemoryBuffer to, MemoryBuffer from, Call call, java.util.function.Supplier<String> what) {
            requireOpen();
            MemoryBuffer.Hold toLoan = to.lend();
            MemoryBuffer.Hold fromLoan;
            try {
                fromLoan = from.lend();
            } catch (RuntimeException e) {
                toLoan.close();
                throw e;
            }
            int error;
            try {
                error = call.run();
            } catch (RuntimeException | Error e) {
                toLoan.close();
                fromLoan.close();
                throw e;
            }
            if (error != 0) {
                toLoan.close();
                fromLoan.close();
                runtime.check(error, what.get());
            }
            queued++;
            loans.add(new Loan(queued, toLoan));
            loans.add(new Loan(queued, fromLoan));
        }

        private void requirePinned(String what, MemoryBuffer b) {
            MemorySpace space = b.memorySpace();
            if (space.hostAccessible() && space.kind() != MemorySpace.Kind.PINNED_HOST) {
                throw new IllegalArgumentException(what + " " + space.kind().description() + " (" + b.byteSize() + " bytes at 0x"
                        + Long.toHexString(b.address()) + ") on " + name() + ": CUDA copies pageable memory through a bounce"
                        + " buffer and would serialize the copy with the host; use pinned memory (CudaRuntime.mallocHost),"
                        + " or the synchronous CudaRuntime.memcpy");
            }
        }

        /**
         * Queues the upload of a pinned host view into a device view made as {@link CudaRuntime#upload}
         * makes one (packed row-major, same type and dims): one {@code cudaMemcpyAsync} for a packed
         * view, one {@code cudaMemcpy2DAsync} for a row-pitched one.
         *
         * @throws IllegalArgumentException if the host view is not in pinned memory, its layout needs
         *     a conversion on the host, the device view is not packed row-major, or the types or dims differ
         * @throws IllegalStateException if the stream or a buffer is closed
         * @throws CudaException if the runtime refuses
         */
        public void upload(TensorView host, TensorView device) {
            transfer("asynchronous upload", host, device, true);
        }

        /**
         * Queues the download of a device view made as {@link CudaRuntime#upload} makes one into a
         * pinned host view that is packed or row-pitched, with the same type and dims.
         *
         * @throws IllegalArgumentException as {@link #upload}
         * @throws IllegalStateException if the stream or a buffer is closed
         * @throws CudaException if the runtime refuses
         */
        public void download(TensorView device, TensorView host) {
            transfer("asynchronous download", host, device, false);
        }

        private void transfer(String what, TensorView host, TensorView device, boolean up) {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(device, "device");
            requireOpen();
            String subject = up ? what + " of " + host : what + " into " + host;
            if (!host.isHostAccessible()) {
                throw Errors.notHostAccessible(subject);
            }
            if (host.buffer().memorySpace().kind() != MemorySpace.Kind.PINNED_HOST) {
                throw new IllegalArgumentException(subject + ": its memory is " + host.buffer().memorySpace().kind().description()
                        + ", not pinned; CUDA would serialize the copy with the host (use CudaRuntime.mallocHost memory, or"
                        + " the synchronous CudaRuntime.upload and download)");
            }
            CudaRuntime.requirePackedRowMajor(up ? what + " into " + device : what + " of " + device, device);
            if (device.dtype() != host.dtype() || !device.dims().equals(host.dims())) {
                throw up ? Errors.typesOrDimsDiffer(what, host, device) : Errors.typesOrDimsDiffer(what, device, host);
            }
            if (!HostCopies.isDirect(host)) {
                throw new IllegalArgumentException(subject + ": its layout is neither packed row-major nor row-pitched, and"
                        + " converting it would need a host buffer alive until the copy ends; copy it into a packed pinned"
                        + " view first (CopyEngine), then transfer that");
            }
            HostCopies.transfer(host, device.buffer(), up, this::memcpyAsync, this::memcpy2DAsync);
        }

        /**
         * {@return a new event recorded on this stream: complete once every copy queued so far is}
         * Close it when done with it.
         *
         * @throws IllegalStateException if the stream is closed
         * @throws CudaException if the runtime refuses
         */
        public CudaEvent record() {
            long copies;
            synchronized (this) {
                requireOpen();
                copies = queued;
            }
            long[] e = new long[1];
            runtime.check(cuda.cudaEventCreate(e), "cudaEventCreate");
            CudaEvent event = new CudaEvent(runtime, cuda, e[0], this, copies);
            try {
                runtime.check(cuda.cudaEventRecord(e[0], handle), "cudaEventRecord(0x" + Long.toHexString(e[0]) + ") on " + name());
            } catch (RuntimeException x) {
                event.close();
                throw x;
            }
            return event;
        }

        /**
         * Waits until every operation queued on the stream has finished, and ends the loans of the
         * buffers they used.
         *
         * @throws IllegalStateException if the stream is closed
         * @throws CudaException if the runtime reports an error
         */
        public void synchronize() {
            long upTo;
            synchronized (this) {
                requireOpen();
                upTo = queued;
            }
            runtime.check(cuda.cudaStreamSynchronize(handle), "cudaStreamSynchronize(0x" + Long.toHexString(handle) + ")");
            release(upTo);
        }

        /** Ends the loans of the copies up to {@code copy}, which the stream is known to be past. */
        void release(long copy) {
            RuntimeException first = null;
            while (true) {
                Loan loan;
                synchronized (this) {
                    loan = loans.peekFirst();
                    if (loan == null || loan.copy() > copy) {
                        break;
                    }
                    loans.removeFirst();
                }
                try {
                    loan.hold().close();   // may run a deferred deleter: outside the lock
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }

        /**
         * Waits for the queued work (CUDA would let it run on after the destroy, but the buffers it
         * uses are lent until it ends), destroys the stream and ends every loan; later calls do nothing.
         *
         * @throws CudaException if the runtime reports an error; the loans end and the stream is destroyed anyway
         */
        @Override
        public void close() {
            long upTo;
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                upTo = queued;
            }
            try {
                runtime.check(cuda.cudaStreamSynchronize(handle), "cudaStreamSynchronize(0x" + Long.toHexString(handle) + ")");
            } finally {
                try {
                    runtime.check(cuda.cudaStreamDestroy(handle), "cudaStreamDestroy(0x" + Long.toHexString(handle) + ")");
                } finally {
                    release(upTo);
                }
            }
        }
    }
}
