package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class AllocationLimitExceptionTest {

    @Test
    void exampleFromJavadoc() {
        try (PooledAllocator pool = PooledAllocator.builder().name("small").byteLimit(1024).build()) {
            var e = Expect.throwsWith(AllocationLimitException.class,
                    "pool 'small' cannot allocate 2048 bytes: 0 bytes live + 2048 requested > limit 1024",
                    () -> pool.allocate(2048));
            assertEquals(2048, e.requestedBytes());
        }
    }

    @Test
    void oneByteIsOneByte() {
        try (PooledAllocator pool = PooledAllocator.builder().name("tiny").byteLimit(10).build()) {
            Expect.throwsWith(AllocationLimitException.class,
                    "pool 'tiny' cannot allocate 1 byte: 0 bytes live + 64 (the block it needs) > limit 10",
                    () -> pool.allocate(1));
        }
    }
}
