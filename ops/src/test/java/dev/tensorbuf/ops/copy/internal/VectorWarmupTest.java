package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.ops.copy.Access;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.ops.copy.Kernel;
import dev.tensorbuf.ops.copy.Step;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorFormat;
import dev.tensorbuf.views.XlaShape;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The switch from a kernel's scalar version to its vector version: scalar until the kernel has
 * moved its bytes, vector only after a background warm-up that never touches the copy's memory,
 * and a miniature of the copy's shape that stays inside its scratch.
 */
class VectorWarmupTest {
    private static final long WAIT_NANOS = 20_000_000_000L;

    /** A 64-channel f32 NCHW -> NHWC transpose step over real memory: 2 * 64 * 8 * 40 elements. */
    private static Task transposeTask(Arena arena) {
        MemorySegment src = arena.allocate(2L * 64 * 8 * 40 * 4, 64);
        MemorySegment dst = arena.allocate(2L * 64 * 8 * 40 * 4, 64);
        return new Task(src, dst, 0, 0, new long[] {2, 64, 320}, new long[] {64 * 320 * 4, 320 * 4, 4},
                new long[] {64 * 320 * 4, 4, 64 * 4}, 4, 4, -1, 0);
    }

    private static void await(Predicate<Kernel> ready, Kernel k) throws InterruptedException {
        long end = System.nanoTime() + WAIT_NANOS;
        while (!ready.test(k) && System.nanoTime() < end) {
            Thread.sleep(10);
        }
    }

    @Test
    void scalarUntilTheKernelHasMovedItsBytesThenVectorOnceTheWarmupEnds() throws InterruptedException {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        try (Arena arena = Arena.ofShared()) {
            Task t = transposeTask(arena);
            long bytes = t.elements() * 8; // 320 KiB read plus written
            t.dst().fill((byte) 0x5a);
            VectorWarmup w = new VectorWarmup(2 * bytes);
            AtomicInteger rounds = new AtomicInteger();
            AtomicReference<Task> seen = new AtomicReference<>();
            Consumer<Task> kernel = m -> {
                rounds.incrementAndGet();
                seen.set(m);
                VectorTranspose.run(m);
            };

            assertFalse(w.vectorFor(Kernel.TRANSPOSE, t, 2, -1, kernel), "first copy: scalar");
            assertFalse(w.vectorFor(Kernel.TRANSPOSE, t, 2, -1, kernel), "the copy that reaches the bytes: scalar");
            Thread.sleep(50);
            assertEquals(0, rounds.get(), "no warm-up beside the copies that bring the kernel to its bytes");
            assertFalse(w.ready(Kernel.TRANSPOSE));
            assertFalse(w.vectorFor(Kernel.TRANSPOSE, t, 2, -1, kernel), "the next copy starts the warm-up, still scalar");
            await(w::ready, Kernel.TRANSPOSE);

            assertTrue(w.ready(Kernel.TRANSPOSE), "warm-up ended within 20 s");
            assertTrue(w.vectorFor(Kernel.TRANSPOSE, t, 2, -1, kernel), "after the warm-up: vector");
            assertTrue(rounds.get() >= 5000, "rounds " + rounds.get() + " reach C2's invocation threshold");
            assertFalse(seen.get().dst().equals(t.dst()), "the warm-up writes its own scratch");
            assertEquals(-1, t.dst().mismatch(arena.allocate(t.dst().byteSize()).fill((byte) 0x5a)),
                    "the copy's destination is untouched");
            assertFalse(w.ready(Kernel.FILL), "other kernels stay scalar");
            assertNull(w.failure());
        }
    }

    @Test
    void offRunsTheVectorVersionFromTheFirstCopy() {
        try (Arena arena = Arena.ofConfined()) {
            VectorWarmup w = new VectorWarmup(-1);
            assertTrue(w.vectorFor(Kernel.TRANSPOSE, transposeTask(arena), 2, -1, m -> {
                throw new AssertionError("no warm-up when off");
            }));
            assertTrue(w.ready(Kernel.EVEN_GATHER));
        }
    }

    @Test
    void aFailingWarmupStillEndsAndKeepsTheException() throws InterruptedException {
        try (Arena arena = Arena.ofShared()) {
            VectorWarmup w = new VectorWarmup(0);
            IllegalStateException boom = new IllegalStateException("boom");
            assertFalse(w.vectorFor(Kernel.TRANSPOSE, transposeTask(arena), 2, -1, m -> {
                throw boom;
            }));
            await(w::ready, Kernel.TRANSPOSE);
            assertTrue(w.ready(Kernel.TRANSPOSE));
            assertSame(boom, w.failure());
        }
    }

