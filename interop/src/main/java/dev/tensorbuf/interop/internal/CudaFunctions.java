package dev.tensorbuf.interop.internal;

/**
 * The CUDA runtime functions tensorbuf calls, one method per C function with the same name and
 * {@code cudaError_t} result; pointers are addresses, out-parameters one-element arrays. The real
 * table is {@link CudaBindings}; tests pass a fake one to reach every error path without a GPU.
 */
public interface CudaFunctions {
    /** {@code cudaMemcpyHostToDevice}. */
    int HOST_TO_DEVICE = 1;
    /** {@code cudaMemcpyDeviceToHost}. */
    int DEVICE_TO_HOST = 2;
    /** {@code cudaMemcpyDeviceToDevice}. */
    int DEVICE_TO_DEVICE = 3;
    /** {@code cudaMemcpyHostToHost}. */
    int HOST_TO_HOST = 0;
    /** {@code cudaErrorNotReady}: what {@code cudaEventQuery} returns while the work before the event runs. */
    int NOT_READY = 600;

    /** {@return the library the functions come from, for messages} */
    String source();

    int cudaGetDeviceCount(int[] count);

    int cudaSetDevice(int device);

    int cudaMalloc(long[] pointer, long size);

    int cudaFree(long pointer);

    int cudaMallocHost(long[] pointer, long size);

    int cudaFreeHost(long pointer);

    int cudaMemcpy(long dst, long src, long count, int kind);

    int cudaMemcpy2D(long dst, long dpitch, long src, long spitch, long width, long height, int kind);

    int cudaMemcpyAsync(long dst, long src, long count, int kind, long stream);

    int cudaMemcpy2DAsync(long dst, long dpitch, long src, long spitch, long width, long height, int kind, long stream);

    int cudaStreamCreate(long[] stream);

    int cudaStreamSynchronize(long stream);

    int cudaStreamDestroy(long stream);

    int cudaEventCreate(long[] event);

    int cudaEventRecord(long event, long stream);

    int cudaEventQuery(long event);

    int cudaEventSynchronize(long event);

    int cudaEventElapsedTime(float[] milliseconds, long start, long end);

    int cudaEventDestroy(long event);

    /** {@return the text of {@code cudaGetErrorString}} */
    String cudaGetErrorString(int error);

    /** {@return the enumerator name from {@code cudaGetErrorName}, e.g. {@code "cudaErrorMemoryAllocation"}} */
    String cudaGetErrorName(int error);
}
