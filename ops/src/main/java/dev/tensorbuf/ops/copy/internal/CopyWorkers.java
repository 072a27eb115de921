package dev.tensorbuf.ops.copy.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * The threads that help the calling thread with a copy's pieces. After a batch a worker keeps
 * polling for the next one for {@link #SPIN_NANOS} before it parks: a parked pool thread took
 * 16 us (median) to 39 us (p90) to start on the reference machine, a polling one 2-4 us, and a
 * copy of a few MB in cache takes about 100 us. It polls only while batches come that close
 * together: after a batch that began longer than that after the one before (or had none before
 * it), it parks at once, since polling would only burn a core the caller's other work could use;
 * the next batch that follows within the window turns polling back on. The caller times this, not
 * each worker: a worker that missed batches would take its own wait for a long gap. Nor does a
 * worker poll after a batch that kept it longer than the window: a parked start then costs the
 * next such batch a few percent at most, and on a host whose cores are all busy the polling took
 * a core from the caller. A worker that has had nothing to do for
 * {@link #IDLE_NANOS} ends; the next batch starts it again, so engines that are dropped leave no
 * threads behind. An idle worker that is interrupted (a shutdown hook or a harness interrupting
 * every thread) clears the flag and parks again: it belongs to the engine, and with the flag set
 * {@code parkNanos} would return at once and the wait would spin on a core.
 *
 * <p>A worker that cannot start (the JVM's "unable to create native thread" at a process, pids
 * or memory limit) costs the copy only its help: the caller takes the pieces that worker would
 * have, the failure is logged once, and the worker is tried again at a batch at least
 * {@link #RETRY_NANOS} later.
 *
 * <p>One batch runs at a time. Its pieces come in shares, one a thread, and each thread takes its
 * own share first and then what is left of the others' ({@link Batch#drain}). The caller always
 * takes pieces itself and waits only for pieces a worker has taken, never for a worker to show
 * up, so a batch completes even if every worker is parked, exiting or busy elsewhere. It polls
 * for those for {@link #WAIT_SPIN_NANOS}, then parks until the worker ending the last one wakes
 * it. A second caller arriving while a batch runs does its own pieces alone.
 */
final class CopyWorkers {
    /** How long a worker polls for the next batch before parking, by default (an engine's {@code CopyEngine.Config.spinMicros}). */
    static final long SPIN_NANOS = 500_000;
    /**
     * How long the caller polls for pieces the workers still run before it parks: the last piece
     * of a copy of a few MB in cache ends within it, so such copies are not slowed by a wake-up
     * (16-39 us). Polling for the rest of a large copy's last piece burned a core for up to a
     * piece's time: with the caller parked (and the
     * workers not polling after long batches), the broadcast and f32 <-> T(8,128) on two threads
     * moved 1.12-1.14x the bytes per CPU-second (bench/experiments/SplitCpu.java, load 12-15).
     */
    static final long WAIT_SPIN_NANOS = 50_000;
    /** How long a worker waits for work before it ends. */
    static final long IDLE_NANOS = 30_000_000_000L;
    /**
     * How long after a failed start a worker is tried again: a system out of threads seldom
     * recovers sooner, and each failed start costs every batch meanwhile a system call.
     */
    static final long RETRY_NANOS = 1_000_000_000L;

    /** Starts a worker's thread; a seam so tests can make a start fail as a thread limit does. */
    @FunctionalInterface
    interface Starter {
        /** {@return a started daemon thread named {@code name} running {@code body}} */
        Thread start(String name, Runnable body);
    }

    /** The platform's own: a daemon platform thread. */
    static final Starter PLATFORM = (name, body) -> Thread.ofPlatform().daemon().name(name).start(body);

    /** Far above any piece count, with room for every thread's last increment. */
    private static final int CLOSED = Integer.MAX_VALUE / 2;

    private final Worker[] workers;
    private final long spinNanos;
    private final long idleNanos;
    private final long retryNanos;
    private final String name;
    private final Starter starter;
    /** Whether a failed start was logged: once per engine, not once per batch. */
    private final AtomicBoolean startFailureLogged = new AtomicBoolean();
    private final ReentrantLock running = new ReentrantLock();
    private volatile Batch batch;
    /** Whether a batch has run, and when the last one ended; both under {@link #running}. */
    private boolean ranBefore;
    private long lastEnd;

    /**
     * @param helpers threads besides the caller, {@code >= 1}
     * @param name the threads' names' prefix: {@code NAME-0}, {@code NAME-1}, ...
     */
    CopyWorkers(int helpers, String name) {
        this(helpers, SPIN_NANOS, name);
    }

    /** As {@link #CopyWorkers(int, String)}, polling {@code spinNanos} before parking. */
    CopyWorkers(int helpers, long spinNanos, String name) {
        this(helpers, spinNanos, IDLE_NANOS, RETRY_NANOS, name, PLATFORM);
    }

    /** As {@link #CopyWorkers(int, String)}, for tests: threads named {@code tensorbuf-copy-test-I}. */
    CopyWorkers(int helpers) {
        this(helpers, SPIN_NANOS, IDLE_NANOS);
    }

    /**
     * @param helpers threads besides the caller, {@code >= 1}
     * @param spinNanos how long a worker polls before parking
     * @param idleNanos how long a worker waits for work before it ends
     */
    CopyWorkers(int helpers, long spinNanos, long idleNanos) {
        this(helpers, spinNanos, idleNanos, RETRY_NANOS, "tensorbuf-copy-test", PLATFORM);
    }

    /**
     * @param helpers threads besides the caller, {@code >= 1}
     * @param spinNanos how long a worker polls before parking
     * @param idleNanos how long a worker waits for work before it ends
     * @param retryNanos how long after a failed start a worker is tried again
     * @param name the threads' names' prefix
     * @param starter starts a worker's thread
     */
    CopyWorkers(int helpers, long spinNanos, long idleNanos, long retryNanos, String name, Starter starter) {
        this.spinNanos = spinNanos;
        this.idleNanos = idleNanos;
        this.retryNanos = retryNanos;
        this.name = name;
        this.starter = starter;
        workers = new Worker[helpers];
        for (int i = 0; i < helpers; i++) {
            workers[i] = new Worker(i);
        }
    }

    /** The pieces of one call and who has taken, finished and failed which. */
    private static final class Batch {
        final IntConsumer piece;
        /** Whether the workers poll after this batch: it came within the window after the last. */
        final boolean poll;
        /**
         * The first piece of each thread's share, then the piece count: the caller's share is 0,
         * worker i's is i + 1.
         */
        final int[] bounds;
        /** The next piece to take of each share. */
        final AtomicInteger[] next;
        final AtomicInteger done = new AtomicInteger();
        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        /** The caller once it parks waiting for pieces workers still run; null while it polls. */
        volatile Thread waiter;

        Batch(int[] bounds, IntConsumer piece, boolean poll) {
            this.bounds = bounds;
            this.piece = piece;
            this.poll = poll;
            next = new AtomicInteger[bounds.length - 1];
            for (int s = 0; s < next.length; s++) {
                next[s] = new AtomicInteger(bounds[s]);
            }
        }

        /**
         * Takes and runs pieces until none is left or one throws: share {@code own}'s first, then
         * what the others have left. Each thread takes the same pieces call after call while all
         * keep up, so a copy repeated in cache finds its part of the data in its own core's
         * cache; taking the pieces from one list put them on whichever thread came first, and
         * an 8 MB tiling in cache ran slower on two threads than on one.
         */
        void drain(int own) {
            for (int k = 0; k < next.length; k++) {
                int s = (own + k) % next.length;
                int end = bounds[s + 1];
                for (int i = next[s].getAndIncrement(); i < end; i = next[s].getAndIncrement()) {
                    try {
                        piece.accept(i);
                    } catch (RuntimeException | Error e) {
                        failures.add(e);
                        finished();
                        // A thread whose piece threw stops; the others take the rest.
                        return;
                    }
                    finished();
                }
            }
        }

        /** Closes every share to further taking; {@return how many pieces were taken} */
        int close() {
            int taken = 0;
            for (int s = 0; s < next.length; s++) {
                taken += Math.min(next[s].getAndSet(CLOSED), bounds[s + 1]) - bounds[s];
            }
            return taken;
        }

        /** Counts a piece as ended and wakes the caller if it parked waiting for it. */
        private void finished() {
            // The increment before the read, as the caller's write of waiter before its read of
            // done: one of the two sees the other, so a parked caller is always woken.
            done.incrementAndGet();
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }

        /**
         * Waits until {@code taken} pieces have ended: polls for up to {@code spinNanos}, then
         * parks until the worker that ends the last one unparks it. An interrupt is left set
         * (it is the caller's), so the wait then polls.
         */
        void await(int taken, long spinNanos) {
            long from = System.nanoTime();
            while (done.get() < taken) {
                if (System.nanoTime() - from < spinNanos) {
                    Thread.onSpinWait();
                } else {
                    waiter = Thread.currentThread();
                    if (done.get() < taken) {
                        LockSupport.park(this);
                    }
                }
            }
        }
    }

    /**
     * Runs {@code piece.accept(i)} for every {@code i < count}, on the calling thread and the
     * workers, each thread's share a run of about {@code count / threads()} pieces, the caller's
     * first. Returns when every piece has ended, so no piece can write into a destination after
     * the copy returned or threw; that holds for any way out of here, a worker that cannot start
     * included. {@return false, having run nothing, when another batch is running}
     */
    boolean run(int count, IntConsumer piece) {
        int[] bounds = new int[threads() + 1];
        for (int s = 0; s < bounds.length; s++) {
            bounds[s] = (int) ((long) count * s / threads());
        }
        return run(bounds, piece);
    }

    /** {@return the threads a batch is shared among: the caller and the workers} */
    int threads() {
        return workers.length + 1;
    }

    /**
     * As {@link #run(int, IntConsumer)}, with the shares given: thread s (the caller 0, worker i
     * i + 1) takes pieces {@code bounds[s]} up to {@code bounds[s + 1]} first, then what the others
     * left; {@code bounds} holds {@link #threads()} + 1 nondecreasing piece numbers from 0.
     */
    boolean run(int[] bounds, IntConsumer piece) {
        boolean ordered = bounds.length == threads() + 1 && bounds[0] == 0;
        for (int s = 1; ordered && s < bounds.length; s++) {
            ordered = bounds[s] >= bounds[s - 1];
        }
        if (!ordered) {
            throw new IllegalArgumentException("shares " + java.util.Arrays.toString(bounds) + " for " + threads()
                    + " threads: expected " + (threads() + 1) + " nondecreasing piece numbers from 0");
        }
        // A piece that copies through this engine again (an epilogue's block copies) runs that
        // copy on its own thread: the lock is reentrant, and a second batch would replace the one
        // the helpers are running.
        if (running.isHeldByCurrentThread() || !running.tryLock()) {
            return false;
        }
        try {
            Batch b = new Batch(bounds.clone(), piece, ranBefore && System.nanoTime() - lastEnd < spinNanos);
            batch = b;
            try {
                for (Worker w : workers) {
                    w.wake();
                }
                b.drain(0);
            } finally {
                // Closed to further taking (the caller stops early only when its own piece threw,
                // or waking a worker threw what a failed start does not); then the pieces workers
                // took and still run: polled for, then parked.
                int taken = b.close();
                if (b.done.get() < taken) {
                    b.await(taken, WAIT_SPIN_NANOS);
                }
                batch = null;
                lastEnd = System.nanoTime();
                ranBefore = true;
            }
            Throwable failure = b.failures.poll();
            if (failure != null) {
                for (Throwable e = b.failures.poll(); e != null; e = b.failures.poll()) {
                    if (e != failure) {
                        failure.addSuppressed(e);
                    }
                }
                if (failure instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) failure;
            }
            return true;
        } finally {
            running.unlock();
        }
    }

    /**
     * One helper thread, started on first need, again after it ended idle, and again
     * {@link #retryNanos} after a start that failed.
     */
    private final class Worker {
        private final int id;
        private final AtomicBoolean alive = new AtomicBoolean();
        private volatile Thread thread;
        /** When a start may be tried again after one failed; read and written under {@link #running}. */
        private long retryAt;
        private boolean startFailed;

        Worker(int id) {
            this.id = id;
        }

        /** Starts or unparks the thread; a thread that cannot start leaves its pieces to the others. */
        void wake() {
            if (startFailed && System.nanoTime() - retryAt < 0) {
                return;
            }
            if (alive.compareAndSet(false, true)) {
                boolean started = false;
                try {
                    thread = starter.start(name + "-" + id, this::loop);
                    started = true;
                    startFailed = false;
                } catch (OutOfMemoryError | RuntimeException e) {
                    // "unable to create native thread": the batch is the caller's to finish.
                    startFailed = true;
                    retryAt = System.nanoTime() + retryNanos;
                    if (startFailureLogged.compareAndSet(false, true)) {
                        // Looked up here, not in a static field: the JDK's logging starts up (reading its
                        // configuration) in the class's first use, the first parallel copy's time.
                        System.getLogger(CopyWorkers.class.getName()).log(System.Logger.Level.WARNING, "copy helper thread " + name + "-" + id + " could not start;"
                                + " copies run on the threads that did, and it is tried again "
                                + retryNanos / 1_000_000 + " ms after each failure (logged once)", e);
                    }
                } finally {
                    if (!started) {
                        // Else it would count as alive and never be started again.
                        alive.set(false);
                    }
                }
            } else {
                Thread t = thread;
                if (t != null) {
                    LockSupport.unpark(t);
                }
            }
        }

        private void loop() {
            Batch last = null;
            long idleSince = System.nanoTime();
            long spin = 0;
            while (true) {
                Batch b = batch;
                if (b != null && b != last) {
                    last = b;
                    long from = System.nanoTime();
                    b.drain(id + 1);
                    idleSince = System.nanoTime();
                    // After a batch that kept this worker longer than the window, a parked start
                    // (16-39 us) costs the next one little, and polling would take a core from
                    // the caller on a busy host.
                    spin = b.poll && idleSince - from < spinNanos ? spinNanos : 0;
                    continue;
                }
                long idle = System.nanoTime() - idleSince;
                if (idle < spin) {
                    Thread.onSpinWait();
                } else if (idle < idleNanos) {
                    LockSupport.parkNanos(this, idleNanos - idle);
                    // The interrupt is not for a thread of the engine's; left set, every park
                    // after it would return at once.
                    Thread.interrupted();
                } else {
                    alive.set(false);
                    // A batch published just before this worker gave up is done by its caller.
                    return;
                }
            }
        }
    }

    /** {@return worker {@code i}'s thread state, null before it first started (for tests)} */
    Thread.State state(int i) {
        Thread t = workers[i].thread;
        return t == null ? null : t.getState();
    }

    /** Interrupts worker {@code i}'s thread, if it has one (for tests). */
    void interrupt(int i) {
        Thread t = workers[i].thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** {@return whether worker {@code i}'s interrupt flag is set (for tests)} */
    boolean isInterrupted(int i) {
        Thread t = workers[i].thread;
        return t != null && t.isInterrupted();
    }

    /** {@return the names of the worker threads alive now (for tests)} */
    List<String> aliveThreads() {
        List<String> names = new ArrayList<>();
        for (Worker w : workers) {
            Thread t = w.thread;
            if (w.alive.get() && t != null) {
                names.add(t.getName());
            }
        }
        return names;
    }
}
