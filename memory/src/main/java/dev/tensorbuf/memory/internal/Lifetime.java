package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.BufferOwner;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The life of one allocation, shared by its root buffer and every view of it. Closing is a
 * compare-and-set, so {@link #release()} runs exactly once whatever the threads do.
 */
public abstract class Lifetime {
    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Lifetime.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BufferOwner owner;
    private final Scope scope;
    private final long byteSize;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    private volatile String closedAt;

    protected Lifetime(BufferOwner owner, Scope scope, long byteSize) {
        this.owner = owner;
        this.scope = scope;
        this.byteSize = byteSize;
    }

    /** {@return who frees the memory} */
    public final BufferOwner owner() {
        return owner;
    }

    /** {@return the size of the root buffer in bytes} */
    public final long byteSize() {
        return byteSize;
    }

    /** {@return whether neither the buffer nor its allocator has closed} */
    public final boolean isAlive() {
        return state == OPEN && scope.isOpen();
    }

    /** Throws the closed-buffer {@link IllegalStateException} unless alive. */
    public final void checkAlive() {
        if (state != OPEN || !scope.isOpen()) {
            throw Errors.closed(this);
        }
    }

    final boolean isClosedItself() {
        return state != OPEN;
    }

    final String closedAt() {
        return closedAt;
    }

    /** Closes once; later calls do nothing. */
    public final void close() {
        if (STATE.compareAndSet(this, OPEN, CLOSED)) {
            closedAt = closeSite();
            release();
        }
    }

    /** {@return where {@link #close()} was called, or null when not recorded} */
    protected String closeSite() {
        return null;
    }

    /** Gives the memory back; called exactly once. */
    protected abstract void release();

    /** {@return e.g. {@code "buffer of 4096 bytes from pool 'staging'"}} */
    public String describe() {
        return "buffer of " + byteSize + " bytes from " + owner;
    }
}
