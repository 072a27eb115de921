package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.CudaFunctions;
import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.HostCopies;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayDeque;
import java.util.Objects;

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
 * event recorded after it that {@linkplain CudaEvent#synchronize() was waited for} or
 * {@linkplain CudaEvent#isComplete() found complete}. Closing such a buffer meanwhile frees it only
 * then, and its allocator refuses to close, so the DMA engine never writes into freed memory.
 * {@snippet :
 * try (CudaStream s = cuda.createStream();
 *      MemoryBuffer pinned = cuda.mallocHost(4 * 6)) {
 *     TensorView host = TensorView.of(pinned, "f32[2,3]{1,0}");
 *     TensorElements.of(host).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
 *     TensorView onGpu = TensorView.of(cuda.malloc(0, 4 * 6), "f32[2,3]{1,0}");
 *     s.upload(host, onGpu);         // returns at once: cudaMemcpyAsync on s
 *     CudaEvent uploaded = s.record();
 *     // ... stage the next batch into another pinned buffer here ...
 *     uploaded.synchronize();        // host may now overwrite `pinned`
 *     uploaded.close();
 * }   // close waits for the stream, then destroys it
 * }
 */
public final class CudaStream implements AutoCloseable {
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
