package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.BufferPool;
import dev.tensorbuf.memory.internal.Errors;
import java.util.Objects;
import org.agrona.BitUtil;

/**
 * An allocator of host memory that keeps the blocks of closed buffers and hands them out again,
 * with a byte limit, exact accounting ({@link #stats()}) and an optional leak report.
 *
 * <p><b>Size classes.</b> Requests are rounded up to a power of two from 64 bytes up to the
 * largest size class (1 MiB unless set); a block of a class is aligned to its size, at most
 * 4096 bytes. Larger requests, and alignments above 4096, get an exact-sized block that is freed
 * on close, never cached. Cached blocks are kept up to {@link Builder#maxCachedBytes(long)};
 * beyond that a closed buffer's block is freed. Memory is zeroed when a block is first made,
 * <em>not</em> when it is reused.
 *
 * <p><b>Limit.</b> Live bytes (whole blocks) never exceed the byte limit: a request that would
 * exceed it throws {@link AllocationLimitException} naming the requested, live and limit bytes,
 * and changes nothing. Cached blocks are freed as needed to keep live plus cached bytes within
 * the limit. A block counts its size, or its alignment where that is larger (64 bytes at
 * alignment 2^20 count 2^20), because the system pads an aligned block by up to its alignment:
 * so the native memory behind live and cached blocks stays below twice the limit.
 *
 * <p><b>Closing a buffer</b> returns its block; that {@link MemoryBuffer} handle is dead from then on
 * (every accessor of its memory throws {@link IllegalStateException}), while the memory goes to
 * the next allocation. A raw segment taken from it before close still reaches that memory and so
 * aliases later buffers (see {@link MemoryBuffer}), unless the code using it holds the buffer
 * ({@link MemoryBuffer#hold()}): a block closed while held returns when the hold ends, as the copy
 * engine's copies of views hold theirs. Such a buffer counts as freed, and is no leak, from its
 * close on; its block's bytes stay live until the hold ends.
 *
 * <p><b>Closing the pool with buffers still open</b> is allowed: it frees all memory, the open
 * buffers stop working ("...was closed when its pool 'staging' closed"), and a {@link LeakReport}
 * lists them. {@link #close()} logs a non-empty report as a warning through
 * {@link System.Logger}; {@link #closeAndReport()} returns it instead. Closing twice does nothing.
 * While a buffer is lent outside Java ({@link MemoryBuffer#lend()}, e.g. an in-place DLPack export),
 * both refuse with an {@link IllegalStateException}, and the pool stays open and unchanged.
 *
 * <p><b>Threads.</b> A pool is thread-safe: any thread may allocate, close buffers, read stats or
 * close the pool. One lock guards the free lists and counters, held for a few field updates;
 * blocks are made and freed outside it. Stats are a consistent snapshot: an allocation enters
 * every figure (live bytes and count, peak, allocations, the leak report) at once, when its buffer
 * is handed out, and one that fails never appears; while its block is being made it counts only
 * against the limit.
 *
 * {@snippet :
 * try (PooledAllocator pool = PooledAllocator.builder()
 *         .name("staging")
 *         .byteLimit(64 << 20)
 *         .build()) {
 *     try (MemoryBuffer a = pool.allocate(4096)) {
 *         a.segment().fill((byte) 1);
 *     }
 *     try (MemoryBuffer b = pool.allocate(4000)) { // same 4096-byte block, not zeroed again
 *         b.segment().get(ValueLayout.JAVA_BYTE, 0); // 1
 *     }
 *     pool.stats().reuses();                  // 1
 *     pool.stats().cachedBytes();             // 4096
 * }
 * }
 */
public interface PooledAllocator extends Allocator {

    /** {@return a builder with the defaults: no limit, classes up to 1 MiB, 64 MiB cached, no tracking} */
    static Builder builder() {
        return new Builder();
    }

    /** {@return the pool's name, used in messages, stats and reports} */
    String name();

    /** {@return a consistent snapshot of the accounting} */
    Stats stats();

    /** {@return the buffers open now, with allocation sites when tracking leaks} */
    LeakReport leakReport();

    /**
     * Closes the pool and returns the buffers that were still open; nothing is logged. A closed
     * pool returns an empty report.
     *
     * @return what was open at close
     * @throws IllegalStateException if a buffer is lent ({@link MemoryBuffer#lend()}); nothing changes
     */
    LeakReport closeAndReport();

    /**
     * Closes the pool, logging a warning with the leak report when buffers were still open.
     *
     * @throws IllegalStateException if a buffer is lent ({@link MemoryBuffer#lend()}); nothing changes
     */
    @Override
    void close();

