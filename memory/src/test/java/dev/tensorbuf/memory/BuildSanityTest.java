package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

class BuildSanityTest {
    @Test
    void testsRunOnJdk25WithForeignMemory() {
        assertTrue(Runtime.version().feature() >= 25, "tests must run on JDK 25+: " + Runtime.version());
        try (Arena arena = Arena.ofConfined()) {
            assertTrue(arena.allocate(64).byteSize() == 64);
        }
    }
}
