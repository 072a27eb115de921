package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PooledAllocatorTest {

    @Test
    void exampleFromJavadoc() {
        try (PooledAllocator pool = PooledAllocator.builder()
                .name("staging")
                .byteLimit(64 << 20)
                .build()) {
            try (MemoryBuffer a = pool.allocate(4096)) {
                a.segment().fill((byte) 1);
            }
            try (MemoryBuffer b = pool.allocate(4000)) {
                assertEquals(1, b.segment().get(ValueLayout.JAVA_BYTE, 0));
            }
            assertEquals(1, pool.stats().reuses());
            assertEquals(4096, pool.stats().cachedBytes());
        }
    }

    /** Stats as one comparable list: live bytes, peak, live count, allocations, frees, reuses, cached. */
    private static List<Long> counts(PooledAllocator.Stats s) {
        return List.of(s.liveBytes(), s.peakLiveBytes(), s.liveCount(), s.allocations(), s.frees(), s.reuses(),
                s.cachedBytes());
    }

    @Test
    void accountingIsExactThroughAScriptedSequence() {
        try (PooledAllocator pool = PooledAllocator.builder().name("count").build()) {
            MemoryBuffer a = pool.allocate(100);      // 128-byte block
            MemoryBuffer b = pool.allocate(64);       // 64
            MemoryBuffer c = pool.allocate(5000);     // 8192
            assertEquals(List.of(8384L, 8384L, 3L, 3L, 0L, 0L, 0L), counts(pool.stats()));
            a.close();
            c.close();
            assertEquals(List.of(64L, 8384L, 1L, 3L, 2L, 0L, 8320L), counts(pool.stats()));
            MemoryBuffer d = pool.allocate(8192);     // reuses c's block
            MemoryBuffer e = pool.allocate(65);       // reuses a's 128-byte block
            MemoryBuffer f = pool.allocate(128);      // new 128-byte block
            assertEquals(List.of(8512L, 8512L, 4L, 6L, 2L, 2L, 0L), counts(pool.stats()));
            for (MemoryBuffer buffer : List.of(b, d, e, f)) {
                buffer.close();
            }
            assertEquals(List.of(0L, 8512L, 0L, 6L, 6L, 2L, 8512L), counts(pool.stats()));
            assertEquals(0, pool.stats().releasedAtClose());
        }
    }

    @ParameterizedTest(name = "{0} bytes at {1} -> block of {2}")
    @CsvSource({
        "0, 64, 64", "1, 64, 64", "64, 64, 64", "65, 64, 128", "100, 256, 256", "4096, 64, 4096",
        "4097, 64, 8192", "1048576, 64, 1048576", "1048577, 64, 1048577", "100, 8192, 8192",
        "0, 8192, 8192", "8193, 8192, 8193", "64, 1048576, 1048576", "2097152, 1048576, 2097152",
    })
    void requestsRoundUpToTheirSizeClassOrGetExactBlocks(long size, long alignment, long block) {
        try (PooledAllocator pool = PooledAllocator.builder().build();
                MemoryBuffer buffer = pool.allocate(size, alignment)) {
            assertEquals(size, buffer.byteSize());
            assertEquals(block, pool.stats().liveBytes());
            assertTrue(buffer.isAligned(alignment));
        }
    }

    @Test
    void blocksLargerThanTheLargestClassAreFreedNotCached() {
        try (PooledAllocator pool = PooledAllocator.builder().largestSizeClass(4096).build()) {
            MemoryBuffer big = pool.allocate(5000);
            MemorySegment raw = big.segment();
            big.close();
            assertEquals(0, pool.stats().cachedBytes());
            assertThrows(IllegalStateException.class, () -> raw.get(ValueLayout.JAVA_BYTE, 0));
        }
    }

    @Test
    void cacheKeepsAtMostMaxCachedBytesAndFreesTheRest() {
        try (PooledAllocator pool = PooledAllocator.builder().maxCachedBytes(256).build()) {
            List<MemoryBuffer> buffers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                buffers.add(pool.allocate(128));
            }
            MemorySegment lastRaw = buffers.getLast().segment();
            buffers.forEach(MemoryBuffer::close);
            assertEquals(256, pool.stats().cachedBytes());
            // The last two closed did not fit in the cache: their memory is gone, not aliased.
            assertThrows(IllegalStateException.class, () -> lastRaw.get(ValueLayout.JAVA_BYTE, 0));
        }
    }

    @Test
    void exceedingTheLimitFailsCleanlyWithNothingLeaked() {
        try (PooledAllocator pool = PooledAllocator.builder().name("small").byteLimit(8192).build()) {
            MemoryBuffer held = pool.allocate(4096);
            MemoryBuffer cachedLater = pool.allocate(2048);
            cachedLater.close();
            PooledAllocator.Stats before = pool.stats();
            var error = Expect.throwsWith(AllocationLimitException.class,
                    "pool 'small' cannot allocate 4097 bytes: 4096 bytes live + 8192 (the block it needs) > limit 8192",
                    () -> pool.allocate(4097));
            assertEquals(4097, error.requestedBytes());
            assertEquals(8192, error.blockBytes());
            assertEquals(4096, error.liveBytes());
            assertEquals(8192, error.limitBytes());
            assertEquals(before, pool.stats());
            assertTrue(pool.leakReport().leaks().stream().allMatch(l -> l.byteSize() == 4096));
            assertEquals(1, pool.leakReport().leaks().size());
            // Room that is there can still be used: the cached 2048 block is evicted to fit 4096 more.
            MemoryBuffer more = pool.allocate(4096);
            assertEquals(List.of(8192L, 8192L, 2L, 3L, 1L, 0L, 0L), counts(pool.stats()));
            more.close();
            held.close();
            assertTrue(pool.leakReport().isEmpty());
        }
    }

    @Test
    void limitExceptionNamesExactRequestsPlainly() {
        try (PooledAllocator pool = PooledAllocator.builder().name("small").byteLimit(1024).build()) {
            Expect.throwsWith(AllocationLimitException.class,
                    "pool 'small' cannot allocate 2048 bytes: 0 bytes live + 2048 requested > limit 1024",
                    () -> pool.allocate(2048));
            assertEquals(0, pool.stats().allocations());
        }
    }

    /**
     * The review's {@code byteLimit(4096)} pool took 64 bytes at alignment 2^20 and counted 64,
     * while the system had reserved a MiB to align them: the limit bounded nothing.
     */
    @Test
    void aLargeAlignmentCountsAgainstTheLimit() {
        try (PooledAllocator pool = PooledAllocator.builder().name("lim").byteLimit(4096).build()) {
            var error = Expect.throwsWith(AllocationLimitException.class,
                    "pool 'lim' cannot allocate 64 bytes: 0 bytes live + 1048576 (the block it needs) > limit 4096",
                    () -> pool.allocate(64, 1 << 20));
            assertEquals(1 << 20, error.blockBytes());
            assertEquals(0, pool.stats().allocations());
            try (MemoryBuffer page = pool.allocate(64, 4096)) {
                assertEquals(4096, pool.stats().liveBytes());
                assertTrue(page.isAligned(4096));
            }
        }
        try (PooledAllocator pool = PooledAllocator.builder().byteLimit(1 << 21).build()) {
            MemoryBuffer aligned = pool.allocate(64, 1 << 20);
            assertEquals(1 << 20, pool.stats().liveBytes());
            aligned.close();
            assertEquals(0, pool.stats().liveBytes(), "exact blocks are freed, never cached");
            assertEquals(0, pool.stats().cachedBytes());
        }
    }

    @Test
    void closedPooledHandleIsDeadWhileItsMemoryServesTheNextBuffer() {
        try (PooledAllocator pool = PooledAllocator.builder().name("recycle").build()) {
            MemoryBuffer first = pool.allocate(256);
            MemorySegment kept = first.segment();
            first.close();
            MemoryBuffer second = pool.allocate(256);
            assertNotSame(first, second);
            assertEquals(kept.address(), second.address());
            Expect.throwsWith(IllegalStateException.class, "buffer of 256 bytes from pool 'recycle' was closed",
                    first::segment);
            first.close(); // a second close of the dead handle must not free the block second now holds
            assertEquals(1, pool.stats().liveCount());
            // Documented aliasing: a raw segment kept past close sees the next owner's writes.
            second.segment().set(ValueLayout.JAVA_INT, 0, 1234);
            assertEquals(1234, kept.get(ValueLayout.JAVA_INT, 0));
            second.close();
        }
    }

    @Test
    void closingThePoolWithOpenBuffersReleasesThemAndReportsThem() {
        PooledAllocator pool = PooledAllocator.builder().name("staging").build();
        MemoryBuffer open = pool.allocate(4096);
        MemoryBuffer slice = open.slice(0, 16);
        MemorySegment raw = open.segment();
        pool.allocate(64).close();
        LeakReport report = pool.closeAndReport();
        assertEquals(1, report.leaks().size());
        assertEquals(4096, report.totalBytes());
        assertFalse(open.isAlive());
        assertFalse(pool.isOpen());
        Expect.throwsWith(IllegalStateException.class,
                "buffer of 4096 bytes from pool 'staging' was closed when its pool 'staging' closed", slice::segment);
        // The pool freed the memory: a raw segment fails cleanly instead of reading freed memory.
        Expect.throwsWith(IllegalStateException.class, "Already closed", () -> raw.get(ValueLayout.JAVA_BYTE, 0));
        open.close(); // late close of a released buffer does nothing
        PooledAllocator.Stats stats = pool.stats();
        assertEquals(List.of(0L, 4160L, 0L, 2L, 1L, 0L, 0L), counts(stats));
        assertEquals(1, stats.releasedAtClose());
        assertTrue(pool.closeAndReport().isEmpty());
        Expect.throwsWith(IllegalStateException.class, "pool 'staging' is closed", () -> pool.allocate(1));
    }

    @Test
    void leakReportNamesTheAllocatingTestMethod() {
        PooledAllocator pool = PooledAllocator.builder().name("leaky").trackLeaks(true).build();
        MemoryBuffer closed = pool.allocate(64);
        MemoryBuffer leaked = pool.allocate(1000);
        closed.close();
        LeakReport report = pool.closeAndReport();
        assertEquals(1, report.leaks().size());
        LeakReport.Leak leak = report.leaks().getFirst();
        assertEquals(2, leak.id());
        assertEquals(1000, leak.byteSize());
        StackTraceElement site = leak.allocationSite().getFirst();
        assertEquals(PooledAllocatorTest.class.getName(), site.getClassName());
        assertEquals("leakReportNamesTheAllocatingTestMethod", site.getMethodName());
        assertTrue(report.toString().startsWith("""
                pool 'leaky': 1 buffer still open (1000 bytes)
                  buffer #2 of 1000 bytes, allocated at
                    dev.tensorbuf.memory.PooledAllocatorTest.leakReportNamesTheAllocatingTestMethod(PooledAllocatorTest.java:"""),
                report.toString());
        assertFalse(leaked.isAlive());
    }

    @Test
    void withoutTrackingLeaksAreStillCountedButHaveNoSite() {
        PooledAllocator pool = PooledAllocator.builder().name("untracked").build();
        pool.allocate(10);
        pool.allocate(20);
        LeakReport report = pool.closeAndReport();
        assertEquals("""
                pool 'untracked': 2 buffers still open (30 bytes)
                  buffer #1 of 10 bytes, allocation site not recorded (leak tracking is off)
                  buffer #2 of 20 bytes, allocation site not recorded (leak tracking is off)""", report.toString());
    }

    @Test
    void builderRejectsBadSettingsByValue() {
        var builder = PooledAllocator.builder();
        Expect.throwsWith(IllegalArgumentException.class, "byteLimit 0 must be > 0", () -> builder.byteLimit(0));
        Expect.throwsWith(IllegalArgumentException.class, "largestSizeClass 1000 is not a power of two",
                () -> builder.largestSizeClass(1000));
        Expect.throwsWith(IllegalArgumentException.class, "largestSizeClass 32 must be in [64, 2^40]",
                () -> builder.largestSizeClass(32));
        Expect.throwsWith(IllegalArgumentException.class, "maxCachedBytes -1 must be >= 0",
                () -> builder.maxCachedBytes(-1));
        Expect.throwsWith(IllegalArgumentException.class, "alignment 24 is not a power of two",
                () -> builder.defaultAlignment(24));
    }

    @Test
    void defaultAlignmentOfThePoolAppliesToPlainAllocations() {
        try (PooledAllocator pool = PooledAllocator.builder().defaultAlignment(1024).build()) {
            MemoryBuffer buffer = pool.allocate(10);
            assertTrue(buffer.isAligned(1024));
            assertEquals(1024, pool.stats().liveBytes());
            buffer.close();
        }
    }
}
