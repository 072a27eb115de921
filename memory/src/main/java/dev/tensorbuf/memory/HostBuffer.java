package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.Errors;
import dev.tensorbuf.memory.internal.Lifetime;
import java.lang.foreign.MemorySegment;

/** A buffer whose bytes Java may touch, over a native segment of exactly its size. */
final class HostBuffer extends AbstractBuffer {
    /** A thread no segment is confined to: a segment it may use is shared. Never started. */
    private static final Thread NOBODY = Thread.ofVirtual().unstarted(() -> { });

    private final MemorySegment segment;
    /**
     * The thread a confined segment is for, null when shared (or when made on a thread it is not
     * for, where FFM's own check is left to answer). One field compare per element read, where
     * asking the segment cost 0.4-0.9 ns of a 4.4 ns read (bench/RESULTS.md, "Views: element access").
     */
    private final Thread confinedTo;

    /**
     * A root buffer, read-only when the segment is.
     *
     * @param segment the bytes, exactly the buffer's size; never exposed after the lifetime ends
     */
    HostBuffer(Lifetime lifetime, MemorySpace space, MemorySegment segment) {
        this(lifetime, space, segment, true, segment.isReadOnly(), confinement(segment));
    }

    private HostBuffer(Lifetime lifetime, MemorySpace space, MemorySegment segment, boolean root, boolean readOnly,
            Thread confinedTo) {
        super(lifetime, space, root, readOnly);
        this.segment = readOnly ? segment.asReadOnly() : segment;
        this.confinedTo = confinedTo;
    }

    private static Thread confinement(MemorySegment segment) {
        Thread current = Thread.currentThread();
        return segment.isAccessibleBy(NOBODY) || !segment.isAccessibleBy(current) ? null : current;
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    @Override
    public MemorySegment segment() {
        // Views call this per element. FFM checks the thread on every access too, but its
        // WrongThreadException names neither the buffer nor the cure.
        lifetime.checkAlive();
        Thread owner = confinedTo;
        if (owner != null && owner != Thread.currentThread()) {
            throw Errors.wrongThread(lifetime);
        }
        return segment;
    }

    @Override
    public long address() {
        checkUsable();
        return segment.address();
    }

    /**
     * Also refuses threads a confined arena's segment is not for: FFM would let them take the
     * address or a slice, and throw its own {@link WrongThreadException} only at the first read,
     * naming neither the buffer nor the cure.
     */
    @Override
    void checkUsable() {
        lifetime.checkAlive();
        if (!segment.isAccessibleBy(Thread.currentThread())) {
            throw Errors.wrongThread(lifetime);
        }
    }

    @Override
    MemoryBuffer view(long offset, long length, boolean readOnly) {
        return new HostBuffer(lifetime, space, segment.asSlice(offset, length), false, readOnly, confinedTo);
    }
}
