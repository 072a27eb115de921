package dev.tensorbuf.net.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TensorProducer.ReadyWait} with Flight's own {@link BackpressureStrategy.CallbackBackpressureStrategy}
 * on a stream whose readiness and callbacks the test drives: a stream that becomes ready without
 * its on-ready callback goes on within a slice, not after the whole wait.
 */
class AwaitReadyTest {
    /** A stream whose readiness the test sets, and whose on-ready callback runs only when the test says. */
    private static final class FakeStream implements ServerStreamListener {
        volatile boolean ready;
        volatile boolean cancelled;
        volatile Runnable onReady = () -> {};
        volatile Runnable onCancel = () -> {};

        /** Ready, as gRPC would say it, and the callback run as gRPC should. */
        void becomeReady() {
            ready = true;
            onReady.run();
        }

        void cancel() {
            cancelled = true;
            onCancel.run();
        }

        @Override
        public boolean isReady() {
            return ready;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public void setOnReadyHandler(Runnable handler) {
            onReady = handler;
        }

        @Override
        public void setOnCancelHandler(Runnable handler) {
            onCancel = handler;
        }

        @Override
        public void start(VectorSchemaRoot root, DictionaryProvider dictionaries, IpcOption option) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void putNext() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void putNext(ArrowBuf metadata) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void putMetadata(ArrowBuf metadata) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void error(Throwable e) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void completed() {
            throw new UnsupportedOperationException();
        }
    }

    /** Flight's strategy, counting its waits. */
    private static final class CountingStrategy extends BackpressureStrategy.CallbackBackpressureStrategy {
        final AtomicInteger waits = new AtomicInteger();

        @Override
        public WaitResult waitForListener(long timeout) {
            waits.incrementAndGet();
            return super.waitForListener(timeout);
        }
    }

    /** TensorProducer's log, held here so that the handler stays on it. */
    private final Logger log = Logger.getLogger(TensorProducer.class.getName());
    private final List<LogRecord> warnings = new ArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                synchronized (warnings) {
                    warnings.add(record);
                }
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private final FakeStream stream = new FakeStream();
    private final CountingStrategy strategy = new CountingStrategy();

    @BeforeEach
    void register() {
        log.addHandler(handler);
        strategy.register(stream);
    }

    @AfterEach
    void unhook() {
        log.removeHandler(handler);
    }

    private TensorProducer.ReadyWait waitOf(long totalMillis, long sliceMillis) {
        return new TensorProducer.ReadyWait(stream, strategy, totalMillis, sliceMillis, "x.npy");
    }

    /** Runs {@code action} on a thread of its own after {@code millis}. */
    private static void after(long millis, Runnable action) {
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            action.run();
        });
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    /**
     * Awaits a 4 s wait in the production slices and checks whether it says to go on.
     * {@return the milliseconds it took}
     */
    private long awaitsAndGoesOn(boolean goesOn) {
        long start = System.nanoTime();
        boolean got = waitOf(4_000, TensorProducer.READY_SLICE_MILLIS).await();
        long took = millisSince(start);
        assertEquals(goesOn, got, (got ? "went on" : "gave up") + " after " + took + " ms");
        return took;
    }

    @Test
    void readyAtOnceGoesOnAtOnce() {
        stream.ready = true;
        long took = awaitsAndGoesOn(true);
        assertTrue(took < 500, took + " ms");
        assertTrue(warnings.isEmpty(), "a stream ready at once is no missed callback");
    }

    @Test
    void readyWithItsCallbackGoesOnWithinASlice() {
        after(100, stream::becomeReady);
        long took = awaitsAndGoesOn(true);
        assertTrue(took < TensorProducer.READY_SLICE_MILLIS, took + " ms");
        assertTrue(warnings.isEmpty(), "the callback came: nothing to warn of");
    }

    @Test
    void readyWithoutItsCallbackGoesOnAfterOneSlice() {
        // gRPC says ready, but no callback wakes the strategy: a waiter that trusted the callback
        // alone would sit out the whole 4 s and give up.
        after(100, () -> stream.ready = true);
        long took = awaitsAndGoesOn(true);
        assertTrue(took < 2 * TensorProducer.READY_SLICE_MILLIS, took + " ms");
        assertEquals(1, warnings.size(), "the missed callback is logged");
        assertTrue(warnings.getFirst().getMessage().contains("x.npy: the stream was ready without an on-ready callback"),
                warnings.getFirst().getMessage());
    }

    @Test
    void missedCallbacksAreLoggedOncePerStream() {
        TensorProducer.ReadyWait wait = waitOf(4_000, 100);
        for (int batch = 0; batch < 3; batch++) {
            stream.ready = false;
            after(50, () -> stream.ready = true);
            assertTrue(wait.await(), "batch " + batch);
        }
        assertEquals(1, warnings.size(), "warnings: " + warnings.size());
        // Another stream warns again.
        stream.ready = false;
        after(50, () -> stream.ready = true);
        assertTrue(waitOf(4_000, 100).await());
        assertEquals(2, warnings.size(), "warnings: " + warnings.size());
    }

    @Test
    void cancelledStopsAtOnce() {
        after(100, stream::cancel);
        long took = awaitsAndGoesOn(false);
        assertTrue(took < TensorProducer.READY_SLICE_MILLIS, took + " ms");
    }

    @Test
    void cancelledWithoutItsCallbackStopsAfterOneSlice() {
        after(100, () -> stream.cancelled = true);
        long took = awaitsAndGoesOn(false);
        assertTrue(took < 2 * TensorProducer.READY_SLICE_MILLIS, took + " ms");
    }

    @Test
    void readyButCancelledStops() {
        stream.ready = true;
        stream.cancelled = true;
        awaitsAndGoesOn(false);
    }

    @Test
    void neverReadyGivesUpAfterTheWholeWaitWithoutSpinning() {
        long start = System.nanoTime();
        assertFalse(waitOf(600, 100).await());
        long took = millisSince(start);
        assertTrue(took >= 600 && took < 3_000, took + " ms");
        // One wait per slice (and one more for a slice cut short by the clock), not a spin.
        int waits = strategy.waits.get();
        assertTrue(waits >= 6 && waits <= 8, waits + " waits for 6 slices");
        assertTrue(warnings.isEmpty());
    }

    @Test
    void interruptedStopsWithoutSpinning() throws InterruptedException {
        boolean[] result = {true};
        Thread t = Thread.ofVirtual().unstarted(() -> result[0] = waitOf(4_000, 100).await());
        t.start();
        Thread.sleep(150);
        t.interrupt();
        t.join(2_000);
        assertFalse(t.isAlive(), "still waiting after its interrupt");
        assertFalse(result[0]);
        assertTrue(strategy.waits.get() <= 3, strategy.waits.get() + " waits");
    }
}
