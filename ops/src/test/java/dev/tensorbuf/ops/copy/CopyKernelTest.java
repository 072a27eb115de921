package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.Kernel;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.indexing.IndexingMap;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.tensorbuf.ops.copy.CopyFixture.check;
import static dev.tensorbuf.ops.copy.CopyFixture.strided;
import static dev.tensorbuf.ops.copy.CopyFixture.tiled;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Each kernel against the element loop, on small analogues of the benchmark shapes (odd sizes, C=3). */
class CopyKernelTest {
    private final Random rnd = new Random(CopyFixture.SEED);

    private static Set<Kernel> kernels(Access src, Access dst, ChannelAffine affine) {
        return AccessCopies.steps(AccessCopies.plan(src, dst, affine)).stream()
                .map(s -> s instanceof Step.Run r ? r.kernel() : s instanceof Step.Zero ? Kernel.ZERO : Kernel.GATHER)
                .collect(Collectors.toSet());
    }

    private void checkKernel(Access src, Access dst, ChannelAffine affine, Set<Kernel> expected, String what) {
        assertEquals(expected, kernels(src, dst, affine), what + ": kernels");
        check(src, dst, affine, rnd, what);
    }

    @Test
    void nchwToNhwcTransposesInBlocks() {
        try (Arena arena = Arena.ofShared()) {
            for (long[] d : new long[][] {{2, 24, 7, 9}, {3, 17, 5, 7}, {1, 64, 12, 12}, {2, 33, 1, 40}}) {
                checkKernel(strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)),
                        strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)), null,
                        Set.of(Kernel.TRANSPOSE), "NCHW->NHWC " + java.util.Arrays.toString(d));
            }
        }
    }

    @Test
    void nhwcToNchwTransposesInBlocks() {
        try (Arena arena = Arena.ofShared()) {
            for (long[] d : new long[][] {{2, 24, 7, 9}, {3, 17, 5, 7}, {1, 130, 3, 50}}) {
                checkKernel(strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)),
                        strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)), null,
                        Set.of(Kernel.TRANSPOSE), "NHWC->NCHW " + java.util.Arrays.toString(d));
            }
        }
    }

    @Test
    void threeChannelsInterleavePlanes() {
        try (Arena arena = Arena.ofShared()) {
            long[] d = {1, 3, 23, 21};
            checkKernel(strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)),
                    strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)), null, Set.of(Kernel.INTERLEAVE),
                    "NCHW->NHWC C=3");
            checkKernel(strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)),
                    strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)), null, Set.of(Kernel.DEINTERLEAVE),
                    "NHWC->NCHW C=3");
        }
    }

    @Test
    void rowMajorToTilesCopiesTileRowsInBulk() {
        try (Arena arena = Arena.ofShared()) {
            checkKernel(tiled(arena, "f32[40,384]{1,0}"), tiled(arena, "f32[40,384]{1,0:T(8,128)}"), null,
                    Set.of(Kernel.BULK), "f32[40,384] -> T(8,128)");
            checkKernel(tiled(arena, "f32[40,384]{1,0:T(8,128)}"), tiled(arena, "f32[40,384]{1,0}"), null,
                    Set.of(Kernel.BULK), "T(8,128) -> f32[40,384]");
        }
    }

    @Test
    void paddedTilesAreWrittenAsZero() {
        try (Arena arena = Arena.ofShared()) {
            checkKernel(tiled(arena, "f32[37,300]{1,0}"), tiled(arena, "f32[37,300]{1,0:T(8,128)}"), null,
                    Set.of(Kernel.BULK, Kernel.ZERO), "f32[37,300] -> T(8,128)");
            checkKernel(tiled(arena, "f32[100,100]{1,0}"), tiled(arena, "f32[100,100]{1,0:T(8,128)}"), null,
                    Set.of(Kernel.BULK, Kernel.ZERO), "f32[100,100] -> T(8,128)");
            checkKernel(tiled(arena, "f32[37,300]{1,0:T(8,128)}"), tiled(arena, "f32[37,300]{0,1}"), null,
                    Set.of(Kernel.TRANSPOSE, Kernel.ELEMENT), "T(8,128) -> column-major");
            check(tiled(arena, "f32[5]{0}"), tiled(arena, "f32[5]{0:T(8,128)}"), null, rnd, "rank 1 under a rank-2 tile");
        }
    }

    @Test
    void bf16PairsInterleaveIntoTwoOneSubtiles() {
        try (Arena arena = Arena.ofShared()) {
            checkKernel(tiled(arena, "bf16[16,256]{1,0}"), tiled(arena, "bf16[16,256]{1,0:T(8,128)(2,1)}"), null,
                    Set.of(Kernel.PAIR_INTERLEAVE), "bf16 -> T(8,128)(2,1)");
            checkKernel(tiled(arena, "bf16[19,260]{1,0}"), tiled(arena, "bf16[19,260]{1,0:T(8,128)(2,1)}"), null,
                    Set.of(Kernel.PAIR_INTERLEAVE, Kernel.ELEMENT, Kernel.ZERO), "bf16[19,260] -> T(8,128)(2,1)");
            check(tiled(arena, "bf16[19,260]{1,0:T(8,128)(2,1)}"), tiled(arena, "bf16[19,260]{1,0}"), null, rnd,
                    "T(8,128)(2,1) -> bf16[19,260]");
        }
    }

    @Test
    void u8PixelsStageToScaledPlanarFloats() {
        try (Arena arena = Arena.ofShared()) {
            long[] d = {2, 3, 13, 11};
            ChannelAffine affine = new ChannelAffine(1, List.of(0.5f, 0.25f, 2f), List.of(-1f, 3f, 0.125f));
            checkKernel(strided(arena, DType.U8, StridedLayout.of(TensorFormat.NHWC, d)),
                    strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)), affine, Set.of(Kernel.BYTE_PLANES),
                    "u8 NHWC -> f32 NCHW scale+bias");
            check(strided(arena, DType.U8, StridedLayout.of(TensorFormat.NCHW, d)),
                    strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)), affine, rnd,
                    "u8 NCHW -> f32 NHWC scale+bias (channel innermost)");
            check(strided(arena, DType.S16, StridedLayout.of(TensorFormat.NHWC, d)),
                    strided(arena, DType.BF16, StridedLayout.of(TensorFormat.NCHW, d)), affine, rnd,
                    "s16 -> bf16 scale+bias");
        }
    }

    @Test
    void broadcastFillsRuns() {
        try (Arena arena = Arena.ofShared()) {
            long[] sizes = {3, 6, 5, 7};
            Access src = Access.strided(arena.allocate(6 * 4), DType.F32, StridedLayout.of(sizes, new long[] {0, 1, 0, 0}));
            checkKernel(src, strided(arena, DType.F32, StridedLayout.packed(sizes)), null, Set.of(Kernel.FILL),
                    "broadcast f32[1,6,1,1]");
            Access wide = Access.strided(arena.allocate(2 * 300), DType.BF16,
                    StridedLayout.of(new long[] {4, 300}, new long[] {0, 1}));
            checkKernel(wide, strided(arena, DType.BF16, StridedLayout.of(new long[] {4, 300}, new long[] {1, 4})), null,
                    Set.of(Kernel.FILL), "broadcast rows into columns");
            Access scalar = Access.strided(arena.allocate(1), DType.U8, StridedLayout.of(new long[] {2, 500}, new long[] {0, 0}));
            checkKernel(scalar, strided(arena, DType.U8, StridedLayout.packed(2, 500)), null, Set.of(Kernel.FILL),
                    "u8 scalar broadcast");
            // Runs of at least 1 KiB take the vector fill: every element width, ragged tails.
            for (DType t : new DType[] {DType.U8, DType.BF16, DType.F32, DType.F64}) {
                long n = 4099 / t.byteWidth();
                Access one = Access.strided(arena.allocate(t.byteWidth()), t,
                        StridedLayout.of(new long[] {3, n}, new long[] {0, 0}));
                checkKernel(one, strided(arena, t, StridedLayout.packed(3, n)), null, Set.of(Kernel.FILL),
                        "long " + t + " scalar broadcast");
            }
        }
    }

    @Test
    void everyOtherElementSliceCopies() {
        try (Arena arena = Arena.ofShared()) {
            Access src = strided(arena, DType.F32, StridedLayout.of(new long[] {2, 3, 5, 6},
                    new long[] {3 * 9 * 11, 9 * 11, 2 * 11, 2}, 0));
            checkKernel(src, strided(arena, DType.F32, StridedLayout.packed(2, 3, 5, 6)), null, Set.of(Kernel.ELEMENT),
                    "slice [:, :, ::2, ::2]");
        }
    }

    @Test
    void negativeStridesReverse() {
        try (Arena arena = Arena.ofShared()) {
            Access src = strided(arena, DType.F64, StridedLayout.of(new long[] {4, 9}, new long[] {-9, 1}, 27));
            checkKernel(src, strided(arena, DType.F64, StridedLayout.packed(4, 9)), null, Set.of(Kernel.BULK), "flip rows");
            Access dst = strided(arena, DType.S8, StridedLayout.of(new long[] {4, 9}, new long[] {9, -1}, 8));
            check(strided(arena, DType.S8, StridedLayout.packed(4, 9)), dst, null, rnd, "reversed destination columns");
        }
    }

    @Test
    void typeConversionsRoundToNearestEven() {
        DType[][] pairs = {{DType.F32, DType.BF16}, {DType.BF16, DType.F32}, {DType.F32, DType.F16},
                {DType.F16, DType.F32}, {DType.S32, DType.F32}, {DType.F32, DType.S32}, {DType.U8, DType.F32},
                {DType.S8, DType.S16}, {DType.F64, DType.F32}, {DType.F32, DType.F64}, {DType.BF16, DType.F16},
                {DType.U16, DType.S64}, {DType.F32, DType.PRED}, {DType.F16, DType.S8}};
        try (Arena arena = Arena.ofShared()) {
            for (DType[] p : pairs) {
                long[] d = {3, 17, 5};
                check(strided(arena, p[0], StridedLayout.packed(d)), strided(arena, p[1], StridedLayout.packed(d)), null,
                        rnd, p[0] + " -> " + p[1]);
                check(strided(arena, p[0], StridedLayout.of(new long[] {3, 17, 5}, new long[] {1, 15, 3}, 0)),
                        strided(arena, p[1], StridedLayout.packed(d)), null, rnd, p[0] + " -> " + p[1] + " transposed");
            }
            check(tiled(arena, "f32[19,260]{1,0}"), tiled(arena, "bf16[19,260]{1,0:T(8,128)(2,1)}"), null, rnd,
                    "f32 -> bf16 tiles");
        }
    }

    /**
     * The chunk loops' arrays are sized to a task's runs (at most 512 elements): runs of every
     * length around the chunk's, dense and strided, through the chunks, the dense loops and the
     * byte tables, each element against the oracle.
     */
    @Test
    void conversionsOfRunsAroundTheChunkLength() {
        DType[][] pairs = {{DType.F64, DType.S16}, {DType.U16, DType.S64}, {DType.BF16, DType.F16}, {DType.F32, DType.BF16},
                {DType.S8, DType.F32}, {DType.F8E4M3FN, DType.F32}, {DType.F32, DType.F8E5M2}, {DType.C64, DType.C128}};
        try (Arena arena = Arena.ofShared()) {
            for (DType[] p : pairs) {
                for (long n : new long[] {1, 2, 15, 16, 17, 511, 512, 513, 1100}) {
                    long[] d = {3, n};
                    check(strided(arena, p[0], StridedLayout.packed(d)), strided(arena, p[1], StridedLayout.packed(d)), null,
                            rnd, p[0] + " -> " + p[1] + " runs of " + n);
                    check(strided(arena, p[0], StridedLayout.of(d, new long[] {2 * n + 1, 2}, 0)),
                            strided(arena, p[1], StridedLayout.packed(d)), null, rnd, p[0] + " -> " + p[1] + " strided runs of " + n);
                }
            }
        }
    }

    @Test
    void predReadsEveryNonZeroByteAsOne() {
        // Every byte value, in runs long enough for the vector loops; pred made by other code need not hold 0 or 1.
        DType[] targets = {DType.F32, DType.S32, DType.U8, DType.BF16, DType.F16, DType.F64, DType.S64, DType.S8};
        int n = 600;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(n);
            for (int i = 0; i < n; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            for (CopyEngine engine : List.of(CopyEngine.of(1, false), CopyEngine.of(1, true), CopyEngine.of(2, true, 0))) {
                for (DType to : targets) {
                    MemorySegment dst = arena.allocate((long) n * to.byteWidth());
                    AccessCopies.copy(engine, Access.strided(src, DType.PRED, StridedLayout.packed(n)),
                            Access.strided(dst, to, StridedLayout.packed(n)));
                    ElementAccess out = ElementAccess.of(to);
                    for (int i = 0; i < n; i++) {
                        double expected = (byte) (i * 7) != 0 ? 1 : 0;
                        assertEquals(expected, out.getDouble(dst, i),
                                "pred byte " + (i * 7 & 0xff) + " -> " + to + ", vector " + engine.vectorKernels());
                    }
                }
            }
        }
    }

    @Test
    void generalMapsAndPackedTilesGather() {
        try (Arena arena = Arena.ofShared()) {
            // A permutation of [0, 15) no split of the dimensions makes strided: 4 is coprime to 15.
            IndexingMap scrambled = IndexingMap.parse("(d0, d1) -> (((d0 * 5 + d1) * 4) mod 15), domain: d0 in [0, 2], d1 in [0, 4]");
            Access src = Access.mapped(arena.allocate(15 * 4), DType.F32, scrambled);
            checkKernel(src, strided(arena, DType.F32, StridedLayout.packed(3, 5)), null, Set.of(Kernel.GATHER),
                    "scrambled map");
            // An affine map is strided as it stands: loops, not a gather.
            IndexingMap reversed = IndexingMap.parse("(d0, d1) -> ((2 - d0) * 5 + (4 - d1) * 1), domain: d0 in [0, 2], d1 in [0, 4]");
            checkKernel(Access.mapped(arena.allocate(15 * 4), DType.F32, reversed),
                    strided(arena, DType.F32, StridedLayout.packed(3, 5)), null, Set.of(Kernel.ELEMENT), "reversed map");
            checkKernel(tiled(arena, "s4[5,7]{1,0}"), tiled(arena, "s4[5,7]{1,0:T(2,4)E(4)}"), null,
                    Set.of(Kernel.GATHER, Kernel.ZERO), "s4 into packed tiles");
            checkKernel(tiled(arena, "f32[9,10]{1,0:T(2,3)}"), tiled(arena, "f32[9,10]{1,0:T(8,128)}"), null,
                    Set.of(Kernel.GATHER, Kernel.ZERO), "different tilings");
            checkKernel(tiled(arena, "f32[9,10]{1,0:T(2,3)}"), tiled(arena, "f32[9,10]{1,0:T(2,3)}"), null,
                    Set.of(Kernel.BULK, Kernel.ELEMENT, Kernel.ZERO), "same tiling");
            check(tiled(arena, "f32[6,10,3]{2,1,0}"), tiled(arena, "f32[6,10,3]{0,2,1:T(4,2)(2,1)}"), null, rnd,
                    "nested tiles over permuted dims");
            check(tiled(arena, "u8[9,33]{0,1}"), tiled(arena, "u8[9,33]{1,0:T(4,8)(4,4)}"), null, rnd,
                    "u8 nested tiles");
            check(tiled(arena, "f32[6,10]{1,0}"), tiled(arena, "f32[6,10]{1,0:T(4,*,2)}"), null, rnd,
                    "combined dims gather");
        }
    }

    @Test
    void threadsForFollowsTheParallelThreshold() {
        CopyEngine two = CopyEngine.of(2, true, 1 << 20);
        assertEquals(1, two.threadsFor((1 << 20) - 1));
        assertEquals(2, two.threadsFor(1 << 20));
        assertEquals(1, CopyEngine.of(1).threadsFor(Long.MAX_VALUE));
    }

    @Test
    void largeCopiesSplitAcrossThreads() {
        CopyEngine two = CopyEngine.of(2, true, 1 << 20);
        try (Arena arena = Arena.ofShared()) {
            long[] d = {2, 64, 48, 48};
            Access src = strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d));
            Access dst = strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d));
            CopyFixture.fill(src, rnd, true);
            AccessCopies.copy(two, src, dst);
            java.lang.foreign.MemorySegment expected = arena.allocate(dst.segment().byteSize());
            expected.copyFrom(dst.segment());
            CopyOracle.expect(src, dst, null, expected);
            assertEquals(-1, expected.mismatch(dst.segment()), "2 threads above a 1 MiB threshold; seed "
                    + CopyFixture.SEED);
        }
    }
}
