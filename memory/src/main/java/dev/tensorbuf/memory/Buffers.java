package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.DeviceBuffer;
import dev.tensorbuf.memory.internal.Errors;
import dev.tensorbuf.memory.internal.ForeignLifetime;
import dev.tensorbuf.memory.internal.HostBuffer;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Buffers over memory made elsewhere (DLPack, CUDA, native libraries), for the interop module.
 * Each takes a deleter that frees the memory and is run exactly once, by the buffer's first
 * {@link MemoryBuffer#close()}; a buffer never closed never runs it.
 *
 * <p>This module calls no restricted FFM method: the interop classes that turn a native address
 * into a {@link MemorySegment} ({@code reinterpret}) do that themselves and hand the segment in.
 * They should scope that segment to an {@link java.lang.foreign.Arena} that the deleter closes
 * <em>before</em> freeing the memory, so that a segment kept past close throws instead of reading
 * freed memory.
 *
 * {@snippet :
 * AtomicInteger freed = new AtomicInteger();
 * MemoryBuffer onGpu = Buffers.foreign(0x7f00_0000_0000L, 1 << 20, MemorySpace.DEVICE, "cuda",
 *         freed::incrementAndGet);
 * onGpu.address();           // 0x7f0000000000L
 * onGpu.slice(4096, 4096).address(); // 0x7f0000001000L
 * onGpu.segment();           // UnsupportedOperationException: "buffer in S(0) device memory (HBM)
 *                            // is not host-accessible; copy it to a host buffer first"
 * onGpu.close();
 * onGpu.close();             // does nothing
 * freed.get();               // 1
 * }
 */
public final class Buffers {
    private Buffers() {}

    /**
     * {@return a root buffer of {@code byteSize} bytes at {@code address} in a space Java cannot
     * touch}
     *
     * @param address the device address (any 64-bit value; it is never dereferenced here)
     * @param byteSize the size in bytes, {@code >= 0}
     * @param space where the memory is; must not be host-accessible
     * @param owner names the owner in messages, e.g. {@code "dlpack"}
     * @param deleter frees the memory; run exactly once, on the first close
     * @throws IllegalArgumentException if {@code byteSize < 0}, the range runs past the end of the
     *     64-bit address space, or {@code space} is host-accessible (wrap a segment with
     *     {@link #foreign(MemorySegment, MemorySpace, String, Runnable)})
     */
    public static MemoryBuffer foreign(long address, long byteSize, MemorySpace space, String owner, Runnable deleter) {
        return foreign(address, byteSize, space, owner, false, deleter);
    }

    /**
     * {@return a root buffer as {@link #foreign(long, long, MemorySpace, String, Runnable)}, read-only
     * when the owner forbids writes} Views of a read-only buffer refuse writes, and copies refuse
     * it as a destination.
     *
     * @param readOnly whether the owner forbids writes (a DLPack producer's {@code READ_ONLY})
     */
    public static MemoryBuffer foreign(long address, long byteSize, MemorySpace space, String owner, boolean readOnly,
                                 Runnable deleter) {
        Objects.requireNonNull(owner, "owner");
        checkAddressRange(address, byteSize, owner);
        Objects.requireNonNull(space, "space");
        if (space.hostAccessible()) {
            throw new IllegalArgumentException(space.describe()
                    + " is host-accessible: wrap its memory as a MemorySegment with foreign(segment, ...)");
        }
        return new DeviceBuffer(new ForeignLifetime(owner, byteSize, deleter), space, address, byteSize, readOnly);
    }

    /** Addresses are unsigned: {@code [address, address + byteSize)} must not wrap past 2^64. */
    private static void checkAddressRange(long address, long byteSize, String owner) {
        Errors.checkByteSize(byteSize);
        if (byteSize > 0 && Long.compareUnsigned(address, -byteSize) > 0) {
            throw new IllegalArgumentException(Errors.bytes(byteSize) + " at 0x" + Long.toHexString(address) + " for memory of "
                    + owner + " run past the end of the 64-bit address space");
        }
    }

    /**
     * {@return a root buffer over a native segment in a host-accessible space; read-only when the
     * segment is}
     *
     * @param segment the bytes; should be scoped to an arena that the deleter closes first
     * @param space where the memory is; must be host-accessible
     * @param owner names the owner in messages, e.g. {@code "dlpack"}
     * @param deleter frees the memory; run exactly once, on the first close
     * @throws IllegalArgumentException if the segment is not native or {@code space} is not
     *     host-accessible (use {@link #foreign(long, long, MemorySpace, String, Runnable)})
     * @throws IllegalStateException if the segment's arena is already closed: its memory is gone
     */
    public static MemoryBuffer foreign(MemorySegment segment, MemorySpace space, String owner, Runnable deleter) {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(space, "space");
        Objects.requireNonNull(owner, "owner");
        if (!space.hostAccessible()) {
            throw new IllegalArgumentException(space.describe()
                    + " is not host-accessible: describe its memory with foreign(address, byteSize, ...)");
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
        return new HostBuffer(new ForeignLifetime(owner, segment.byteSize(), deleter), space, segment);
    }
}
