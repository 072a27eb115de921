package dev.tensorbuf.interop.staging;

import dev.tensorbuf.memory.AllocationLimitException;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;

/**
 * The worker: takes one request at a time, converts it into a pooled buffer and delivers the
 * outcome. Runs on one thread (an Agrona {@code AgentRunner}), which it ends itself once the
 * pipeline is closing and every accepted request has its outcome; only {@link #closing} and the
 * counters are touched from other threads, and {@link #rejectLeftovers()} once the thread has ended.
 */
final class StagingAgent implements Agent {
    /** One accepted submission. */
    record Request(long id, TensorView source, StagingTarget target, Runnable whenRead) {
    }

    /** How the pipeline is closing, and since when ({@link System#nanoTime()}). */
    private record Closing(StagingPipeline.CloseMode mode, String reason, long sinceNanos) {
    }

    private final String name;
    private final BlockingQueue<Request> queue;
    private final AtomicInteger submitting;
    private final PooledAllocator pool;
    private final CopyEngine engine;
    private final Consumer<StagingPipeline.Outcome> deliver;
    private final long allocationWaitNanos;
    private final long drainTimeoutNanos;
    private final IdleStrategy idleStrategy;
    private final System.Logger log = System.getLogger(StagingPipeline.class.getName());

    final AtomicLong staged = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong bytesStaged = new AtomicLong();

    /** Null while open; set once by the first close, then only ever moved from DRAIN to REJECT. */
    private final AtomicReference<Closing> closing = new AtomicReference<>();

    /** A request waiting for pool space (buffers are live in the pool), and since when. */
    private Request waiting;
    private long waitingSince;
    /** Closing, and every accepted request answered: the worker thread ends. */
    private boolean finished;
    /** Whether the worker's last look found the queue empty: it may be parked by the idle strategy. */
    private volatile boolean idle;

    StagingAgent(String name, BlockingQueue<Request> queue, AtomicInteger submitting, PooledAllocator pool,
            CopyEngine engine, Consumer<StagingPipeline.Outcome> deliver, long allocationWaitNanos, long drainTimeoutNanos,
            IdleStrategy idleStrategy) {
        this.name = name;
        this.queue = queue;
        this.submitting = submitting;
        this.pool = pool;
        this.engine = engine;
        this.deliver = deliver;
        this.allocationWaitNanos = allocationWaitNanos;
        this.drainTimeoutNanos = drainTimeoutNanos;
        this.idleStrategy = idleStrategy;
    }

    @Override
    public String roleName() {
        return "tensorbuf-staging-" + name;
    }

    /**
     * Starts closing, unless it has started: after this, only submitters already past the
     * pipeline's open check can still reach the queue, and {@link #nothingLeft()} waits for them.
     */
    void startClosing(StagingPipeline.CloseMode mode, String reason) {
        closing.compareAndSet(null, new Closing(mode, reason, System.nanoTime()));
    }

    /** Switches a DRAIN close to REJECT, keeping when closing began. */
    void rejectRest(String reason) {
        for (Closing c = closing.get(); c != null && c.mode() == StagingPipeline.CloseMode.DRAIN; c = closing.get()) {
            if (closing.compareAndSet(c, new Closing(StagingPipeline.CloseMode.REJECT, reason, c.sinceNanos()))) {
                return;
            }
        }
    }

    boolean isClosing() {
        return closing.get() != null;
    }

    /** {@return when closing began, by {@link System#nanoTime()}} Only once closing has started. */
    long closingSinceNanos() {
        return closing.get().sinceNanos();
    }

    @Override
    public int doWork() {
        int work = step();
        if (finished) {
            // Expected: AgentRunner ends the duty cycle without calling the error handler.
            throw new AgentTerminationException("staging '" + name + "' finished", null, true, false, false);
        }
        return work;
    }

    @Override
    public void onClose() {
        // AgentRunner also ends its duty cycle when it finds the thread interrupted after an idle
        // spell with no work (an interrupt from outside). The accepted tensors are still owed their
        // outcomes, so the worker goes on here until it has finished.
        while (!finished) {
            idleStrategy.idle(step());
        }
    }

