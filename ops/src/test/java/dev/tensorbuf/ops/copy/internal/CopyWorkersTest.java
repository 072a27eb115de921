package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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

    /**
     * Each thread takes its own share first and another's only once its own is all taken, so a
     * copy repeated in cache runs each part on the core that ran it last time: no thread runs a
     * piece of its own share after one of another's. Taking from one list, a worker took the
     * caller's pieces while its own were left.
     */
    @Test
    void eachThreadTakesItsOwnShareFirst() {
        CopyWorkers w = new CopyWorkers(2);
        int[] bounds = {0, 5, 9, 12};
        String caller = Thread.currentThread().getName();
        int workersOwn = 0;
        for (int round = 0; round < 500 && (round < 50 || workersOwn == 0); round++) {
            AtomicInteger clock = new AtomicInteger();
            AtomicIntegerArray startedAt = new AtomicIntegerArray(12);
            String[] ranOn = new String[12];
            assertTrue(w.run(bounds, i -> {
                startedAt.set(i, clock.incrementAndGet());
                ranOn[i] = Thread.currentThread().getName();
                sleepMicros(30);
            }));
            for (int i = 0; i < 12; i++) {
                int share = i < 5 ? 0 : i < 9 ? 1 : 2;
                String thread = ranOn[i];
                int own = thread.equals(caller) ? 0 : Integer.parseInt(thread.substring(thread.lastIndexOf('-') + 1)) + 1;
                if (own != share) {
                    for (int j = bounds[own]; j < bounds[own + 1]; j++) {
                        // Pieces of its share another thread took may start later: taking is not timed.
                        assertTrue(!thread.equals(ranOn[j]) || startedAt.get(j) < startedAt.get(i), "round " + round + ": " + thread + " took piece " + i
                                + " of share " + share + " before piece " + j + " of its own share " + own);
                    }
                } else if (own > 0 && i == bounds[own]) {
                    workersOwn++;
                }
            }
        }
        assertTrue(workersOwn > 0, "the workers took their own shares in some round");
        assertThrows(IllegalArgumentException.class, () -> w.run(new int[] {0, 4}, i -> { }));
        assertThrows(IllegalArgumentException.class, () -> w.run(new int[] {0, 4, 2, 6}, i -> { }));
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
     * Review F1: a helper that could not start (OutOfMemoryError "unable to create native thread"
     * at a thread limit) made run() throw while the helpers that did start went on writing the
     * whole batch, and, counted as alive, it was never started again, so every later copy threw
     * too. Now the caller takes that helper's share, and the start is tried again a retry
     * interval later.
     */
    @Test
    void aHelperThatCannotStartLeavesItsShareToTheOthersAndIsTriedAgainLater() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicBoolean refuse = new AtomicBoolean(true);
        CopyWorkers.Starter limited = (name, body) -> {
            if (name.endsWith("-1")) {
                attempts.incrementAndGet();
                if (refuse.get()) {
                    throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource"
                            + " limits reached");
                }
            }
            return CopyWorkers.PLATFORM.start(name, body);
        };
        CopyWorkers later = new CopyWorkers(3, 0, 30_000_000_000L, 3_600_000_000_000L, "limited", limited);
        for (int round = 0; round < 3; round++) {
            AtomicIntegerArray runs = new AtomicIntegerArray(64);
            assertTrue(runWithoutStartFailures(later, 64, i -> {
                runs.incrementAndGet(i);
                sleepMicros(20);
            }));
            for (int i = 0; i < 64; i++) {
                assertEquals(1, runs.get(i), "piece " + i + ", round " + round);
            }
        }
        assertEquals(1, attempts.get(), "no second try within the retry interval");
        assertFalse(later.aliveThreads().contains("limited-1"));

        attempts.set(0);
        CopyWorkers retrying = new CopyWorkers(3, 0, 30_000_000_000L, 0, "retrying", limited);
        assertTrue(runWithoutStartFailures(retrying, 8, i -> { }));
        refuse.set(false);
        AtomicIntegerArray runs = new AtomicIntegerArray(8);
        assertTrue(retrying.run(8, runs::incrementAndGet));
        assertEquals(2, attempts.get());
        assertTrue(retrying.aliveThreads().contains("retrying-1"), "started once it could: " + retrying.aliveThreads());
    }

    /**
     * Whatever waking a helper throws, the batch it was published for is closed and every piece
     * taken has ended before the exception leaves run(): nothing is written after a copy threw.
     */
    @Test
    void aFailureWakingAHelperStopsEveryTakenPieceBeforeItIsThrown() {
        AtomicBoolean fail = new AtomicBoolean(true);
        InternalError broken = new InternalError("thread start broke");
        CopyWorkers w = new CopyWorkers(2, 0, 30_000_000_000L, 0, "broken", (name, body) -> {
            if (name.endsWith("-1") && fail.get()) {
                throw broken;
            }
            return CopyWorkers.PLATFORM.start(name, body);
        });
        for (int round = 0; round < 5; round++) {
            AtomicBoolean returned = new AtomicBoolean();
            AtomicInteger late = new AtomicInteger();
            assertSame(broken, assertThrows(InternalError.class, () -> w.run(64, i -> {
                sleepMicros(200);
                if (returned.get()) {
                    late.incrementAndGet();
                }
            })));
            returned.set(true);
            sleepMicros(2_000);
            assertEquals(0, late.get(), "pieces that ran after run() threw, round " + round);
        }
        fail.set(false);
        AtomicIntegerArray runs = new AtomicIntegerArray(16);
        assertTrue(w.run(16, runs::incrementAndGet), "usable once the start works");
        for (int i = 0; i < 16; i++) {
            assertEquals(1, runs.get(i));
        }
    }

    /**
     * Review F8: parkNanos returns at once while the interrupt flag is set, so an interrupted idle
     * worker spun on a core until it retired (up to 30 s). It clears the flag and parks again.
     */
    @Test
    void anInterruptedIdleWorkerClearsTheFlagAndParksAgain() throws InterruptedException {
        CopyWorkers w = new CopyWorkers(1, 0, 30_000_000_000L);
        w.run(8, i -> sleepMicros(1_000));
        awaitState(w, Thread.State.TIMED_WAITING, "parked after the batch");
        w.interrupt(0);
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (w.isInterrupted(0) || w.state(0) != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() < deadline, "still interrupted (" + w.isInterrupted(0) + ") or not parked ("
                    + w.state(0) + ") 2 s after the interrupt");
            Thread.sleep(5);
        }
        AtomicIntegerArray runs = new AtomicIntegerArray(8);
        assertTrue(w.run(8, runs::incrementAndGet), "still serves batches");
    }

    /**
     * {@return what run returns} A failed start must not reach the caller; were it to, it fails the
     * test here rather than as an OutOfMemoryError, which JUnit rethrows and which ends the fork.
     */
    private static boolean runWithoutStartFailures(CopyWorkers w, int count, java.util.function.IntConsumer piece) {
        try {
            return w.run(count, piece);
        } catch (OutOfMemoryError e) {
            return fail("a helper's failed start reached the caller: " + e);
        }
    }

    private static void awaitState(CopyWorkers w, Thread.State state, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (w.state(0) != state) {
            assertTrue(System.nanoTime() < deadline, what + ": " + w.state(0));
            Thread.sleep(5);
        }
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
        runWithTheWorker(w, 8, 10_000);
        assertEquals(Thread.State.TIMED_WAITING, settledState(w), "parked after the first batch");
        runWithTheWorker(w, 8, 10_000);
        assertEquals(Thread.State.RUNNABLE, settledState(w), "polling after a batch that came close");
        Thread.sleep(window / 1_000_000 + 300);
        assertEquals(Thread.State.TIMED_WAITING, w.state(0), "parked once the window passed");
        runWithTheWorker(w, 8, 10_000);
        assertEquals(Thread.State.TIMED_WAITING, settledState(w), "parked at once after a batch that came late");
        runWithTheWorker(w, 8, 10_000);
        assertEquals(Thread.State.RUNNABLE, settledState(w), "polling again after a batch that came close");
    }

    /**
     * After a batch that kept the worker longer than the window it parks at once, even though the
     * batch came close to the one before; after a short one that came close it polls.
     */
    @Test
    void workersDoNotPollAfterABatchLongerThanTheWindow() throws InterruptedException {
        long window = 400_000_000L;
        CopyWorkers w = new CopyWorkers(1, window, 30_000_000_000L);
        runWithTheWorker(w, 8, 1_000);
        // Came close; the worker runs its one piece of 500 ms, longer than the window.
        runWithTheWorker(w, 2, 500_000);
        assertEquals(Thread.State.TIMED_WAITING, settledState(w), "parked after a batch longer than the window");
        runWithTheWorker(w, 8, 1_000);
        assertEquals(Thread.State.RUNNABLE, settledState(w), "polling after a short batch that came close");
    }

    /**
     * Runs {@code count} pieces of {@code micros} each, the caller's waiting to begin until the
     * worker has begun one. A worker woken late on a loaded host (CI) would otherwise find the
     * batch done by the caller and keep the wait it had before, which the tests above would read as
     * the wrong decision.
     */
    private static void runWithTheWorker(CopyWorkers w, int count, long micros) {
        Thread caller = Thread.currentThread();
        AtomicBoolean workerBegan = new AtomicBoolean();
        long deadline = System.nanoTime() + 5_000_000_000L;
        assertTrue(w.run(count, i -> {
            if (Thread.currentThread() != caller) {
                workerBegan.set(true);
            } else {
                while (!workerBegan.get() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            }
            sleepMicros(micros);
        }));
        assertTrue(workerBegan.get(), "the worker took no piece in 5 s");
    }

    /**
     * The caller waits for a piece a worker still runs parked, not polling: polling for the rest
     * of a large copy's last piece burned a core (with the caller parked the broadcast took
     * 12-14% less CPU). The worker ending that piece wakes it.
     */
    @Test
    void theCallerParksWhileAWorkerEndsTheLastPiece() throws InterruptedException {
        CopyWorkers w = new CopyWorkers(1);
        Thread caller = Thread.currentThread();
        AtomicBoolean workerHasOne = new AtomicBoolean();
        AtomicBoolean callerDone = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<String> seen = new java.util.concurrent.atomic.AtomicReference<>();
        AtomicIntegerArray runs = new AtomicIntegerArray(2);
        assertTrue(w.run(2, i -> {
            runs.incrementAndGet(i);
            long deadline = System.nanoTime() + 10_000_000_000L;
            if (Thread.currentThread() == caller) {
                // Holds its piece until the worker has the other, so the caller then waits for it.
                while (!workerHasOne.get() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                callerDone.set(true);
            } else {
                workerHasOne.set(true);
                while (!(callerDone.get() && caller.getState() == Thread.State.WAITING) && System.nanoTime() < deadline) {
                    sleepMicros(100);
                }
                Object blocker = java.util.concurrent.locks.LockSupport.getBlocker(caller);
                seen.set(caller.getState() + " on " + (blocker == null ? null : blocker.getClass().getSimpleName()));
            }
        }));
        assertEquals(1, runs.get(0));
        assertEquals(1, runs.get(1));
        assertEquals("WAITING on Batch", seen.get(), "the caller's state while the worker ran the last piece");
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

    /**
     * A piece that runs a batch of its own (an epilogue block copying through its engine) does it
     * alone on its thread, the caller's included: the caller holds the batch lock, which is
     * reentrant, and a second batch would take the place of the one the helpers run.
     */
    @Test
    void aBatchStartedFromAPieceRunsOnItsOwnThread() {
        CopyWorkers w = new CopyWorkers(2);
        Thread caller = Thread.currentThread();
        AtomicInteger callerPieces = new AtomicInteger();
        AtomicInteger nestedShared = new AtomicInteger();
        AtomicInteger nestedPieces = new AtomicInteger();
        assertTrue(w.run(64, i -> {
            if (Thread.currentThread() == caller) {
                callerPieces.incrementAndGet();
            } else {
                // Helpers hold their first pieces until the caller has one: the case under test.
                long until = System.nanoTime() + 10_000_000_000L;
                while (callerPieces.get() == 0 && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }
            if (w.run(3, j -> nestedPieces.incrementAndGet())) {
                nestedShared.incrementAndGet();
            }
        }));
        assertTrue(callerPieces.get() > 0, "the caller takes pieces itself");
        assertEquals(0, nestedShared.get(), "every nested batch declined, to run on its piece's thread");
        assertEquals(0, nestedPieces.get(), "declined: the piece's thread runs them (CopyExecutor.forEach), not run()");
    }
}