    /** Settings of a new pool; every setter checks its value. Not thread-safe. */
    final class Builder {
        private String name = "pool";
        private long byteLimit = Long.MAX_VALUE;
        private long largestSizeClass = 1 << 20;
        private long maxCachedBytes = 64L << 20;
        private long defaultAlignment = DEFAULT_ALIGNMENT;
        private boolean trackLeaks;

        private Builder() {}

        /**
         * {@return this builder}
         *
         * @param name the pool's name in messages
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param byteLimit the most bytes (whole blocks) open buffers may hold, {@code > 0}
         */
        public Builder byteLimit(long byteLimit) {
            if (byteLimit <= 0) {
                throw new IllegalArgumentException("byteLimit " + byteLimit + " must be > 0");
            }
            this.byteLimit = byteLimit;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param bytes the largest size class, a power of two from 64 to 2^40; larger requests get
         *     exact-sized blocks that are never cached
         */
        public Builder largestSizeClass(long bytes) {
            if (bytes <= 0 || !BitUtil.isPowerOfTwo(bytes)) {
                throw new IllegalArgumentException("largestSizeClass " + bytes + " is not a power of two");
            }
            if (bytes < 64 || bytes > 1L << 40) {
                throw new IllegalArgumentException("largestSizeClass " + bytes + " must be in [64, 2^40]");
            }
            this.largestSizeClass = bytes;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param bytes the most bytes of closed buffers kept for reuse, {@code >= 0}
         */
        public Builder maxCachedBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("maxCachedBytes " + bytes + " must be >= 0");
            }
            this.maxCachedBytes = bytes;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param alignment the alignment of {@link #allocate(long)}, a power of two
         */
        public Builder defaultAlignment(long alignment) {
            this.defaultAlignment = Errors.checkAlignment(alignment);
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param on whether to record each allocation's call site (a stack walk per allocation)
         *     and each close's, for leak reports and closed-buffer messages
         */
        public Builder trackLeaks(boolean on) {
            this.trackLeaks = on;
            return this;
        }

        /** {@return a new open pool with these settings} */
        public PooledAllocator build() {
            return new BufferPool(name, byteLimit, largestSizeClass, maxCachedBytes, defaultAlignment, trackLeaks);
        }
    }

    /**
     * A consistent snapshot of a pool's accounting. Bytes are counted in whole blocks: a 100-byte
     * request holds a 128-byte block. A block counts at least its alignment, which the system may need
     * to place it: 64 bytes at alignment 2^20 count 2^20. At any snapshot
     * {@code allocations == frees + liveCount + releasedAtClose}.
     *
     * {@snippet :
     * try (PooledAllocator pool = PooledAllocator.builder().name("staging").build()) {
     *     pool.allocate(100).close();          // a new 128-byte block, then cached
     *     try (MemoryBuffer kept = pool.allocate(120)) { // the same block again: a reuse
     *         Stats stats = pool.stats();
     *         stats.liveBytes();               // 128
     *         stats.reuses();                  // 1
     *         stats.toString();
     *         // "pool 'staging': 1 live buffer, 128 bytes live (peak 128), 2 allocations, 1 free,
     *         //  1 reused from cache, 0 bytes cached, no limit"
     *     }
     * }
     * }
     *
     * @param pool the pool's name
     * @param liveBytes bytes held by open buffers, and by buffers closed while held
     *     ({@link MemoryBuffer#hold()}), whose blocks come back when the hold ends
     * @param peakLiveBytes the most {@code liveBytes} has been
     * @param liveCount open buffers
     * @param allocations buffers ever allocated
     * @param frees buffers closed by their users, those closed while held included
     * @param reuses allocations served from a cached block
     * @param cachedBytes bytes of closed buffers kept for reuse
     * @param releasedAtClose buffers still open when the pool closed (and released by it)
     * @param byteLimit the limit on {@code liveBytes}, {@link Long#MAX_VALUE} for none
     */
    public record Stats(
            String pool,
            long liveBytes,
            long peakLiveBytes,
            long liveCount,
            long allocations,
            long frees,
            long reuses,
            long cachedBytes,
            long releasedAtClose,
            long byteLimit) {

        /** {@return one line for people, e.g. {@code "pool 'staging': 1 live buffer, 128 bytes live ..."}} */
        @Override
        public String toString() {
            return "pool '" + pool + "': " + plural(liveCount, "live buffer") + ", " + liveBytes
                    + " bytes live (peak " + peakLiveBytes + "), " + plural(allocations, "allocation") + ", "
                    + plural(frees, "free") + ", " + reuses + " reused from cache, " + cachedBytes + " bytes cached, "
                    + (releasedAtClose > 0 ? releasedAtClose + " released at close, " : "")
                    + (byteLimit == Long.MAX_VALUE ? "no limit" : "limit " + byteLimit + " bytes");
        }

        private static String plural(long count, String noun) {
            return count + " " + noun + (count == 1 ? "" : "s");
        }
    }
}
