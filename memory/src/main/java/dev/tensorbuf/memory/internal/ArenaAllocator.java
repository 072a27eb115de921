package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An allocator over one FFM arena. Closing a buffer only ends its handle: an arena frees its
 * memory all at once, when the allocator closes.
 */
public final class ArenaAllocator implements Allocator {
    private final Arena arena;
    private final boolean shared;
    private final MemoryBuffer.Owner.Arena owner;
    private final long defaultAlignment;
    private final Scope scope;
    private final Object closing = new Object();
    /** Whether the FFM arena has closed (the scope may close before it); under {@link #closing}. */
    private boolean arenaClosed;

    /** @param shared whether to use {@link Arena#ofShared()} rather than {@link Arena#ofConfined()} */
    public ArenaAllocator(boolean shared, long defaultAlignment) {
        this(shared, defaultAlignment, "");
    }

    /** @param name what the arena serves, for {@link MemoryBuffer.Owner.Arena#name()}; {@code ""} for none */
    public ArenaAllocator(boolean shared, long defaultAlignment, String name) {
        this(shared, defaultAlignment, name, new Scope());
    }

    /**
     * @param scope the scope its buffers check, shared with an allocator that serves its small
     *     buffers from this one (the huge-page allocator), so that one close sees all their loans
     */
    public ArenaAllocator(boolean shared, long defaultAlignment, String name, Scope scope) {
        this.scope = scope;
        this.defaultAlignment = Errors.checkAlignment(defaultAlignment);
        this.shared = shared;
        this.arena = shared ? Arena.ofShared() : Arena.ofConfined();
        this.owner = new MemoryBuffer.Owner.Arena(shared, name);
    }

    @Override
    public MemorySpace memorySpace() {
        return MemorySpace.HOST;
    }

    @Override
    public long defaultAlignment() {
        return defaultAlignment;
    }

    @Override
    public MemoryBuffer allocate(long byteSize, long alignment) {
        Errors.checkByteSize(byteSize);
        Errors.checkAlignment(alignment);
        if (!scope.isOpen()) {
            throw Errors.allocatorClosed(owner.toString());
        }
        var lifetime = new Lifetime(owner, scope, byteSize) {
            @Override
            protected void release() {
                // The arena frees everything at once when the allocator closes.
            }
        };
        MemorySegment segment;
        try {
            segment = arena.allocate(byteSize, alignment);
        } catch (OutOfMemoryError e) {
            throw Errors.cannotReserve(byteSize, alignment, owner, e);
        } catch (WrongThreadException e) {
            throw Errors.wrongThread(this + " cannot allocate", e);
        } catch (IllegalStateException e) {
            // FFM's "Already closed": a close came between the check above and here.
            if (!scope.isOpen()) {
                IllegalStateException closed = Errors.allocatorClosed(owner.toString());
                closed.initCause(e);
                throw closed;
            }
            throw e;
        }
        return BufferFactory.host(lifetime, MemorySpace.HOST, segment);
    }

    @Override
    public boolean isOpen() {
        return scope.isOpen();
    }

    /**
     * Frees the arena, unless a buffer of it is lent ({@link Lifetime#lend()}): then it throws and
     * stays open. The check and the close are one step under the scope's monitor, where loans are
     * taken, so no loan starts between them.
     */
    @Override
    public void close() {
        // One closer at a time: two racing closes both saw it open, and the second arena.close() threw.
        synchronized (closing) {
            if (arenaClosed) {
                return;
            }
            synchronized (scope) {
                scope.refuseIfLent(this.toString());
                if (shared) {
                    // Closed in our books first: an allocation or a segment() racing the close then
                    // hears it from us ("shared arena is closed") rather than from FFM ("Already
                    // closed"), whose handshake with every thread leaves a wide window. An arena FFM
                    // will not close yet (a native call holds one of its segments) frees nothing, so
                    // it is open again, as Allocator.close promises: closed means freed.
                    scope.close();
                    try {
                        arena.close();
                    } catch (IllegalStateException inUse) {
                        scope.reopen();
                        throw Errors.cannotCloseInUse(this.toString(), inUse);
                    }
                } else {
                    try {
                        arena.close(); // first: one closed from the wrong thread throws and stays open
                    } catch (WrongThreadException e) {
                        throw Errors.wrongThread(this + " cannot close", e);
                    }
                    // Only the owner thread allocates from a confined arena, so nothing raced that.
                    scope.close();
                }
            }
            arenaClosed = true;
        }
    }

    @Override
    public String toString() {
        return owner + " allocator (default alignment " + defaultAlignment + ", " + (isOpen() ? "open)" : "closed)");
    }
}