    /** Every element a miniature addresses lies in its scratch; its loops are the documented cut of the sample's. */
    @Test
    void miniatureStaysInsideItsScratchAndKeepsTheShape() {
        Random rnd = new Random(Long.getLong("tensorbuf.seed", 20261121L));
        int checked = 0;
        int packedCases = 0;
        int oneOuter = 0;
        for (int c = 0; c < 3000; c++) {
            int rank = 1 + rnd.nextInt(4);
            int inner = Math.min(rank, 1 + rnd.nextInt(2));
            int whole = rnd.nextInt(3) == 0 ? rank - 1 - rnd.nextInt(inner) : -1;
            long[] count = new long[rank];
            long[] ss = new long[rank];
            long[] ds = new long[rank];
            int sw = 1 << rnd.nextInt(3);
            int dw = 1 << rnd.nextInt(3);
            for (int k = 0; k < rank; k++) {
                count[k] = 1 + rnd.nextInt(rnd.nextBoolean() ? 40 : 600);
                // Now and then a stride of megabytes, as between the images of a large batch.
                ss[k] = (rnd.nextInt(9) - 3) * (long) sw * (1 + rnd.nextInt(50)) * (rnd.nextInt(6) == 0 ? 4096 : 1);
                ds[k] = (rnd.nextInt(9) - 3) * (long) dw * (1 + rnd.nextInt(50)) * (rnd.nextInt(6) == 0 ? 4096 : 1);
            }
            Task sample = new Task(null, null, 0, 0, count, ss, ds, sw, dw, -1, 0);
            VectorWarmup.Miniature m = VectorWarmup.miniature(sample, inner, whole);
            Task t = m.shape();
            boolean isPacked = !Arrays.equals(ss, t.srcStride()) || !Arrays.equals(ds, t.dstStride());
            packedCases += isPacked ? 1 : 0;
            // Two iterations of the outer loops, or one for all of them when two need too much scratch.
            long outer = IntStream.range(0, rank - inner).anyMatch(k -> count[k] > 1 && t.count()[k] == 1) ? 1 : 2;
            oneOuter += outer == 1 ? 1 : 0;
            for (int k = 0; k < rank; k++) {
                long cap = k < rank - inner ? outer : k < rank - 1 ? 16 : inner == 1 ? 256 : 64;
                long expected = k == whole ? count[k] : Math.min(count[k], cap);
                assertEquals(expected >= 16 ? expected / 16 * 16 : expected, t.count()[k], "loop " + k + " of case " + c);
                for (long[] strides : List.of(new long[] {ss[k], t.srcStride()[k]}, new long[] {ds[k], t.dstStride()[k]})) {
                    if (isPacked) {
                        assertTrue(Math.abs(strides[1]) <= Math.abs(strides[0])
                                && Long.signum(strides[1]) == Long.signum(strides[0]), "packed stride " + strides[1]
                                + " for " + strides[0] + ", case " + c);
                    } else {
                        assertEquals(strides[0], strides[1], "stride of loop " + k + ", case " + c);
                    }
                }
            }
            long[] idx = new long[rank];
            do {
                long so = t.srcOff();
                long d = t.dstOff();
                for (int k = 0; k < rank; k++) {
                    so += idx[k] * t.srcStride()[k];
                    d += idx[k] * t.dstStride()[k];
                }
                assertTrue(so >= 0 && so + sw <= m.srcBytes(), "source byte " + so + " of " + m.srcBytes() + ", case " + c);
                assertTrue(d >= 0 && d + dw <= m.dstBytes(), "destination byte " + d + " of " + m.dstBytes() + ", case " + c);
                checked++;
            } while (next(idx, t.count()));
        }
        System.out.println("miniatures: " + checked + " elements checked, " + oneOuter
                + " with one outer iteration, " + packedCases + " with packed strides");
        assertTrue(checked > 100_000, "elements checked: " + checked);
        assertTrue(packedCases > 0 && packedCases < 1000, "cases whose miniature needs packed strides: " + packedCases);
    }

