package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class BufferOwnerTest {

    @Test
    void exampleFromJavadoc() {
        try (PooledAllocator pool = PooledAllocator.builder().name("staging").build();
                MemoryBuffer buffer = pool.allocate(4096)) {
            assertEquals(new MemoryBuffer.Owner.Pool("staging"), buffer.owner());
            assertEquals("pool 'staging'", buffer.owner().toString());
        }
    }

    @Test
    void eachOwnerNamesItselfForMessages() {
        assertEquals("confined arena", new MemoryBuffer.Owner.Arena(false).toString());
        assertEquals("shared arena", new MemoryBuffer.Owner.Arena(true).toString());
        assertEquals("foreign owner 'dlpack'", new MemoryBuffer.Owner.Foreign("dlpack").toString());
        try (Allocator shared = Allocators.shared()) {
            assertEquals(new MemoryBuffer.Owner.Arena(true), shared.allocate(1).owner());
        }
    }

    @Test
    @SuppressWarnings("try") // closed inside to see what a closed arena says; the try closes it should an assertion fail first
    void aNamedArenaNamesWhatItServes() {
        assertEquals(new MemoryBuffer.Owner.Arena(true, ""), new MemoryBuffer.Owner.Arena(true));
        try (Allocator named = Allocators.shared("decoder")) {
            MemoryBuffer buffer = named.allocate(8);
            assertEquals(new MemoryBuffer.Owner.Arena(true, "decoder"), buffer.owner());
            named.close();
            Expect.throwsWith(IllegalStateException.class,
                    "buffer of 8 bytes from shared arena of decoder was closed when its shared arena of decoder closed",
                    buffer::segment);
            Expect.throwsWith(IllegalStateException.class, "shared arena of decoder is closed", () -> named.allocate(1));
        }
        Expect.throwsWith(IllegalArgumentException.class, "an arena's name must not be blank",
                () -> Allocators.shared(" "));
        Expect.throwsWith(NullPointerException.class, "name", () -> new MemoryBuffer.Owner.Arena(false, null));
    }
}
