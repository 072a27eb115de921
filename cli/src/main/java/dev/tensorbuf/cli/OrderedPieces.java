package dev.tensorbuf.cli;

import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;
import java.util.List;

/**
 * A job's pieces copied on several threads into a ring of buffers and written in order by the
 * calling thread, which copies pieces too whenever the next one to write is not ready. A piece
 * may be copied at most {@code ring} pieces ahead of the last one written, into the buffer that
 * piece used: two buffers a thread, each faulted once and still in the cache when written.
 *
 * <p>The file gets exactly the bytes a copy on one thread writes: the same pieces, in the same
 * order. A piece that fails (a value the output type cannot hold) fails the job when its turn
 * to be written comes, after the pieces before it, as on one thread. Plain {@code synchronized}
 * and a {@link Thread} subclass rather than a lock, an executor or a lambda: classes loaded or
 * made at first use cost a one-shot process start-up time (bench/RESULTS.md, "Start-up").
 */
final class OrderedPieces {
    private final CopyEngine engine;
    private final List<TensorView> sources;
    private final List<TensorView> destinations;
    private final int ring;
    // Guarded by this.
    private final boolean[] ready;
    private int claimed;
    private int written;
    private int failedAt;
    private Throwable failure;
    private boolean stop;

    /**
     * @param destinations each piece's destination, a whole buffer slice that is written as it is;
     *     piece i's and piece {@code i + ring}'s share their memory
     * @param ring how many pieces may be copied before the first of them is written
     */
    OrderedPieces(CopyEngine engine, List<TensorView> sources, List<TensorView> destinations, int ring) {
        if (sources.size() != destinations.size() || ring < 1) {
            throw new IllegalArgumentException(sources.size() + " pieces, " + destinations.size()
                    + " destinations, a ring of " + ring);
        }
        this.engine = engine;
        this.sources = sources;
        this.destinations = destinations;
        this.ring = ring;
        ready = new boolean[sources.size()];
        failedAt = sources.size();
    }

    /**
     * Copies and writes every piece; returns once the last is written, or throws the first piece's
     * failure in order.
     * @param threads the threads copying, the calling one included
     */
    void write(WritableByteChannel channel, Progress progress, int threads) throws IOException {
        Copier[] copiers = new Copier[Math.max(0, threads - 1)];
        try {
            for (int t = 0; t < copiers.length; t++) {
                copiers[t] = new Copier(this, t);
                copiers[t].start();
            }
            for (int next; (next = nextTurn()) >= 0; ) {
                if (next < ready.length) {
                    copyOrRecord(next);
                    continue;
                }
                progress.advance(StagedWrites.drain(destinations.get(next - ready.length), channel));
                synchronized (this) {
                    written++;
                    notifyAll();
                }
            }
        } finally {
            synchronized (this) {
                stop = true;
                notifyAll();
            }
            for (Copier c : copiers) {
                if (c != null) {
                    c.joinQuietly();
                }
            }
        }
    }

    /**
     * {@return the calling thread's next step: a piece to copy (its index), a piece to write (its
     * index plus the piece count), or -1 when all are written} Writing comes first: the file is
     * what the job waits for.
     * @throws RuntimeException the failure of the next piece to write, as the copy threw it
     */
    private synchronized int nextTurn() {
        while (true) {
            if (written == ready.length) {
                return -1;
            }
            if (ready[written]) {
                return written + ready.length;
            }
            if (failedAt == written) {
                throw rethrown(failure);
            }
            int claim = claim();
            if (claim >= 0) {
                return claim;
            }
            waitQuietly();
        }
    }

    /** {@return the next piece to copy, claimed, or -1 when none may start now} */
    private int claim() {
        if (claimed < failedAt && claimed - written < ring) {
            return claimed++;
        }
        return -1;
    }

    /** {@return the next piece a copying thread copies, or -1 when there is none left} */
    private synchronized int nextCopy() {
        while (true) {
            if (stop || claimed >= failedAt) {
                return -1;
            }
            int claim = claim();
            if (claim >= 0) {
                return claim;
            }
            waitQuietly();
        }
    }

    private void copyOrRecord(int i) {
        try {
            engine.copy(sources.get(i), destinations.get(i));
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                if (i < failedAt) {
                    failedAt = i;
                    failure = e;
                }
                notifyAll();
            }
            return;
        }
        synchronized (this) {
            ready[i] = true;
            notifyAll();
        }
    }

    private void waitQuietly() {
        try {
            wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while copying pieces", e);
        }
    }

    private static RuntimeException rethrown(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return (RuntimeException) t;
    }

    /** A daemon thread copying pieces until none is left or the job stops. */
    private static final class Copier extends Thread {
        private final OrderedPieces job;

        Copier(OrderedPieces job, int index) {
            super("tensorbuf-convert-" + (index + 1));
            this.job = job;
            setDaemon(true);
        }

        @Override
        public void run() {
            for (int i; (i = job.nextCopy()) >= 0; ) {
                job.copyOrRecord(i);
            }
        }

        void joinQuietly() {
            boolean interrupted = false;
            while (true) {
                try {
                    join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
