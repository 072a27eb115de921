package dev.tensorbuf.memory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * A pool that cannot get memory names what was asked for and what it reserved for it. The review
 * saw the size class in place of the request, and the request's alignment in place of the block's.
 */
class BufferPoolMessagesTest {

    private static BufferPool refusing() {
        return new BufferPool("p", Long.MAX_VALUE, 1 << 20, 64 << 20, 64, false, (bytes, alignment, sizeClass) -> {
            throw new OutOfMemoryError("Unable to allocate " + bytes + " bytes");
        });
    }

    @Test
    void aRoundedBlockIsNamedWithTheRequest() {
        try (BufferPool pool = refusing()) {
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> pool.allocate(5000));
            assertEquals("cannot reserve a block of 8192 bytes aligned to 4096 for pool 'p' (the request: 5000 bytes"
                    + " aligned to 64): the system has no such native memory", e.getMessage());
            assertEquals("Unable to allocate 8192 bytes", e.getCause().getMessage());
            OutOfMemoryError aligned = assertThrows(OutOfMemoryError.class, () -> pool.allocate(1, 1024));
            assertEquals("cannot reserve a block of 1024 bytes aligned to 1024 for pool 'p' (the request: 1 byte"
                    + " aligned to 1024): the system has no such native memory", aligned.getMessage());
        }
    }

    @Test
    void anExactBlockIsTheRequest() {
        try (BufferPool pool = refusing()) {
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> pool.allocate(8, 1 << 20));
            assertEquals("cannot reserve 8 bytes aligned to 1048576 (an alignment that may take up to 1048583 bytes"
                    + " to meet) for pool 'p': the system has no such native memory", e.getMessage());
            assertEquals(0, pool.stats().allocations());
        }
    }
}