    private int step() {
        int work;
        try {
            work = work();
        } catch (RuntimeException | Error e) {
            // Each tensor's failures are caught where they happen; this catches what escapes those
            // handlers (an Error while reporting one), so that the tensors after it are answered.
            log.log(System.Logger.Level.ERROR, "staging '" + name + "': worker error", e);
            work = 0;
        }
        // A callback that restores an interrupt it caught leaves the flag set, and AgentRunner would
        // take that for a request to stop while tensors are still queued.
        Thread.interrupted();
        return work;
    }

    private int work() {
        Closing c = closing.get();
        if (c != null && c.mode() == StagingPipeline.CloseMode.DRAIN
                && System.nanoTime() - c.sinceNanos() >= drainTimeoutNanos) {
            rejectRest("timed out draining after " + drainTimeoutNanos / 1_000_000 + " ms");
            c = closing.get();
        }
        if (c != null && c.mode() == StagingPipeline.CloseMode.REJECT) {
            int n = rejectQueued(c);
            finished = n == 0 && nothingLeft();
            return n;
        }
        if (waiting != null) {
            return stage(waiting) ? 1 : 0;
        }
        // Set before the poll: a submitter whose request this poll misses queues it after the poll,
        // so it sees the flag and wakes the worker from the idle strategy's park (up to 1 ms).
        idle = true;
        Request r = queue.poll();
        if (r == null) {
            finished = c != null && nothingLeft();
            return 0;
        }
        idle = false;
        stage(r);
        return 1;
    }

    /**
     * Wakes the worker if it found the queue empty, so that a tensor submitted after a quiet
     * spell starts at once instead of when the idle strategy's park ends: with the default
     * strategy that was up to 1 ms (median 781 us from submit to outcome for a 96-byte tensor
     * submitted every 2 ms, bench/RESULTS.md). A worker busy with a stream is never unparked.
     */
    void wake(Thread worker) {
        if (idle) {
            LockSupport.unpark(worker);
        }
    }

    /** {@return how many were rejected: the request waiting for pool space, then the queue} */
    private int rejectQueued(Closing c) {
        int n = 0;
        if (waiting != null) {
            Request w = waiting;
            waiting = null;
            reject(w, c);
            n++;
        }
        for (Request r; (r = queue.poll()) != null; n++) {
            reject(r, c);
        }
        return n;
    }

    /**
     * {@return whether no submitter can still add to the queue and it is empty} Called once closing
     * is seen: a submitter either saw the pipeline closed, or counts in {@code submitting} until its
     * request is in the queue (both sides read and write volatile state in that order).
     */
    private boolean nothingLeft() {
        return submitting.get() == 0 && queue.isEmpty();
    }

    /**
     * Rejects what the worker left, called by a closing thread once the worker thread has ended.
     * Nothing is left when it finished; only a worker killed early (AgentRunner rethrows an Error
     * from the idle strategy) leaves tensors, and they are still owed outcomes.
     */
    synchronized void rejectLeftovers() {
        if (waiting == null && nothingLeft()) {
            return;
        }
        rejectRest("worker thread ended early (its error is logged)");
        Closing c = closing.get();
        rejectQueued(c);
        // A submitter blocked on the full queue gets in as it empties, and is owed an outcome too.
        while (!nothingLeft()) {
            Thread.onSpinWait();
            rejectQueued(c);
        }
    }

