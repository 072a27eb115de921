package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.MemorySpace;
import org.agrona.BitUtil;

/** The module's error messages, in one place so they read alike. */
public final class Errors {
    private Errors() {}

    /** {@return {@code alignment}, checked to be a power of two} */
    public static long checkAlignment(long alignment) {
        if (alignment <= 0 || !BitUtil.isPowerOfTwo(alignment)) {
            throw new IllegalArgumentException("alignment " + alignment + " is not a power of two");
        }
        return alignment;
    }

    /** {@return {@code byteSize}, checked to be non-negative} */
    public static long checkByteSize(long byteSize) {
        if (byteSize < 0) {
            throw new IllegalArgumentException("byteSize " + byteSize + " must be >= 0");
        }
        return byteSize;
    }

    /** {@return the count and the noun, e.g. {@code "1 byte"}, {@code "64 bytes"}} */
    public static String bytes(long count) {
        return count + (count == 1 ? " byte" : " bytes");
    }

    /**
     * {@return an {@link OutOfMemoryError} naming the request}: FFM's own says only "Unable to
     * allocate N bytes", or nothing at all when size plus alignment overflows. Every allocator's,
     * through {@link dev.tensorbuf.memory.Allocator#cannotReserve}.
     *
     * @param cause the system's refusal, or null to leave the cause for the caller to set
     */
    public static OutOfMemoryError cannotReserve(long byteSize, long alignment, Object allocator, Throwable cause) {
        var error = new OutOfMemoryError("cannot reserve " + aligned(byteSize, alignment) + " for " + allocator
                + ": the system has no such native memory");
        if (cause != null) {
            error.initCause(cause); // once only: null would take the one chance a caller may need
        }
        return error;
    }

    /**
     * {@return {@link #cannotReserve} for a pool, which reserves a block for a request: both are
     * named where they differ} (a size class rounds the size up and aligns the block to it)
     */
    static OutOfMemoryError cannotReserveBlock(long byteSize, long alignment, long blockSize, long blockAlignment,
            Object pool, OutOfMemoryError cause) {
        if (blockSize == byteSize && blockAlignment == alignment) {
            return cannotReserve(byteSize, alignment, pool, cause);
        }
        var error = new OutOfMemoryError("cannot reserve a block of " + aligned(blockSize, blockAlignment) + " for "
                + pool + " (the request: " + bytes(byteSize) + " aligned to " + alignment
                + "): the system has no such native memory");
        error.initCause(cause);
        return error;
    }

    private static String aligned(long byteSize, long alignment) {
        // A small buffer at a huge alignment costs the alignment, which the message must say.
        String cost = alignment > byteSize ? " (an alignment that may take up to " + (byteSize + alignment - 1)
                + " bytes to meet)" : "";
        return bytes(byteSize) + " aligned to " + alignment + cost;
    }

    static IllegalStateException closed(Lifetime lifetime) {
        String closedAt = lifetime.closedAt();
        if (lifetime.isClosedItself()) {
            return new IllegalStateException(lifetime.describe() + " was closed"
                    + (closedAt == null ? "" : " at " + closedAt));
        }
        return new IllegalStateException(lifetime.describe() + " was closed when its " + lifetime.owner() + " closed");
    }

    /** {@return the refusal of a close while a native call holds the arena's memory: nothing was freed} */
    static IllegalStateException cannotCloseInUse(String allocator, IllegalStateException cause) {
        return new IllegalStateException("cannot close " + allocator + " yet: a native call still holds its memory ("
                + cause.getMessage() + "); nothing was freed and it stays open, so close it again once the call returns",
                cause);
    }

    /**
     * {@return the refusal of a close while buffers are lent outside Java ({@code MemoryBuffer.lend()}):
     * freeing them would leave a consumer, often native code that cannot get an exception, reading
     * freed memory; nothing was freed}
     */
    static IllegalStateException cannotCloseLent(String allocator, long buffers, long byteCount) {
        return new IllegalStateException("cannot close " + allocator + ": " + buffers
                + (buffers == 1 ? " of its buffers (" : " of its buffers (together ") + bytes(byteCount)
                + (buffers == 1 ? ") is" : ") are") + " lent outside Java (MemoryBuffer.lend(), e.g. an in-place DLPack export);"
                + " nothing was freed and it stays open: end the loans (for DLPack, the consumer calls the tensor's"
                + " deleter), then close it again");
    }

    public static WrongThreadException wrongThread(Lifetime lifetime) {
        return wrongThread(lifetime.describe() + " cannot be used", null);
    }

    /** @param what what failed, e.g. "buffer of 64 bytes from confined arena cannot be used" */
    static WrongThreadException wrongThread(String what, WrongThreadException cause) {
        return new WrongThreadException(what + " from thread \"" + Thread.currentThread().getName()
                + "\": a confined arena is for the thread that made it (use Allocators.shared() or a pool to share"
                + " buffers between threads)", cause);
    }

    public static UnsupportedOperationException notHostAccessible(MemorySpace space) {
        return new UnsupportedOperationException("buffer in " + space.describe()
                + " is not host-accessible; copy it to a host buffer first");
    }

    public static IndexOutOfBoundsException sliceOutOfBounds(long offset, long length, long byteSize) {
        return new IndexOutOfBoundsException("slice of " + bytes(length) + " at offset " + offset
                + " out of bounds [0, " + byteSize + ") of a buffer of " + bytes(byteSize));
    }

    public static UnsupportedOperationException viewNotClosable(Lifetime lifetime) {
        return new UnsupportedOperationException("a slice or read-only view of " + lifetime.describe()
                + " does not own its memory; close the buffer it was made from");
    }

    static IllegalStateException allocatorClosed(String allocator) {
        return new IllegalStateException(allocator + " is closed");
    }
}
