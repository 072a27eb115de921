package dev.tensorbuf.interop.staging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StagingPipelineTest {
    @Test
    void exampleFromJavadoc() throws Exception {
        try (PooledAllocator pool = PooledAllocator.builder().name("staging").byteLimit(64 << 20).build();
             Allocator arena = Allocators.shared()) {
            TensorView nchw = TensorView.of(arena.allocate(4 * 48), "f32[1,3,4,4]{3,2,1,0}");
            float[] values = new float[48];
            for (int i = 0; i < 48; i++) {
                values[i] = i;
            }
            TensorElements.of(nchw).copyFrom(values);
            try (StagingPipeline pipeline = StagingPipeline.builder().name("demo").pool(pool).build()) {
                long id = pipeline.submit(nchw, StagingTarget.of("bf16[1,3,4,4]{1,3,2,0}"));
                try (var staged = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5))) {
                    assertEquals(id, staged.id());
                    assertEquals(96, staged.view().buffer().byteSize());
                    assertEquals(DType.BF16, staged.view().dtype());
                    assertEquals(TensorElements.of(nchw).getFloat(0, 2, 3, 1), TensorElements.of(staged.view()).getFloat(0, 2, 3, 1));
                    // NHWC: channel is fastest, so (0, 1, 0, 0) is the second bf16
                    assertEquals(16f, bf16(staged.view().buffer(), 1));
                }
                assertEquals("staging 'demo': 1 accepted, 1 staged (96 bytes), 0 failed, 0 rejected, 0 queued",
                        pipeline.stats().toString());
            }
            assertEquals(0, pool.stats().liveBytes());
        }
    }

    private static float bf16(MemoryBuffer b, long index) {
        return Float.intBitsToFloat((b.segment().getAtIndex(ValueLayout.JAVA_SHORT, index) & 0xffff) << 16);
    }

    @Test
    void tiledTargetHasFigureOneOrderAndZeroPaddingInAReusedBlock() throws Exception {
        try (PooledAllocator pool = PooledAllocator.builder().name("fig1").build();
             Allocator arena = Allocators.shared()) {
            try (MemoryBuffer dirty = pool.allocate(96)) { // the block the pipeline will get back
                dirty.segment().fill((byte) 0x7f);
            }
            TensorView src = TensorView.of(arena.allocate(60), "f32[3,5]{1,0}");
            float[] values = new float[15];
            for (int i = 0; i < 15; i++) {
                values[i] = i + 1;
            }
            TensorElements.of(src).copyFrom(values);
            try (StagingPipeline pipeline = StagingPipeline.builder().name("fig1").pool(pool).build()) {
                pipeline.submit(src, StagingTarget.of("f32[3,5]{1,0:T(2,2)}"));
                try (var staged = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5))) {
                    float[] raw = staged.view().buffer().segment().toArray(ValueLayout.JAVA_FLOAT);
                    // Figure 1: tiles of 2x2 in row-major tile order; row 3 and column 5 are padding.
                    float[] expected = {1, 2, 6, 7, 3, 4, 8, 9, 5, 0, 10, 0, 11, 12, 0, 0, 13, 14, 0, 0, 15, 0, 0, 0};
                    assertEquals(List.of(box(expected)), List.of(box(raw)));
                }
                assertEquals(1, pool.stats().reuses());
            }
        }
    }

    @Test
    void packedSubByteTargetZeroesTheRestOfItsLastByteInAReusedBlock() throws Exception {
        // Audit (StagingSubByte): three s4 take 12 of 16 bits, and the last byte's high nibble kept
        // the bits of the block's previous user, because the gap test counted whole bytes.
        StagingTarget target = StagingTarget.of("s4[3]{0:E(4)}");
        assertTrue(target.hasGaps());
        assertFalse(StagingTarget.of("s4[4]{0:E(4)}").hasGaps());
        try (PooledAllocator pool = PooledAllocator.builder().name("s4").build();
             Allocator arena = Allocators.shared()) {
            try (MemoryBuffer dirty = pool.allocate(64)) { // the block the pipeline will get back
                dirty.segment().fill((byte) 0xAB);
            }
            TensorView src = TensorView.of(arena.allocate(3), "s8[3]{0}");
            TensorElements.of(src).copyFrom(new long[] {1, 2, 3});
            try (StagingPipeline pipeline = StagingPipeline.builder().name("s4").pool(pool).build()) {
                pipeline.submit(src, target);
                try (var staged = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5))) {
                    byte[] raw = staged.view().buffer().segment().toArray(ValueLayout.JAVA_BYTE);
                    assertEquals("2103", HexFormat.of().formatHex(raw));
                }
                assertEquals(1, pool.stats().reuses());
            }
        }
    }

    @Test
    void normalisedTargetStagesU8NhwcPixelsAsScaledF32NchwElementByElement() throws Exception {
        float[] scale = {1 / 58.395f, 1 / 57.12f, 1 / 57.375f};
        float[] bias = {-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f};
        StagingTarget target = StagingTarget.strided(DType.F32, StridedLayout.of(TensorFormat.NCHW, 2, 3, 5, 7))
                .normalised(new ChannelAffine(1, List.of(scale[0], scale[1], scale[2]), List.of(bias[0], bias[1], bias[2])));
        assertEquals(List.of(2L, 3L, 5L, 7L), target.dims());
        assertEquals(2 * 3 * 5 * 7 * 4, target.byteSize());
        try (PooledAllocator pool = PooledAllocator.builder().name("pixels").build();
             Allocator arena = Allocators.shared()) {
            TensorView pixels = TensorView.of(arena.allocate(2 * 5 * 7 * 3), "u8[2,5,7,3]{3,2,1,0}"); // NHWC
            long[] bytes = new long[2 * 5 * 7 * 3];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (i * 37 + 11) % 256;
            }
            TensorElements.of(pixels).copyFrom(bytes);
            TensorView nchw = Ops.transpose(pixels, 0, 3, 1, 2);
            try (StagingPipeline pipeline = StagingPipeline.builder().name("pixels").pool(pool).build()) {
                pipeline.submit(nchw, target);
                try (var staged = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5))) {
                    for (int n = 0; n < 2; n++) {
                        for (int c = 0; c < 3; c++) {
                            for (int h = 0; h < 5; h++) {
                                for (int w = 0; w < 7; w++) {
                                    float x = bytes[((n * 5 + h) * 7 + w) * 3 + c];
                                    assertEquals(Math.fma(x, scale[c], bias[c]), TensorElements.of(staged.view()).getFloat(n, c, h, w),
                                            "[" + n + "," + c + "," + h + "," + w + "]");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void targetsThatCannotBeStagedAreRefusedWhenMadeOrSubmitted() throws Exception {
        ChannelAffine three = new ChannelAffine(1, List.of(1f, 2f, 3f), List.of(0f, 0f, 0f));
        StagingTarget s32 = StagingTarget.strided(DType.S32, StridedLayout.packed(2, 3));
        assertEquals("staging target s32 " + StridedLayout.packed(2, 3) + ": a per-channel scale and bias needs a"
                + " floating-point destination, got s32", assertThrows(IllegalArgumentException.class, () -> s32.normalised(three))
                .getMessage());
        StagingTarget f32 = StagingTarget.of("f32[2,4]{1,0}");
        assertEquals("staging target f32[2,4]{1,0}: 3 channel scales for dimension 1 of size 4 in [2, 4]",
                assertThrows(IllegalArgumentException.class, () -> f32.normalised(three)).getMessage());
        ChannelAffine dim2 = new ChannelAffine(2, List.of(1f), List.of(0f));
        assertEquals("staging target f32[2,4]{1,0}: channel dimension 2 out of bounds [0, 2) for [2, 4]",
                assertThrows(IllegalArgumentException.class, () -> f32.normalised(dim2)).getMessage());
        ChannelAffine four = new ChannelAffine(1, List.of(1f, 1f, 1f, 1f), List.of(0f, 0f, 0f, 0f));
        StagingTarget once = f32.normalised(four);
        assertEquals(four, once.affine().orElseThrow());
        assertThrows(IllegalArgumentException.class, () -> once.normalised(four));
        // A zero stride would keep whichever value landed last: refused when made, not per tensor.
        IllegalArgumentException broadcast = assertThrows(IllegalArgumentException.class,
                () -> StagingTarget.strided(DType.F32, StridedLayout.of(new long[] {4}, new long[] {0})));
        assertTrue(broadcast.getMessage().contains("writes several indices to one slot"), broadcast.getMessage());
        try (PooledAllocator pool = PooledAllocator.builder().name("c64").build();
             Allocator arena = Allocators.shared();
             StagingPipeline pipeline = StagingPipeline.builder().name("c64").pool(pool).build()) {
            TensorView complex = TensorView.of(arena.allocate(64), "c64[2,4]{1,0}");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pipeline.submit(complex, once));
            assertTrue(e.getMessage().contains("holds complex numbers"), e.getMessage());
            assertEquals(0, pipeline.stats().accepted());
        }
    }

    @Test
    void noSnapshotCountsMoreOutcomesThanAcceptances() throws Exception {
        // Review: accepted was counted after the offer, so the worker could stage a tensor, and a
        // snapshot count it, before its submitter counted it as accepted.
        List<String> broken = new CopyOnWriteArrayList<>();
        try (PooledAllocator pool = PooledAllocator.builder().name("count").build();
             Allocator arena = Allocators.shared()) {
            TensorView one = TensorView.of(arena.allocate(4), "f32[1]{0}");
            StagingTarget target = StagingTarget.of("f32[1]{0}");
            StagingPipeline[] self = new StagingPipeline[1];
            try (StagingPipeline pipeline = StagingPipeline.builder().name("count").pool(pool).queueCapacity(4)
                    .consumer(outcome -> {
                        StagingPipeline.Stats s = self[0].stats();
                        if (s.staged() + s.failed() + s.rejected() > s.accepted()) {
                            broken.add(s.toString());
                        }
                        if (outcome instanceof StagingPipeline.Outcome.Staged staged) {
                            staged.close();
                        }
                    }).build()) {
                self[0] = pipeline;
                for (int i = 0; i < 20_000; i++) {
                    while (pipeline.trySubmit(one, target).isEmpty()) {
                        Thread.onSpinWait();
                    }
                }
            }
        }
        assertEquals(List.of(), broken);
    }

    private static Float[] box(float[] a) {
        Float[] r = new Float[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i];
        }
        return r;
    }

    @Test
    void fullQueueMakesSubmitTimeOutAndTrySubmitReturnEmpty() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<StagingPipeline.Outcome> got = new CopyOnWriteArrayList<>();
        try (PooledAllocator pool = PooledAllocator.builder().name("bp").build();
             Allocator arena = Allocators.shared()) {
            TensorView src = TensorView.of(arena.allocate(16), "f32[4]{0}");
            StagingTarget target = StagingTarget.of("f32[4]{0}");
            StagingPipeline pipeline = StagingPipeline.builder().name("bp").pool(pool).queueCapacity(2)
                    .submitTimeout(Duration.ofMillis(100)).consumer(o -> {
                        entered.countDown();
                        await(release);
                        got.add(o);
                        if (o instanceof StagingPipeline.Outcome.Staged s) {
                            s.close();
                        }
                    }).build();
            pipeline.submit(src, target);
            assertTrue(entered.await(10, TimeUnit.SECONDS));
            pipeline.submit(src, target);
            assertTrue(pipeline.trySubmit(src, target).isPresent());
            assertTrue(pipeline.trySubmit(src, target).isEmpty());
            var e = assertThrows(StagingPipeline.RejectedException.class, () -> pipeline.submit(src, target));
            assertEquals("staging 'bp': queue full (2 tensors waiting) for 100 ms; the consumer or the conversion is"
                    + " slower than the producers; tensor not accepted", e.getMessage());
            release.countDown();
            pipeline.close();
            assertEquals(3, got.size());
            assertEquals(3, pipeline.stats().staged());
            assertEquals(0, pool.stats().liveBytes());
        }
    }

    @Test
    void closeWithRejectFailsQueuedTensorsAndFinishesTheCurrentOne() throws Exception {
        assertEquals(List.of("staged #1", "failed #2", "failed #3", "failed #4"), closeWhileBusy(StagingPipeline.CloseMode.REJECT));
    }

    @Test
    void closeWithDrainStagesEverythingQueued() throws Exception {
        assertEquals(List.of("staged #1", "staged #2", "staged #3", "staged #4"), closeWhileBusy(StagingPipeline.CloseMode.DRAIN));
    }

    private static List<String> closeWhileBusy(StagingPipeline.CloseMode mode) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> got = new CopyOnWriteArrayList<>();
        List<String> messages = new CopyOnWriteArrayList<>();
        try (PooledAllocator pool = PooledAllocator.builder().name("close").build();
             Allocator arena = Allocators.shared()) {
            TensorView src = TensorView.of(arena.allocate(16), "f32[4]{0}");
            StagingPipeline pipeline = StagingPipeline.builder().name("close").pool(pool).consumer(o -> {
                entered.countDown();
                await(release);
                switch (o) {
                    case StagingPipeline.Outcome.Staged s -> {
                        s.close();
                        got.add("staged #" + s.id());
                    }
                    case StagingPipeline.Outcome.Failed f -> {
                        got.add("failed #" + f.id());
                        messages.add(f.error().getMessage());
                    }
                }
            }).build();
            StagingTarget target = StagingTarget.of("f32[4]{0}");
            for (int i = 0; i < 4; i++) {
                pipeline.submit(src, target);
                assertTrue(entered.await(10, TimeUnit.SECONDS));
            }
            Thread closer = Thread.ofPlatform().start(() -> pipeline.close(mode));
            // The closer waits (timed) for the worker, which is held in the callback: closing has begun.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (closer.getState() != Thread.State.TIMED_WAITING) {
                assertTrue(System.nanoTime() < deadline, "close never started");
                Thread.sleep(1);
            }
            var refused = assertThrows(StagingPipeline.RejectedException.class, () -> pipeline.trySubmit(src, target));
            assertEquals("staging pipeline 'close' is closed; tensor not accepted", refused.getMessage());
            release.countDown();
            closer.join(10_000);
            assertTrue(!closer.isAlive());
            if (mode == StagingPipeline.CloseMode.REJECT) {
                assertEquals("staging 'close' closed with REJECT before tensor #2 (f32[4]{0} to f32[4]{0}) was staged",
                        messages.getFirst());
                assertEquals(3, pipeline.stats().rejected());
            }
            assertEquals(0, pool.stats().liveBytes());
            assertEquals(List.of(), stagingThreads());
        }
        return got;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static List<String> stagingThreads() {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("tensorbuf-staging-") && t.isAlive()) {
                names.add(t.getName());
            }
        }
        return names;
    }

    @Test
    void valueTheTargetCannotHoldFailsThatTensorAndReturnsItsBuffer() throws Exception {
        try (PooledAllocator pool = PooledAllocator.builder().name("nan").build();
             Allocator arena = Allocators.shared();
             StagingPipeline pipeline = StagingPipeline.builder().name("nan").pool(pool).build()) {
            TensorView src = TensorView.of(arena.allocate(8), "f32[2]{0}");
            TensorElements.of(src).copyFrom(new float[] {1, Float.NaN});
            pipeline.submit(src, StagingTarget.strided(DType.S32, StridedLayout.packed(2)));
            var failed = assertInstanceOf(StagingPipeline.Outcome.Failed.class, pipeline.poll(Duration.ofSeconds(5)));
            assertInstanceOf(IllegalArgumentException.class, failed.error());
            assertEquals(1, pipeline.stats().failed());
            assertEquals(0, pool.stats().liveBytes());
        }
    }

    @Test
    void fullPoolWaitsForTheConsumerThenFailsNamingTheTensor() throws Exception {
        try (PooledAllocator pool = PooledAllocator.builder().name("small").byteLimit(4096).build();
             Allocator arena = Allocators.shared();
             StagingPipeline pipeline = StagingPipeline.builder().name("small").pool(pool)
                     .allocationWait(Duration.ofMillis(200)).build()) {
            TensorView src = TensorView.of(arena.allocate(2048), "f32[512]{0}");
            StagingTarget target = StagingTarget.of("f32[512]{0}");
            for (int i = 0; i < 3; i++) {
                pipeline.submit(src, target);
            }
            var a = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5));
            var b = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5));
            var c = assertInstanceOf(StagingPipeline.Outcome.Failed.class, pipeline.poll(Duration.ofSeconds(5)));
            assertTrue(c.error().getMessage().startsWith("staging 'small': no room in the pool for tensor #3 (2048 bytes)"
                    + " after waiting"), c.error().getMessage());
            a.close();
            b.close();
            // With room again, the next one is staged.
            pipeline.submit(src, target);
            try (var d = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5))) {
                assertEquals(4, d.id());
            }
        }
    }

    @Test
    void tensorLargerThanThePoolsWholeLimitFailsWithoutWaiting() throws Exception {
        // Audit nit: the worker waited allocationWait (10 s here) whenever any buffer was live, also
        // for a tensor that can never fit, holding up every tensor behind it.
        try (PooledAllocator pool = PooledAllocator.builder().name("small").byteLimit(1024).build();
             Allocator arena = Allocators.shared();
             MemoryBuffer held = pool.allocate(64);
             StagingPipeline pipeline = StagingPipeline.builder().name("small").pool(pool).build()) {
            TensorView src = TensorView.of(arena.allocate(2048), "f32[512]{0}");
            pipeline.submit(src, StagingTarget.of("f32[512]{0}"));
            var failed = assertInstanceOf(StagingPipeline.Outcome.Failed.class, pipeline.poll(Duration.ofSeconds(2)));
            assertEquals("staging 'small': tensor #1 (2048 bytes) can never fit in the pool: pool 'small' cannot"
                    + " allocate 2048 bytes: 64 bytes live + 2048 requested > limit 1024", failed.error().getMessage());
            assertEquals(64, held.byteSize());
        }
    }

    @Test
    void badSubmissionsAreRefusedAtOnce() {
        try (PooledAllocator pool = PooledAllocator.builder().name("bad").build();
             Allocator arena = Allocators.shared();
             StagingPipeline pipeline = StagingPipeline.builder().name("bad").pool(pool).build()) {
            TensorView src = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
            var e = assertThrows(IllegalArgumentException.class,
                    () -> pipeline.submit(src, StagingTarget.of("f32[3,2]{1,0}")));
            assertTrue(e.getMessage().contains("has dims [2, 3] but target f32[3,2]{1,0} has [3, 2]"), e.getMessage());
            var noLayout = assertThrows(IllegalArgumentException.class, () -> StagingTarget.of(ArrayShape.of(DType.F32, 2, 3).withoutLayout()));
            assertTrue(noLayout.getMessage().contains("has no layout; write one, e.g. f32[2,3]{1,0}"), noLayout.getMessage());
        }
        var noPool = assertThrows(IllegalStateException.class, () -> StagingPipeline.builder().name("x").build());
        assertTrue(noPool.getMessage().contains("needs a pool"), noPool.getMessage());
    }

    @Test
    void stridedTargetConvertsLayoutAndType() throws Exception {
        try (PooledAllocator pool = PooledAllocator.builder().name("nhwc").build();
             Allocator arena = Allocators.shared();
             StagingPipeline pipeline = StagingPipeline.builder().name("nhwc").pool(pool).build()) {
            TensorView src = TensorView.of(arena.allocate(4 * 24), "s32[1,2,3,4]{3,2,1,0}");
            int[] values = new int[24];
            for (int i = 0; i < 24; i++) {
                values[i] = i * 3 - 7;
            }
            TensorElements.of(src).copyFrom(values);
            StagingTarget nhwc = StagingTarget.strided(DType.F64, StridedLayout.of(TensorFormat.NHWC, 1, 2, 3, 4));
            pipeline.submit(Ops.reverse(src, 3), nhwc);
            try (var s = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(5))) {
                assertNotNull(s);
                assertEquals(24 * 8, s.view().buffer().byteSize());
                // (0, 1, 2, 0) of the reversed source is source (0, 1, 2, 3) = index 23 -> 62
                assertEquals(62.0, TensorElements.of(s.view()).getDouble(0, 1, 2, 0));
                // NHWC offset of (0, 1, 2, 0): h=2, w=0, c=1 -> (2 * 4 + 0) * 2 + 1 = 17
                assertEquals(62.0, s.view().buffer().segment().getAtIndex(ValueLayout.JAVA_DOUBLE, 17));
            }
        }
    }
}
