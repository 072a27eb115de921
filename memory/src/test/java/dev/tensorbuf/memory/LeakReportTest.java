package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LeakReportTest {

    private static MemoryBuffer load(PooledAllocator pool) {
        return pool.allocate(4096);
    }

    @Test
    void exampleFromJavadoc() {
        PooledAllocator pool = PooledAllocator.builder().name("staging").trackLeaks(true).build();
        MemoryBuffer forgotten = load(pool);
        LeakReport report = pool.closeAndReport();
        assertEquals("load", report.leaks().getFirst().allocationSite().getFirst().getMethodName());
        assertTrue(report.toString().startsWith("""
                pool 'staging': 1 buffer still open (4096 bytes)
                  buffer #1 of 4096 bytes, allocated at
                    dev.tensorbuf.memory.LeakReportTest.load(LeakReportTest.java:"""), report.toString());
        assertTrue(report.toString().contains("\n    dev.tensorbuf.memory.LeakReportTest.exampleFromJavadoc("));
        assertTrue(!forgotten.isAlive());
    }

    @Test
    void emptyReportSaysSo() {
        var report = new LeakReport("idle", List.of());
        assertTrue(report.isEmpty());
        assertEquals("pool 'idle': no buffers open", report.toString());
        try (PooledAllocator pool = PooledAllocator.builder().name("idle").build()) {
            assertEquals(report, pool.leakReport());
        }
    }

    /** The review made a report of -5 bytes. */
    @Test
    void aLeakRefusesValuesNoPoolGives() {
        Expect.throwsWith(IllegalArgumentException.class, "byteSize -5 must be >= 0",
                () -> new LeakReport.Leak(1, -5, List.of()));
        Expect.throwsWith(IllegalArgumentException.class, "id 0 must be >= 1",
                () -> new LeakReport.Leak(0, 5, List.of()));
        assertEquals("pool 'p': 1 buffer still open (1 byte)\n  buffer #1 of 1 byte, allocation site not recorded"
                + " (leak tracking is off)", new LeakReport("p", List.of(new LeakReport.Leak(1, 1, List.of()))).toString());
    }

    @Test
    void leakReportWhileOpenListsCurrentBuffersInAllocationOrder() {
        try (PooledAllocator pool = PooledAllocator.builder().build()) {
            MemoryBuffer a = pool.allocate(1);
            MemoryBuffer b = pool.allocate(2);
            MemoryBuffer c = pool.allocate(3);
            b.close();
            assertEquals(List.of(1L, 3L), pool.leakReport().leaks().stream().map(LeakReport.Leak::id).toList());
            a.close();
            c.close();
        }
    }
}
