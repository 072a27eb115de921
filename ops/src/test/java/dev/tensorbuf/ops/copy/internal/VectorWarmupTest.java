package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The first step of a kernel runs scalar while its vector version is warmed on another thread, on the same loops. */
class VectorWarmupTest {
    @Test
    void stagingStaysExactWhileItsKernelIsWarmedAndThenRunsVector() throws InterruptedException {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        try (Arena arena = Arena.ofConfined()) {
            // A confined source: the warm-up thread cannot read it and warms on zeros instead.
            CopyPlan plan = stagingPlan(arena);
            MemorySegment pixels = AccessCopies.src(plan).segment();
            new CopyExecutor(1, false, Long.MAX_VALUE).execute(plan);
            byte[] expected = AccessCopies.dst(plan).segment().toArray(ValueLayout.JAVA_BYTE);
            // The element at [n=1, c=2, h=3, w=5]: pixel byte ((1 * 40 + 3) * 48 + 5) * 3 + 2, times -1, plus 3.
            long pixel = ((1L * 40 + 3) * 48 + 5) * 3 + 2;
            assertEquals(Math.fma(pixels.get(ValueLayout.JAVA_BYTE, pixel) & 0xff, -1f, 3f),
                    AccessCopies.dst(plan).segment().get(ValueLayout.JAVA_FLOAT, 4 * (((1L * 3 + 2) * 40 + 3) * 48 + 5)));

            VectorWarmup warmup = new VectorWarmup(true);
            CopyExecutor executor = new CopyExecutor(1, true, Long.MAX_VALUE, new ScalarFirst(0), warmup);
            assertFalse(warmup.isWarm(Kernel.BYTE_PLANES));
            long deadline = System.nanoTime() + VectorWarmup.MAX_WARMUP_NANOS + 60_000_000_000L;
            int copies = 0;
            while (!warmup.isWarm(Kernel.BYTE_PLANES) && System.nanoTime() < deadline) {
                AccessCopies.dst(plan).segment().fill((byte) 0x33);
                executor.execute(plan);
                copies++;
                assertArrayEquals(expected, AccessCopies.dst(plan).segment().toArray(ValueLayout.JAVA_BYTE), "copy " + copies);
                Thread.sleep(5);
            }
            assertTrue(warmup.isWarm(Kernel.BYTE_PLANES), "warmed within " + copies + " copies");
            AccessCopies.dst(plan).segment().fill((byte) 0x33);
            executor.execute(plan);
            assertArrayEquals(expected, AccessCopies.dst(plan).segment().toArray(ValueLayout.JAVA_BYTE), "once the vector kernel runs");
            assertTrue(warmup.vectorFor(Kernel.BYTE_PLANES, null, 1, null, null));
            assertTrue(warmup.vectorFor(Kernel.BULK, null, 1, null, null), "a kernel without a vector version is never held back");
            assertTrue(new VectorWarmup(false).vectorFor(Kernel.TRANSPOSE, null, 1, null, null), "warm-ups off: vector at once");
        }
    }

    @Test
    void aColdKernelsFirstBatchesStayOnTheCallerAndLaterOnesSplitOnMoreThanTwoThreads() {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        try (Arena arena = Arena.ofShared()) {
            CopyPlan plan = stagingPlan(arena);
            new CopyExecutor(1, false, Long.MAX_VALUE).execute(plan);
            byte[] expected = AccessCopies.dst(plan).segment().toArray(ValueLayout.JAVA_BYTE);
            for (int threads : new int[] {4, 2}) {
                // Warm-ups queued but never run: the kernel stays cold for as many copies as the test makes.
                VectorWarmup neverWarm = new VectorWarmup(true, false);
                CopyExecutor executor = new CopyExecutor(threads, true, 0, new ScalarFirst(0), neverWarm);
                for (int call = 1; call <= VectorWarmup.CALLER_BATCHES + 2; call++) {
                    AccessCopies.dst(plan).segment().fill((byte) 0x33);
                    executor.execute(plan);
                    assertArrayEquals(expected, AccessCopies.dst(plan).segment().toArray(ValueLayout.JAVA_BYTE),
                            threads + " threads, copy " + call);
                    boolean split = threads > 2 && call > VectorWarmup.CALLER_BATCHES;
                    assertEquals(split, executor.helpersStarted(), threads + " threads, copy " + call + ": split across helpers");
                }
                assertFalse(neverWarm.isWarm(Kernel.BYTE_PLANES), "the copies ran the scalar kernel throughout");
            }
        }
    }

    /** u8 NHWC [2,40,48,3] pixels, each its own value, to f32 NCHW with a scale and bias per channel, in {@code arena}. */
    private static CopyPlan stagingPlan(Arena arena) {
        MemorySegment pixels = arena.allocate(2L * 40 * 48 * 3, 64);
        for (long i = 0; i < pixels.byteSize(); i++) {
            pixels.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 37 + 11));
        }
        return AccessCopies.plan(Access.strided(pixels, DType.U8, StridedLayout.of(TensorFormat.NHWC, 2, 3, 40, 48)),
                Access.strided(arena.allocate(2L * 3 * 40 * 48 * 4, 64), DType.F32, StridedLayout.of(TensorFormat.NCHW, 2, 3, 40, 48)),
                new ChannelAffine(1, List.of(0.5f, 2f, -1f), List.of(1f, 0f, 3f)));
    }

    @Test
    void aNestReachingTooFarIsCutOutermostFirstKeepingTheLoopTheKernelNeedsWhole() {
        MemorySegment any = MemorySegment.NULL; // cut reads strides and counts only
        // u8 NHWC -> f32 NCHW, 8 images of 1M pixels: 12 MB of f32 an image, 96 MB in all.
        long px = 1_000_000;
        Task staging = new Task(any, any, 0, 0, new long[] {8, 3, px}, new long[] {3 * px, 1, 3},
                new long[] {12 * px, 4 * px, 4}, 1, 4, 1, 0);
        assertArrayEquals(new long[] {1, 3, px}, VectorWarmup.cut(Kernel.BYTE_PLANES, staging).count(),
                "one image, its loops whole");

        // f32 -> bf16, 8M elements (32 MB read): the one loop halved, in blocks of 16.
        Task convert = new Task(any, any, 0, 0, new long[] {8_000_000}, new long[] {4}, new long[] {2}, 4, 2, -1, 0);
        assertArrayEquals(new long[] {4_000_000}, VectorWarmup.cut(Kernel.CONVERT, convert).count());

        // One image of 3M pixels: its planes lie 12 MB apart, and the channel loop stays whole, so
        // no cut reaches less than 24 MB: not warmed (the kernel runs vector from its next step).
        Task big = new Task(any, any, 0, 0, new long[] {1, 3, 3 * px}, new long[] {9 * px, 1, 3},
                new long[] {36 * px, 12 * px, 4}, 1, 4, 1, 0);
        assertNull(VectorWarmup.cut(Kernel.BYTE_PLANES, big));

        // 16 elements 1 GiB apart: cut to 16 (a block) they still reach 15 GiB.
        Task sparse = new Task(any, any, 0, 0, new long[] {16}, new long[] {1L << 30}, new long[] {4}, 4, 4, -1, 0);
        assertNull(VectorWarmup.cut(Kernel.CONVERT, sparse));
        assertTrue(new VectorWarmup(true).vectorFor(Kernel.CONVERT, sparse, 1, null, null), "so it runs vector at once");
    }
}
