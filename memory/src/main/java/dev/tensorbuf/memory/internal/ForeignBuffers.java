package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The checks and construction behind {@link MemoryBuffer#foreign}: memory made elsewhere, freed by
 * a deleter run exactly once.
 */
public final class ForeignBuffers {
    private ForeignBuffers() {}

    public static MemoryBuffer foreign(long address, long byteSize, MemorySpace space, String owner, Runnable deleter) {
        return foreign(address, byteSize, space, owner, false, deleter);
    }

    public static MemoryBuffer foreign(long address, long byteSize, MemorySpace space, String owner, boolean readOnly,
                                 Runnable deleter) {
        Objects.requireNonNull(owner, "owner");
        checkAddressRange(address, byteSize, owner);
        Objects.requireNonNull(space, "space");
        if (space.hostAccessible()) {
            throw new IllegalArgumentException(space.describe()
                    + " is host-accessible: wrap its memory as a MemorySegment with MemoryBuffer.foreign(segment, ...)");
        }
        return BufferFactory.device(new ForeignLifetime(owner, byteSize, deleter), space, address, byteSize, readOnly);
    }

    /** Addresses are unsigned: {@code [address, address + byteSize)} must not wrap past 2^64. */
    private static void checkAddressRange(long address, long byteSize, String owner) {
        Errors.checkByteSize(byteSize);
        if (byteSize > 0 && Long.compareUnsigned(address, -byteSize) > 0) {
            throw new IllegalArgumentException(Errors.bytes(byteSize) + " at 0x" + Long.toHexString(address) + " for memory of "
                    + owner + " run past the end of the 64-bit address space");
        }
    }

    public static MemoryBuffer foreign(MemorySegment segment, MemorySpace space, String owner, Runnable deleter) {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(space, "space");
        Objects.requireNonNull(owner, "owner");
        if (!space.hostAccessible()) {
            throw new IllegalArgumentException(space.describe()
                    + " is not host-accessible: describe its memory with MemoryBuffer.foreign(address, byteSize, ...)");
        }
        if (!segment.isNative()) {
            throw new IllegalArgumentException("segment of " + segment.byteSize()
                    + " bytes is on the Java heap; foreign buffers wrap native memory only");
        }
        checkAddressRange(segment.address(), segment.byteSize(), owner);
        if (!segment.scope().isAlive()) {
            // Caught here, where the mistake is, rather than at the first read, as FFM's bare "Already closed".
            throw new IllegalStateException("cannot wrap " + Errors.bytes(segment.byteSize()) + " for foreign owner '"
                    + owner + "': the segment's arena is already closed");
        }
        return BufferFactory.host(new ForeignLifetime(owner, segment.byteSize(), deleter), space, segment);
    }
}
