package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.Errors;
import dev.tensorbuf.memory.internal.Lifetime;
import java.lang.foreign.MemorySegment;

/** A buffer in memory Java cannot touch: an address, a size and a lifetime, nothing more. */
final class DeviceBuffer extends AbstractBuffer {
    private final long address;
    private final long byteSize;

    /** A root buffer of {@code byteSize} bytes at {@code address} in a non-host-accessible space. */
    DeviceBuffer(Lifetime lifetime, MemorySpace space, long address, long byteSize, boolean readOnly) {
        this(lifetime, space, address, byteSize, true, readOnly);
    }

    private DeviceBuffer(
            Lifetime lifetime, MemorySpace space, long address, long byteSize, boolean root, boolean readOnly) {
        super(lifetime, space, root, readOnly);
        assert !space.hostAccessible() : space;
        this.address = address;
        this.byteSize = byteSize;
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    @Override
    public MemorySegment segment() {
        lifetime.checkAlive();
        throw Errors.notHostAccessible(space);
    }

    @Override
    public long address() {
        lifetime.checkAlive();
        return address;
    }

    @Override
    MemoryBuffer view(long offset, long length, boolean readOnly) {
        return new DeviceBuffer(lifetime, space, address + offset, length, false, readOnly);
    }
}
