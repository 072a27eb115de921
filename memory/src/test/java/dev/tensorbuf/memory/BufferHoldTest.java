package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A hold keeps a closed buffer's memory from its next user until it ends: a copy that already
 * has the segment must not write into a block the pool has handed to someone else.
 */
class BufferHoldTest {
    @Test
    void aPooledBlockClosedWhileHeldGoesBackWhenTheHoldEnds() {
        try (PooledAllocator pool = PooledAllocator.builder().build()) {
            MemoryBuffer first = pool.allocate(1 << 20);
            long address = first.address();
            MemoryBuffer.Hold hold = first.hold();
            first.close();
            assertFalse(first.isAlive());
            assertThrows(IllegalStateException.class, first::segment);
            MemoryBuffer second = pool.allocate(1 << 20);
            assertNotEquals(address, second.address(), "the held block stays out of the pool");
            assertEquals(1, pool.stats().liveCount(), "the held buffer is closed");
            assertEquals(2 << 20, pool.stats().liveBytes(), "its block still counts as live");
            hold.close();
            hold.close(); // a second close of one hold does nothing
            assertEquals(1, pool.stats().liveCount());
            assertEquals(1 << 20, pool.stats().liveBytes());
            MemoryBuffer third = pool.allocate(1 << 20);
            assertEquals(address, third.address(), "back in the pool once the hold ended");
            assertThrows(IllegalStateException.class, first::hold);
        }
    }

    /** The review saw {@code b.hold(); b.close();} reported as a leak and counted as released by the pool. */
    @Test
    void aBufferClosedWhileHeldIsAFreeNotALeak() {
        PooledAllocator pool = PooledAllocator.builder().name("held").build();
        MemoryBuffer closedHeld = pool.allocate(64);
        MemoryBuffer.Hold hold = closedHeld.hold();
        closedHeld.close();
        MemoryBuffer openHeld = pool.allocate(100);
        MemoryBuffer.Hold openHold = openHeld.hold();
        assertEquals(List.of(2L), pool.leakReport().leaks().stream().map(LeakReport.Leak::id).toList());
        PooledAllocator.Stats stats = pool.stats();
        assertEquals(1, stats.liveCount());
        assertEquals(1, stats.frees());
        assertEquals(64 + 128, stats.liveBytes(), "the closed buffer's block waits for its hold");
        LeakReport atClose = pool.closeAndReport();
        assertEquals(List.of(2L), atClose.leaks().stream().map(LeakReport.Leak::id).toList());
        PooledAllocator.Stats closed = pool.stats();
        assertEquals(1, closed.frees());
        assertEquals(1, closed.releasedAtClose());
        assertEquals(closed.allocations(), closed.frees() + closed.liveCount() + closed.releasedAtClose());
        hold.close();
        openHold.close();
        assertEquals(closed, pool.stats(), "a hold ending after the pool closed changes nothing");
    }

    @Test
    void aForeignDeleterWaitsForTheLastHold() {
        AtomicInteger deleted = new AtomicInteger();
        MemoryBuffer b = MemoryBuffer.foreign(Arena.ofAuto().allocate(16), MemorySpace.HOST, "test", deleted::incrementAndGet);
        MemoryBuffer.Hold one = b.hold();
        MemoryBuffer.Hold two = b.slice(0, 8).hold(); // a view holds the same memory
        b.close();
        assertEquals(0, deleted.get());
        one.close();
        assertEquals(0, deleted.get());
        two.close();
        assertEquals(1, deleted.get());
        b.close();
        assertEquals(1, deleted.get(), "the deleter runs exactly once");
    }

    /**
     * A deleter deferred by a hold runs when the last hold ends, and what it throws comes out of
     * that hold's close (MemoryBuffer.close's contract, moved to where the deleter runs); the hold has
     * ended all the same, and the deleter does not run again.
     */
    @Test
    void aDeleterDeferredByAHoldThrowsFromTheLastHoldsClose() {
        AtomicInteger deleted = new AtomicInteger();
        MemoryBuffer b = MemoryBuffer.foreign(Arena.ofAuto().allocate(16), MemorySpace.HOST, "test", () -> {
            deleted.incrementAndGet();
            throw new IllegalStateException("native free failed");
        });
        MemoryBuffer.Hold hold = b.hold();
        b.close(); // deferred: returns without running the deleter
        assertEquals(0, deleted.get());
        IllegalStateException e = assertThrows(IllegalStateException.class, hold::close);
        assertEquals("native free failed", e.getMessage());
        hold.close();
        b.close();
        assertEquals(1, deleted.get(), "the deleter runs exactly once");
    }

    /** A close after the pool's keeps the pool's close as the one reported. */
    @Test
    void aCloseAfterThePoolsKeepsThePoolAsTheCloser() {
        PooledAllocator pool = PooledAllocator.builder().name("leaky").trackLeaks(true).build();
        MemoryBuffer b = pool.allocate(300);
        pool.closeAndReport();
        b.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, b::segment);
        assertTrue(e.getMessage().contains("when its pool 'leaky' closed"), e.getMessage());
    }

    /** Without a limit, a request no machine holds is the system's refusal, live buffers or not. */
    @Test
    void aPoolWithoutLimitRefusesTheImpossibleAsTheSystemDoes() {
        try (PooledAllocator pool = PooledAllocator.builder().build()) {
            MemoryBuffer keep = pool.allocate(64);
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> pool.allocate(Long.MAX_VALUE));
            assertTrue(e.getMessage().contains("cannot reserve 9223372036854775807 bytes"), e.getMessage());
            assertTrue(keep.isAlive());
        }
        OutOfMemoryError aligned = assertThrows(OutOfMemoryError.class, () -> {
            try (Allocator a = Allocators.confined()) {
                a.allocate(8, 1L << 60);
            }
        });
        assertTrue(aligned.getMessage().contains("an alignment that may take up to"), aligned.getMessage());
    }
}