    @Test
    void miniatureOfALargeBatchTakesOneImageAndPacksPlanesThatSpanTooMuch() {
        // Images 20 MB apart: two would need 20 MB of scratch, one needs 80 KB.
        Task batch = new Task(null, null, 0, 0, new long[] {4, 64, 320}, new long[] {20L << 20, 1280, 4},
                new long[] {20L << 20, 4, 256}, 4, 4, -1, 0);
        VectorWarmup.Miniature m = VectorWarmup.miniature(batch, 2, -1);
        assertEquals(List.of(1L, 16L, 64L), Arrays.stream(m.shape().count()).boxed().toList());
        assertEquals(List.of(20L << 20, 1280L, 4L), Arrays.stream(m.shape().srcStride()).boxed().toList());
        assertEquals(15 * 1280 + 63 * 4 + 4 + 128, m.srcBytes());
        // Channels 2 MB apart: the 16 rows of a transpose block alone would span 30 MB. Packed,
        // the pixels stay contiguous and the channels follow each other: 16 * 64 * 4 bytes.
        Task planes = new Task(null, null, 0, 0, new long[] {4, 64, 320}, new long[] {128L << 20, -(2L << 20), 4},
                new long[] {128L << 20, 4, 256}, 4, 4, -1, 0);
        VectorWarmup.Miniature p = VectorWarmup.miniature(planes, 2, -1);
        assertEquals(List.of(1L, 16L, 64L), Arrays.stream(p.shape().count()).boxed().toList());
        assertEquals(List.of(128L << 20, -256L, 4L), Arrays.stream(p.shape().srcStride()).boxed().toList());
        assertEquals(List.of(128L << 20, 4L, 64L), Arrays.stream(p.shape().dstStride()).boxed().toList());
        assertEquals(16 * 64 * 4 + 128, p.srcBytes());
        assertEquals(15 * 256L, p.shape().srcOff(), "the negative channel stride starts at the top of the scratch");
    }

    private static boolean next(long[] idx, long[] count) {
        for (int k = idx.length - 1; k >= 0; k--) {
            if (++idx[k] < count[k]) {
                return true;
            }
            idx[k] = 0;
        }
        return false;
    }

    /**
     * One plan per kernel with a vector version, run again and again by an executor that starts
     * scalar: every result equals the scalar executor's while the kernels switch, each kernel ends
     * up warm, and no warm-up (a miniature under the real vector kernel) fails.
     */
    @Test
    void copiesStayExactWhileEveryKernelSwitchesToItsVectorVersion() throws InterruptedException {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        try (Arena arena = Arena.ofShared()) {
            List<CopyPlan> plans = plans(arena);
            Set<Kernel> kernels = EnumSet.noneOf(Kernel.class);
            for (CopyPlan p : plans) {
                for (Step s : p.steps()) {
                    if (s instanceof Step.Run r) {
                        kernels.add(r.kernel());
                    }
                }
            }
            assertEquals(EnumSet.of(Kernel.TRANSPOSE, Kernel.INTERLEAVE, Kernel.DEINTERLEAVE, Kernel.EVEN_GATHER,
                    Kernel.BYTE_PLANES, Kernel.FILL, Kernel.PAIR_INTERLEAVE, Kernel.CONVERT_PAIR_INTERLEAVE,
                    Kernel.CONVERT_PAIR_DEINTERLEAVE), kernels, "the plans cover every kernel with a vector version");

            CopyExecutor scalar = new CopyExecutor(1, false, Long.MAX_VALUE);
            List<MemorySegment> expected = new ArrayList<>();
            for (CopyPlan p : plans) {
                scalar.execute(p);
                expected.add(arena.allocate(p.dst().segment().byteSize()).copyFrom(p.dst().segment()));
            }
            VectorWarmup warmup = new VectorWarmup(64 << 10);
            CopyExecutor switching = new CopyExecutor(2, true, 0, warmup);
            long end = System.nanoTime() + WAIT_NANOS;
            int rounds = 0;
            do {
                for (int i = 0; i < plans.size(); i++) {
                    CopyPlan p = plans.get(i);
                    p.dst().segment().fill((byte) 0x33);
                    switching.execute(p);
                    assertEquals(-1, p.dst().segment().mismatch(expected.get(i)), "plan " + i + " in round " + rounds);
                }
                rounds++;
            } while (!kernels.stream().allMatch(warmup::ready) && System.nanoTime() < end);
            for (Kernel k : kernels) {
                assertTrue(warmup.ready(k), k + " warm within 20 s");
            }
            assertNull(warmup.failure());
        }
    }

    /** What {@code CopyEngine.warmUp} does: warms the plan's vector kernels now, flat out, and leaves its memory alone. */
    @Test
    void warmUpWarmsThePlansKernelsNowAndLeavesItsMemoryAlone() throws InterruptedException {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        try (Arena arena = Arena.ofShared()) {
            CopyPlan transpose = CopyPlan.of(f32(arena, new Random(3), StridedLayout.of(TensorFormat.NCHW, 2, 64, 16, 20)),
                    f32(arena, null, StridedLayout.of(TensorFormat.NHWC, 2, 64, 16, 20)));
            transpose.dst().segment().fill((byte) 0x11);
            VectorWarmup warmup = new VectorWarmup(Long.MAX_VALUE);
            CopyExecutor executor = new CopyExecutor(2, true, 0, warmup);

            assertFalse(executor.warmUp(transpose, Duration.ZERO), "not warm the moment it starts");
            assertTrue(executor.warmUp(transpose, Duration.ofSeconds(20)), "warm within 20 s");
            assertTrue(warmup.ready(Kernel.TRANSPOSE));
            assertFalse(warmup.ready(Kernel.FILL), "only the plan's kernels");
            MemorySegment untouched = arena.allocate(transpose.dst().segment().byteSize()).fill((byte) 0x11);
            assertEquals(-1, transpose.dst().segment().mismatch(untouched), "the plan's destination is untouched");
            assertNull(warmup.failure());

            CopyPlan bulk = CopyPlan.of(f32(arena, null, StridedLayout.packed(4, 8)), f32(arena, null, StridedLayout.packed(4, 8)));
            assertTrue(executor.warmUp(bulk, Duration.ZERO), "a plan without vector kernels is warm already");
            assertTrue(new CopyExecutor(1, false, 0, new VectorWarmup(Long.MAX_VALUE)).warmUp(transpose, Duration.ZERO),
                    "an executor without vector kernels has nothing to warm");
        }
    }

