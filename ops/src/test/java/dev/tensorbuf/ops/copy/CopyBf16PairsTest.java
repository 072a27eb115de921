package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.Kernel;
import dev.tensorbuf.ops.copy.internal.Loop;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.tensorbuf.ops.copy.CopyFixture.strided;
import static dev.tensorbuf.ops.copy.CopyFixture.tiled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The fused f32 -> bf16 {@code (2,1)} kernels against the scalar conversion they replace: the
 * same plan with every fused run turned back into {@link Kernel#CONVERT}, on the scalar engine,
 * must write the same bytes (padding included), with NaN payloads, signed zeros, infinities,
 * overflow, subnormals and rounding ties in the source.
 */
class CopyBf16PairsTest {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final CopyEngine SCALAR = CopyEngine.of(1, false);

    /** f32 bits whose bf16 rounding is easy to get wrong. */
    private static final int[] SPECIAL_F32 = {
        0x0000_0000, 0x8000_0000,                           // +0, -0
        0x7f80_0000, 0xff80_0000,                           // +inf, -inf
        0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0xff80_0001, // quiet and signalling NaN, both signs
        0x7fff_ffff, 0xffff_ffff, 0x7fa0_1234, 0xffd5_5555, // NaN payloads (0xffff_ffff + 0x7fff would wrap)
        0x7f7f_ffff, 0xff7f_ffff, 0x7f7f_8000, 0x7f7e_8000, // max finite (overflows to inf), ties at the top
        0x0000_0001, 0x8000_0001, 0x0000_8000, 0x0001_8000, // subnormals and subnormal ties
        0x007f_ffff, 0x0080_0000, 0x8080_0000,              // largest subnormal, smallest normal
        0x3f80_8000, 0x3f81_8000, 0x3f80_8001, 0x3f80_7fff, // ties to even down and up, just above, just below
        0xbf80_8000, 0xbf81_8000, 0x3f80_0000, 0x4049_0fdb, // negative ties, 1, pi
    };

    private final Random rnd = new Random(CopyFixture.SEED);

    private static Set<Kernel> kernels(CopyPlan p) {
        return AccessCopies.steps(p).stream()
                .map(s -> s instanceof Step.Run r ? r.kernel() : s instanceof Step.Zero ? Kernel.ZERO : Kernel.GATHER)
                .collect(Collectors.toSet());
    }

    /** The plan as the planner made it before the fused kernels: every fused run converts element by element. */
    private static CopyPlan unfused(CopyPlan p) {
        List<Step> steps = AccessCopies.steps(p).stream().map(s -> s instanceof Step.Run r
                && (r.kernel() == Kernel.CONVERT_PAIR_INTERLEAVE || r.kernel() == Kernel.CONVERT_PAIR_DEINTERLEAVE)
                ? new Step.Run(Kernel.CONVERT, r.srcOffset(), r.dstOffset(), r.loops(), r.channelLoop()) : s).toList();
        return AccessCopies.unchecked(AccessCopies.src(p), AccessCopies.dst(p), Optional.empty(), steps);
    }

    /** Random bits, a third of the elements replaced by special values. */
    private void fillSource(Access src) {
        MemorySegment m = src.segment();
        if (src.dtype() == DType.F32) {
            for (long i = 0; i + 4 <= m.byteSize(); i += 4) {
                int bits = rnd.nextInt(3) == 0 ? SPECIAL_F32[rnd.nextInt(SPECIAL_F32.length)] : rnd.nextInt();
                m.set(I32, i, bits);
            }
        } else {
            for (long i = 0; i + 2 <= m.byteSize(); i += 2) {
                int bits = rnd.nextInt(3) == 0 ? SPECIAL_F32[rnd.nextInt(SPECIAL_F32.length)] >>> 16 : rnd.nextInt();
                m.set(I16, i, (short) bits);
            }
        }
    }

    /**
     * Copies with the unfused plan on the scalar engine, then with the fused plan on every engine
     * (scalar fallback, vector, vector split across threads) and compares every destination byte;
     * also compares the scalar result with the brute-force oracle.
     */
    private void checkAgainstScalar(Access src, Access dst, String what) {
        fillSource(src);
        CopyPlan plan = AccessCopies.plan(src, dst);
        dst.segment().fill((byte) 0x5a);
        SCALAR.execute(unfused(plan));
        MemorySegment expected = Arena.ofAuto().allocate(dst.segment().byteSize());
        expected.copyFrom(dst.segment());
        MemorySegment oracle = Arena.ofAuto().allocate(dst.segment().byteSize());
        oracle.fill((byte) 0x5a);
        CopyOracle.expect(src, dst, null, oracle);
        long m = dst.dtype() == DType.F32 ? nanBlindMismatch(oracle, expected) : oracle.mismatch(expected);
        if (m >= 0) {
            fail(what + ": the scalar conversion and the oracle differ at byte " + m + " (scalar 0x"
                    + Integer.toHexString(expected.get(I32, m & ~3L)) + ", oracle 0x"
                    + Integer.toHexString(oracle.get(I32, m & ~3L)) + "); seed " + CopyFixture.SEED);
        }
        for (CopyEngine engine : CopyFixture.ENGINES) {
            dst.segment().fill((byte) 0x5a);
            engine.execute(plan);
            long mismatch = expected.mismatch(dst.segment());
            if (mismatch >= 0) {
                long word = mismatch & ~3L;
                fail(what + ": engine(parallelism " + engine.parallelism() + ", vector " + engine.vectorKernels()
                        + ") differs from the scalar conversion at byte " + mismatch + " (word expected 0x"
                        + Integer.toHexString(expected.get(I32, word)) + ", got 0x"
                        + Integer.toHexString(dst.segment().get(I32, word)) + "); plan " + AccessCopies.steps(plan) + "; seed "
                        + CopyFixture.SEED);
            }
        }
    }

    /**
     * The first differing byte of two f32 buffers, where two NaNs of one sign count as equal: the
     * oracle widens bf16 through double, which quiets a signalling NaN (bf16 0x7fa0 becomes
     * 0x7fe00000), while the engine's widening is a shift (0x7fa00000), before and after this kernel.
     */
    private static long nanBlindMismatch(MemorySegment a, MemorySegment b) {
        for (long i = 0; i + 4 <= a.byteSize(); i += 4) {
            int x = a.get(I32, i);
            int y = b.get(I32, i);
            boolean bothNan = Float.isNaN(Float.intBitsToFloat(x)) && Float.isNaN(Float.intBitsToFloat(y)) && (x ^ y) >= 0;
            if (x != y && !bothNan) {
                return i;
            }
        }
        long tail = a.byteSize() & ~3L;
        return a.asSlice(tail).mismatch(b.asSlice(tail)) < 0 ? -1 : tail;
    }

    @Test
    void f32ToTwoOneTilesPlansTheFusedKernel() {
        try (Arena arena = Arena.ofShared()) {
            CopyPlan p = AccessCopies.plan(tiled(arena, "f32[16,256]{1,0}"), tiled(arena, "bf16[16,256]{1,0:T(8,128)(2,1)}"));
            assertEquals(List.of(new Step.Run(Kernel.CONVERT_PAIR_INTERLEAVE, 0, 0, List.of(new Loop(2, 2048, 2048),
                    new Loop(2, 128, 1024), new Loop(4, 512, 256), new Loop(128, 1, 2), new Loop(2, 256, 1)), -1)),
                    AccessCopies.steps(p));
        }
    }

    @Test
    void raggedShapesFuseTheWholePairsAndConvertTheOddRow() {
        try (Arena arena = Arena.ofShared()) {
            CopyPlan p = AccessCopies.plan(tiled(arena, "f32[19,260]{1,0}"), tiled(arena, "bf16[19,260]{1,0:T(8,128)(2,1)}"));
            assertEquals(Set.of(Kernel.CONVERT_PAIR_INTERLEAVE, Kernel.CONVERT, Kernel.ZERO), kernels(p));
            CopyPlan back = AccessCopies.plan(tiled(arena, "bf16[19,260]{1,0:T(8,128)(2,1)}"), tiled(arena, "f32[19,260]{1,0}"));
            assertEquals(Set.of(Kernel.CONVERT_PAIR_DEINTERLEAVE, Kernel.CONVERT), kernels(back));
        }
    }

    @Test
    void twoOneTilesToF32PlansTheFusedUnpack() {
        try (Arena arena = Arena.ofShared()) {
            CopyPlan p = AccessCopies.plan(tiled(arena, "bf16[16,256]{1,0:T(8,128)(2,1)}"), tiled(arena, "f32[16,256]{1,0}"));
            // The row-pair loop moves just inside the column tiles: one word load feeds both rows.
            assertEquals(List.of(new Step.Run(Kernel.CONVERT_PAIR_DEINTERLEAVE, 0, 0, List.of(new Loop(2, 2048, 2048),
                    new Loop(4, 256, 512), new Loop(2, 1024, 128), new Loop(2, 1, 256), new Loop(128, 2, 1)), -1)),
                    AccessCopies.steps(p));
        }
    }

    @Test
    void scaledOrOtherTypesKeepTheScalarConversion() {
        try (Arena arena = Arena.ofShared()) {
            ChannelAffine affine = new ChannelAffine(0, List.of(0.5f, 2f), List.of(0f, 1f));
            Access src = strided(arena, DType.F32, StridedLayout.packed(2, 128));
            // Strides 1 and 2 over [2,128]: the (2,1) pair loops of one tile, with no tiled channel dimension.
            StridedLayout pairs = StridedLayout.of(new long[] {2, 128}, new long[] {1, 2}, 0);
            assertEquals(Set.of(Kernel.CONVERT_PAIR_INTERLEAVE), kernels(AccessCopies.plan(src,
                    strided(arena, DType.BF16, pairs))));
            CopyPlan scaled = AccessCopies.plan(src, strided(arena, DType.BF16, pairs), affine);
            assertEquals(Set.of(Kernel.CONVERT), kernels(scaled));
            CopyPlan f16 = AccessCopies.plan(src, strided(arena, DType.F16, pairs));
            assertEquals(Set.of(Kernel.CONVERT), kernels(f16));
            CopyPlan same = AccessCopies.plan(tiled(arena, "bf16[2,128]{1,0}"), tiled(arena, "bf16[2,128]{1,0:T(8,128)(2,1)}"));
            assertEquals(Set.of(Kernel.PAIR_INTERLEAVE, Kernel.ZERO), kernels(same));
        }
    }

    @Test
    void denseAndStridedRunsRoundSpecialsAsMlDtypes() {
        // Plain f32 -> bf16 (not the pair kernels): dense runs have a loop of their own, strided runs another.
        int n = SPECIAL_F32.length;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(4L * n);
            MemorySegment expected = arena.allocate(2L * n);
            ElementAccess bf16 = ElementAccess.of(DType.BF16);
            for (int i = 0; i < n; i++) {
                src.set(I32, 4L * i, SPECIAL_F32[i]);
                bf16.setFloat(expected, i, Float.intBitsToFloat(SPECIAL_F32[i])); // ml_dtypes' rounding, bit for bit
            }
            StridedLayout reversed = StridedLayout.of(new long[] {n}, new long[] {-1}, n - 1);
            for (StridedLayout layout : List.of(StridedLayout.packed(n), reversed)) {
                MemorySegment out = arena.allocate(2L * n);
                AccessCopies.copy(SCALAR, Access.strided(src, DType.F32, layout), Access.strided(out, DType.BF16, layout));
                for (int i = 0; i < n; i++) {
                    assertEquals(expected.get(I16, 2L * i), out.get(I16, 2L * i),
                            String.format("f32 0x%08x, %s", SPECIAL_F32[i], layout));
                }
            }
        }
    }

    @Test
    void specialValuesConvertBitForBitAsTheScalarPath() {
        try (Arena arena = Arena.ofShared()) {
            // Every special value in every lane position of both rows, 64 columns = 4 vectors of 16.
            Access src = tiled(arena, "f32[2,64]{1,0}");
            Access dst = tiled(arena, "bf16[2,64]{1,0:T(2,64)(2,1)}");
            for (int shift = 0; shift < SPECIAL_F32.length; shift++) {
                for (int i = 0; i < 128; i++) {
                    src.segment().set(I32, 4L * i, SPECIAL_F32[(i + shift) % SPECIAL_F32.length]);
                }
                CopyPlan plan = AccessCopies.plan(src, dst);
                assertEquals(Set.of(Kernel.CONVERT_PAIR_INTERLEAVE), kernels(plan));
                dst.segment().fill((byte) 0x5a);
                SCALAR.execute(unfused(plan));
                MemorySegment expected = Arena.ofAuto().allocate(dst.segment().byteSize());
                expected.copyFrom(dst.segment());
                for (CopyEngine engine : CopyFixture.ENGINES) {
                    dst.segment().fill((byte) 0x5a);
                    engine.execute(plan);
                    assertEquals(-1, expected.mismatch(dst.segment()), "shift " + shift + ", vector "
                            + engine.vectorKernels() + ", parallelism " + engine.parallelism());
                }
            }
            // Spot values, as a reader checks them: word = odd row's bf16 << 16 | even row's bf16.
            int[] even = {0x7fff_ffff, 0x8000_0000, 0x7f7f_ffff, 0x3f80_8000, 0x0000_8000, 0xff80_0001};
            int[] odd = {0xffff_ffff, 0x0000_0001, 0xff80_0000, 0x3f81_8000, 0x0001_8000, 0x4049_0fdb};
            int[] words = {0xffc0_7fc0, 0x0000_8000, 0xff80_7f80, 0x3f82_3f80, 0x0002_0000, 0x4049_ffc0};
            for (int i = 0; i < 64; i++) {
                src.segment().set(I32, 4L * i, even[i % even.length]);
                src.segment().set(I32, 4L * (64 + i), odd[i % odd.length]);
            }
            AccessCopies.copy(CopyEngine.of(1, true), src, dst);
            for (int i = 0; i < 64; i++) {
                assertEquals(words[i % words.length], dst.segment().get(I32, 4L * i), "column " + i);
            }
        }
    }

    @Test
    void randomRaggedShapesMatchTheScalarConversion() {
        try (Arena arena = Arena.ofShared()) {
            for (int trial = 0; trial < 40; trial++) {
                long rows = 1 + rnd.nextInt(40);
                long cols = 1 + rnd.nextInt(300);
                String dims = rows + "," + cols;
                String tiles = switch (trial % 3) {
                    case 0 -> "T(8,128)(2,1)";
                    case 1 -> "T(4,32)(2,1)";
                    default -> "T(2,16)(2,1)";
                };
                checkAgainstScalar(tiled(arena, "f32[" + dims + "]{1,0}"), tiled(arena, "bf16[" + dims + "]{1,0:"
                        + tiles + "}"), "f32[" + dims + "] -> " + tiles);
                checkAgainstScalar(tiled(arena, "bf16[" + dims + "]{1,0:" + tiles + "}"), tiled(arena, "f32[" + dims
                        + "]{1,0}"), tiles + " -> f32[" + dims + "]");
            }
        }
    }

    @Test
    void batchedImagesAndPitchedRowsMatchTheScalarConversion() {
        try (Arena arena = Arena.ofShared()) {
            // The demo's shape, smaller: f32 NCHW -> bf16 {3,2,1,0:T(8,128)(2,1)}, 224 = 128 + 96 columns.
            Access nchw = tiled(arena, "f32[2,3,21,224]{3,2,1,0}");
            Access tiles = tiled(arena, "bf16[2,3,21,224]{3,2,1,0:T(8,128)(2,1)}");
            assertTrue(kernels(AccessCopies.plan(nchw, tiles)).contains(Kernel.CONVERT_PAIR_INTERLEAVE));
            checkAgainstScalar(nchw, tiles, "f32 NCHW -> bf16 T(8,128)(2,1)");
            checkAgainstScalar(tiles, tiled(arena, "f32[2,3,21,224]{3,2,1,0}"), "bf16 T(8,128)(2,1) -> f32 NCHW");
            // Rows 300 elements apart in the source, 290 used: the column loop is still contiguous.
            Access pitched = strided(arena, DType.F32, StridedLayout.of(new long[] {37, 290}, new long[] {300, 1}, 7));
            Access dst = tiled(arena, "bf16[37,290]{1,0:T(8,128)(2,1)}");
            assertTrue(kernels(AccessCopies.plan(pitched, dst)).contains(Kernel.CONVERT_PAIR_INTERLEAVE));
            checkAgainstScalar(pitched, dst, "pitched f32[37,290] -> bf16 T(8,128)(2,1)");
        }
    }
}
