package dev.tensorbuf.interop.staging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tensorbuf.memory.AllocationLimitException;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Resources under load: the pool and the staging pipeline with random sizes, layouts and close
 * orders on several threads, for {@code -Dtensorbuf.soakSeconds} (20 unless set), then zero
 * live bytes and zero leaked buffers; and pipelines closed while producers submit, where every
 * accepted tensor ends exactly once. Each prints a one-line report.
 */
class StagingSoakTest {
    private static final int PRODUCERS = 3;
    private static final long SOAK_SECONDS = Long.getLong("tensorbuf.soakSeconds", 20);

    private static long seed(String test) {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println(test + " seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        return seed;
    }

    /** A random source view over a fresh pooled buffer, filled with small integers, and a target of its dims. */
    private record Job(TensorView source, MemoryBuffer buffer, StagingTarget target, double checksum) {
    }

    private static Job job(PooledAllocator sources, SplittableRandom random) {
        int rank = 1 + random.nextInt(3);
        long[] dims = new long[rank];
        long count = 1;
        for (int d = 0; d < rank; d++) {
            // Mostly small, sometimes up to 32 Ki elements: several size classes and exact blocks.
            dims[d] = 1 + random.nextInt(random.nextInt(8) == 0 && count <= 160 ? 200 : 12);
            count *= dims[d];
        }
        MemoryBuffer buffer = sources.allocate(4 * count);
        TensorView packed = TensorView.strided(buffer, DType.F32, StridedLayout.packed(dims));
        // Read through a random op: the staged dims are the op's.
        TensorView source = switch (random.nextInt(3)) {
            case 0 -> packed;
            case 1 -> Ops.reverse(packed, random.nextInt(rank));
            default -> {
                int[] perm = new int[rank];
                for (int i = 0; i < rank; i++) {
                    perm[i] = rank - 1 - i;
                }
                yield Ops.transpose(packed, perm);
            }
        };
        long[] out = Extents.toArray(source.dims());
        long[] n = {random.nextInt(50)};
        TensorElements.of(source).forEachIndex(index -> TensorElements.of(source).setDouble((double) (n[0]++ % 200), index));
        StagingTarget target = switch (random.nextInt(4)) {
            case 0 -> StagingTarget.strided(DType.F32, StridedLayout.packed(out));
            case 1 -> StagingTarget.strided(DType.BF16, StridedLayout.packed(out));
            case 2 -> StagingTarget.strided(DType.F64, reversedStrides(out));
            default -> StagingTarget.of("f32" + java.util.Arrays.toString(out).replace(" ", "") + "{"
                    + ascending(rank) + (rank >= 2 ? ":T(2,4)" : "") + "}");
        };
        return new Job(source, buffer, target, StagingConcurrencyTest.checksum(source));
    }

    private static StridedLayout reversedStrides(long[] dims) {
        long[] strides = new long[dims.length];
        long step = 1;
        for (int d = 0; d < dims.length; d++) {
            strides[d] = step;
            step *= dims[d];
        }
        return StridedLayout.of(dims, strides);
    }

    private static String ascending(int rank) {
        StringBuilder s = new StringBuilder();
        for (int d = rank - 1; d >= 0; d--) {
            s.append(d).append(d > 0 ? "," : "");
        }
        return s.toString();
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void soakOfPoolAndPipelineEndsWithNothingLiveAndNoLeaks() throws Exception {
        long seed = seed("StagingSoakTest.soak");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SOAK_SECONDS);
        long started = System.nanoTime();
        Map<Long, Double> expected = new ConcurrentHashMap<>();
        Map<Long, Double> delivered = new ConcurrentHashMap<>();
        Set<Long> failedIds = ConcurrentHashMap.newKeySet();
        AtomicLong duplicates = new AtomicLong();
        ConcurrentLinkedQueue<StagingPipeline.Outcome.Staged> held = new ConcurrentLinkedQueue<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        AtomicLong staged = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong wrong = new AtomicLong();
        AtomicLong pipelines = new AtomicLong();
        AtomicLong direct = new AtomicLong();
        PooledAllocator.Stats stagedStats;
        PooledAllocator.Stats sourceStats;
        try (PooledAllocator stagedPool = PooledAllocator.builder().name("soak-staged").byteLimit(8 << 20)
                .maxCachedBytes(2 << 20).trackLeaks(true).build();
             PooledAllocator sources = PooledAllocator.builder().name("soak-sources").byteLimit(32 << 20)
                .largestSizeClass(64 << 10).trackLeaks(true).build()) {
            AtomicBoolean running = new AtomicBoolean(true);
            // Closes staged tensors in random order, some at once, some later.
            Thread closer = Thread.ofPlatform().name("soak-closer").start(() -> {
                SplittableRandom random = new SplittableRandom(seed ^ 0x5eed);
                List<StagingPipeline.Outcome.Staged> mine = new ArrayList<>();
                while (running.get() || !held.isEmpty() || !mine.isEmpty()) {
                    for (StagingPipeline.Outcome.Staged s; (s = held.poll()) != null; ) {
                        mine.add(s);
                    }
                    while (!mine.isEmpty() && (mine.size() > 16 || random.nextInt(3) == 0 || !running.get())) {
                        StagingPipeline.Outcome.Staged s = mine.remove(random.nextInt(mine.size()));
                        if (delivered.put(s.id(), StagingConcurrencyTest.checksum(s.view())) != null) {
                            duplicates.incrementAndGet();
                        }
                        s.close();
                    }
                    Thread.onSpinWait();
                }
            });
            // Pool-only users: allocate, hold a few, close in random order.
            Thread poolUser = Thread.ofPlatform().name("soak-pool-user").start(() -> {
                SplittableRandom random = new SplittableRandom(seed ^ 0x9001);
                List<MemoryBuffer> mine = new ArrayList<>();
                while (System.nanoTime() < end) {
                    try {
                        mine.add(sources.allocate(random.nextInt(random.nextBoolean() ? 256 : 200_000),
                                1L << random.nextInt(13)));
                        direct.incrementAndGet();
                    } catch (AllocationLimitException full) {
                        // Expected under the limit; the held buffers go back below.
                    }
                    while (mine.size() > random.nextInt(1, 24)) {
                        mine.remove(random.nextInt(mine.size())).close();
                    }
                }
                mine.forEach(MemoryBuffer::close);
            });
            SplittableRandom random = new SplittableRandom(seed);
            while (System.nanoTime() < end) {
                // A pipeline lives for a random while, then closes with a random mode while producers run.
                // Ids count from 1 in each pipeline: keys are (pipeline, id).
                long base = pipelines.incrementAndGet() << 32;
                var mode = random.nextBoolean() ? StagingPipeline.CloseMode.DRAIN : StagingPipeline.CloseMode.REJECT;
                StagingPipeline pipeline = StagingPipeline.builder().name("soak").pool(stagedPool)
                        .queueCapacity(1 + random.nextInt(32)).allocationWait(Duration.ofSeconds(5))
                        .closeMode(mode).consumer(o -> {
                            switch (o) {
                                case StagingPipeline.Outcome.Staged s -> {
                                    staged.incrementAndGet();
                                    held.add(new StagingPipeline.Outcome.Staged(base + s.id(), s.view()));
                                }
                                case StagingPipeline.Outcome.Failed f -> {
                                    failed.incrementAndGet();
                                    if (!failedIds.add(base + f.id())) {
                                        duplicates.incrementAndGet();
                                    }
                                    if (!(f.error() instanceof StagingPipeline.RejectedException)) {
                                        errors.add(f.error());
                                    }
                                }
                            }
                        }).build();
                long pipelineEnd = Math.min(end, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50 + random.nextInt(1000)));
                List<Thread> producers = new ArrayList<>();
                for (int p = 0; p < PRODUCERS; p++) {
                    SplittableRandom mine = random.split();
                    producers.add(Thread.ofPlatform().start(() -> produce(pipeline, base, sources, mine, pipelineEnd, expected, errors)));
                }
                Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(pipelineEnd - System.nanoTime())));
                pipeline.close();
                for (Thread t : producers) {
                    t.join();
                }
            }
            poolUser.join();
            running.set(false);
            closer.join();
            if (!errors.isEmpty()) {
                fail("seed " + seed + ": " + errors.size() + " unexpected error(s)", errors.getFirst());
            }
            stagedStats = stagedPool.stats();
            sourceStats = sources.stats();
            assertEquals(0, duplicates.get(), "tensors with two outcomes, seed " + seed);
            for (Map.Entry<Long, Double> e : delivered.entrySet()) {
                if (!e.getValue().equals(expected.get(e.getKey()))) {
                    wrong.incrementAndGet();
                }
            }
            assertEquals(0, wrong.get(), "staged tensors with wrong values, seed " + seed);
            Set<Long> ended = new java.util.HashSet<>(delivered.keySet());
            ended.addAll(failedIds);
            assertEquals(expected.keySet(), ended, "every accepted tensor ends exactly once, seed " + seed);
            assertEquals(0, stagedStats.liveBytes(), stagedStats.toString());
            assertEquals(0, sourceStats.liveBytes(), sourceStats.toString());
            assertTrue(stagedPool.leakReport().isEmpty(), stagedPool.leakReport().toString());
            assertTrue(sources.leakReport().isEmpty(), sources.leakReport().toString());
        }
        assertEquals(List.of(), StagingPipelineTest.stagingThreads());
        System.out.printf("soak: %.1f s, %d pipelines, %d staged tensors, %d failed/rejected, %d direct pool"
                        + " allocations; staged pool: %d allocations, %d reuses, peak live %d bytes; source pool: %d"
                        + " allocations, %d reuses, peak live %d bytes; live bytes 0, leaks = 0%n",
                (System.nanoTime() - started) / 1e9, pipelines.get(), staged.get(), failed.get(), direct.get(),
                stagedStats.allocations(), stagedStats.reuses(), stagedStats.peakLiveBytes(),
                sourceStats.allocations(), sourceStats.reuses(), sourceStats.peakLiveBytes());
        assertTrue(staged.get() > 0, "nothing staged");
    }

    /** Submits until the deadline or the pipeline refuses; every refused source is closed here. */
    private static void produce(StagingPipeline pipeline, long base, PooledAllocator sources, SplittableRandom random, long end,
                                Map<Long, Double> expected, List<Throwable> errors) {
        while (System.nanoTime() < end) {
            Job job;
            try {
                job = job(sources, random);
            } catch (AllocationLimitException full) {
                Thread.onSpinWait();
                continue;
            }
            try {
                if (random.nextBoolean()) {
                    long id = pipeline.submit(job.source(), job.target(), job.buffer()::close);
                    expected.put(base + id, job.checksum());
                } else {
                    var id = pipeline.trySubmit(job.source(), job.target(), job.buffer()::close);
                    if (id.isEmpty()) {
                        job.buffer().close();
                    } else {
                        expected.put(base + id.getAsLong(), job.checksum());
                    }
                }
            } catch (StagingPipeline.RejectedException closed) {
                job.buffer().close();
                return;
            } catch (InterruptedException e) {
                job.buffer().close();
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                job.buffer().close();
                errors.add(e);
                return;
            }
        }
    }
}
