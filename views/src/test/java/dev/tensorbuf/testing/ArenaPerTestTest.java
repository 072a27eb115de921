package dev.tensorbuf.testing;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** {@link ArenaPerTest}: a fresh open arena in each test, closed once the test is over. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ArenaPerTestTest {
    private static Allocator firstTestsArena;
    private static MemoryBuffer firstTestsBuffer;

    @ArenaPerTest
    private Allocator arena;

    @ArenaPerTest
    private Allocator second;

    @Test
    @Order(1)
    void eachFieldHoldsAnOpenArenaOfItsOwn() {
        assertNotNull(arena);
        assertNotSame(arena, second);
        firstTestsBuffer = arena.allocate(16);
        firstTestsBuffer.segment().set(JAVA_INT, 0, 7);
        assertEquals(7, firstTestsBuffer.segment().get(JAVA_INT, 0));
        firstTestsArena = arena;
    }

    @Test
    @Order(2)
    void theNextTestGetsANewArenaAndTheLastOneIsClosed() {
        assertNotNull(firstTestsArena, "the first test ran before this one");
        assertNotSame(firstTestsArena, arena);
        assertThrows(IllegalStateException.class, () -> firstTestsBuffer.segment().get(JAVA_INT, 0));
        assertEquals(16, arena.allocate(16).segment().byteSize());
    }
}
