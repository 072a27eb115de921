package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PoolStatsTest {

    @Test
    void exampleFromJavadoc() {
        try (PooledAllocator pool = PooledAllocator.builder().name("staging").build()) {
            pool.allocate(100).close();
            try (MemoryBuffer _ = pool.allocate(120)) {
                PooledAllocator.Stats stats = pool.stats();
                assertEquals(128, stats.liveBytes());
                assertEquals(1, stats.reuses());
                assertEquals("pool 'staging': 1 live buffer, 128 bytes live (peak 128), 2 allocations, 1 free, "
                        + "1 reused from cache, 0 bytes cached, no limit", stats.toString());
            }
        }
    }

    @Test
    void toStringShowsLimitAndBuffersReleasedAtClose() {
        var stats = new PooledAllocator.Stats("p", 0, 4096, 0, 3, 1, 0, 0, 2, 65536);
        assertEquals("pool 'p': 0 live buffers, 0 bytes live (peak 4096), 3 allocations, 1 free, 0 reused from cache, "
                + "0 bytes cached, 2 released at close, limit 65536 bytes", stats.toString());
    }
}
