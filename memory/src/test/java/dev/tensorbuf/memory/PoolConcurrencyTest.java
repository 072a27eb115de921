package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PoolConcurrencyTest {
    private static final int THREADS = 4;
    private static final int OPS_PER_THREAD = 20_000;
    private static final int MAX_HELD = 8;

    /** What one thread did, counted by itself. */
    private record Tally(long allocations, long frees, long refusals) {}

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentAllocateAndFreeKeepsExactAccountingAndNeverSharesABlock() throws Exception {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("PoolConcurrencyTest seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        // The limit is below what 4 threads x 8 held buffers of up to 16 KiB can reach, so refusals happen too.
        long limit = 256 << 10;
        PooledAllocator pool = PooledAllocator.builder()
                .name("race").byteLimit(limit).maxCachedBytes(64 << 10).trackLeaks(false).build();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        List<Future<Tally>> results = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long threadSeed = seed + t;
            int stamp = t + 1;
            results.add(executor.submit(() -> {
                start.await();
                return run(pool, new SplittableRandom(threadSeed), stamp);
            }));
        }
        start.countDown();
        long allocations = 0;
        long frees = 0;
        long refusals = 0;
        for (Future<Tally> result : results) {
            Tally tally = result.get();
            allocations += tally.allocations();
            frees += tally.frees();
            refusals += tally.refusals();
        }
        executor.shutdown();
        PooledAllocator.Stats stats = pool.stats();
        assertEquals(allocations, frees, "every thread closes what it allocated");
        assertEquals(allocations, stats.allocations(), "seed " + seed);
        assertEquals(frees, stats.frees(), "seed " + seed);
        assertEquals(0, stats.liveBytes(), "seed " + seed);
        assertEquals(0, stats.liveCount(), "seed " + seed);
        assertTrue(stats.peakLiveBytes() <= limit, stats::toString);
        assertTrue(stats.cachedBytes() <= 64 << 10, stats::toString);
        assertTrue(stats.reuses() > 0, stats::toString);
        assertTrue(refusals > 0, "the limit was never reached, seed " + seed);
        assertTrue(pool.closeAndReport().isEmpty());
    }

    /** Allocates and frees at random, stamping each buffer and checking the stamp before freeing. */
    private static Tally run(PooledAllocator pool, SplittableRandom random, int stamp) {
        List<MemoryBuffer> held = new ArrayList<>();
        long allocations = 0;
        long frees = 0;
        long refusals = 0;
        for (int op = 0; op < OPS_PER_THREAD; op++) {
            boolean allocate = held.isEmpty() || (held.size() < MAX_HELD && random.nextBoolean());
            if (allocate) {
                long size = 1 + random.nextInt(16 << 10);
                try {
                    MemoryBuffer buffer = pool.allocate(size);
                    buffer.segment().fill((byte) stamp);
                    held.add(buffer);
                    allocations++;
                } catch (AllocationLimitException e) {
                    refusals++;
                }
            } else {
                MemoryBuffer buffer = held.remove(random.nextInt(held.size()));
                checkStamp(buffer, stamp);
                buffer.close();
                frees++;
            }
        }
        for (MemoryBuffer buffer : held) {
            checkStamp(buffer, stamp);
            buffer.close();
        }
        return new Tally(allocations, frees + held.size(), refusals);
    }

    private static void checkStamp(MemoryBuffer buffer, int stamp) {
        long last = buffer.byteSize() - 1;
        assertEquals((byte) stamp, buffer.segment().get(ValueLayout.JAVA_BYTE, 0), "block handed to two threads");
        assertEquals((byte) stamp, buffer.segment().get(ValueLayout.JAVA_BYTE, last), "block handed to two threads");
    }
}
