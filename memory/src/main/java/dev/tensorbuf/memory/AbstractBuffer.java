package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.BufferFactory;
import dev.tensorbuf.memory.internal.Errors;
import dev.tensorbuf.memory.internal.Lifetime;
import java.lang.foreign.MemorySegment;

/**
 * What host and device buffers share: lifetime checks, views, alignment and closing. The one
 * implementation of {@link MemoryBuffer}, which is sealed: on the class path a sealed type's
 * subclasses must share its package, so the implementations live here, package-private, and
 * {@code memory.internal} (allocators, pools, foreign memory) and its friends make buffers through
 * {@link BufferFactory}, which this class's initializer lends the constructors.
 */
abstract sealed class AbstractBuffer implements MemoryBuffer permits HostBuffer, DeviceBuffer {
    static {
        BufferFactory.lend(new BufferFactory.Lender() {
            @Override
            public MemoryBuffer host(Lifetime lifetime, MemorySpace space, MemorySegment segment) {
                return new HostBuffer(lifetime, space, segment);
            }

            @Override
            public MemoryBuffer device(Lifetime lifetime, MemorySpace space, long address, long byteSize,
                                       boolean readOnly) {
                return new DeviceBuffer(lifetime, space, address, byteSize, readOnly);
            }
        });
    }

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
