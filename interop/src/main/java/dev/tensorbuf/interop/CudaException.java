package dev.tensorbuf.interop;

/**
 * A CUDA runtime call returned an error: the call, the {@code cudaError_t} code, its name and the
 * runtime's own text.
 * {@snippet :
 * // cudaMalloc of 1 TiB on a 80 GB GPU:
 * e.getMessage(); // "cudaMalloc(1099511627776 bytes) on device 0 failed: cudaErrorMemoryAllocation (2): out of memory"
 * e.code();       // 2
 * }
 */
public final class CudaException extends IllegalStateException {
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
