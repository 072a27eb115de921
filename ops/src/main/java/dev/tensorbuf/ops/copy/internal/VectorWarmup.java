package dev.tensorbuf.ops.copy.internal;


import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Keeps each kernel on its scalar version until its vector version is compiled, and compiles it
 * off the caller's thread, on the work the caller asked for. Before C2 has compiled it a Vector
 * API kernel is many times slower than scalar code (every vector is an object in the interpreter
 * and C1): in a fresh JVM the README's staging (u8 NHWC [8,224,224,3] to f32 NCHW) took 856 ms
 * on its first call against 56 ms for a plain loop.
 *
 * <p>The first step of a kernel (with vector kernels on and {@link ScalarFirst} letting them run)
 * runs scalar, and its loop nest (the first of the pieces it is split into for threads, if it is)
 * goes to one daemon thread, {@code tensorbuf-copy-warmup}. That thread, once the caller's copy
 * has returned, copies the nest's source bytes into memory of its own (zeros where it cannot read
 * them: a confined arena's), runs the vector kernel on that copy again and again, timing it
 * against the scalar kernel on the same copy; when three vector runs in a row are as fast as the
 * best scalar run (or after {@link #MAX_WARMUP_NANOS}), the kernel's later steps run vector.
 * Warming on the caller's own loops matters: a warm-up on a small copy of the shape, tried
 * before, let C2 compile the NCHW -> NHWC transpose for the small loop counts and it ran 10%
 * slower for good (bench/RESULTS.md, "First copies"). Nests reaching more than
 * {@link #MAX_BYTES} bytes on a side are cut, outer loops first, so the inner loops the kernels'
 * code is about mostly stay whole; a nest that cannot be cut small enough (planes far apart, a
 * few elements far apart) is not warmed, and its kernel runs vector from its next step.
 * {@code CopyEngine.Config.warmup()} false ({@code -Dtensorbuf.copy.warmup=false}) turns this off:
 * vector from the first step, as before.
 */
final class VectorWarmup {
    /** The one warm-up of the JVM, as JIT state is the JVM's; engines whose {@code Config.warmup()} is off use {@link #OFF}. */
    static final VectorWarmup SHARED = new VectorWarmup(true);
    /** Does nothing: every kernel is warm (the executors the tests build with a given {@link ScalarFirst}). */
    static final VectorWarmup OFF = new VectorWarmup(false);
    /** The most bytes a warm-up copy reaches on either side. */
    static final long MAX_BYTES = 16L << 20;
    /** A kernel whose vector version never catches up with its scalar one runs vector after this anyway. */
    static final long MAX_WARMUP_NANOS = 10_000_000_000L;
    /**
     * Batches of a kernel's scalar version that run on the caller's thread alone while its vector
     * version warms: by then C2 has compiled the scalar loops, and later batches are split across
     * the engine's threads as warm ones are ({@link #onCallerAlone}).
     */
    static final int CALLER_BATCHES = 2;
    private static final int COLD = 0;
    private static final int WARMING = 1;
    private static final int WARM = 2;

    private final boolean enabled;
    private final AtomicIntegerArray state = new AtomicIntegerArray(Kernel.values().length);
    private final AtomicIntegerArray callerBatches = new AtomicIntegerArray(Kernel.values().length);
    /** False only for tests that need a kernel to stay cold: queued warm-ups never run. */
    private final boolean runsJobs;
    private final ConcurrentLinkedQueue<Job> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();

    VectorWarmup(boolean enabled) {
        this(enabled, true);
    }

    VectorWarmup(boolean enabled, boolean runsJobs) {
        this.enabled = enabled;
        this.runsJobs = runsJobs;
    }

    /**
     * {@return whether a batch running {@code kernel}'s scalar version while its vector version
     * warms stays on the caller's thread} Counts the batch. Its first {@link #CALLER_BATCHES} do,
     * as the scalar loops run interpreted at first and helpers running interpreted code beside the
     * caller cost more than they bring (a fresh JVM's first 25 MB transpose took 181-193 ms on two
     * threads against 78-124 on one). Later ones do only on an engine of two threads or fewer: on
     * two cores the warm-up thread and the JIT need the second, and splitting was no faster
     * (bench/RESULTS.md, "First copies"); on 16 the README's staging of u8 [64,224,224,3] took
     * 1-2 ms a batch split against 6-13 on the caller while the vector kernel warmed.
     */
    boolean onCallerAlone(Kernel kernel, int parallelism) {
        return callerBatches.getAndIncrement(kernel.ordinal()) < CALLER_BATCHES || parallelism <= 2;
    }

    /**
     * {@return whether a step of {@code kernel} over {@code task} runs the vector version} The
     * first call for a kernel queues its warm-up ({@link #start()} starts it) on the first of the
     * {@code pieces} the step is split into for its threads, the loops the kernel will run, to be
     * run by {@code executor} (its kernels' settings).
     */
    boolean vectorFor(Kernel kernel, Task task, int pieces, CopyExecutor executor, CopyExecutor.Values values) {
        if (!enabled || !hasVectorVersion(kernel)) {
            return true;
        }
        int i = kernel.ordinal();
        int s = state.get(i);
        if (s == WARM) {
            return true;
        }
        if (s == WARMING || !state.compareAndSet(i, COLD, WARMING)) {
            return state.get(i) == WARM;
        }
        Task piece = task;
        if (pieces > 1) {
            List<Task> split = new ArrayList<>();
            CopyExecutor.split(task, 0, pieces, CopyExecutor.reserved(kernel), CopyExecutor.whole(kernel, task), split);
            piece = split.get(0);
        }
        Task shape = cut(kernel, piece);
        if (shape == null) {
            state.set(i, WARM);
            return true;
        }
        pending.add(new Job(kernel, shape, executor, values));
        return false;
    }

    /** {@return whether {@code kernel}'s vector version runs: warmed, or warm-ups off} */
    boolean isWarm(Kernel kernel) {
        return !enabled || !hasVectorVersion(kernel) || state.get(kernel.ordinal()) == WARM;
    }

    /** Starts the queued warm-ups on the warm-up thread, if any are queued and it is not running. */
    void start() {
        if (!runsJobs || pending.isEmpty() || !draining.compareAndSet(false, true)) {
            return;
        }
        try {
            Thread.ofPlatform().daemon().name("tensorbuf-copy-warmup").start(() -> {
                try {
                    for (Job j = pending.poll(); j != null; j = pending.poll()) {
                        warm(j.kernel(), j.shape(), j.executor(), j.values());
                    }
                } finally {
                    draining.set(false);
                    start(); // one queued between the last poll and the flag
                }
            });
        } catch (OutOfMemoryError | RuntimeException noThread) {
            // A thread limit: the queued kernels run vector from now on, as before warm-ups.
            for (Job j = pending.poll(); j != null; j = pending.poll()) {
                state.set(j.kernel().ordinal(), WARM);
            }
            draining.set(false);
        }
    }

    /** A kernel to warm, on a nest shaped as the caller's, with the caller's types and scale. */
    private record Job(Kernel kernel, Task shape, CopyExecutor executor, CopyExecutor.Values values) {
    }

    private static boolean hasVectorVersion(Kernel k) {
        return switch (k) {
            case FILL, TRANSPOSE, PAIR_INTERLEAVE, INTERLEAVE, DEINTERLEAVE, EVEN_GATHER, BYTE_PLANES, CONVERT,
                 CONVERT_PAIR_INTERLEAVE, CONVERT_PAIR_DEINTERLEAVE -> true;
            case BULK, ELEMENT, ZERO, GATHER -> false;
        };
    }

    /**
     * {@return {@code task} with its loops cut, outermost first, until neither side reaches more
     * than {@link #MAX_BYTES}, keeping the loop the kernel needs whole and its 16-element blocks;
     * or null when that is not enough}
     */
    static Task cut(Kernel kernel, Task task) {
        Task t = task;
        int whole = CopyExecutor.whole(kernel, t);
        int reserved = CopyExecutor.reserved(kernel);
        for (int k = 0; k < t.rank() && tooFar(t); k++) {
            long align = k >= t.rank() - reserved ? 16 : 1;
            while (k != whole && t.count()[k] > align && tooFar(t)) {
                t = t.slice(k, 0, Math.ceilDiv(Math.ceilDiv(t.count()[k], 2), align) * align);
            }
        }
        return tooFar(t) ? null : t;
    }

    /**
     * {@return a copy of {@code t} over memory of its own, each side at the page offset of the
     * original, the source holding the caller's bytes} Read here, on the warm-up thread, so the
     * caller's copy does not wait for it; a source this thread cannot read (a confined arena's, or
     * one closed since) leaves zeros, which still warm the kernel.
     */
    private static Task copyOf(Task t, Arena arena) {
        MemorySegment s = null;
        long so = 0;
        if (t.src() != null) {
            long[] src = reach(t, true);
            long lo = t.srcOff() + src[0];
            s = placed(arena, src[1], t.src().address() + lo);
            if (t.src().isAccessibleBy(Thread.currentThread())) {
                try {
                    MemorySegment.copy(t.src(), lo, s, 0, src[1]);
                } catch (IllegalStateException closed) {
                    s.fill((byte) 0);
                }
            }
            so = -src[0];
        }
        long[] dst = reach(t, false);
        MemorySegment d = placed(arena, dst[1], t.dst().address() + t.dstOff() + dst[0]);
        return new Task(s, d, so, -dst[0], t.count(), t.srcStride(), t.dstStride(), t.srcWidth(), t.dstWidth(),
                t.channelLoop(), t.channelBase());
    }

    /** {@return {@code bytes} in {@code arena}, starting at {@code address}'s offset in its page} */
    private static MemorySegment placed(Arena arena, long bytes, long address) {
        long page = 4096;
        MemorySegment m = arena.allocate(Math.max(1, bytes) + page, page);
        return m.asSlice(Math.floorMod(address, page), Math.max(1, bytes));
    }

    private static boolean tooFar(Task t) {
        return reach(t, false)[1] > MAX_BYTES || (t.src() != null && reach(t, true)[1] > MAX_BYTES);
    }

    /**
     * {@return {lowest byte relative to the first element, bytes spanned}} of a side of the nest,
     * element widths included; a span past {@code long} counts as {@code Long.MAX_VALUE}
     */
    private static long[] reach(Task t, boolean source) {
        long[] stride = source ? t.srcStride() : t.dstStride();
        try {
            long lo = 0;
            long hi = 0;
            for (int k = 0; k < t.rank(); k++) {
                long span = Math.multiplyExact(t.count()[k] - 1, stride[k]);
                if (span < 0) {
                    lo = Math.addExact(lo, span);
                } else {
                    hi = Math.addExact(hi, span);
                }
            }
            return new long[] {lo, Math.addExact(Math.subtractExact(hi, lo), source ? t.srcWidth() : t.dstWidth())};
        } catch (ArithmeticException e) {
            return new long[] {0, Long.MAX_VALUE};
        }
    }

    private void warm(Kernel kernel, Task shape, CopyExecutor executor, CopyExecutor.Values values) {
        try (Arena arena = Arena.ofConfined()) {
            Task t = copyOf(shape, arena);
            long start = System.nanoTime();
            long bestScalar = Long.MAX_VALUE;
            int fast = 0;
            for (int i = 0; fast < 3 && System.nanoTime() - start < MAX_WARMUP_NANOS; i++) {
                if (i < 8) {
                    long a = System.nanoTime();
                    executor.run(kernel, false, t, values);
                    bestScalar = Math.min(bestScalar, System.nanoTime() - a);
                }
                long b = System.nanoTime();
                executor.run(kernel, true, t, values);
                fast = System.nanoTime() - b <= bestScalar ? fast + 1 : 0;
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            // A value the destination type refuses, or no memory for the copy: the caller's own
            // copy says what it meets; this kernel just runs vector from now on, as before warm-ups.
        } finally {
            state.set(kernel.ordinal(), WARM);
        }
    }
}
