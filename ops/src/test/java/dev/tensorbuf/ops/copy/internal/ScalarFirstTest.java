package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.XlaShape;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When a kernel moves from its scalar version to its vector version, and that copies stay exact across the move. */
class ScalarFirstTest {
    @Test
    void zeroBytesMeansVectorFromTheFirstCopy() {
        ScalarFirst s = new ScalarFirst(0);
        assertTrue(s.vectorFor(Kernel.TRANSPOSE, 1L << 40));
        assertTrue(s.vectorFor(Kernel.FILL, 1));
    }

    @Test
    void scalarUntilEarlierStepsOfTheKernelHaveMovedItsBytes() {
        ScalarFirst s = new ScalarFirst(1000);
        assertFalse(s.vectorFor(Kernel.TRANSPOSE, 600), "nothing moved before");
        assertFalse(s.vectorFor(Kernel.TRANSPOSE, 600), "600 bytes moved before, of 1000");
        assertTrue(s.vectorFor(Kernel.TRANSPOSE, 600), "1200 bytes moved before");
        assertTrue(s.vectorFor(Kernel.TRANSPOSE, 1), "and from then on");
        assertFalse(s.vectorFor(Kernel.EVEN_GATHER, 600), "each kernel counts its own bytes");
        assertFalse(new ScalarFirst(1000).vectorFor(Kernel.TRANSPOSE, 5000), "a first step of any size runs scalar");
    }

    /**
     * One plan per kernel with a vector version, run again and again by an executor that holds
     * each kernel scalar for its first 64 KiB: every result equals the scalar executor's before,
     * across and after the move, and every kernel moves.
     */
    @Test
    void copiesStayExactWhileEveryKernelMovesToItsVectorVersion() {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        try (Arena arena = Arena.ofShared()) {
            List<CopyPlan> plans = plans(arena);
            Set<Kernel> kernels = EnumSet.noneOf(Kernel.class);
            for (CopyPlan p : plans) {
                for (Step s : AccessCopies.steps(p)) {
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
                expected.add(arena.allocate(AccessCopies.dst(p).segment().byteSize()).copyFrom(AccessCopies.dst(p).segment()));
            }
            ScalarFirst scalarFirst = new ScalarFirst(64 << 10);
            CopyExecutor moving = new CopyExecutor(2, true, 0, scalarFirst);
            for (int round = 0; round < 40; round++) {
                for (int i = 0; i < plans.size(); i++) {
                    CopyPlan p = plans.get(i);
                    AccessCopies.dst(p).segment().fill((byte) 0x33);
                    moving.execute(p);
                    assertEquals(-1, AccessCopies.dst(p).segment().mismatch(expected.get(i)), "plan " + i + " in round " + round);
                }
            }
            for (Kernel k : kernels) {
                assertTrue(scalarFirst.vectorFor(k, 0), k + " moved to its vector version within 40 rounds");
            }
        }
    }

    private static List<CopyPlan> plans(Arena arena) {
        Random rnd = new Random(7);
        List<CopyPlan> plans = new ArrayList<>();
        plans.add(AccessCopies.plan(f32(arena, rnd, StridedLayout.of(TensorFormat.NCHW, 2, 64, 16, 20)),
                f32(arena, null, StridedLayout.of(TensorFormat.NHWC, 2, 64, 16, 20))));
        plans.add(AccessCopies.plan(f32(arena, rnd, StridedLayout.of(TensorFormat.NCHW, 2, 3, 32, 40)),
                f32(arena, null, StridedLayout.of(TensorFormat.NHWC, 2, 3, 32, 40))));
        plans.add(AccessCopies.plan(f32(arena, rnd, StridedLayout.of(TensorFormat.NHWC, 2, 3, 32, 40)),
                f32(arena, null, StridedLayout.of(TensorFormat.NCHW, 2, 3, 32, 40))));
        plans.add(AccessCopies.plan(f32(arena, rnd, new StridedLayout(List.of(4L, 8L, 16L, 48L),
                        List.of(8L * 32 * 96, 32L * 96, 192L, 2L), 0)),
                f32(arena, null, StridedLayout.packed(4, 8, 16, 48))));
        plans.add(AccessCopies.plan(f32(arena, rnd, new StridedLayout(List.of(2L, 64L, 16L, 16L), List.of(0L, 1L, 0L, 0L), 0)),
                f32(arena, null, StridedLayout.packed(2, 64, 16, 16))));
        MemorySegment pixels = random(arena, rnd, 4L * 32 * 40 * 3);
        plans.add(AccessCopies.plan(Access.strided(pixels, DType.U8, StridedLayout.of(TensorFormat.NHWC, 4, 3, 32, 40)),
                f32(arena, null, StridedLayout.of(TensorFormat.NCHW, 4, 3, 32, 40)),
                new ChannelAffine(1, List.of(0.5f, 2f, -1f), List.of(1f, 0f, 3f))));
        MemorySegment halves = arena.allocate(64L * 256 * 2, 64);
        for (long i = 0; i < halves.byteSize() / 2; i++) {
            halves.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2 * i, (short) (rnd.nextInt(0x7f00)));
        }
        plans.add(AccessCopies.plan(Access.strided(halves, DType.BF16, StridedLayout.packed(64, 256)),
                tiled(arena, "bf16[64,256]{1,0:T(8,128)(2,1)}")));
        Access f32 = f32(arena, rnd, StridedLayout.packed(64, 256));
        plans.add(AccessCopies.plan(f32, tiled(arena, "bf16[64,256]{1,0:T(8,128)(2,1)}")));
        Access packed = tiled(arena, "bf16[64,256]{1,0:T(8,128)(2,1)}");
        new CopyExecutor(1, false, Long.MAX_VALUE).execute(AccessCopies.plan(f32, packed));
        plans.add(AccessCopies.plan(packed, f32(arena, null, StridedLayout.packed(64, 256))));
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
