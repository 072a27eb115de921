package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.CudaFunctions;
import dev.tensorbuf.interop.internal.RestrictedNative;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A CUDA function table whose "device memory" is host memory, so every path of
 * {@link CudaRuntime} runs without a GPU: calls are recorded, and any call can be made to fail.
 */
final class FakeCuda implements CudaFunctions {
    final List<String> calls = new ArrayList<>();
    final Map<String, Integer> failures = new HashMap<>();
    int devices = 1;
    private final Arena memory = Arena.ofShared();

    private int call(String name) {
        calls.add(name);
        return failures.getOrDefault(name, 0);
    }

    long count(String name) {
        return calls.stream().filter(name::equals).count();
    }

    @Override
    public String source() {
        return "fake";
    }

    @Override
    public int cudaGetDeviceCount(int[] count) {
        count[0] = devices;
        return call("cudaGetDeviceCount");
    }

    @Override
    public int cudaSetDevice(int device) {
        return call("cudaSetDevice");
    }

    private int allocate(String name, long[] pointer, long size) {
        int err = call(name);
        if (err == 0) {
            pointer[0] = memory.allocate(Math.max(size, 1), 256).address();
        }
        return err;
    }

    @Override
    public int cudaMalloc(long[] pointer, long size) {
        return allocate("cudaMalloc", pointer, size);
    }

    @Override
    public int cudaFree(long pointer) {
        return call("cudaFree");
    }

    @Override
    public int cudaMallocHost(long[] pointer, long size) {
        return allocate("cudaMallocHost", pointer, size);
    }

    @Override
    public int cudaFreeHost(long pointer) {
        return call("cudaFreeHost");
    }

    private static MemorySegment at(long address, long bytes) {
        return RestrictedNative.segment(address, bytes, Arena.global());
    }

    @Override
    public int cudaMemcpy(long dst, long src, long count, int kind) {
        int err = call("cudaMemcpy");
        if (err == 0) {
            MemorySegment.copy(at(src, count), 0, at(dst, count), 0, count);
        }
        return err;
    }

    @Override
    public int cudaMemcpy2D(long dst, long dpitch, long src, long spitch, long width, long height, int kind) {
        int err = call("cudaMemcpy2D");
        if (err == 0) {
            for (long r = 0; r < height; r++) {
                MemorySegment.copy(at(src + r * spitch, width), 0, at(dst + r * dpitch, width), 0, width);
            }
        }
        return err;
    }

    @Override
    public int cudaStreamCreate(long[] stream) {
        stream[0] = 0x5000;
        return call("cudaStreamCreate");
    }

    @Override
    public int cudaStreamSynchronize(long stream) {
        return call("cudaStreamSynchronize");
    }

    @Override
    public int cudaStreamDestroy(long stream) {
        return call("cudaStreamDestroy");
    }

    @Override
    public String cudaGetErrorString(int error) {
        return switch (error) {
            case 2 -> "out of memory";
            case 100 -> "no CUDA-capable device is detected";
            case 400 -> "invalid resource handle";
            default -> "unknown error";
        };
    }

    @Override
    public String cudaGetErrorName(int error) {
        return switch (error) {
            case 2 -> "cudaErrorMemoryAllocation";
            case 100 -> "cudaErrorNoDevice";
            case 400 -> "cudaErrorInvalidResourceHandle";
            default -> "cudaErrorUnknown";
        };
    }
}
