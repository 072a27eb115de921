package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.Errors;
import java.io.Serial;

/**
 * A pool refused an allocation because its byte limit would be exceeded. Nothing was allocated
 * and the pool's accounting is unchanged.
 *
 * {@snippet :
 * try (PooledAllocator pool = PooledAllocator.builder().name("small").byteLimit(1024).build()) {
 *     pool.allocate(2048);
 * } catch (AllocationLimitException e) {
 *     e.requestedBytes(); // 2048
 *     e.getMessage();     // "pool 'small' cannot allocate 2048 bytes: 0 bytes live + 2048 requested > limit 1024"
 * }
 * }
 */
public final class AllocationLimitException extends IllegalStateException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The bytes asked for. */
    private final long requestedBytes;
    /** The bytes the pool would have reserved. */
    private final long blockBytes;
    /** The bytes live, or reserved by allocations in progress, when refused. */
    private final long liveBytes;
    /** The pool's limit. */
    private final long limitBytes;

    /**
     * Describes a refused allocation.
     *
     * @param pool the pool's name
     * @param requestedBytes the bytes asked for
     * @param blockBytes the bytes the pool would have counted for them: the request rounded up to
     *     its size class, and at least its alignment
     * @param liveBytes the bytes already live, or reserved by allocations still in progress
     * @param limitBytes the pool's limit
     */
    public AllocationLimitException(
            String pool, long requestedBytes, long blockBytes, long liveBytes, long limitBytes) {
        super("pool '" + pool + "' cannot allocate " + Errors.bytes(requestedBytes) + ": " + liveBytes
                + " bytes live + " + blockBytes
                + (blockBytes == requestedBytes ? " requested" : " (the block it needs)")
                + " > limit " + limitBytes);
        this.requestedBytes = requestedBytes;
        this.blockBytes = blockBytes;
        this.liveBytes = liveBytes;
        this.limitBytes = limitBytes;
    }

    /** {@return the bytes the refused allocation needed} */
    public long requestedBytes() {
        return requestedBytes;
    }

    /**
     * {@return the bytes the pool would have counted: the request rounded up to its size class,
     * and at least its alignment (64 bytes at alignment 2^20 count 2^20)}
     */
    public long blockBytes() {
        return blockBytes;
    }

    /**
     * {@return the bytes live in the pool when it refused, counting those reserved by allocations
     * in progress on other threads (which {@link PooledAllocator.Stats} shows only once they complete)}
     */
    public long liveBytes() {
        return liveBytes;
    }

    /** {@return the pool's byte limit} */
    public long limitBytes() {
        return limitBytes;
    }
}
