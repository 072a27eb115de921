package dev.tensorbuf.memory.internal;

/**
 * Whether an allocator is still open, and how much of its memory is lent outside Java. Every
 * buffer it made checks it, so closing an allocator stops all of them at once without visiting
 * each.
 *
 * <p>Loans ({@link Lifetime#lend()}) are taken and ended under this scope's monitor, and an
 * allocator's close checks {@link #refuseIfLent} and marks the scope closed under the same
 * monitor: a loan and a close cannot both succeed, so lent memory is never freed.
 */
public final class Scope {
    /** The scope of foreign buffers: only the buffer itself can end. */
    public static final Scope FOREVER = new Scope();

    private volatile boolean open = true;
    /** Buffers with at least one loan, and their bytes; guarded by {@code this}. */
    private long lentBuffers;
    private long lentBytes;

    /** {@return whether the allocator is open} */
    public boolean isOpen() {
        return open;
    }

    /** Marks the allocator closed; every buffer of it stops working. */
    public void close() {
        if (this == FOREVER) {
            throw new AssertionError("FOREVER never closes");
        }
        open = false;
    }

    /** Undoes {@link #close()} for a close that did not happen: the memory is still there and usable. */
    public void reopen() {
        open = true;
    }

    /**
     * Throws the refusal of a close while any of this scope's buffers is lent. Call it inside
     * {@code synchronized (scope)} and close the scope in that same block, so that no loan starts
     * between the check and the close.
     *
     * @param allocator the allocator being closed, for the message
     * @throws IllegalStateException naming the allocator, the loans and the cure; nothing changes
     */
    public synchronized void refuseIfLent(String allocator) {
        if (lentBuffers > 0) {
            throw Errors.cannotCloseLent(allocator, lentBuffers, lentBytes);
        }
    }

    /** A buffer of {@code byteSize} bytes got its first loan; under {@code this}. */
    void lent(long byteSize) {
        assert Thread.holdsLock(this);
        lentBuffers++;
        lentBytes = Math.addExact(lentBytes, byteSize); // live host memory: never near 2^63
    }

    /** A buffer of {@code byteSize} bytes lost its last loan; under {@code this}. */
    void returned(long byteSize) {
        assert Thread.holdsLock(this);
        lentBuffers--;
        lentBytes -= byteSize;
    }
}
