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
import dev.tensorbuf.views.TensorView;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
        source.copyFrom(new float[] {1, 2, 3, 4});
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

    @Test
    void submitWithAnUnboundedTimeoutWaitsForRoomInTheQueue() {
        assertTimeoutPreemptively(BOUND, () -> {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<Long> ids = new CopyOnWriteArrayList<>();
            StagingPipeline pipeline = StagingPipeline.builder().name("forever-queue").pool(pool).queueCapacity(1)
                    .submitTimeout(ChronoUnit.FOREVER.getDuration()).consumer(o -> {
                        entered.countDown();
                        awaitQuietly(release);
                        ids.add(o.id());
                        ((StagingOutcome.Staged) o).close();
                    }).build();
            pipeline.submit(source, TARGET);
            entered.await();
            pipeline.submit(source, TARGET); // fills the queue
            Thread producer = Thread.ofPlatform().start(() -> {
                try {
                    pipeline.submit(source, TARGET);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            awaitTrue(() -> waiting(producer), "the third submit waits on the full queue");
            release.countDown();
            producer.join();
            pipeline.close();
            assertEquals(List.of(1L, 2L, 3L), ids);
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
            var failed = assertInstanceOf(StagingOutcome.Failed.class, pipeline.poll(Duration.ofSeconds(2)));
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
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<Long> ids = new CopyOnWriteArrayList<>();
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            StagingPipeline pipeline = StagingPipeline.builder().name("try-submit").pool(pool).queueCapacity(1)
                    .consumer(o -> {
                        entered.countDown();
                        awaitQuietly(release);
                        ids.add(o.id());
                        ((StagingOutcome.Staged) o).close();
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
            Thread closer = Thread.ofPlatform().start(pipeline::close);
            awaitTrue(() -> waiting(closer), "close waits");
            var refused = assertThrows(StagingRejectedException.class, () -> pipeline.trySubmit(source, TARGET));
            assertEquals("staging pipeline 'try-submit' is closed; tensor not accepted", refused.getMessage());
            release.countDown();
            producer.join();
            closer.join();
            assertEquals(List.of(), errors);
            // The submit already waiting when close began got in, and was drained.
            assertEquals(List.of(1L, 2L, 3L), ids);
        });
    }

    /** {@return {@code o} as staged} A failure fails the test with the outcome's error as cause. */
    static StagingOutcome.Staged staged(StagingOutcome o) {
        return switch (o) {
            case StagingOutcome.Staged s -> s;
            case StagingOutcome.Failed f -> throw new AssertionError("tensor #" + f.id() + " failed", f.error());
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
