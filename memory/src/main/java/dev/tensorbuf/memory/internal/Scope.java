package dev.tensorbuf.memory.internal;

/**
 * Whether an allocator is still open. Every buffer it made checks it, so closing an allocator
 * stops all of them at once without visiting each.
 */
public final class Scope {
    /** The scope of foreign buffers: only the buffer itself can end. */
    public static final Scope FOREVER = new Scope();

    private volatile boolean open = true;

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
}
