package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicBoolean;

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

    private final MemoryBuffer.Owner owner;
    private final Scope scope;
    private final long byteSize;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    private volatile String closedAt;

    protected Lifetime(MemoryBuffer.Owner owner, Scope scope, long byteSize) {
        this.owner = owner;
        this.scope = scope;
        this.byteSize = byteSize;
    }

    /** {@return who frees the memory} */
    public final MemoryBuffer.Owner owner() {
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

    /** Closes once; later calls do nothing. The memory goes back when the last hold ends. */
    public void close() {
        if (STATE.compareAndSet(this, OPEN, CLOSED)) {
            closedAt = closeSite();
            if (!deferIfHeld()) {
                release();
            }
        }
    }

    /** Holds not yet ended (loans included), and whether a close waits for them; guarded by {@code this}. */
    private int holds;
    private boolean releasePending;
    /** Loans not yet ended; guarded by {@link #scope}'s monitor, which an allocator's close takes too. */
    private int loans;

    /**
     * {@return a hold on the memory: a close while it lasts marks the buffer closed but gives the
     * memory back only when the last hold ends} (see {@link dev.tensorbuf.memory.MemoryBuffer#hold()})
     *
     * @throws IllegalStateException if closed
     */
    public final MemoryBuffer.Hold hold() {
        takeHold();
        return once(this::unhold);
    }

    /**
     * {@return a loan of the memory to code outside Java: a hold that also makes the allocator's
     * close refuse until it ends} (see {@link dev.tensorbuf.memory.MemoryBuffer#lend()}) Taken under the
     * scope's monitor, where the allocator checks for loans and closes, so a loan racing a close
     * either comes first (and the close is refused) or finds the buffer closed.
     *
     * @throws IllegalStateException if closed, or its allocator is
     */
    public final MemoryBuffer.Hold lend() {
        if (scope == Scope.FOREVER) {
            // No allocator frees foreign memory: the deleter already waits for the last hold.
            return hold();
        }
        synchronized (scope) {
            takeHold();
            if (loans++ == 0) {
                scope.lent(byteSize);
            }
        }
        return once(this::endLoan);
    }

    private void takeHold() {
        synchronized (this) {
            checkAlive();
            holds++;
        }
    }

    private void endLoan() {
        try {
            unhold(); // may give the memory back (a closed buffer) and run a deleter, which may throw
        } finally {
            synchronized (scope) {
                if (--loans == 0) {
                    scope.returned(byteSize);
                }
            }
        }
    }

    /** {@return a hold that runs {@code end} on its first close only} */
    private static MemoryBuffer.Hold once(Runnable end) {
        AtomicBoolean ended = new AtomicBoolean();
        return () -> {
            if (ended.compareAndSet(false, true)) {
                end.run();
            }
        };
    }

    private void unhold() {
        boolean release;
        synchronized (this) {
            holds--;
            release = holds == 0 && releasePending;
            releasePending &= !release;
        }
        if (release) {
            release();
        }
    }

    /** {@return true if holds remain, the release then left to the last of them} Call once the state is closed. */
    final boolean deferIfHeld() {
        synchronized (this) {
            releasePending = holds > 0;
            return releasePending;
        }
    }

    /**
     * {@return whether this call closed it} For lifetimes whose every close already runs under
     * one lock (a pool's), where a compare-and-set would only repeat what the lock guarantees.
     */
    final boolean closeUnderLock() {
        if (state != OPEN) {
            return false;
        }
        state = CLOSED;
        closedAt = closeSite();
        return true;
    }

    /** {@return where {@link #close()} was called, or null when not recorded} */
    protected String closeSite() {
        return null;
    }

    /** Gives the memory back; called exactly once. */
    protected abstract void release();

    /** {@return e.g. {@code "buffer of 4096 bytes from pool 'staging'"}} */
    public String describe() {
        return "buffer of " + Errors.bytes(byteSize) + " from " + owner;
    }
}
