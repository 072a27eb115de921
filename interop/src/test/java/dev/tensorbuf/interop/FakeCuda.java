package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.CudaFunctions;
import dev.tensorbuf.interop.internal.RestrictedNative;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A CUDA function table whose "device memory" is host memory, so every path of
 * {@link CudaRuntime} runs without a GPU: calls are recorded, and any call can be made to fail.
 *
 * <p>Streams are real queues: each has its own thread, which runs its copies and event records in
 * order, after the call that queued them has returned, as a GPU's copy engine would.
 * {@link #hold()} stops every stream before its next operation until {@link #release()}, so a test
 * can look at the state while copies are queued but not done. The synchronous {@code cudaMemcpy}
 * first waits for every stream, as the legacy default stream does for blocking streams.
 */
final class FakeCuda implements CudaFunctions {
    /** {@code cudaErrorInvalidResourceHandle}: a stream or event this runtime did not make, or destroyed. */
    static final int INVALID_HANDLE = 400;

    final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    final Map<String, Integer> failures = new HashMap<>();
    int devices = 1;
    /** When set, every asynchronous copy flips the first byte it writes: a fault the harness must catch. */
    volatile boolean corruptAsyncCopies;
    private final Arena memory = Arena.ofShared();
    private final Map<Long, ExecutorService> streams = new ConcurrentHashMap<>();
    private final Map<Long, Event> events = new ConcurrentHashMap<>();
    private final AtomicLong nextStream = new AtomicLong(0x5000);
    private final AtomicLong nextEvent = new AtomicLong(0xE000);
    private volatile CountDownLatch gate = new CountDownLatch(0);

    /** An event: not recorded yet ({@code recorded == null}), or the time its stream reached it. */
    private static final class Event {
        volatile CompletableFuture<Long> recorded;
    }

    private int call(String name) {
        calls.add(name);
        return failures.getOrDefault(name, 0);
    }

    long count(String name) {
        synchronized (calls) {
            return calls.stream().filter(name::equals).count();
        }
    }

    /** Stops every stream before its next operation, until {@link #release()}. */
    void hold() {
        gate = new CountDownLatch(1);
    }

    void release() {
        gate.countDown();
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

    private static void copy2D(long dst, long dpitch, long src, long spitch, long width, long height) {
        for (long r = 0; r < height; r++) {
            MemorySegment.copy(at(src + r * spitch, width), 0, at(dst + r * dpitch, width), 0, width);
        }
    }

    @Override
    public int cudaMemcpy(long dst, long src, long count, int kind) {
        int err = call("cudaMemcpy");
        if (err == 0) {
            for (long s : streams.keySet()) {
                drain(s);
            }
            MemorySegment.copy(at(src, count), 0, at(dst, count), 0, count);
        }
        return err;
    }

    @Override
    public int cudaMemcpy2D(long dst, long dpitch, long src, long spitch, long width, long height, int kind) {
        int err = call("cudaMemcpy2D");
        if (err == 0) {
            for (long s : streams.keySet()) {
                drain(s);
            }
            copy2D(dst, dpitch, src, spitch, width, height);
        }
        return err;
    }

    /** Queues work on a stream's thread, behind the gate; false for a stream this fake does not know. */
    private boolean enqueue(long stream, Runnable work) {
        ExecutorService s = streams.get(stream);
        if (s == null) {
            return false;
        }
        CountDownLatch g = gate;
        s.execute(() -> {
            try {
                g.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            work.run();
        });
        return true;
    }

    private void corrupt(long dst, long bytes) {
        if (corruptAsyncCopies && bytes > 0) {
            MemorySegment d = at(dst, 1);
            d.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) ~d.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
        }
    }

    @Override
    public int cudaMemcpyAsync(long dst, long src, long count, int kind, long stream) {
        int err = call("cudaMemcpyAsync");
        if (err != 0) {
            return err;
        }
        return enqueue(stream, () -> {
            MemorySegment.copy(at(src, count), 0, at(dst, count), 0, count);
            corrupt(dst, count);
        }) ? 0 : INVALID_HANDLE;
    }

    @Override
    public int cudaMemcpy2DAsync(long dst, long dpitch, long src, long spitch, long width, long height, int kind, long stream) {
        int err = call("cudaMemcpy2DAsync");
        if (err != 0) {
            return err;
        }
        return enqueue(stream, () -> {
            copy2D(dst, dpitch, src, spitch, width, height);
            corrupt(dst, width * height);
        }) ? 0 : INVALID_HANDLE;
    }

    @Override
    public int cudaStreamCreate(long[] stream) {
        int err = call("cudaStreamCreate");
        if (err == 0) {
            long handle = nextStream.getAndIncrement();
            streams.put(handle, Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "fake CUDA stream 0x" + Long.toHexString(handle));
                t.setDaemon(true);
                return t;
            }));
            stream[0] = handle;
        }
        return err;
    }

    /** Waits for everything queued on the stream so far; false for an unknown stream. */
    private boolean drain(long stream) {
        ExecutorService s = streams.get(stream);
        if (s == null) {
            return false;
        }
        try {
            Future<?> marker = s.submit(() -> { });
            marker.get();
            return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for fake stream 0x" + Long.toHexString(stream), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public int cudaStreamSynchronize(long stream) {
        int err = call("cudaStreamSynchronize");
        if (err != 0) {
            return err;
        }
        return drain(stream) ? 0 : INVALID_HANDLE;
    }

    @Override
    public int cudaStreamDestroy(long stream) {
        int err = call("cudaStreamDestroy");
        if (err != 0) {
            return err;
        }
        ExecutorService s = streams.remove(stream);
        if (s == null) {
            return INVALID_HANDLE;
        }
        s.shutdown();   // as CUDA: queued work still runs
        return 0;
    }

    @Override
    public int cudaEventCreate(long[] event) {
        int err = call("cudaEventCreate");
        if (err == 0) {
            long handle = nextEvent.getAndIncrement();
            events.put(handle, new Event());
            event[0] = handle;
        }
        return err;
    }

    @Override
    public int cudaEventRecord(long event, long stream) {
        int err = call("cudaEventRecord");
        if (err != 0) {
            return err;
        }
        Event e = events.get(event);
        if (e == null || !streams.containsKey(stream)) {
            return INVALID_HANDLE;
        }
        CompletableFuture<Long> recorded = new CompletableFuture<>();
        e.recorded = recorded;
        return enqueue(stream, () -> recorded.complete(System.nanoTime())) ? 0 : INVALID_HANDLE;
    }

    @Override
    public int cudaEventQuery(long event) {
        int err = call("cudaEventQuery");
        if (err != 0) {
            return err;
        }
        Event e = events.get(event);
        if (e == null) {
            return INVALID_HANDLE;
        }
        // As CUDA: an event never recorded counts as complete.
        return e.recorded == null || e.recorded.isDone() ? 0 : NOT_READY;
    }

    @Override
    public int cudaEventSynchronize(long event) {
        int err = call("cudaEventSynchronize");
        if (err != 0) {
            return err;
        }
        Event e = events.get(event);
        if (e == null) {
            return INVALID_HANDLE;
        }
        if (e.recorded != null) {
            e.recorded.join();
        }
        return 0;
    }

    @Override
    public int cudaEventElapsedTime(float[] milliseconds, long start, long end) {
        int err = call("cudaEventElapsedTime");
        if (err != 0) {
            return err;
        }
        Event a = events.get(start);
        Event b = events.get(end);
        if (a == null || b == null || a.recorded == null || b.recorded == null) {
            return INVALID_HANDLE;
        }
        if (!a.recorded.isDone() || !b.recorded.isDone()) {
            return NOT_READY;
        }
        milliseconds[0] = (b.recorded.join() - a.recorded.join()) / 1e6f;
        return 0;
    }

    @Override
    public int cudaEventDestroy(long event) {
        int err = call("cudaEventDestroy");
        if (err != 0) {
            return err;
        }
        return events.remove(event) == null ? INVALID_HANDLE : 0;
    }

    @Override
    public String cudaGetErrorString(int error) {
        return switch (error) {
            case 2 -> "out of memory";
            case 100 -> "no CUDA-capable device is detected";
            case 400 -> "invalid resource handle";
            case 600 -> "device not ready";
            default -> "unknown error";
        };
    }

    @Override
    public String cudaGetErrorName(int error) {
        return switch (error) {
            case 2 -> "cudaErrorMemoryAllocation";
            case 100 -> "cudaErrorNoDevice";
            case 400 -> "cudaErrorInvalidResourceHandle";
            case 600 -> "cudaErrorNotReady";
            default -> "cudaErrorUnknown";
        };
    }
}
