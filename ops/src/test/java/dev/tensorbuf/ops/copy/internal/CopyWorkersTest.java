package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The helper threads of a parallel copy: every piece once, every piece ended before return. */
class CopyWorkersTest {
    @Test
    void everyPieceRunsExactlyOnce() {
        for (int helpers = 1; helpers <= 3; helpers++) {
            CopyWorkers w = new CopyWorkers(helpers);
            for (int count : new int[] {0, 1, 2, 7, 64, 1000}) {
                for (int round = 0; round < 20; round++) {
                    AtomicIntegerArray runs = new AtomicIntegerArray(count);
                    assertTrue(w.run(count, runs::incrementAndGet));
                    for (int i = 0; i < count; i++) {
                        assertEquals(1, runs.get(i), "piece " + i + " of " + count + ", " + helpers + " helpers");
                    }
                }
            }
        }
    }

    @Test
    void piecesRunOnTheWorkersToo() {
        CopyWorkers w = new CopyWorkers(1);
        String caller = Thread.currentThread().getName();
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < 200 && seen.stream().allMatch(caller::equals); round++) {
            w.run(64, i -> {
                seen.add(Thread.currentThread().getName());
                sleepMicros(20);
            });
        }
        assertTrue(seen.stream().anyMatch(n -> n.startsWith("tensorbuf-copy-")), "a worker took pieces: " + seen.size());
    }

    @Test
    void aFailingPieceIsRethrownAfterEveryTakenPieceEnded() {
        CopyWorkers w = new CopyWorkers(2);
        for (int round = 0; round < 50; round++) {
            AtomicBoolean returned = new AtomicBoolean();
            AtomicInteger late = new AtomicInteger();
            IllegalStateException boom = new IllegalStateException("closed mid-copy");
            int failAt = round % 16;
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> w.run(16, i -> {
                sleepMicros(50);
                if (returned.get()) {
                    late.incrementAndGet();
                }
                if (i == failAt) {
                    throw boom;
                }
            }));
            returned.set(true);
            assertSame(boom, thrown);
            sleepMicros(500);
            assertEquals(0, late.get(), "pieces that ran after run() threw");
        }
    }

    @Test
    void errorsPassThroughUnwrapped() {
        CopyWorkers w = new CopyWorkers(1);
        StackOverflowError e = new StackOverflowError("deep");
        assertSame(e, assertThrows(StackOverflowError.class, () -> w.run(8, i -> {
            if (i == 5) {
                throw e;
            }
        })));
        AtomicIntegerArray runs = new AtomicIntegerArray(8);
        assertTrue(w.run(8, runs::incrementAndGet), "usable after a failure");
    }

    @Test
    void aSecondCallerWhileABatchRunsIsToldToRunAlone() throws Exception {
        CopyWorkers w = new CopyWorkers(1);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> first = other.submit(() -> w.run(1, i -> {
                inside.countDown();
                await(release);
            }));
            inside.await();
            assertFalse(w.run(4, i -> { }), "busy: the caller runs its own pieces");
            release.countDown();
            assertTrue(first.get());
            assertTrue(w.run(4, i -> { }), "free again");
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void idleWorkersEndAndComeBackOnTheNextBatch() throws InterruptedException {
        CopyWorkers w = new CopyWorkers(2, 0, 50_000_000L);
        w.run(64, i -> sleepMicros(10));
        for (int i = 0; i < 200 && !w.aliveThreads().isEmpty(); i++) {
            Thread.sleep(10);
        }
        assertEquals(List.of(), w.aliveThreads(), "after 50 ms idle");
        AtomicIntegerArray runs = new AtomicIntegerArray(64);
        assertTrue(w.run(64, runs::incrementAndGet));
        for (int i = 0; i < 64; i++) {
            assertEquals(1, runs.get(i));
        }
        assertFalse(w.aliveThreads().isEmpty(), "started again");
    }

    /**
     * A worker polls after a batch only while batches come within the polling window: after the
     * first batch and after one that came later, it parks at once; after one that came close, it
     * polls.
     */
    @Test
    void workersPollOnlyWhileBatchesComeClose() throws InterruptedException {
        long window = 400_000_000L;
        CopyWorkers w = new CopyWorkers(1, window, 30_000_000_000L);
        // Pieces long enough that the worker surely takes some.
        w.run(8, i -> sleepMicros(10_000));
        assertEquals(Thread.State.TIMED_WAITING, settledState(w), "parked after the first batch");
        w.run(8, i -> sleepMicros(10_000));
        assertEquals(Thread.State.RUNNABLE, settledState(w), "polling after a batch that came close");
        Thread.sleep(window / 1_000_000 + 300);
        assertEquals(Thread.State.TIMED_WAITING, w.state(0), "parked once the window passed");
        w.run(8, i -> sleepMicros(10_000));
        assertEquals(Thread.State.TIMED_WAITING, settledState(w), "parked at once after a batch that came late");
        w.run(8, i -> sleepMicros(10_000));
        assertEquals(Thread.State.RUNNABLE, settledState(w), "polling again after a batch that came close");
    }

    /** The worker's state 50 ms after a batch, well inside the window. */
    private static Thread.State settledState(CopyWorkers w) throws InterruptedException {
        Thread.sleep(50);
        return w.state(0);
    }

    private static void sleepMicros(long micros) {
        long end = System.nanoTime() + micros * 1_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
