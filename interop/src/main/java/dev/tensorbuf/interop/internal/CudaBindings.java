package dev.tensorbuf.interop.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/** {@link CudaFunctions} over {@code libcudart} through FFM downcalls. */
public final class CudaBindings implements CudaFunctions {
    private static final ValueLayout.OfInt ERR = ValueLayout.JAVA_INT;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;
    private static final ValueLayout.OfLong SIZE = ValueLayout.JAVA_LONG;

    private final String source;
    private final MethodHandle getDeviceCount;
    private final MethodHandle setDevice;
    private final MethodHandle malloc;
    private final MethodHandle free;
    private final MethodHandle mallocHost;
    private final MethodHandle freeHost;
    private final MethodHandle memcpy;
    private final MethodHandle memcpy2D;
    private final MethodHandle memcpyAsync;
    private final MethodHandle memcpy2DAsync;
    private final MethodHandle streamCreate;
    private final MethodHandle streamSynchronize;
    private final MethodHandle streamDestroy;
    private final MethodHandle eventCreate;
    private final MethodHandle eventRecord;
    private final MethodHandle eventQuery;
    private final MethodHandle eventSynchronize;
    private final MethodHandle eventElapsedTime;
    private final MethodHandle eventDestroy;
    private final MethodHandle errorString;
    private final MethodHandle errorName;

    private CudaBindings(String source, SymbolLookup lib) {
        this.source = source;
        getDeviceCount = bind(lib, "cudaGetDeviceCount", FunctionDescriptor.of(ERR, PTR));
        setDevice = bind(lib, "cudaSetDevice", FunctionDescriptor.of(ERR, ValueLayout.JAVA_INT));
        malloc = bind(lib, "cudaMalloc", FunctionDescriptor.of(ERR, PTR, SIZE));
        free = bind(lib, "cudaFree", FunctionDescriptor.of(ERR, PTR));
        mallocHost = bind(lib, "cudaMallocHost", FunctionDescriptor.of(ERR, PTR, SIZE));
        freeHost = bind(lib, "cudaFreeHost", FunctionDescriptor.of(ERR, PTR));
        memcpy = bind(lib, "cudaMemcpy", FunctionDescriptor.of(ERR, PTR, PTR, SIZE, ValueLayout.JAVA_INT));
        memcpy2D = bind(lib, "cudaMemcpy2D", FunctionDescriptor.of(ERR, PTR, SIZE, PTR, SIZE, SIZE, SIZE, ValueLayout.JAVA_INT));
        memcpyAsync = bind(lib, "cudaMemcpyAsync", FunctionDescriptor.of(ERR, PTR, PTR, SIZE, ValueLayout.JAVA_INT, PTR));
        memcpy2DAsync = bind(lib, "cudaMemcpy2DAsync",
                FunctionDescriptor.of(ERR, PTR, SIZE, PTR, SIZE, SIZE, SIZE, ValueLayout.JAVA_INT, PTR));
        streamCreate = bind(lib, "cudaStreamCreate", FunctionDescriptor.of(ERR, PTR));
        streamSynchronize = bind(lib, "cudaStreamSynchronize", FunctionDescriptor.of(ERR, PTR));
        streamDestroy = bind(lib, "cudaStreamDestroy", FunctionDescriptor.of(ERR, PTR));
        eventCreate = bind(lib, "cudaEventCreate", FunctionDescriptor.of(ERR, PTR));
        eventRecord = bind(lib, "cudaEventRecord", FunctionDescriptor.of(ERR, PTR, PTR));
        eventQuery = bind(lib, "cudaEventQuery", FunctionDescriptor.of(ERR, PTR));
        eventSynchronize = bind(lib, "cudaEventSynchronize", FunctionDescriptor.of(ERR, PTR));
        eventElapsedTime = bind(lib, "cudaEventElapsedTime", FunctionDescriptor.of(ERR, PTR, PTR, PTR));
        eventDestroy = bind(lib, "cudaEventDestroy", FunctionDescriptor.of(ERR, PTR));
        errorString = bind(lib, "cudaGetErrorString", FunctionDescriptor.of(PTR, ValueLayout.JAVA_INT));
        errorName = bind(lib, "cudaGetErrorName", FunctionDescriptor.of(PTR, ValueLayout.JAVA_INT));
    }

