package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.CudaFunctions;
import dev.tensorbuf.interop.internal.Errors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A CUDA stream ({@code cudaStream_t}), destroyed by its first {@link #close()}.
 * {@snippet :
 * try (CudaStream s = cuda.createStream()) {
 *     s.synchronize();   // waits for everything queued on s
 * }
 * }
 */
public final class CudaStream implements AutoCloseable {
    private final CudaRuntime runtime;
    private final CudaFunctions cuda;
    private final long handle;
    private final AtomicBoolean closed = new AtomicBoolean();

    CudaStream(CudaRuntime runtime, CudaFunctions cuda, long handle) {
        this.runtime = runtime;
        this.cuda = cuda;
        this.handle = handle;
    }

    /**
     * {@return the {@code cudaStream_t} value} No call here takes a stream yet, so this is how
     * one reaches other native code (a kernel launch, a library call) through FFM.
     */
    public long handle() {
        return handle;
    }

    /**
     * Waits until every operation queued on the stream has finished.
     *
     * @throws IllegalStateException if the stream is closed
     * @throws CudaException if the runtime reports an error
     */
    public void synchronize() {
        if (closed.get()) {
            throw Errors.closed("CUDA stream 0x" + Long.toHexString(handle));
        }
        runtime.check(cuda.cudaStreamSynchronize(handle), "cudaStreamSynchronize(0x" + Long.toHexString(handle) + ")");
    }

    /** Destroys the stream; later calls do nothing. @throws CudaException if the runtime reports an error */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            runtime.check(cuda.cudaStreamDestroy(handle), "cudaStreamDestroy(0x" + Long.toHexString(handle) + ")");
        }
    }
}
