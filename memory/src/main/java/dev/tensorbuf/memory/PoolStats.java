package dev.tensorbuf.memory;

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
 *         PoolStats stats = pool.stats();
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
public record PoolStats(
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