    private static List<CopyPlan> plans(Arena arena) {
        Random rnd = new Random(7);
        List<CopyPlan> plans = new ArrayList<>();
        plans.add(CopyPlan.of(f32(arena, rnd, StridedLayout.of(TensorFormat.NCHW, 2, 64, 16, 20)),
                f32(arena, null, StridedLayout.of(TensorFormat.NHWC, 2, 64, 16, 20))));
        plans.add(CopyPlan.of(f32(arena, rnd, StridedLayout.of(TensorFormat.NCHW, 2, 3, 32, 40)),
                f32(arena, null, StridedLayout.of(TensorFormat.NHWC, 2, 3, 32, 40))));
        plans.add(CopyPlan.of(f32(arena, rnd, StridedLayout.of(TensorFormat.NHWC, 2, 3, 32, 40)),
                f32(arena, null, StridedLayout.of(TensorFormat.NCHW, 2, 3, 32, 40))));
        plans.add(CopyPlan.of(f32(arena, rnd, new StridedLayout(List.of(4L, 8L, 16L, 48L),
                        List.of(8L * 32 * 96, 32L * 96, 192L, 2L), 0)),
                f32(arena, null, StridedLayout.packed(4, 8, 16, 48))));
        plans.add(CopyPlan.of(f32(arena, rnd, new StridedLayout(List.of(2L, 64L, 16L, 16L), List.of(0L, 1L, 0L, 0L), 0)),
                f32(arena, null, StridedLayout.packed(2, 64, 16, 16))));
        MemorySegment pixels = random(arena, rnd, 4L * 32 * 40 * 3);
        plans.add(CopyPlan.of(Access.strided(pixels, DType.U8, StridedLayout.of(TensorFormat.NHWC, 4, 3, 32, 40)),
                f32(arena, null, StridedLayout.of(TensorFormat.NCHW, 4, 3, 32, 40)),
                new ChannelAffine(1, List.of(0.5f, 2f, -1f), List.of(1f, 0f, 3f))));
        MemorySegment halves = arena.allocate(64L * 256 * 2, 64);
        for (long i = 0; i < halves.byteSize() / 2; i++) {
            halves.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2 * i, (short) (rnd.nextInt(0x7f00)));
        }
        plans.add(CopyPlan.of(Access.strided(halves, DType.BF16, StridedLayout.packed(64, 256)),
                tiled(arena, "bf16[64,256]{1,0:T(8,128)(2,1)}")));
        Access f32 = f32(arena, rnd, StridedLayout.packed(64, 256));
        plans.add(CopyPlan.of(f32, tiled(arena, "bf16[64,256]{1,0:T(8,128)(2,1)}")));
        Access packed = tiled(arena, "bf16[64,256]{1,0:T(8,128)(2,1)}");
        new CopyExecutor(1, false, Long.MAX_VALUE).execute(CopyPlan.of(f32, packed));
        plans.add(CopyPlan.of(packed, f32(arena, null, StridedLayout.packed(64, 256))));
        return plans;
    }

    private static Access f32(Arena arena, Random rnd, StridedLayout layout) {
        long bytes = (layout.maxOffset() + 1) * 4;
        MemorySegment m = arena.allocate(bytes, 64);
        if (rnd != null) {
            for (long i = 0; i < bytes / 4; i++) {
                m.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4 * i, rnd.nextFloat() * 200 - 100);
            }
        }
        return Access.strided(m, DType.F32, layout);
    }

    private static Access tiled(Arena arena, String shape) {
        ArrayShape s = (ArrayShape) XlaShape.parse(shape);
        return Access.tiled(arena.allocate(s.arraySize(), 64), s);
    }

    private static MemorySegment random(Arena arena, Random rnd, long bytes) {
        MemorySegment m = arena.allocate(bytes, 64);
        for (long i = 0; i < bytes; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
        }
        return m;
    }
}
