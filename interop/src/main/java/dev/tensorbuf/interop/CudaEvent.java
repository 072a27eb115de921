package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.CudaFunctions;
import dev.tensorbuf.interop.internal.Errors;
import java.util.Objects;

/**
 * A CUDA event ({@code cudaEvent_t}) recorded on a {@link CudaStream} by {@link CudaStream#record()}:
 * it completes when every copy queued on the stream before it has. Waiting for one lets a double
 * buffer reuse the host buffer of batch {@code k} while batch {@code k + 1} still moves, which a
 * {@link CudaStream#synchronize()} (waiting for both) would not.
 * {@snippet :
 * CudaEvent start = stream.record();
 * stream.upload(pinnedBatch, deviceBatch);   // 38.5 MB
 * CudaEvent end = stream.record();
 * end.synchronize();
 * end.millisSince(start);                    // e.g. 0.72: the upload's time on the GPU, about 53 GB/s
 * }
 */
public final class CudaEvent implements AutoCloseable {
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
