package dev.tensorbuf.interop.staging;

import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.ConfinedMemory;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * Stages tensors for a consumer: producers submit views in any layout with a
 * {@link StagingTarget}; one worker thread (an Agrona {@link AgentRunner} with an idle strategy)
 * converts each, through the {@link CopyEngine}, into a buffer of a {@link PooledAllocator} laid
 * out as the target, and delivers it to the consumer, who closes it to give it back to the pool.
 *
 * <p><b>Delivery.</b> To a callback ({@link Builder#consumer}), called on the worker thread in
 * submission order, or, without one, to a queue the consumer reads with {@link #poll(Duration)}.
 * Every accepted submission ends in exactly one {@link StagingPipeline.Outcome}: {@code Staged} (the
 * receiver owns the buffer; a callback that throws, an {@link Error} included, has it closed for
 * it and is logged, and later tensors are still delivered) or {@code Failed}.
 *
 * <p><b>Backpressure.</b> At most {@link Builder#queueCapacity} submissions wait. When the queue is
 * full, {@link #submit} blocks for up to {@link Builder#submitTimeout} (10 s unless set), then
 * throws {@link StagingPipeline.RejectedException}; {@link #trySubmit} never blocks and returns empty. On
 * the worker thread (from the consumer callback or a {@code whenRead}) {@code submit} never
 * blocks either: the worker is the only thread that empties the queue, so it is refused at once
 * when the queue is full. A
 * full pool (its byte limit reached while buffers are live: the consumer's, or other users' of a
 * shared pool) makes the worker wait for some to be closed, up to {@link Builder#allocationWait}
 * (10 s), before failing that tensor; this also bounds the poll queue, whose staged tensors hold
 * pool memory. A tensor larger than the pool's whole limit fails at once.
 *
 * <p><b>Closing.</b> {@link #close()} closes with the builder's {@link CloseMode} (DRAIN unless set):
 * {@link CloseMode#DRAIN} stages and delivers everything queued for up to
 * {@link Builder#drainTimeout} (60 s), then rejects the rest; {@link CloseMode#REJECT} fails
 * every queued tensor with {@link StagingPipeline.RejectedException} (the one being converted finishes).
 * Either way no submission is accepted once closing starts (a {@link #trySubmit} is refused at
 * once), except those already blocked on a full queue: they get in as the worker empties it, and
 * are drained or rejected with the rest. Close returns when the worker thread has ended, and at
 * the latest one second after the drain timeout (see {@link #close(CloseMode)} for what happens
 * then); outcomes not yet polled can still be polled. It may be called from the consumer callback.
 * The pool is the caller's and stays open.
 *
 * <p><b>Sources</b> are read on the worker thread, so they must stay alive and unchanged until
 * read: {@link #submit(TensorView, StagingTarget, Runnable)} runs its {@code whenRead} then (also
 * for failed and rejected tensors), e.g. to close the source's buffer. A source in a confined
 * arena's memory, which the worker thread can never read, is refused at submit.
 *
 * {@snippet :
 * try (PooledAllocator pool = PooledAllocator.builder().name("staging").byteLimit(64 << 20).build();
 *      Allocator arena = Allocators.shared()) {
 *     TensorView nchw = TensorView.of(arena.allocate(4 * 48), "f32[1,3,4,4]{3,2,1,0}");
 *     try (StagingPipeline pipeline = StagingPipeline.builder().name("demo").pool(pool).build()) {
 *         long id = pipeline.submit(nchw, StagingTarget.of("bf16[1,3,4,4]{1,3,2,0}")); // NHWC, bf16
 *         try (var staged = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5))) {
 *             staged.id() == id;                  // true
 *             staged.view().buffer().byteSize();  // 96
 *         }
 *     }
 *     pool.stats().liveBytes();                   // 0: every staged buffer was given back
 * }
 * }
 */
public final class StagingPipeline implements AutoCloseable {
    /** What {@link #close()} does with tensors still queued. */
    public enum CloseMode {
        /** Stage and deliver every queued tensor, then stop. */
        DRAIN,
        /** Fail every queued tensor with {@link StagingPipeline.RejectedException}, then stop. */
        REJECT
    }

    private static final Runnable NOTHING = () -> { };
    private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);
    /** How long close waits past the drain timeout for the tensor at hand and the rejections. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String name;
    private final BlockingQueue<StagingAgent.Request> queue;
    private final LinkedBlockingQueue<Outcome> outcomes;
    private final StagingAgent agent;
    private final Thread worker;
    private final long submitTimeoutNanos;
    private final long drainTimeoutNanos;
    private final CloseMode closeMode;
    /**
     * Submitters past their open check whose offer has not ended. No lock keeps them apart from
     * close (one made trySubmit wait behind a submit blocked on a full queue); instead the worker
     * does not finish while any is in flight, so each that saw the pipeline open is answered.
     */
    private final AtomicInteger submitting = new AtomicInteger();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();

    private StagingPipeline(Builder b) {
        this.name = b.name;
        this.queue = new ArrayBlockingQueue<>(b.queueCapacity);
        this.outcomes = b.consumer == null ? new LinkedBlockingQueue<>() : null;
        this.submitTimeoutNanos = saturatedNanos(b.submitTimeout);
        this.drainTimeoutNanos = saturatedNanos(b.drainTimeout);
        this.closeMode = b.closeMode;
        Consumer<Outcome> deliver = b.consumer != null ? b.consumer : outcomes::add;
        this.agent = new StagingAgent(name, queue, submitting, b.pool, b.engine, deliver, saturatedNanos(b.allocationWait),
                drainTimeoutNanos, b.idleStrategy);
        // Never closed through AgentRunner.close(), which interrupts and joins without a bound: the
        // agent ends the thread itself once it has answered every accepted tensor.
        AgentRunner runner = new AgentRunner(b.idleStrategy, this::workerError, null, agent);
        this.worker = Thread.ofPlatform().name(agent.roleName()).daemon(true).unstarted(runner);
        worker.start();
    }

    /** {@return a builder; {@link Builder#pool} is required} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the pipeline's name, used for its thread and in messages} */
    public String name() {
        return name;
    }

    /**
     * Queues a tensor, blocking while the queue is full, up to the submit timeout. Called on the
     * pipeline's worker thread (from the consumer callback or a {@code whenRead}: staging a
     * follow-up), it queues the tensor if there is room and never waits: the worker is the only
     * thread that empties the queue, so waiting would stall staging for the whole timeout, or for
     * good when the timeout is unbounded.
     *
     * @return the tensor's id, unique and increasing (not dense: refused submissions use one up)
     * @throws IllegalArgumentException if the source's dims are not the target's, its memory is
     *     not host-accessible, or it belongs to a confined arena (which the worker thread cannot
     *     read)
     * @throws StagingPipeline.RejectedException if the queue stayed full for the whole timeout, or was full
     *     when called on the worker thread, the pipeline is closed or closing, or its worker
     *     thread has died (an {@link Error} from the idle strategy; logged)
     * @throws InterruptedException if interrupted while waiting; nothing was queued
     */
    public long submit(TensorView source, StagingTarget target) throws InterruptedException {
        return submit(source, target, NOTHING);
    }

    /**
     * Queues a tensor as {@link #submit(TensorView, StagingTarget)}, running {@code whenRead} on the
     * worker thread once the source has been read (or failed, or rejected) and may be reused or freed.
     * It is not run when the submission is refused (an exception from here).
     */
    public long submit(TensorView source, StagingTarget target, Runnable whenRead) throws InterruptedException {
        StagingAgent.Request r = request(source, target, whenRead);
        submitting.incrementAndGet();
        // Counted before the offer: once queued, the worker may stage it and count its outcome
        // before this thread runs again, and no snapshot may show more outcomes than acceptances.
        accepted.incrementAndGet();
        boolean queued = false;
        try {
            requireOpen();
            if (Thread.currentThread() == worker) {
                if (!queue.offer(r)) {
                    throw new RejectedException("staging '" + name + "': submit called from the consumer callback"
                            + " (or a whenRead) of this pipeline, on its worker thread, while the queue is full (" + queue.size()
                            + " tensors waiting); the worker is the only thread that empties the queue and cannot wait for"
                            + " itself; tensor not accepted (submit it from another thread, or leave room in the queue)");
                }
            } else if (!queue.offer(r, submitTimeoutNanos, TimeUnit.NANOSECONDS)) {
                throw new RejectedException("staging '" + name + "': queue full (" + queue.size()
                        + " tensors waiting) for " + Duration.ofNanos(submitTimeoutNanos).toMillis()
                        + " ms; the consumer or the conversion is slower than the producers; tensor not accepted");
            }
            queued = true;
            agent.wake(worker);
            return r.id();
        } finally {
            if (!queued) {
                accepted.decrementAndGet();
            }
            submitting.decrementAndGet();
        }
    }

    /** {@return the tensor's id, or empty when the queue is full now; never blocks} @throws as {@link #submit(TensorView, StagingTarget)} */
    public OptionalLong trySubmit(TensorView source, StagingTarget target) {
        return trySubmit(source, target, NOTHING);
    }

    /** {@return as {@link #trySubmit(TensorView, StagingTarget)}, with {@code whenRead} as in {@link #submit(TensorView, StagingTarget, Runnable)}} */
    public OptionalLong trySubmit(TensorView source, StagingTarget target, Runnable whenRead) {
        StagingAgent.Request r = request(source, target, whenRead);
        submitting.incrementAndGet();
        accepted.incrementAndGet(); // before the offer, as in submit
        boolean queued = false;
        try {
            requireOpen();
            queued = queue.offer(r);
            if (!queued) {
                return OptionalLong.empty();
            }
            agent.wake(worker);
            return OptionalLong.of(r.id());
        } finally {
            if (!queued) {
                accepted.decrementAndGet();
            }
            submitting.decrementAndGet();
        }
    }

    private StagingAgent.Request request(TensorView source, StagingTarget target, Runnable whenRead) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(whenRead, "whenRead");
        if (!source.dims().equals(target.dims())) {
            throw new IllegalArgumentException("staging '" + name + "': source " + source + " has dims " + source.dims()
                    + " but target " + target + " has " + target.dims());
        }
        if (target.affine().isPresent() && source.dtype().kind() == DType.Kind.COMPLEX) {
            throw new IllegalArgumentException("staging '" + name + "': source " + source + " holds complex numbers;"
                    + " target " + target + " scales real values");
        }
        if (!source.isHostAccessible()) {
            throw new IllegalArgumentException("staging '" + name + "': source " + source
                    + " is not in host-accessible memory; the copy engine reads host memory only");
        }
        for (MemoryBuffer b : source.buffers()) {
            boolean workerReads;
            try {
                workerReads = b.segment().isAccessibleBy(worker);
            } catch (IllegalStateException closed) {
                continue; // the worker reports a closed source as that tensor's failure, as ever
            } catch (WrongThreadException notOurs) {
                workerReads = false; // confined to a third thread: the worker cannot read it either
            }
            if (!workerReads) {
                throw new IllegalArgumentException(ConfinedMemory.explain("staging '" + name + "': the pipeline's worker cannot read"
                        + " source " + source, worker));
            }
        }
        return new StagingAgent.Request(ids.incrementAndGet(), source, target, whenRead);
    }

    private void requireOpen() {
        if (agent.isClosing()) {
            throw new RejectedException("staging pipeline '" + name + "' is closed; tensor not accepted");
        }
        if (!worker.isAlive()) {
            throw new RejectedException("staging pipeline '" + name + "' has no worker: its thread ended on an"
                    + " error (logged); tensor not accepted");
        }
    }

    /**
     * {@return the next outcome, or null if none arrives within {@code timeout}} A timeout too long
     * for a {@code long} of nanoseconds (e.g. {@code ChronoUnit.FOREVER.getDuration()}) waits
     * without a bound.
     *
     * @throws IllegalStateException if the pipeline delivers to a callback instead
     * @throws InterruptedException if interrupted while waiting
     */
    public Outcome poll(Duration timeout) throws InterruptedException {
        if (outcomes == null) {
            throw Errors.nothingToPoll(name);
        }
        return outcomes.poll(saturatedNanos(timeout), TimeUnit.NANOSECONDS);
    }

    /** {@return the next outcome if one is ready, else null} @throws IllegalStateException in callback mode */
    public Outcome poll() {
        if (outcomes == null) {
            throw Errors.nothingToPoll(name);
        }
        return outcomes.poll();
    }

    /** {@return a snapshot of the counts} */
    public Stats stats() {
        // Outcomes first: a tensor is counted as accepted before it can have one, so what is read
        // after them is at least their sum.
        long staged = agent.staged.get();
        long failed = agent.failed.get();
        long rejected = agent.rejected.get();
        long bytes = agent.bytesStaged.get();
        int queued = queue.size();
        return new Stats(name, accepted.get(), staged, failed, rejected, bytes, queued);
    }

    /** Closes with the builder's {@link CloseMode}. */
    @Override
    public void close() {
        close(closeMode);
    }

    /**
     * Stops accepting tensors, drains or rejects the queue by {@code mode}, and waits for the
     * worker thread to end: at most {@link Builder#drainTimeout} plus one second after closing
     * began. In DRAIN mode the worker stages the queue until the drain timeout has passed, then
     * rejects the rest; the extra second is for the tensor at hand and the rejections.
     *
     * <p>If the worker is still inside a call then (a conversion, the consumer callback or a
     * {@code whenRead} that has not returned), close logs a warning and returns without it: the
     * tensors still pending are rejected on the worker thread once that call returns, and the
     * thread then ends; if it never returns, they get no outcome. An interrupted close switches to
     * REJECT, waits up to one second more, and returns with the interrupt flag set.
     *
     * <p>Called on the worker thread (from the consumer callback or a {@code whenRead}), close only
     * starts closing and returns at once: the worker cannot wait for itself. It goes on once the
     * callback returns, draining (the callback receives the rest) or rejecting, and ends.
     *
     * <p>Closing again changes nothing, not even the mode; off the worker thread it waits as the
     * first close does.
     */
    public void close(CloseMode mode) {
        Objects.requireNonNull(mode, "mode");
        agent.startClosing(mode, "closed with " + mode);
        // An idle worker sees the close only when its idle strategy's park ends; a long park
        // (a SleepingIdleStrategy of a second) would hold close up for all of it.
        LockSupport.unpark(worker);
        if (Thread.currentThread() != worker) {
            awaitWorker();
        }
    }

    private void awaitWorker() {
        long since = agent.closingSinceNanos();
        long bound = drainTimeoutNanos > Long.MAX_VALUE - GRACE_NANOS ? Long.MAX_VALUE : drainTimeoutNanos + GRACE_NANOS;
        boolean interrupted = false;
        while (worker.isAlive()) {
            long left = bound == Long.MAX_VALUE ? Long.MAX_VALUE : bound - (System.nanoTime() - since);
            if (left <= 0) {
                break;
            }
            try {
                if (left == Long.MAX_VALUE) {
                    worker.join();
                } else {
                    TimeUnit.NANOSECONDS.timedJoin(worker, left);
                }
            } catch (InterruptedException e) {
                if (!interrupted) {
                    interrupted = true;
                    agent.rejectRest("closing thread was interrupted");
                    LockSupport.unpark(worker);
                    since = System.nanoTime();
                    bound = GRACE_NANOS;
                }
            }
        }
        if (worker.isAlive()) {
            System.getLogger(StagingPipeline.class.getName()).log(System.Logger.Level.WARNING, "staging '" + name
                    + "': close gave up waiting for the worker after " + (System.nanoTime() - agent.closingSinceNanos())
                    / 1_000_000 + " ms; it is still inside a conversion or callback, and rejects what is left when"
                    + " that returns");
        } else {
            agent.rejectLeftovers();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@return {@code d} in nanoseconds, clamped to a {@code long}} The JDK's timed waits take
     * {@link Long#MAX_VALUE} nanoseconds (292 years) as no bound, and {@link Duration#toNanos()}
     * throws past it, e.g. for {@code ChronoUnit.FOREVER.getDuration()}.
     */
    static long saturatedNanos(Duration d) {
        Objects.requireNonNull(d, "duration");
        if (d.compareTo(LONGEST) >= 0) {
            return Long.MAX_VALUE;
        }
        return d.compareTo(LONGEST.negated()) <= 0 ? -Long.MAX_VALUE : d.toNanos();
    }

    private void workerError(Throwable error) {
        System.getLogger(StagingPipeline.class.getName()).log(System.Logger.Level.ERROR,
                "staging '" + name + "': worker error", error);
    }

    /**
     * Settings of a pipeline; every setter checks its value. Not thread-safe. A duration too long
     * for a {@code long} of nanoseconds (about 292 years, e.g.
     * {@code ChronoUnit.FOREVER.getDuration()}) means no bound.
     */
    public static final class Builder {
        private String name = "staging";
        private PooledAllocator pool;
        private CopyEngine engine = CopyEngine.defaults();
        private int queueCapacity = 64;
        private Duration submitTimeout = Duration.ofSeconds(10);
        private Duration allocationWait = Duration.ofSeconds(10);
        private Duration drainTimeout = Duration.ofSeconds(60);
        private CloseMode closeMode = CloseMode.DRAIN;
        private IdleStrategy idleStrategy = new BackoffIdleStrategy(100, 10, 1_000, 1_000_000);
        private Consumer<Outcome> consumer;

        private Builder() {
        }

        /** {@return this builder} @param name names the pipeline and its thread {@code tensorbuf-staging-NAME} */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** {@return this builder} @param pool where staged buffers come from; the caller's, left open (required) */
        public Builder pool(PooledAllocator pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        /** {@return this builder} @param engine the copy engine converting tensors ({@link CopyEngine#defaults()} unless set) */
        public Builder engine(CopyEngine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        /** {@return this builder} @param capacity the most submissions waiting, {@code >= 1} (64 unless set) */
        public Builder queueCapacity(int capacity) {
            if (capacity < 1) {
                throw new IllegalArgumentException("queue capacity " + capacity + " must be >= 1");
            }
            this.queueCapacity = capacity;
            return this;
        }

        /** {@return this builder} @param timeout how long {@link #submit} waits on a full queue, {@code >= 0} */
        public Builder submitTimeout(Duration timeout) {
            this.submitTimeout = nonNegative(timeout, "submit timeout");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param timeout how long the worker waits for pool space before failing a tensor, {@code >= 0}
         *     (10 s unless set); while it waits, the tensors behind it wait too
         */
        public Builder allocationWait(Duration timeout) {
            this.allocationWait = nonNegative(timeout, "allocation wait");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param timeout how long a DRAIN close stages the queue before rejecting the rest, and so
         *     with one second more how long {@link StagingPipeline#close()} waits, {@code >= 0} (60 s
         *     unless set)
         */
        public Builder drainTimeout(Duration timeout) {
            this.drainTimeout = nonNegative(timeout, "drain timeout");
            return this;
        }

        /** {@return this builder} @param mode what {@link StagingPipeline#close()} does with queued tensors */
        public Builder closeMode(CloseMode mode) {
            this.closeMode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param strategy how the worker waits for work (a {@link BackoffIdleStrategy} from 1 us to
         *     1 ms unless set); a submit or a close wakes a worker parked in it, so a long park
         *     costs no latency, only the time to notice a buffer given back to a full pool
         */
        public Builder idleStrategy(IdleStrategy strategy) {
            this.idleStrategy = Objects.requireNonNull(strategy, "strategy");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param consumer receives every outcome on the worker thread, in submission order; without
         *     one, outcomes are polled ({@link StagingPipeline#poll(Duration)})
         */
        public Builder consumer(Consumer<Outcome> consumer) {
            this.consumer = Objects.requireNonNull(consumer, "consumer");
            return this;
        }

        /**
         * {@return a started pipeline}
         *
         * @throws IllegalStateException if no pool was given, or it is closed
         */
        public StagingPipeline build() {
            if (pool == null) {
                throw new IllegalStateException("staging '" + name + "' needs a pool: builder().pool(PooledAllocator)");
            }
            if (!pool.isOpen()) {
                throw Errors.closed("staging '" + name + "': pool '" + pool.name() + "'");
            }
            return new StagingPipeline(this);
        }

        private static Duration nonNegative(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " " + d + " must be >= 0");
            }
            return d;
        }
    }

    /**
     * What became of one accepted submission: every tensor a {@link StagingPipeline} accepts ends in
     * exactly one outcome, {@link Staged} or {@link Failed}.
     *
     * {@snippet :
     * switch (pipeline.poll(Duration.ofSeconds(1))) {
     *     case Outcome.Staged s -> {
     *         try (s) {                       // gives the buffer back to the pool
     *             s.view().getFloat(2, 3);    // the converted tensor, in the target's layout
     *         }
     *     }
     *     case Outcome.Failed f -> System.err.println("tensor #" + f.id() + ": " + f.error().getMessage());
     *     case null -> { }                    // nothing within a second
     * }
     * }
     */
    public sealed interface Outcome permits Outcome.Staged, Outcome.Failed {
        /** {@return the id {@code submit} returned} */
        long id();

        /**
         * A converted tensor in a pooled buffer; the receiver owns it and closes it to give the buffer
         * back (closing twice does nothing).
         *
         * @param id the submission's id
         * @param view the tensor in the target's layout and type, over its own pooled buffer
         */
        record Staged(long id, TensorView view) implements Outcome, AutoCloseable {
            /** Checks for null. */
            public Staged {
                Objects.requireNonNull(view, "view");
            }

            /** Gives the buffer back to its pool. */
            @Override
            public void close() {
                view.buffer().close();
            }
        }

        /**
         * A submission that was not staged: the conversion failed (a value the target type cannot
         * hold, the pool's limit, more memory than the system gives), or the pipeline closed with
         * {@link StagingPipeline.CloseMode#REJECT} ({@link StagingPipeline.RejectedException}). An
         * {@link Error} (the pool's {@link OutOfMemoryError}) comes wrapped in an
         * {@link IllegalStateException}, as its cause.
         *
         * @param id the submission's id
         * @param source the tensor as submitted
         * @param error why
         */
        record Failed(long id, TensorView source, RuntimeException error) implements Outcome {
            /** Checks for null. */
            public Failed {
                Objects.requireNonNull(source, "source");
                Objects.requireNonNull(error, "error");
            }
        }
    }

    /**
     * A snapshot of a pipeline's counts. In every snapshot {@code staged + failed + rejected <=
     * accepted}; once the pipeline is closed, {@code accepted == staged + failed + rejected}: every
     * accepted tensor has exactly one outcome. While a submission waits for room in the queue it
     * counts as accepted, and stops counting if it times out.
     *
     * {@snippet :
     * pipeline.stats().toString();
     * // "staging 'demo': 3 accepted, 3 staged (288 bytes), 0 failed, 0 rejected, 0 queued"
     * }
     *
     * @param name the pipeline's name
     * @param accepted submissions taken into the queue
     * @param staged tensors converted and delivered
     * @param failed tensors whose conversion failed
     * @param rejected tensors failed unstaged because the pipeline was closing: with REJECT, past the drain
     *     timeout, or by an interrupted close
     * @param bytesStaged bytes of the staged buffers
     * @param queued submissions waiting now
     */
    public record Stats(String name, long accepted, long staged, long failed, long rejected, long bytesStaged, int queued) {
        @Override
        public String toString() {
            return "staging '" + name + "': " + accepted + " accepted, " + staged + " staged (" + bytesStaged + " bytes), "
                    + failed + " failed, " + rejected + " rejected, " + queued + " queued";
        }
    }

    /**
     * A tensor the pipeline would not take or did not stage: the queue stayed full past the submit
     * timeout, the pipeline was closed, or it closed with {@link StagingPipeline.CloseMode#REJECT}
     * before the tensor's turn. The message says which, with the pipeline's name and numbers.
     *
     * {@snippet :
     * pipeline.close();
     * pipeline.submit(view, target);
     * // RejectedException: "staging pipeline 'demo' is closed; tensor not accepted"
     * }
     */
    public static final class RejectedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        /** @param message what was rejected and why */
        public RejectedException(String message) {
            super(message);
        }
    }
}
