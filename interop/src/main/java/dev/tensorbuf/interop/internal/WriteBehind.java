package dev.tensorbuf.interop.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Starts the write-back of a file while it is still being written, from a thread of its own, with
 * Linux's {@code sync_file_range(SYNC_FILE_RANGE_WRITE)}: the kernel allocates the blocks and
 * submits what is dirty so far, and returns without waiting for the disk.
 *
 * <p>Why: renaming a file over another makes ext4 write back whatever of the new file is still
 * delayed, in the renaming thread ({@code auto_da_alloc}: that is what keeps the file old-or-new
 * across a crash), 40-60 ms of a 200 MB convert's rename. Started early and on the other core,
 * that work overlaps the writing, and the rename finds only the last few megabytes left
 * (bench/RESULTS.md, "Convert end to end"). Nothing else changes: no fsync, the pages stay cached.
 *
 * <p>It only runs where it can pay: on Linux, when the module may call native code without a
 * warning ({@code --enable-native-access}, or the command line's manifest), and for files that
 * replace one of at least {@link #MIN_REPLACED_BYTES} bytes (a new file is not written back at
 * its rename, and a small one costs little). {@code -Dtensorbuf.files.writeBehind=false} turns it
 * off. Any failure of the native calls just ends the thread: the rename then does the work, as
 * without it.
 */
final class WriteBehind implements AutoCloseable {
    /** Files replacing a smaller one are left to the rename. */
    static final long MIN_REPLACED_BYTES = Long.getLong("tensorbuf.files.writeBehindMinBytes", 32L << 20);
    /** How long the thread sleeps between calls: a writer fills about 8 MB of cache in this time. */
    private static final long INTERVAL_NANOS = 4_000_000;
    private static final int O_RDONLY_CLOEXEC = 0x80000;
    private static final int SYNC_FILE_RANGE_WRITE = 2;
    private static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("tensorbuf.files.writeBehind", "true"))
            && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
            && WriteBehind.class.getModule().isNativeAccessEnabled();
    private static final WriteBehind NONE = new WriteBehind();
    private static final AtomicLong CALLS_MADE = new AtomicLong();

    /** The thread (only the caller's thread reads this), or null for one that does nothing. */
    private Thread thread;
    private volatile boolean stop;
    private volatile boolean ended;

    private WriteBehind() {
    }

    /**
     * {@return a write-behind of {@code part}, running until {@link #close()}, or one that does
     * nothing where it would not pay} {@code replacedBytes} is the size of the file the part will
     * be renamed over, -1 for none.
     */
    static WriteBehind start(Path part, long replacedBytes) {
        if (replacedBytes < MIN_REPLACED_BYTES || !enabled()) {
            return NONE;
        }
        WriteBehind w = new WriteBehind();
        Thread t = Thread.ofPlatform().daemon().name("tensorbuf-write-behind").unstarted(() -> w.run(part));
        try {
            t.start();
        } catch (OutOfMemoryError e) {
            return NONE; // no thread to be had: the rename does the write-back, as without one
        }
        w.thread = t;
        return w;
    }

    /**
     * Makes the native calls ready on a thread of its own, so that a write-behind started later
     * finds them made: a fresh JVM takes 20-80 ms over its first downcall handles.
     */
    static void prepare() {
        if (!enabled()) {
            return;
        }
        try {
            Thread.ofPlatform().daemon().name("tensorbuf-write-behind-setup").start(() -> {
                try {
                    Calls.ready();
                } catch (Throwable e) {
                    // No such function here: each write-behind's thread meets the same and gives up;
                    // uncaught, this would print a stack trace on the command's stderr.
                }
            });
        } catch (OutOfMemoryError e) {
            // No thread to be had: a write-behind makes the calls itself, or has no thread either.
        }
    }

    /** {@return whether this write-behind has a thread (false: it does nothing)} */
    boolean running() {
        return thread != null;
    }

    /** {@return whether its thread gave up before it was told to stop (the file could not be opened, a call failed)} */
    boolean gaveUp() {
        return ended;
    }

    /** {@return how many write-backs all write-behinds of this JVM have started so far} */
    static long callsMade() {
        return CALLS_MADE.get();
    }

    /** {@return whether write-behinds run in this JVM (see the class description)} */
    static boolean enabled() {
        return ENABLED;
    }

    /** The three calls, made when the class is first used (by whichever thread comes first; the others wait). */
    private static final class Calls {
        static final MethodHandle OPEN;
        static final MethodHandle SYNC;
        static final MethodHandle CLOSE;

        static {
            var libc = Linker.nativeLinker().defaultLookup();
            OPEN = RestrictedNative.downcall(libc.find("open").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            SYNC = RestrictedNative.downcall(libc.find("sync_file_range").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            CLOSE = RestrictedNative.downcall(libc.find("close").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        }

        static void ready() {
            // Loading the class is the work.
        }
    }

    private void run(Path part) {
        try {
            int fd;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment name = arena.allocateFrom(part.toAbsolutePath().toString());
                fd = (int) Calls.OPEN.invokeExact(name, O_RDONLY_CLOEXEC);
            }
            if (fd < 0) {
                ended = true;
                return;
            }
            try {
                while (!stop) {
                    LockSupport.parkNanos(INTERVAL_NANOS);
                    if (stop) {
                        break;
                    }
                    if ((int) Calls.SYNC.invokeExact(fd, 0L, 0L, SYNC_FILE_RANGE_WRITE) != 0) {
                        ended = true;
                        break;
                    }
                    CALLS_MADE.incrementAndGet();
                }
            } finally {
                int ignored = (int) Calls.CLOSE.invokeExact(fd);
            }
        } catch (Throwable e) {
            ended = true;
            // Write-behind is only a head start: without it the rename does the same work. A class
            // that failed to initialise (no such function) fails the same way for every later file.
        }
    }

    /**
     * Stops the thread without waiting for it: a call it is making may still run as the file is
     * renamed, which only starts the write-back of that same file.
     */
    @Override
    public void close() {
        if (thread != null) {
            stop = true;
            LockSupport.unpark(thread);
        }
    }
}