    /** {@return false when the request must wait for pool space; it is then kept in {@link #waiting}} */
    private boolean stage(Request r) {
        StagingTarget target = r.target();
        MemoryBuffer buffer;
        try {
            buffer = pool.allocate(target.byteSize());
        } catch (AllocationLimitException e) {
            long now = System.nanoTime();
            if (e.blockBytes() > e.limitBytes()) {
                waiting = null;
                fail(r, new IllegalStateException("staging '" + name + "': tensor #" + r.id() + " ("
                        + target.byteSize() + " bytes) can never fit in the pool: " + e.getMessage(), e));
                return true;
            }
            // The refused block fits the limit, so buffers were live then (the consumer's, or other
            // users' of a shared pool), and room comes back as they are closed: retry for a while.
            // Asking the pool again here instead would race with a close that has just made room.
            if (waiting != r) {
                waiting = r;
                waitingSince = now;
            }
            if (now - waitingSince < allocationWaitNanos) {
                return false;
            }
            waiting = null;
            fail(r, new IllegalStateException("staging '" + name + "': no room in the pool for tensor #" + r.id()
                    + " (" + target.byteSize() + " bytes) after waiting " + (now - waitingSince) / 1_000_000 + " ms: "
                    + e.getMessage(), e));
            return true;
        } catch (RuntimeException | Error e) {
            // An Error too: the pool's OutOfMemoryError for more memory than the system gives must fail
            // this tensor, not end the worker (AgentRunner rethrows Errors) with the rest unanswered.
            waiting = null;
            fail(r, failure(r, "allocating " + target.byteSize() + " bytes", e));
            return true;
        }
        waiting = null;
        TensorView staged;
        try {
            if (target.hasGaps()) {
                // Pooled memory is not zeroed on reuse; padding must read as zero.
                buffer.segment().fill((byte) 0);
            }
            staged = target.view(buffer);
            if (target.affine().isPresent()) {
                engine.copy(r.source(), staged, target.affine().get());
            } else {
                engine.copy(r.source(), staged);
            }
        } catch (RuntimeException | Error e) {
            buffer.close();
            fail(r, failure(r, "converting to " + target, e));
            return true;
        }
        released(r);
        this.staged.incrementAndGet();
        bytesStaged.addAndGet(buffer.byteSize());
        StagingPipeline.Outcome.Staged outcome = new StagingPipeline.Outcome.Staged(r.id(), staged);
        try {
            deliver.accept(outcome);
        } catch (RuntimeException | Error e) {
            // The consumer never took ownership: give the buffer back (closing twice is harmless). An
            // Error (a failed assertion in a test's callback) is the consumer's too: the tensors behind
            // this one are still owed their outcomes.
            outcome.close();
            log.log(level(e), "staging '" + name + "': consumer threw on tensor #" + r.id()
                    + "; its buffer was returned to the pool", e);
        }
        return true;
    }

    /** {@return {@code e} as a {@code Failed} outcome's error: an Error wrapped, with its text in the message} */
    private RuntimeException failure(Request r, String doing, Throwable e) {
        return e instanceof RuntimeException runtime ? runtime
                : new IllegalStateException("staging '" + name + "': tensor #" + r.id() + ": " + doing + " failed: " + e, e);
    }

    private static System.Logger.Level level(Throwable e) {
        return e instanceof Error ? System.Logger.Level.ERROR : System.Logger.Level.WARNING;
    }

    private void fail(Request r, RuntimeException error) {
        released(r);
        failed.incrementAndGet();
        deliverQuietly(new StagingPipeline.Outcome.Failed(r.id(), r.source(), error));
    }

    /** Fails a request that was never staged because the pipeline is closing. */
    private void reject(Request r, Closing c) {
        released(r);
        rejected.incrementAndGet();
        deliverQuietly(new StagingPipeline.Outcome.Failed(r.id(), r.source(), new StagingPipeline.RejectedException(
                "staging '" + name + "' " + c.reason() + " before tensor #" + r.id() + " (" + r.source().shape()
                        + " to " + r.target() + ") was staged")));
    }

    private void deliverQuietly(StagingPipeline.Outcome outcome) {
        try {
            deliver.accept(outcome);
        } catch (RuntimeException | Error e) {
            log.log(level(e), "staging '" + name + "': consumer threw on outcome of tensor #" + outcome.id(), e);
        }
    }

    private void released(Request r) {
        try {
            r.whenRead().run();
        } catch (RuntimeException | Error e) {
            log.log(level(e), "staging '" + name + "': whenRead of tensor #" + r.id() + " threw", e);
        }
    }
}
