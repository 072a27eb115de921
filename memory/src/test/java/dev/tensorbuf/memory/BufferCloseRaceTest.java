package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Closing memory while other threads read it: every read either returns the value written
 * before the race or throws {@link IllegalStateException}; never a crash, never another
 * exception. Rounds run for a bounded time and the outcomes are counted and printed.
 */
class BufferCloseRaceTest {
    private static final int READERS = 3;
    private static final int LONGS = 4096;
    private static final long ROUND_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

    /** How a round ends the memory the readers use. */
    private enum Closer { SHARED_ARENA, POOLED_BUFFER, POOL }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingSharedArenaBufferOrPoolWhileThreadsReadGivesValuesOrIllegalState() throws Exception {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("BufferCloseRaceTest seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        Map<String, Long> outcomes = new TreeMap<>();
        for (Closer closer : Closer.values()) {
            Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
            long rounds = 0;
            long end = System.nanoTime() + ROUND_NANOS;
            while (System.nanoTime() < end) {
                race(closer, random.split(), counts);
                rounds++;
            }
            outcomes.put(closer + " rounds", rounds);
            counts.forEach((k, v) -> outcomes.put(closer + " " + k, v.get()));
            assertEquals(null, counts.get("wrong value"), () -> closer + ": " + counts);
            assertTrue(counts.containsKey("IllegalStateException"), () -> closer + " never threw: " + counts);
        }
        System.out.println("BufferCloseRaceTest outcomes " + outcomes);
    }

    private static void race(Closer closer, SplittableRandom random, Map<String, AtomicLong> counts) throws Exception {
        Allocator allocator = closer == Closer.SHARED_ARENA ? Allocators.shared()
                : PooledAllocator.builder().name("race").build();
        MemoryBuffer buffer = allocator.allocate(8L * LONGS);
        for (int i = 0; i < LONGS; i++) {
            buffer.segment().setAtIndex(ValueLayout.JAVA_LONG, i, i * 31L);
        }
        // Half the readers keep the raw segment, half ask the buffer each time.
        MemorySegment raw = buffer.segment();
        CountDownLatch started = new CountDownLatch(READERS);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            boolean keepsSegment = r % 2 == 0;
            long threadSeed = random.nextLong();
            readers.add(Thread.ofPlatform().start(() -> {
                SplittableRandom local = new SplittableRandom(threadSeed);
                started.countDown();
                while (!stop.get()) {
                    int i = local.nextInt(LONGS);
                    String outcome;
                    try {
                        MemorySegment s = keepsSegment ? raw : buffer.segment();
                        long v = s.getAtIndex(ValueLayout.JAVA_LONG, i);
                        outcome = v == i * 31L ? "read" : "wrong value";
                    } catch (IllegalStateException closed) {
                        outcome = closed.getMessage() == null || closed.getMessage().isBlank() ? "no message"
                                : "IllegalStateException";
                    } catch (RuntimeException | Error other) {
                        outcome = "undocumented " + other;
                    }
                    counts.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
                    if (!outcome.equals("read")) {
                        break;
                    }
                }
            }));
        }
        started.await();
        Thread.sleep(0, random.nextInt(200_000));
        switch (closer) {
            case SHARED_ARENA -> allocator.close();
            case POOL -> ((PooledAllocator) allocator).closeAndReport(); // the open buffer is the point
            case POOLED_BUFFER -> {
                // The block stays cached with its bytes: a kept segment may still read them (the
                // documented aliasing); the buffer itself refuses. Then the pool frees the block.
                buffer.close();
                Thread.sleep(0, random.nextInt(100_000));
                ((PooledAllocator) allocator).closeAndReport();
            }
        }
        stop.set(true);
        for (Thread t : readers) {
            t.join(10_000);
        }
        counts.keySet().stream().filter(k -> k.startsWith("undocumented") || k.equals("no message")).findFirst()
                .ifPresent(k -> { throw new AssertionError(closer + ": " + k); });
        assertTrue(!buffer.isAlive(), "closed");
    }

    @Test
    void allocationBeyondTheAddressSpaceThrowsOutOfMemoryNamingTheRequest() {
        try (Allocator arena = Allocators.confined();
             PooledAllocator pool = PooledAllocator.builder().name("huge").build()) {
            Expect.throwsWith(OutOfMemoryError.class, "cannot reserve 9223372036854775807 bytes aligned to 64 for confined arena",
                    () -> arena.allocate(Long.MAX_VALUE));
            Expect.throwsWith(OutOfMemoryError.class, "cannot reserve 1125899906842624 bytes aligned to 64 for pool 'huge'",
                    () -> pool.allocate(1L << 50));
            assertEquals(0, pool.stats().liveBytes(), "a refused request reserves nothing");
            assertEquals(0, pool.stats().allocations());
        }
    }
}
