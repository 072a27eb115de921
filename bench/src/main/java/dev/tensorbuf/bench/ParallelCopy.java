package dev.tensorbuf.bench;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code MemorySegment.copy} on several threads at once: the baseline of a copy the engine runs on
 * that many threads ("ratio to copy" compares a case with a copy of the same bytes on the same
 * number of threads). The bytes are cut into one equal, 64-byte aligned part per thread; the
 * caller copies the first, helper threads the others. Helpers poll for the next copy for 500 us
 * before they park, as the engine's workers do, so neither side pays a wake-up the other does not.
 * Both segments must be readable from every thread (an {@code Arena.ofShared()} or global one).
 * {@snippet :
 * try (ParallelCopy copy = new ParallelCopy(src, dst, 2)) {
 *     copy.run();   // dst now equals src; each thread copied half
 * }
 * }
 */
public final class ParallelCopy implements AutoCloseable {
    private static final long SPIN_NANOS = 500_000;

    private final MemorySegment src;
    private final MemorySegment dst;
    private final long[] cuts;
    private final Thread[] helpers;
    private final AtomicInteger done = new AtomicInteger();
    /** The first failure of a helper's part in this run, rethrown by {@link #run()}. */
    private volatile RuntimeException failed;
    private volatile int generation;
    private volatile boolean closed;

    /**
     * @param src the bytes to copy
     * @param dst as large as {@code src}
     * @param threads the caller plus {@code threads - 1} helpers
     * @throws IllegalArgumentException for fewer than one thread, sizes that differ, or, with
     *     helpers, a segment that a confined arena keeps from other threads
     */
    public ParallelCopy(MemorySegment src, MemorySegment dst, int threads) {
        if (threads < 1 || src.byteSize() != dst.byteSize()) {
            throw new IllegalArgumentException("need >= 1 thread and equal sizes, got " + threads + " threads, "
                    + src.byteSize() + " and " + dst.byteSize() + " bytes");
        }
        this.src = src;
        this.dst = dst;
        long size = src.byteSize();
        cuts = new long[threads + 1];
        for (int i = 1; i < threads; i++) {
            cuts[i] = Math.min(size, size / threads * i / 64 * 64);
        }
        cuts[threads] = size;
        helpers = new Thread[threads - 1];
        for (int i = 0; i < helpers.length; i++) {
            int part = i + 1;
            helpers[i] = Thread.ofPlatform().daemon().name("baseline-copy-" + part).unstarted(() -> help(part));
        }
        // Refused here: a helper that cannot touch its part would fail on every run.
        if (helpers.length > 0 && !(src.isAccessibleBy(helpers[0]) && dst.isAccessibleBy(helpers[0]))) {
            throw new IllegalArgumentException("a copy on " + threads + " threads needs segments every thread can use,"
                    + " but " + (src.isAccessibleBy(helpers[0]) ? "dst" : "src") + " is confined to its arena's thread;"
                    + " allocate both from Arena.ofShared() or Arena.global()");
        }
        for (Thread helper : helpers) {
            helper.start();
        }
    }

    /** {@return the threads that copy} */
    public int threads() {
        return helpers.length + 1;
    }

    /**
     * Copies every byte, each part on its own thread, and returns when all parts are done.
     *
     * @throws IllegalStateException if a part failed (a segment closed, say), once every thread
     *     has finished its part
     */
    public void run() {
        done.set(0);
        failed = null;
        generation++;
        for (Thread t : helpers) {
            LockSupport.unpark(t);
        }
        RuntimeException own = null;
        try {
            copyPart(0);
        } catch (RuntimeException e) {
            own = e; // the helpers still count down: a late one must not land in the next run
        }
        while (done.get() < helpers.length) {
            Thread.onSpinWait();
        }
        if (own != null) {
            throw own;
        }
        RuntimeException e = failed;
        if (e != null) {
            throw new IllegalStateException("a helper thread's part of the copy failed: " + e.getMessage(), e);
        }
    }

    private void copyPart(int part) {
        MemorySegment.copy(src, cuts[part], dst, cuts[part], cuts[part + 1] - cuts[part]);
    }

    private void help(int part) {
        int seen = 0;
        long idleSince = System.nanoTime();
        while (!closed) {
            int g = generation;
            if (g != seen) {
                seen = g;
                try {
                    copyPart(part);
                } catch (RuntimeException e) {
                    failed = e; // counted as done all the same, so run() returns and reports it
                } finally {
                    done.incrementAndGet();
                }
                idleSince = System.nanoTime();
            } else if (System.nanoTime() - idleSince < SPIN_NANOS) {
                Thread.onSpinWait();
            } else {
                LockSupport.park(this);
            }
        }
    }

    /** Ends the helpers. */
    @Override
    public void close() {
        closed = true;
        for (Thread t : helpers) {
            LockSupport.unpark(t);
        }
    }
}
