package dev.tensorbuf.interop.staging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pipeline's lifecycle at its edges: errors on the worker, close from odd places and under
 * interrupts, unbounded durations. Each test is bounded by {@code assertTimeoutPreemptively}, since
 * the failures they guard against were hangs.
 */
class StagingLifecycleTest {
    private static final Duration BOUND = Duration.ofSeconds(5);
    private static final StagingTarget TARGET = StagingTarget.of("f32[4]{0}");

    private PooledAllocator pool;
    private Allocator arena;
    private TensorView source;

    @BeforeEach
    void setUp() {
        pool = PooledAllocator.builder().name("lifecycle").build();
        arena = Allocators.shared();
        source = TensorView.of(arena.allocate(16), "f32[4]{0}");
        TensorElements.of(source).copyFrom(new float[] {1, 2, 3, 4});
    }

    @AfterEach
    void tearDown() {
        arena.close();
        pool.close();
    }

    /** Waits (bounded) until {@code condition} holds. */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(1);
        }
    }

    private static boolean waiting(Thread t) {
        return t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING;
    }

    private static boolean workerRuns(String name) {
        return StagingPipelineTest.stagingThreads().contains("tensorbuf-staging-" + name);
    }

    /**
     * An idle worker parks in its idle strategy, and a submit or a close used to wait for the park
     * to end: with the default strategy up to 1 ms (a median of 781 us from submit to outcome for
     * tensors submitted every 2 ms). With a park of a minute, each step here would miss the bound.
     */
    @Test
    void submitTrySubmitAndCloseWakeAnIdleWorker() {
        assertTimeoutPreemptively(BOUND, () -> {
            StagingPipeline pipeline = StagingPipeline.builder().name("sleepy").pool(pool)
                    .idleStrategy(new SleepingIdleStrategy(TimeUnit.MINUTES.toNanos(1))).build();
            Thread worker = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("tensorbuf-staging-sleepy")).findFirst().orElseThrow();
            awaitTrue(() -> worker.getState() == Thread.State.TIMED_WAITING, "the worker parks");
            long id = pipeline.submit(source, TARGET);
            try (var s = staged(pipeline.poll(Duration.ofSeconds(4)))) {
                assertEquals(id, s.id());
                assertEquals(4f, TensorElements.of(s.view()).getFloat(3));
            }
            awaitTrue(() -> worker.getState() == Thread.State.TIMED_WAITING, "the worker parks again");
            long tried = pipeline.trySubmit(source, TARGET).orElseThrow();
            try (var s = staged(pipeline.poll(Duration.ofSeconds(4)))) {
                assertEquals(tried, s.id());
            }
            awaitTrue(() -> worker.getState() == Thread.State.TIMED_WAITING, "the worker parks once more");
            pipeline.close();
            assertFalse(worker.isAlive(), "close waited for the worker, which it woke");
        });
    }

    @Test
    void foreverDurationsMeanNoBound() {
        // Audit (StagingForever): ChronoUnit.FOREVER passed the setters, then build(), poll and close
        // overflowed converting it to nanoseconds; close threw after marking the pipeline closed.
        Duration forever = ChronoUnit.FOREVER.getDuration();
        assertTimeoutPreemptively(BOUND, () -> {
            try (PooledAllocator small = PooledAllocator.builder().name("one-block").byteLimit(64).build()) {
                StagingPipeline pipeline = StagingPipeline.builder().name("forever").pool(small)
                        .submitTimeout(forever).allocationWait(forever).drainTimeout(forever).build();
                pipeline.submit(source, TARGET);
                pipeline.submit(source, TARGET); // waits for the one block the pool has room for
                var first = staged(pipeline.poll(forever));
                assertEquals(1, first.id());
                first.close();
                try (var second = staged(pipeline.poll(forever))) {
                    assertEquals(2, second.id());
                }
                pipeline.close();
                assertFalse(workerRuns("forever"));
            }
        });
    }

    /**
     * A pipeline with one tensor held in its consumer until {@code release}, one in its queue of
     * one, and a third submit (on {@code producer}) blocked on the full queue.
     */
    private record FullQueue(StagingPipeline pipeline, Thread producer, CountDownLatch release, List<Long> ids,
                             List<Throwable> errors) {
    }

    private FullQueue fullQueue(String name, UnaryOperator<StagingPipeline.Builder> settings) throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Long> ids = new CopyOnWriteArrayList<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        StagingPipeline pipeline = settings.apply(StagingPipeline.builder().name(name).pool(pool).queueCapacity(1))
                .consumer(o -> {
                    entered.countDown();
                    awaitQuietly(release);
                    ids.add(o.id());
                    ((StagingPipeline.Outcome.Staged) o).close();
                }).build();
        pipeline.submit(source, TARGET);
        entered.await();
        pipeline.submit(source, TARGET); // fills the queue
        Thread producer = Thread.ofPlatform().start(() -> {
            try {
                pipeline.submit(source, TARGET);
            } catch (Exception e) {
                errors.add(e);
            }
        });
        awaitTrue(() -> waiting(producer), "the third submit waits on the full queue");
        return new FullQueue(pipeline, producer, release, ids, errors);
    }

    @Test
    void submitWithAnUnboundedTimeoutWaitsForRoomInTheQueue() {
        assertTimeoutPreemptively(BOUND, () -> {
            FullQueue q = fullQueue("forever-queue", b -> b.submitTimeout(ChronoUnit.FOREVER.getDuration()));
            q.release().countDown();
            q.producer().join();
            q.pipeline().close();
            assertEquals(List.of(), q.errors());
            assertEquals(List.of(1L, 2L, 3L), q.ids());
        });
    }

    @Test
    void targetLargerThanMemoryFailsThatTensorAndTheWorkerGoesOn() {
        // Audit (StagingHugeTarget): the pool's OutOfMemoryError ended the worker thread (AgentRunner
        // rethrows Errors); neither tensor got an outcome and close() hung.
        long n = 1L << 46; // f32: 2^48 bytes, more than any machine gives
        TensorView broadcast = TensorView.strided(arena.allocate(4), DType.F32,
                StridedLayout.of(new long[] {n}, new long[] {0}));
        assertTimeoutPreemptively(BOUND, () -> {
            StagingPipeline pipeline = StagingPipeline.builder().name("huge").pool(pool).build();
            pipeline.submit(broadcast, StagingTarget.of("f32[" + n + "]{0}"));
            pipeline.submit(source, TARGET);
            var failed = assertInstanceOf(StagingPipeline.Outcome.Failed.class, pipeline.poll(Duration.ofSeconds(2)));
            assertInstanceOf(OutOfMemoryError.class, failed.error().getCause());
            assertTrue(failed.error().getMessage().startsWith("staging 'huge': tensor #1: allocating 281474976710656"
                    + " bytes failed: java.lang.OutOfMemoryError"), failed.error().getMessage());
            staged(pipeline.poll(Duration.ofSeconds(2))).close();
            pipeline.close();
            assertEquals("staging 'huge': 2 accepted, 1 staged (16 bytes), 1 failed, 0 rejected, 0 queued",
                    pipeline.stats().toString());
        });
    }

    @Test
    void consumerThrowingAnErrorHasItsBufferClosedAndLaterTensorsAreStillDelivered() {
        // Audit (StagingConsumerError): an AssertionError from the callback ended the worker thread:
        // the staged buffer stayed live, later tensors were never delivered, close() hung.
        assertTimeoutPreemptively(BOUND, () -> {
            List<Long> calls = new CopyOnWriteArrayList<>();
            AtomicInteger whenRead = new AtomicInteger();
            StagingPipeline pipeline = StagingPipeline.builder().name("consumer-error").pool(pool).consumer(o -> {
                calls.add(o.id());
                throw new AssertionError("consumer check failed on #" + o.id());
            }).build();
            for (int i = 0; i < 3; i++) {
                pipeline.submit(source, TARGET, whenRead::incrementAndGet);
            }
            pipeline.close();
            assertEquals(List.of(1L, 2L, 3L), calls);
            assertEquals(3, whenRead.get());
            assertEquals(3, pipeline.stats().staged());
            assertEquals(0, pool.stats().liveCount(), pool.stats().toString());
        });
    }

    @Test
    void whenReadThrowingAnErrorStillLeavesTheTensorItsOutcome() {
        assertTimeoutPreemptively(BOUND, () -> {
            StagingPipeline pipeline = StagingPipeline.builder().name("when-read-error").pool(pool).build();
            pipeline.submit(source, TARGET, () -> {
                throw new AssertionError("whenRead failed");
            });
            pipeline.submit(source, TARGET);
            staged(pipeline.poll(Duration.ofSeconds(2))).close();
            staged(pipeline.poll(Duration.ofSeconds(2))).close();
            pipeline.close();
        });
    }

    @Test
    void trySubmitIsRefusedAtOnceWhileCloseWaitsAndASubmitIsBlockedOnAFullQueue() {
        // Audit (StagingTrySubmitBlocks): the submit held a read lock while blocked, close queued for
        // the write lock, and trySubmit ("never blocks") then waited behind close for up to the
        // submit timeout (10 s here).
        assertTimeoutPreemptively(BOUND, () -> {
            FullQueue q = fullQueue("try-submit", b -> b);
            StagingPipeline pipeline = q.pipeline();
            Thread closer = Thread.ofPlatform().start(pipeline::close);
            awaitTrue(() -> waiting(closer), "close waits");
            var refused = assertThrows(StagingPipeline.RejectedException.class, () -> pipeline.trySubmit(source, TARGET));
            assertEquals("staging pipeline 'try-submit' is closed; tensor not accepted", refused.getMessage());
            q.release().countDown();
            q.producer().join();
            closer.join();
            assertEquals(List.of(), q.errors());
            // The submit already waiting when close began got in, and was drained.
            assertEquals(List.of(1L, 2L, 3L), q.ids());
        });
    }

    @ParameterizedTest
    @EnumSource(StagingPipeline.CloseMode.class)
    void closeFromTheConsumerCallbackReturnsAndTheWorkerFinishesTheShutdown(StagingPipeline.CloseMode mode) {
        // Audit (StagingCloseFromConsumer): close() on the worker thread waited for the worker, that
        // is for itself, forever.
        assertTimeoutPreemptively(BOUND, () -> {
            CountDownLatch allSubmitted = new CountDownLatch(1);
            CountDownLatch closeReturned = new CountDownLatch(1);
            List<String> got = new CopyOnWriteArrayList<>();
            AtomicReference<StagingPipeline> self = new AtomicReference<>();
            StagingPipeline pipeline = StagingPipeline.builder().name("self-close").pool(pool).closeMode(mode)
                    .consumer(o -> {
                        got.add(describe(o));
                        if (o.id() == 1) {
                            awaitQuietly(allSubmitted);
                            self.get().close();
                            closeReturned.countDown();
                        }
                    }).build();
            self.set(pipeline);
            for (int i = 0; i < 3; i++) {
                pipeline.submit(source, TARGET);
            }
            allSubmitted.countDown();
            closeReturned.await();
            assertThrows(StagingPipeline.RejectedException.class, () -> pipeline.submit(source, TARGET));
            pipeline.close(); // off the worker thread: waits for the worker to finish
            assertFalse(workerRuns("self-close"));
            assertEquals(mode == StagingPipeline.CloseMode.DRAIN
                    ? List.of("staged #1", "staged #2", "staged #3")
                    : List.of("staged #1", "failed #2", "failed #3"), got);
            assertEquals(0, pool.stats().liveCount());
        });
    }

    /**
     * Review F2: submit from the consumer callback on a full queue waited for room that only the
     * worker (the caller itself) could make: a stall of the whole submit timeout (for good when
     * unbounded), ended by a message blaming slow consumers. It is refused at once now, and a
     * follow-up with room is still queued.
     */
    @Test
    void submitFromTheConsumerCallbackNeverWaitsOnAFullQueue() {
        assertTimeoutPreemptively(BOUND, () -> {
            CountDownLatch inCallback = new CountDownLatch(1);
            CountDownLatch queueFull = new CountDownLatch(1);
            AtomicReference<Throwable> refused = new AtomicReference<>();
            AtomicLong refusedAfterNanos = new AtomicLong(-1);
            List<String> got = new CopyOnWriteArrayList<>();
            AtomicReference<StagingPipeline> self = new AtomicReference<>();
            StagingPipeline pipeline = StagingPipeline.builder().name("follow-up").pool(pool).queueCapacity(1)
                    .submitTimeout(ChronoUnit.FOREVER.getDuration())
                    .consumer(o -> {
                        got.add(describe(o));
                        if (o.id() == 1) {
                            inCallback.countDown();
                            awaitQuietly(queueFull);
                            long start = System.nanoTime();
                            try {
                                self.get().submit(source, TARGET);
                            } catch (Throwable e) {
                                refused.set(e);
                            }
                            refusedAfterNanos.set(System.nanoTime() - start);
                        } else if (o.id() == 2) {
                            try {
                                self.get().submit(source, TARGET); // room now: queued as a follow-up
                            } catch (Throwable e) {
                                refused.set(e);
                            }
                        }
                    }).build();
            self.set(pipeline);
            pipeline.submit(source, TARGET);
            inCallback.await();
            pipeline.submit(source, TARGET); // the queue's one place
            queueFull.countDown();
            awaitTrue(() -> got.size() == 3, "the follow-up submitted with room is staged");
            pipeline.close();
            assertInstanceOf(StagingPipeline.RejectedException.class, refused.get());
            assertTrue(refused.get().getMessage().contains("submit called from the consumer callback (or a whenRead) of"
                    + " this pipeline, on its worker thread, while the queue is full (1 tensors waiting)"),
                    refused.get().getMessage());
            assertTrue(refusedAfterNanos.get() < TimeUnit.SECONDS.toNanos(1), "refused after "
                    + refusedAfterNanos.get() / 1_000_000 + " ms");
            assertEquals(List.of("staged #1", "staged #2", "staged #4"), got, "#3 was refused and used up its id");
            assertEquals(0, pool.stats().liveCount());
        });
    }

    /**
     * Review F6: a source in a confined arena was accepted and failed later, on the worker, with
     * FFM's bare "Attempted access outside owning thread". The worker can never read it, so
     * submit refuses it, naming the source, the worker thread and the cure.
     */
    @Test
    void aSourceOnlyItsOwnThreadCanReadIsRefusedAtSubmit() throws Exception {
        try (Allocator confined = Allocators.confined();
             StagingPipeline pipeline = StagingPipeline.builder().name("confined").pool(pool).build()) {
            TensorView mine = TensorView.of(confined.allocate(16), "f32[4]{0}");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pipeline.submit(mine, TARGET));
            assertEquals("staging 'confined': the pipeline's worker cannot read source " + mine + " from thread"
                    + " \"tensorbuf-staging-confined\": its memory belongs to a confined arena, which is for the thread"
                    + " that made it (use Allocators.shared() or a pool to share buffers between threads)", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> pipeline.trySubmit(mine, TARGET));
            assertEquals(0, pipeline.stats().accepted());
        }
    }

    @Test
    void interruptedCloseRejectsTheTensorWaitingForPoolSpace() {
        // Audit (StagingInterruptedClose, 20 of 20 runs): the interrupt path stopped the worker before
        // it rejected the tensor waiting for pool space, which got no outcome and no whenRead.
        assertTimeoutPreemptively(BOUND, () -> {
            try (PooledAllocator small = PooledAllocator.builder().name("one-block").byteLimit(64).build()) {
                AtomicInteger whenRead = new AtomicInteger();
                AtomicBoolean flagKept = new AtomicBoolean();
                StagingPipeline pipeline = StagingPipeline.builder().name("interrupted").pool(small).build();
                pipeline.submit(source, TARGET, whenRead::incrementAndGet); // staged and left unpolled: pool full
                pipeline.submit(source, TARGET, whenRead::incrementAndGet); // waits for pool space (10 s)
                awaitTrue(() -> pipeline.stats().staged() == 1 && pipeline.stats().queued() == 0,
                        "the second tensor waits for pool space");
                Thread closer = Thread.ofPlatform().start(() -> {
                    pipeline.close();
                    flagKept.set(Thread.currentThread().isInterrupted());
                });
                awaitTrue(() -> waiting(closer), "close waits for the worker");
                closer.interrupt();
                closer.join();
                assertTrue(flagKept.get(), "close restores the interrupt flag");
                staged(pipeline.poll()).close();
                var rejected = assertInstanceOf(StagingPipeline.Outcome.Failed.class, pipeline.poll());
                assertEquals("staging 'interrupted' closing thread was interrupted before tensor #2 (f32[4]{0} to"
                        + " f32[4]{0}) was staged", rejected.error().getMessage());
                assertInstanceOf(StagingPipeline.RejectedException.class, rejected.error());
                assertEquals(2, whenRead.get());
                assertEquals("staging 'interrupted': 2 accepted, 1 staged (16 bytes), 0 failed, 1 rejected, 0 queued",
                        pipeline.stats().toString());
                assertFalse(workerRuns("interrupted"));
            }
        });
    }

    @Test
    void closeGivesUpOnACallbackThatDoesNotReturnAndTheWorkerAnswersTheRestWhenItDoes() {
        // Close is bounded by the drain timeout plus one second (here 1.2 s): before, it waited for
        // the worker without a bound.
        assertTimeoutPreemptively(BOUND, () -> {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<String> got = new CopyOnWriteArrayList<>();
            List<String> messages = new CopyOnWriteArrayList<>();
            AtomicInteger whenRead = new AtomicInteger();
            StagingPipeline pipeline = StagingPipeline.builder().name("stuck").pool(pool)
                    .drainTimeout(Duration.ofMillis(200)).consumer(o -> {
                        if (o.id() == 1) {
                            entered.countDown();
                            awaitQuietly(release);
                        }
                        got.add(describe(o));
                        if (o instanceof StagingPipeline.Outcome.Failed f) {
                            messages.add(f.error().getMessage());
                        }
                    }).build();
            for (int i = 0; i < 3; i++) {
                pipeline.submit(source, TARGET, whenRead::incrementAndGet);
            }
            entered.await();
            pipeline.close();
            assertTrue(workerRuns("stuck"), "close returned while the callback still runs");
            assertEquals(List.of(), got);
            release.countDown();
            awaitTrue(() -> !workerRuns("stuck"), "the worker ends once the callback returns");
            assertEquals(List.of("staged #1", "failed #2", "failed #3"), got);
            assertEquals("staging 'stuck' timed out draining after 200 ms before tensor #2 (f32[4]{0} to f32[4]{0})"
                    + " was staged", messages.getFirst());
            assertEquals(3, whenRead.get());
            assertEquals(0, pool.stats().liveCount());
        });
    }

    @Test
    void interruptingTheWorkerThreadDoesNotStopIt() {
        // AgentRunner ends its duty cycle when it finds its thread interrupted while idle; the worker
        // goes on, since accepted tensors are owed outcomes.
        assertTimeoutPreemptively(BOUND, () -> {
            StagingPipeline pipeline = StagingPipeline.builder().name("interrupt-worker").pool(pool).build();
            Thread worker = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("tensorbuf-staging-interrupt-worker")).findFirst().orElseThrow();
            worker.interrupt();
            awaitTrue(() -> !worker.isAlive() || !worker.isInterrupted(), "the worker has seen the interrupt");
            pipeline.submit(source, TARGET);
            staged(pipeline.poll(Duration.ofSeconds(2))).close();
            pipeline.close();
            assertFalse(worker.isAlive());
        });
    }

    @Test
    void workerKilledByAnErrorRefusesSubmissionsAndCloseRejectsWhatItLeft() {
        // AgentRunner rethrows an Error from the idle strategy, ending the thread; close still returns
        // and answers what was queued.
        assertTimeoutPreemptively(BOUND, () -> {
            AtomicBoolean failIdle = new AtomicBoolean();
            IdleStrategy failing = new IdleStrategy() {
                private final IdleStrategy sleep = new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1));

                @Override
                public void idle(int workCount) {
                    if (failIdle.get()) {
                        throw new AssertionError("idle strategy failed");
                    }
                    sleep.idle(workCount);
                }

                @Override
                public void idle() {
                    sleep.idle();
                }

                @Override
                public void reset() {
                    sleep.reset();
                }
            };
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<String> got = new CopyOnWriteArrayList<>();
            AtomicInteger whenRead = new AtomicInteger();
            StagingPipeline pipeline = StagingPipeline.builder().name("killed").pool(pool).idleStrategy(failing)
                    .consumer(o -> {
                        if (o.id() == 1) {
                            entered.countDown();
                            awaitQuietly(release);
                        }
                        got.add(describe(o));
                        if (o instanceof StagingPipeline.Outcome.Staged s) {
                            s.close();
                        }
                    }).build();
            pipeline.submit(source, TARGET, whenRead::incrementAndGet);
            entered.await();
            pipeline.submit(source, TARGET, whenRead::incrementAndGet);
            failIdle.set(true);
            release.countDown();
            awaitTrue(() -> !workerRuns("killed"), "the worker thread ends");
            var refused = assertThrows(StagingPipeline.RejectedException.class, () -> pipeline.submit(source, TARGET));
            assertEquals("staging pipeline 'killed' has no worker: its thread ended on an error (logged); tensor not"
                    + " accepted", refused.getMessage());
            pipeline.close();
            assertEquals(List.of("staged #1", "failed #2"), got);
            assertEquals(2, whenRead.get());
            assertEquals("staging 'killed': 2 accepted, 1 staged (16 bytes), 0 failed, 1 rejected, 0 queued",
                    pipeline.stats().toString());
        });
    }

    private static String describe(StagingPipeline.Outcome o) {
        return switch (o) {
            case StagingPipeline.Outcome.Staged s -> {
                s.close();
                yield "staged #" + s.id();
            }
            case StagingPipeline.Outcome.Failed f -> "failed #" + f.id();
        };
    }

    /** {@return {@code o} as staged} A failure fails the test with the outcome's error as cause. */
    static StagingPipeline.Outcome.Staged staged(StagingPipeline.Outcome o) {
        return switch (o) {
            case StagingPipeline.Outcome.Staged s -> s;
            case StagingPipeline.Outcome.Failed f -> throw new AssertionError("tensor #" + f.id() + " failed", f.error());
            case null -> throw new AssertionError("no outcome");
        };
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
