package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.Kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * When a kernel moves from its scalar version to its Vector API version. Until C2 has compiled
 * it, a Vector API kernel runs in the interpreter and in C1, where every vector operation is an
 * object: in a fresh JVM the first 103 MB NCHW -> NHWC copy took 438 ms with the vector kernel
 * and 108 ms with the scalar one, against about 10 ms for the vector kernel once compiled, and a
 * one-shot {@code tensorbuf convert} of a 1.2 MB u8 batch took 0.84-0.93 s against 0.18-0.26 s
 * (bench/RESULTS.md, "First copies").
 * <p>
 * So a kernel runs its scalar version, which the JIT compiles within milliseconds, until this JVM
 * has moved {@link #DEFAULT_START_BYTES} through it in earlier steps: a one-shot conversion does
 * not pay for compiling the vector kernel. Then a background thread runs the vector version on
 * a small copy of that work's shape, in scratch memory, until C2 has compiled it; the copies
 * meanwhile stay scalar, and from then on they run the vector version: no call is slower than
 * the first. Started this way the warm-up works a quarter of the time, so the copies beside it
 * keep most of the cores (the JIT compiling the vector kernel takes its share either way);
 * {@link #start(Kernel, Task, int, int, Consumer, boolean)} from {@code CopyEngine.warmUp} runs it
 * flat out for a caller that waits. JIT state belongs to the JVM and to each kernel, so this state does too: one shared
 * instance. {@code -Dtensorbuf.copy.vectorWarmup=off} runs the vector versions from the first copy.
 */
final class VectorWarmup {
    /** Bytes (read plus written) a kernel moves in scalar code before its vector version warms up. */
    static final long DEFAULT_START_BYTES = 256L << 20;
    static final VectorWarmup SHARED = new VectorWarmup(
            "off".equals(System.getProperty("tensorbuf.copy.vectorWarmup")) ? -1 : DEFAULT_START_BYTES);

    private static final int COLD = 0;
    private static final int WARMING = 1;
    private static final int READY = 2;
    /** Largest scratch side a warm-up allocates; a shape needing more warms on the copies themselves. */
    private static final long MAX_SCRATCH_BYTES = 16 << 20;
    /** Room past the end for kernels that load a little beyond their last element (the ::2 gather). */
    private static final long MARGIN_BYTES = 128;
    /**
     * A warm-up first runs this many rounds: HotSpot's invocation count for a C2 compile
     * (Tier4InvocationThreshold), so C2 is asked for the kernel.
     */
    private static final int MIN_ROUNDS = 5000;
    /**
     * Then, while C2 compiles, it samples {@link #SAMPLE_ROUNDS} rounds every
     * {@link #SAMPLE_PAUSE_MILLIS} until the best sample has not improved by a tenth for
     * {@link #PLATEAU_SAMPLES} samples in a row: C2's code is in (C1's ran the transpose at a tenth
     * of its speed).
     */
    private static final int SAMPLE_ROUNDS = 20;
    private static final long SAMPLE_PAUSE_MILLIS = 10;
    private static final int PLATEAU_SAMPLES = 10;
    /** A background warm-up pauses this long after each millisecond of work: a quarter of a core. */
    private static final long BACKGROUND_PAUSE_MILLIS = 3;
    /** After this long the kernel switches whatever the warm-up reached. */
    private static final long LIMIT_NANOS = 10_000_000_000L;

    private final long startBytes;
    private final AtomicIntegerArray states = new AtomicIntegerArray(Kernel.values().length);
    private final AtomicIntegerArray urgent = new AtomicIntegerArray(Kernel.values().length);
    private final AtomicLongArray moved = new AtomicLongArray(Kernel.values().length);
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    /** @param startBytes scalar bytes per kernel before its warm-up starts; negative: vector at once */
    VectorWarmup(long startBytes) {
        this.startBytes = startBytes;
    }

    /**
     * Counts a step's work; {@return whether it runs the vector version of {@code kernel}}
     *
     * @param step the step's task, whose miniature a warm-up runs
     * @param inner the innermost loops the kernel walks itself
     * @param whole a loop the kernel needs uncut, or -1
     * @param vectorKernel runs the vector version on a task
     */
    boolean vectorFor(Kernel kernel, Task step, int inner, int whole, Consumer<Task> vectorKernel) {
        int i = kernel.ordinal();
        if (startBytes < 0 || states.get(i) == READY) {
            return true;
        }
        // Counted before this step: a warm-up started now would only compete with the scalar run
        // it cannot speed up, which a one-shot copy of 256 MiB or more would feel.
        if (moved.getAndAdd(i, step.bytes()) >= startBytes) {
            start(kernel, step, inner, whole, vectorKernel, false);
        }
        return false;
    }

    /**
     * Starts {@code kernel}'s warm-up on a miniature of {@code step} unless it has started; an
     * urgent start also makes a running background warm-up work flat out.
     */
    void start(Kernel kernel, Task step, int inner, int whole, Consumer<Task> vectorKernel, boolean urgently) {
        int i = kernel.ordinal();
        if (urgently) {
            urgent.set(i, 1);
        }
        if (startBytes >= 0 && states.compareAndSet(i, COLD, WARMING)) {
            warm(i, kernel, miniature(step, inner, whole), vectorKernel);
        }
    }

    /** {@return whether {@code kernel}'s vector version runs from now on} */
    boolean ready(Kernel kernel) {
        return startBytes < 0 || states.get(kernel.ordinal()) == READY;
    }

    /** {@return the first exception a warm-up ran into, or null} */
    RuntimeException failure() {
        return failure.get();
    }

    private void warm(int i, Kernel kernel, Miniature mini, Consumer<Task> vectorKernel) {
        if (mini == null) {
            states.set(i, READY);
            return;
        }
        Thread.ofPlatform().daemon().name("tensorbuf-warmup-" + kernel.name().toLowerCase()).start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                Task t = mini.on(arena.allocate(mini.srcBytes(), 64), arena.allocate(mini.dstBytes(), 64));
                long start = System.nanoTime();
                long worked = start;
                for (int round = 0; round < MIN_ROUNDS && System.nanoTime() - start < LIMIT_NANOS; round++) {
                    vectorKernel.accept(t);
                    if (urgent.get(i) == 0 && System.nanoTime() - worked >= 1_000_000) {
                        Thread.sleep(BACKGROUND_PAUSE_MILLIS);
                        worked = System.nanoTime();
                    }
                }
                long best = Long.MAX_VALUE;
                int flat = 0;
                while (flat < PLATEAU_SAMPLES && System.nanoTime() - start < LIMIT_NANOS) {
                    Thread.sleep(SAMPLE_PAUSE_MILLIS);
                    long sample = Long.MAX_VALUE;
                    for (int round = 0; round < SAMPLE_ROUNDS; round++) {
                        long t0 = System.nanoTime();
                        vectorKernel.accept(t);
                        sample = Math.min(sample, System.nanoTime() - t0);
                    }
                    flat = sample < best - best / 10 ? 0 : flat + 1;
                    best = Math.min(best, sample);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                // Only an optimisation: copies check and run the kernel themselves. Kept for tests.
                failure.compareAndSet(null, e);
            } finally {
                states.set(i, READY);
            }
        });
    }

    /**
     * A small task of a step's shape, and the scratch it needs on each side.
     *
     * @param shape the task, its offsets counted in the scratch segments (segments still the step's)
     * @param srcBytes source scratch size
     * @param dstBytes destination scratch size
     */
    record Miniature(Task shape, long srcBytes, long dstBytes) {
        Task on(MemorySegment src, MemorySegment dst) {
            return new Task(shape.src() == null ? null : src, dst, shape.srcOff(), shape.dstOff(), shape.count(),
                    shape.srcStride(), shape.dstStride(), shape.srcWidth(), shape.dstWidth(), shape.channelLoop(),
                    shape.channelBase());
        }
    }

    /**
     * {@return the step's miniature, or null when it is empty or would need more than
     * {@link #MAX_SCRATCH_BYTES} a side}: two iterations of every loop the kernel does not walk
     * itself (so the compiled kernel has seen its outer loops turn over), or one where two would
     * not fit; of the kernel's own loops, up to 16 of the outer one and 64 of the innermost, or
     * 256 of a single one (1 KiB of f32, the vector fill's shortest run); the {@code whole} loop
     * uncut; counts of 16 or more in multiples of 16, which the shuffle kernels work in. The
     * strides are the step's, or where even that does not fit (16 channels of 1 MiB planes),
     * {@link #packed} ones.
     */
    static Miniature miniature(Task step, int inner, int whole) {
        if (step.elements() == 0) {
            return null;
        }
        long[] two = counts(step, inner, whole, 2);
        long[] one = counts(step, inner, whole, 1);
        Miniature m = fit(step, two, step.srcStride(), step.dstStride());
        if (m == null) {
            m = fit(step, one, step.srcStride(), step.dstStride());
        }
        if (m == null) {
            m = fit(step, one, packed(one, step.srcStride(), step.srcWidth()), packed(one, step.dstStride(), step.dstWidth()));
        }
        return m;
    }

    private static long[] counts(Task step, int inner, int whole, long outer) {
        int r = step.rank();
        long[] count = new long[r];
        for (int k = 0; k < r; k++) {
            long c = step.count()[k];
            long cap = k < r - inner ? outer : k < r - 1 ? 16 : inner == 1 ? 256 : 64;
            long n = k == whole ? c : Math.min(c, cap);
            count[k] = n >= 16 ? n / 16 * 16 : n;
        }
        return count;
    }

    private static Miniature fit(Task step, long[] count, long[] srcStride, long[] dstStride) {
        long[] src = span(count, srcStride, step.srcWidth());
        long[] dst = span(count, dstStride, step.dstWidth());
        if (src[1] - src[0] > MAX_SCRATCH_BYTES || dst[1] - dst[0] > MAX_SCRATCH_BYTES) {
            return null;
        }
        Task shape = new Task(step.src(), step.dst(), -src[0], -dst[0], count, srcStride, dstStride,
                step.srcWidth(), step.dstWidth(), step.channelLoop(), step.channelBase());
        return new Miniature(shape, src[1] - src[0] + MARGIN_BYTES, dst[1] - dst[0] + MARGIN_BYTES);
    }

    /**
     * {@return one side's strides packed}: taking the loops from the smallest stride up, each
     * stride shrinks (sign kept) to the extent of the loops before it when that is smaller. The
     * order of the strides, which loop is contiguous and which broadcasts, stay as they were.
     */
    static long[] packed(long[] count, long[] stride, int width) {
        Integer[] order = new Integer[stride.length];
        for (int k = 0; k < order.length; k++) {
            order[k] = k;
        }
        java.util.Arrays.sort(order, java.util.Comparator.comparingLong(k -> Math.abs(stride[k])));
        long[] out = stride.clone();
        long extent = width;
        for (int k : order) {
            if (stride[k] != 0 && count[k] > 1) {
                long magnitude = Math.min(Math.abs(stride[k]), extent);
                out[k] = Long.signum(stride[k]) * magnitude;
                extent += magnitude * (count[k] - 1);
            }
        }
        return out;
    }

    /** {@return the lowest and one past the highest byte a nest starting at 0 touches} */
    private static long[] span(long[] count, long[] stride, int width) {
        long lo = 0;
        long hi = width;
        for (int k = 0; k < count.length; k++) {
            long reach = Math.multiplyExact(count[k] - 1, stride[k]);
            lo += Math.min(0, reach);
            hi += Math.max(0, reach);
        }
        return new long[] {lo, hi};
    }
}