    /**
     * {@return the bindings of the first library of {@code names} that loads and has every function}
     *
     * @throws IllegalArgumentException listing each name tried and why it failed
     */
    public static CudaBindings load(List<String> names) {
        List<String> failures = new ArrayList<>();
        for (String name : names) {
            try {
                return new CudaBindings(name, RestrictedNative.library(name, Arena.global()));
            } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
                failures.add(name + ": " + e.getMessage());
            }
        }
        throw new IllegalArgumentException("CUDA runtime not found: tried " + String.join("; ", failures));
    }

    private static MethodHandle bind(SymbolLookup lib, String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = lib.find(name).orElseThrow(() -> new IllegalArgumentException("no symbol " + name));
        return RestrictedNative.downcall(symbol, descriptor);
    }

    @Override
    public String source() {
        return source;
    }

    private static MemorySegment at(long address) {
        return MemorySegment.ofAddress(address);
    }

    private static RuntimeException failed(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return t instanceof RuntimeException r ? r : new IllegalStateException("CUDA call failed", t);
    }

    @Override
    public int cudaGetDeviceCount(int[] count) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_INT);
            int err = (int) getDeviceCount.invokeExact(out);
            count[0] = out.get(ValueLayout.JAVA_INT, 0);
            return err;
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cudaSetDevice(int device) {
        try {
            return (int) setDevice.invokeExact(device);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    private static int allocate(MethodHandle h, long[] pointer, long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int err = (int) h.invokeExact(out, size);
            pointer[0] = out.get(ValueLayout.ADDRESS, 0).address();
            return err;
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    private static int onPointer(MethodHandle h, long pointer) {
        try {
            return (int) h.invokeExact(at(pointer));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cudaMalloc(long[] pointer, long size) {
        return allocate(malloc, pointer, size);
    }

    @Override
    public int cudaFree(long pointer) {
        return onPointer(free, pointer);
    }

    @Override
    public int cudaMallocHost(long[] pointer, long size) {
        return allocate(mallocHost, pointer, size);
    }

    @Override
    public int cudaFreeHost(long pointer) {
        return onPointer(freeHost, pointer);
    }

    @Override
    public int cudaMemcpy(long dst, long src, long count, int kind) {
        try {
            return (int) memcpy.invokeExact(at(dst), at(src), count, kind);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cudaMemcpy2D(long dst, long dpitch, long src, long spitch, long width, long height, int kind) {
        try {
            return (int) memcpy2D.invokeExact(at(dst), dpitch, at(src), spitch, width, height, kind);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cudaMemcpyAsync(long dst, long src, long count, int kind, long stream) {
        try {
            return (int) memcpyAsync.invokeExact(at(dst), at(src), count, kind, at(stream));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cudaMemcpy2DAsync(long dst, long dpitch, long src, long spitch, long width, long height, int kind, long stream) {
        try {
            return (int) memcpy2DAsync.invokeExact(at(dst), dpitch, at(src), spitch, width, height, kind, at(stream));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    /** Calls {@code h(T* out)} for an opaque handle ({@code cudaStream_t}, {@code cudaEvent_t}). */
    private static int create(MethodHandle h, long[] handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int err = (int) h.invokeExact(out);
            handle[0] = out.get(ValueLayout.ADDRESS, 0).address();
            return err;
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cudaStreamCreate(long[] stream) {
        return create(streamCreate, stream);
    }

    @Override
    public int cudaStreamSynchronize(long stream) {
        return onPointer(streamSynchronize, stream);
    }

    @Override
    public int cudaStreamDestroy(long stream) {
        return onPointer(streamDestroy, stream);
    }

    @Override
    public int cudaEventCreate(long[] event) {
        return create(eventCreate, event);
    }

    @Override
    public int cudaEventRecord(long event, long stream) {
        try {
            return (int) eventRecord.invokeExact(at(event), at(stream));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cudaEventQuery(long event) {
        return onPointer(eventQuery, event);
    }

    @Override
    public int cudaEventSynchronize(long event) {
        return onPointer(eventSynchronize, event);
    }

    @Override
    public int cudaEventElapsedTime(float[] milliseconds, long start, long end) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_FLOAT);
            int err = (int) eventElapsedTime.invokeExact(out, at(start), at(end));
            milliseconds[0] = out.get(ValueLayout.JAVA_FLOAT, 0);
            return err;
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int cudaEventDestroy(long event) {
        return onPointer(eventDestroy, event);
    }

    private static String text(MethodHandle h, int error) {
        try {
            MemorySegment p = (MemorySegment) h.invokeExact(error);
            return p.address() == 0 ? "?" : RestrictedNative.resize(p, Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public String cudaGetErrorString(int error) {
        return text(errorString, error);
    }

    @Override
    public String cudaGetErrorName(int error) {
        return text(errorName, error);
    }
}
