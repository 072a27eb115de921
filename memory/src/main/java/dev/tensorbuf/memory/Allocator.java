package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.Errors;

/**
 * Makes buffers in one memory space and owns their memory until it closes.
 *
 * <p>Closing an allocator frees all its memory at once; every buffer it made stops working
 * ({@link IllegalStateException}), held ones ({@link MemoryBuffer#hold()}) included. Memory lent
 * outside Java ({@link MemoryBuffer#lend()}) is the exception: while a loan lasts, the close is refused. Thread-safety is stated by each factory: see
 * {@link Allocators} and {@link PooledAllocator}.
 *
 * {@snippet :
 * try (Allocator allocator = Allocators.shared()) {
 *     MemoryBuffer page = allocator.allocate(8192, 4096);
 *     page.isAligned(4096);           // true
 *     allocator.defaultAlignment();   // 64
 *     allocator.allocate(100).isAligned(64); // true
 * }
 * }
 */
public interface Allocator extends AutoCloseable {

    /** The alignment of {@link #allocate(long)} unless an allocator says otherwise: one cache line. */
    long DEFAULT_ALIGNMENT = 64;

    /** {@return the memory space every buffer of this allocator lives in} */
    MemorySpace memorySpace();

    /** {@return the alignment {@link #allocate(long)} uses, a power of two} */
    long defaultAlignment();

    /**
     * {@return a new buffer of {@code byteSize} bytes aligned to {@link #defaultAlignment()}}
     *
     * @param byteSize the size in bytes, {@code >= 0}
     * @throws IllegalArgumentException if {@code byteSize < 0}
     * @throws IllegalStateException if the allocator is closed, or (pools) the byte limit would be
     *     exceeded ({@link AllocationLimitException})
     * @throws OutOfMemoryError if the system cannot reserve that much native memory (e.g. 2^40
     *     bytes), with a message naming the size, the alignment and the allocator; nothing changes
     */
    default MemoryBuffer allocate(long byteSize) {
        return allocate(byteSize, defaultAlignment());
    }

    /**
     * {@return a new buffer of {@code byteSize} bytes whose address is a multiple of
     * {@code alignment}}
     *
     * @param byteSize the size in bytes, {@code >= 0}
     * @param alignment any power of two, in bytes
     * @throws IllegalArgumentException if {@code byteSize < 0} or {@code alignment} is not a power
     *     of two (the message names the value)
     * @throws IllegalStateException if the allocator is closed, or (pools) the byte limit would be
     *     exceeded ({@link AllocationLimitException})
     * @throws OutOfMemoryError if the system cannot reserve that much native memory (e.g. 2^40
     *     bytes), with a message naming the size, the alignment and the allocator; nothing changes
     */
    MemoryBuffer allocate(long byteSize, long alignment);

    /**
     * {@return the error an allocator throws when the system cannot reserve {@code byteSize}
     * bytes at {@code alignment}, in the words every allocator of tensorbuf uses} For allocators
     * made elsewhere, so that theirs read alike.
     * {@snippet :
     * Allocator.cannotReserve(8, 1L << 20, "pool 'p'").getMessage();
     * // "cannot reserve 8 bytes aligned to 1048576 (an alignment that may take up to 1048583 bytes
     * //  to meet) for pool 'p': the system has no such native memory"
     * }
     *
     * @param byteSize the size asked for
     * @param alignment the alignment asked for
     * @param allocator names the allocator, by its {@code toString()}
     */
    static OutOfMemoryError cannotReserve(long byteSize, long alignment, Object allocator) {
        return Errors.cannotReserve(byteSize, alignment, allocator, null);
    }

    /** {@return whether the allocator is still open} */
    boolean isOpen();

    /**
     * Frees all memory of this allocator; its buffers stop working. Closing a closed allocator
     * does nothing, for the reason {@link MemoryBuffer} gives.
     *
     * @throws WrongThreadException if a confined allocator is closed from another thread; it
     *     stays open
     * @throws IllegalStateException if a buffer of this allocator is lent outside Java
     *     ({@link MemoryBuffer#lend()}, e.g. an in-place DLPack export not yet released), or a native
     *     call still holds memory of a shared arena allocator (a segment passed to a downcall);
     *     nothing is freed, it stays open, and a later close, once the loans have ended or the
     *     call has returned, frees it
     */
    @Override
    void close();
}
