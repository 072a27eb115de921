package dev.tensorbuf.interop.staging;

import dev.tensorbuf.memory.AllocationLimitException;
import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.agrona.concurrent.Agent;

/**
 * The worker: takes one request at a time, converts it into a pooled buffer and delivers the
 * outcome. Runs on one thread (an Agrona {@code AgentRunner}); only {@link #closeMode} and the
 * counters are read from other threads.
 */
final class StagingAgent implements Agent {
    /** One accepted submission. */
    record Request(long id, TensorView source, StagingTarget target, Runnable whenRead) {
    }

    private final String name;
    private final BlockingQueue<Request> queue;
    private final AtomicInteger submitting;
    private final PooledAllocator pool;
    private final CopyEngine engine;
    private final Consumer<StagingOutcome> deliver;
    private final long allocationWaitNanos;
    private final System.Logger log = System.getLogger(StagingPipeline.class.getName());

    final AtomicLong staged = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong bytesStaged = new AtomicLong();
    /** Counted down once the pipeline is closing and nothing is queued or waiting. */
    final CountDownLatch finished = new CountDownLatch(1);

    /** Null while open; the mode once the pipeline is closing. */
    private volatile StagingPipeline.CloseMode closeMode;
    private volatile String rejectReason;

    /** A request waiting for pool space (the consumer still holds buffers), and since when. */
    private Request waiting;
    private long waitingSince;

    StagingAgent(String name, BlockingQueue<Request> queue, AtomicInteger submitting, PooledAllocator pool,
            CopyEngine engine, Consumer<StagingOutcome> deliver, long allocationWaitNanos) {
        this.name = name;
        this.queue = queue;
        this.submitting = submitting;
        this.pool = pool;
        this.engine = engine;
        this.deliver = deliver;
        this.allocationWaitNanos = allocationWaitNanos;
    }

    @Override
    public String roleName() {
        return "tensorbuf-staging-" + name;
    }

    /**
     * Starts closing: after this, only submitters already past the pipeline's open check can still
     * reach the queue, and {@link #nothingLeft()} waits for them.
     */
    void startClosing(StagingPipeline.CloseMode mode, String reason) {
        rejectReason = reason;
        closeMode = mode;
    }

    @Override
    public int doWork() {
        if (closeMode == StagingPipeline.CloseMode.REJECT) {
            int n = 0;
            if (waiting != null) {
                reject(waiting);
                waiting = null;
                n++;
            }
            for (Request r; (r = queue.poll()) != null; n++) {
                reject(r);
            }
            if (n == 0 && nothingLeft()) {
                finished.countDown();
            }
            return n;
        }
        if (waiting != null) {
            return stage(waiting) ? 1 : 0;
        }
        Request r = queue.poll();
        if (r == null) {
            if (closeMode != null && nothingLeft()) {
                finished.countDown();
            }
            return 0;
        }
        stage(r);
        return 1;
    }

    /**
     * {@return whether no submitter can still add to the queue and it is empty} Called once closing
     * is seen: a submitter either saw the pipeline closed, or counts in {@code submitting} until its
     * request is in the queue (both sides read and write volatile state in that order).
     */
    private boolean nothingLeft() {
        return submitting.get() == 0 && queue.isEmpty();
    }

    /** {@return false when the request must wait for pool space; it is then kept in {@link #waiting}} */
    private boolean stage(Request r) {
        StagingTarget target = r.target();
        Buffer buffer;
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
            engine.copy(r.source(), staged);
        } catch (RuntimeException | Error e) {
            buffer.close();
            fail(r, failure(r, "converting to " + target, e));
            return true;
        }
        released(r);
        this.staged.incrementAndGet();
        bytesStaged.addAndGet(buffer.byteSize());
        StagingOutcome.Staged outcome = new StagingOutcome.Staged(r.id(), staged);
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
        deliverQuietly(new StagingOutcome.Failed(r.id(), r.source(), error));
    }

    /** Fails a request that was never staged because the pipeline is closing. */
    void reject(Request r) {
        released(r);
        rejected.incrementAndGet();
        deliverQuietly(new StagingOutcome.Failed(r.id(), r.source(), new StagingRejectedException(
                "staging '" + name + "' " + rejectReason + " before tensor #" + r.id() + " (" + r.source().shape()
                        + " to " + r.target() + ") was staged")));
    }

    private void deliverQuietly(StagingOutcome outcome) {
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
