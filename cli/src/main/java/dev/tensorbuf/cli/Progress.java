package dev.tensorbuf.cli;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A progress bar on standard error for long steps: nothing for the first second (system property
 * {@code tensorbuf.progress.delayMillis}), then {@code [=====>     ] 45% 1.2 GB/s} redrawn in place
 * four times a second, and a final line: at 100% once the work is {@link #finish() finished}, where it
 * stopped otherwise (a failed conversion must not read as done). Off when standard error is not a terminal
 * ({@code System.console()} is null or not a terminal) unless the system property {@code tensorbuf.progress} is
 * {@code always}, and always off when {@code quiet}.
 *
 * {@snippet :
 * try (Progress p = Progress.start(in.err(), false, 1L << 30)) {
 *     p.advance(512L << 20);   // after a second: "[=========>          ] 50% 1.1 GB/s"
 *     p.finish();              // the last line reads 100%
 * }
 * }
 */
final class Progress implements AutoCloseable {
    private static final int WIDTH = 20;

    private final PrintStream err;
    private final long total;
    private final long startNanos = System.nanoTime();
    private final long delayNanos;
    private final AtomicLong done = new AtomicLong();
    private final Thread ticker;
    private boolean drawn;
    private volatile boolean finished;

    private Progress(PrintStream err, long total, boolean enabled) {
        this.err = err;
        this.total = Math.max(1, total);
        this.delayNanos = Long.getLong("tensorbuf.progress.delayMillis", 1000) * 1_000_000;
        this.ticker = enabled ? Thread.ofPlatform().daemon(true).name("tensorbuf-progress").start(this::tick) : null;
    }

    /** {@return a running bar for {@code totalBytes} of work, drawing only when enabled} */
    static Progress start(PrintStream err, boolean quiet, long totalBytes) {
        boolean enabled = !quiet && (isTerminal() || "always".equals(System.getProperty("tensorbuf.progress")));
        return new Progress(err, totalBytes, enabled);
    }

    // Since JDK 22 System.console() is non-null even when redirected; isTerminal() tells.
    private static boolean isTerminal() {
        java.io.Console console = System.console();
        return console != null && console.isTerminal();
    }

    /** Counts {@code bytes} more done. */
    void advance(long bytes) {
        done.addAndGet(bytes);
    }

    /** Marks the work done, steps without a count of their own (writing the file) included. */
    void finish() {
        finished = true;
    }

    private void tick() {
        try {
            while (true) {
                Thread.sleep(250);
                if (System.nanoTime() - startNanos >= delayNanos) {
                    draw(done.get());
                }
            }
        } catch (InterruptedException e) {
            // closed
        }
    }

    private synchronized void draw(long bytes) {
        long elapsed = Math.max(1, System.nanoTime() - startNanos);
        int percent = (int) Math.min(100, bytes * 100 / total);
        int filled = percent * WIDTH / 100;
        StringBuilder bar = new StringBuilder("\r[");
        for (int i = 0; i < WIDTH; i++) {
            bar.append(i < filled - 1 || (i == filled - 1 && percent == 100) ? '=' : i == filled - 1 ? '>' : ' ');
        }
        bar.append("] ").append(percent).append("% ").append(rate(bytes * 1e9 / elapsed));
        err.print(bar);
        err.flush();
        drawn = true;
    }

    static String rate(double bytesPerSecond) {
        return bytesPerSecond >= 1e9 ? String.format("%.1f GB/s", bytesPerSecond / 1e9)
                : String.format("%.1f MB/s", bytesPerSecond / 1e6);
    }

    /**
     * Stops the bar; when it is on and the delay has passed, draws its last state (100% if
     * {@link #finish() finished}) and ends the line, so an error message starts a line of its own.
     */
    @Override
    public void close() {
        if (ticker == null) {
            return;
        }
        ticker.interrupt();
        try {
            ticker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (drawn || System.nanoTime() - startNanos >= delayNanos) {
            draw(finished ? total : Math.min(done.get(), total - 1)); // never 100% unless finished
            err.println();
        }
    }
}
