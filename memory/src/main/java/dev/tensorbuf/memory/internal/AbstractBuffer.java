package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;

/** What host and device buffers share: lifetime checks, views, alignment and closing. */
public abstract sealed class AbstractBuffer implements MemoryBuffer permits HostBuffer, DeviceBuffer {
    final Lifetime lifetime;
    final MemorySpace space;
    final boolean root;
    final boolean readOnly;

    AbstractBuffer(Lifetime lifetime, MemorySpace space, boolean root, boolean readOnly) {
        this.lifetime = lifetime;
        this.space = space;
        this.root = root;
        this.readOnly = readOnly;
    }

    @Override
    public final MemorySpace memorySpace() {
        return space;
    }

    @Override
    public final MemoryBuffer.Owner owner() {
        return lifetime.owner();
    }

    @Override
    public final boolean isAlive() {
        return lifetime.isAlive();
    }

    @Override
    public final boolean isReadOnly() {
        return readOnly;
    }

    @Override
    public final boolean isRoot() {
        return root;
    }

    @Override
    public final boolean isAligned(long alignment) {
        Errors.checkAlignment(alignment);
        return (address() & (alignment - 1)) == 0;
    }

    @Override
    public final MemoryBuffer slice(long offset, long length) {
        checkUsable();
        long size = byteSize();
        if (offset < 0 || length < 0 || offset > size - length) {
            throw Errors.sliceOutOfBounds(offset, length, size);
        }
        return view(offset, length, readOnly);
    }

    @Override
    public final MemoryBuffer asReadOnly() {
        checkUsable();
        return view(0, byteSize(), true);
    }

    @Override
    public final Hold hold() {
        return lifetime.hold();
    }

    @Override
    public final Hold lend() {
        return lifetime.lend();
    }

    /** Throws unless the memory may be reached now, from this thread. */
    void checkUsable() {
        lifetime.checkAlive();
    }

    /** {@return a non-root view of {@code [offset, offset + length)}, bounds already checked} */
    abstract MemoryBuffer view(long offset, long length, boolean readOnly);

    @Override
    public final void close() {
        if (!root) {
            throw Errors.viewNotClosable(lifetime);
        }
        lifetime.close();
    }

    @Override
    public final String toString() {
        return (root ? "MemoryBuffer[" : readOnly ? "MemoryBuffer view (read-only)[" : "MemoryBuffer view[")
                + Errors.bytes(byteSize()) + " in " + space.describe() + " from " + owner()
                + (isAlive() ? ", alive]" : ", closed]");
    }
}
