package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class BufferOwnerTest {

    @Test
    void exampleFromJavadoc() {
        try (PooledAllocator pool = PooledAllocator.builder().name("staging").build();
                Buffer buffer = pool.allocate(4096)) {
            assertEquals(new BufferOwner.Pool("staging"), buffer.owner());
            assertEquals("pool 'staging'", buffer.owner().toString());
        }
    }

    @Test
    void eachOwnerNamesItselfForMessages() {
        assertEquals("confined arena", new BufferOwner.Arena(false).toString());
        assertEquals("shared arena", new BufferOwner.Arena(true).toString());
        assertEquals("foreign owner 'dlpack'", new BufferOwner.Foreign("dlpack").toString());
        try (Allocator shared = Allocators.shared()) {
            assertEquals(new BufferOwner.Arena(true), shared.allocate(1).owner());
        }
    }
}
