package dev.tensorbuf.interop.staging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several producers, one worker, one consumer: every accepted tensor is delivered exactly once,
 * with the right values, and every buffer (staged and source) is back in its pool at the end.
 */
class StagingConcurrencyTest {
    private static final int PRODUCERS = 4;
    private static final int PER_PRODUCER = 500;

    /** A source shape and how to view it, and a target for it. */
    private record Case(String name, long[] dims, StagingTarget target) {
    }

    private static final List<Case> CASES = List.of(
            new Case("row-major to tiled", new long[] {3, 5}, StagingTarget.of("f32[3,5]{1,0:T(2,2)}")),
            new Case("transposed to row-major f64", new long[] {4, 6},
                    StagingTarget.strided(DType.F64, StridedLayout.packed(6, 4))),
            new Case("reversed to column-major", new long[] {7, 3}, StagingTarget.of("f32[7,3]{0,1}")),
            new Case("NCHW to NHWC bf16", new long[] {2, 3, 4, 4},
                    StagingTarget.strided(DType.BF16, StridedLayout.of(TensorFormat.NHWC, 2, 3, 4, 4))),
            new Case("sliced to s32 tiled", new long[] {8, 8}, StagingTarget.of("s32[4,8]{1,0:T(2,4)}")));

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"callback", "poll"})
    void everyTensorIsDeliveredOnceWithItsValuesAndNothingLeaks(String mode) throws Exception {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("StagingConcurrencyTest seed " + seed + " (-Dtensorbuf.seed=" + seed + ")");
        Map<Long, Double> expected = new ConcurrentHashMap<>();
        Map<Long, Double> delivered = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        java.util.function.Consumer<StagingPipeline.Outcome> consume = o -> {
            switch (o) {
                case StagingPipeline.Outcome.Staged s -> {
                    try (s) {
                        if (delivered.putIfAbsent(s.id(), checksum(s.view())) != null) {
                            duplicates.incrementAndGet();
                        }
                    }
                }
                case StagingPipeline.Outcome.Failed f -> {
                    failures.incrementAndGet();
                    f.error().printStackTrace();
                }
            }
        };
        try (PooledAllocator staged = PooledAllocator.builder().name("staged").byteLimit(1 << 20).trackLeaks(true).build();
             PooledAllocator sources = PooledAllocator.builder().name("sources").trackLeaks(true).build()) {
            var builder = StagingPipeline.builder().name("concurrent-" + mode).pool(staged).queueCapacity(16);
            if (mode.equals("callback")) {
                builder.consumer(consume);
            }
            StagingPipeline pipeline = builder.build();
            AtomicBoolean producing = new AtomicBoolean(true);
            Thread poller = null;
            if (mode.equals("poll")) {
                poller = Thread.ofPlatform().name("test-poller").start(() -> {
                    try {
                        while (true) {
                            StagingPipeline.Outcome o = pipeline.poll(Duration.ofMillis(50));
                            if (o != null) {
                                consume.accept(o);
                            } else if (!producing.get()) {
                                return;
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            long start = System.nanoTime();
            ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                SplittableRandom random = new SplittableRandom(seed + p);
                done.add(producers.submit(() -> {
                    for (int i = 0; i < PER_PRODUCER; i++) {
                        Case c = CASES.get(random.nextInt(CASES.size()));
                        int base = random.nextInt(100);
                        MemoryBuffer buffer = sources.allocate(4 * count(c.dims()));
                        TensorView source = source(c, buffer, base);
                        double sum = checksum(source);
                        long id = pipeline.submit(source, c.target(), buffer::close);
                        expected.put(id, sum);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            producers.shutdown();
            pipeline.close();
            producing.set(false);
            if (poller != null) {
                poller.join(30_000);
            }
            System.out.printf("staged %d tensors in %.2f s: %s%n", delivered.size(), (System.nanoTime() - start) / 1e9,
                    pipeline.stats());

            int total = PRODUCERS * PER_PRODUCER;
            assertEquals(0, failures.get());
            assertEquals(0, duplicates.get());
            assertEquals(total, expected.size());
            assertEquals(expected, delivered);
            StagingPipeline.Stats stats = pipeline.stats();
            assertEquals(total, stats.accepted());
            assertEquals(total, stats.staged());
            assertEquals(0, stats.failed() + stats.rejected() + stats.queued());
            assertEquals(0, staged.stats().liveBytes(), staged.stats().toString());
            assertTrue(staged.leakReport().isEmpty(), staged.leakReport().toString());
            assertEquals(0, sources.stats().liveBytes(), sources.stats().toString());
            assertTrue(sources.leakReport().isEmpty(), sources.leakReport().toString());
            if (mode.equals("poll")) {
                assertNull(pipeline.poll());
            }
            assertEquals(List.of(), StagingPipelineTest.stagingThreads());
        }
    }

    private static long count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    /** A view of the case's logical shape over a fresh buffer, through the case's layout op, filled from {@code base}. */
    private static TensorView source(Case c, MemoryBuffer buffer, int base) {
        long[] d = c.dims();
        TensorView v = switch (c.name()) {
            case "row-major to tiled" -> TensorView.strided(buffer, DType.F32, StridedLayout.packed(d));
            case "transposed to row-major f64" ->
                    Ops.transpose(TensorView.strided(buffer, DType.F32, StridedLayout.packed(d)), 1, 0);
            case "reversed to column-major" ->
                    Ops.reverse(TensorView.strided(buffer, DType.F32, StridedLayout.packed(d)), 0, 1);
            case "NCHW to NHWC bf16" -> TensorView.strided(buffer, DType.F32, StridedLayout.of(TensorFormat.NCHW, d));
            case "sliced to s32 tiled" -> Ops.slice(TensorView.strided(buffer, DType.S32, StridedLayout.packed(d)),
                    new long[] {2, 0}, new long[] {6, 8}, new long[] {1, 1});
            default -> throw new IllegalArgumentException(c.name());
        };
        long[] i = {0};
        // Small integers: exact in every target type (bf16 holds integers up to 256 exactly).
        TensorElements.of(v).forEachIndex(index -> TensorElements.of(v).setDouble((double) ((base + i[0]++) % 200), index));
        return v;
    }

    /** Sum of value * (row-major position + 1): changes when values move or change. */
    static double checksum(TensorView v) {
        double[] sum = {0};
        long[] position = {0};
        TensorElements.of(v).forEachIndex(index -> sum[0] += TensorElements.of(v).getDouble(index) * ++position[0]);
        return sum[0];
    }
}
