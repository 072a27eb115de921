package dev.tensorbuf.ops.copy.internal;


import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Whether a kernel with a Vector API version runs it yet. Until C2 has compiled it, a Vector API
 * kernel runs in the interpreter and in C1, where every vector operation is an object: in a fresh
 * JVM the first 103 MB NCHW -> NHWC copy took 332 ms with the vector kernel and 125 ms with the
 * scalar one, against about 11 ms for the vector kernel once compiled (bench/RESULTS.md, "First
 * copies"). A process that copies once is faster in scalar code; one that keeps copying pays
 * the compilation once and gains on every later copy.
 * <p>
 * So with {@code scalarFirstBytes} N ({@code -Dtensorbuf.copy.scalarFirstBytes=N}) each kernel runs its scalar version until
 * this JVM has moved N bytes (read plus written) through it in earlier steps, then its vector
 * version, compiled from then on with the profile of real copies. The default is 0, vector from the
 * first copy, for the processes that keep copying; the launcher sets 256 MiB for the one-shot
 * {@code convert} and {@code run}. After these bytes {@link VectorWarmup} still holds a kernel
 * scalar until its vector version is compiled. JIT state belongs to the JVM and to each
 * kernel, so the count does too: every engine counts into one array ({@link #jvmWide}), each
 * with its own threshold ({@code CopyEngine.Config.scalarFirstBytes}).
 */
final class ScalarFirst {
    /** Bytes each kernel has moved in this JVM, counted by every engine's {@link #jvmWide} instance. */
    private static final AtomicLongArray JVM_MOVED = new AtomicLongArray(Kernel.values().length);

    private final long bytes;
    private final AtomicLongArray moved;

    /** @param bytes what a kernel moves in scalar code before its vector version runs; 0: vector at once */
    ScalarFirst(long bytes) {
        this(bytes, new AtomicLongArray(Kernel.values().length));
    }

    private ScalarFirst(long bytes, AtomicLongArray moved) {
        this.bytes = bytes;
        this.moved = moved;
    }

    /** {@return an engine's instance: its own threshold over the bytes counted for the whole JVM} */
    static ScalarFirst jvmWide(long bytes) {
        return new ScalarFirst(bytes, JVM_MOVED);
    }

    /** Counts a step of {@code stepBytes}; {@return whether it runs the vector version of {@code kernel}} */
    boolean vectorFor(Kernel kernel, long stepBytes) {
        if (bytes == 0) {
            return true;
        }
        int i = kernel.ordinal();
        if (moved.get(i) >= bytes) {
            return true;
        }
        // Counted before this step: the step that reaches the bytes still runs scalar.
        return moved.getAndAdd(i, stepBytes) >= bytes;
    }
}
