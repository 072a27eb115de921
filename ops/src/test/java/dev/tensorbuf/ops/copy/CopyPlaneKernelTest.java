package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.Kernel;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.tensorbuf.ops.copy.CopyFixture.check;
import static dev.tensorbuf.ops.copy.CopyFixture.strided;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The plane kernels (interleave, de-interleave, u8 planes) and the even-lane gather against the
 * element loop: run lengths below, at and above one vector, remainders, C = 2, 3, 4 (and 5, which
 * stays on the element loop), every engine of {@link CopyFixture#ENGINES} (scalar, vector, split
 * across three threads from the first byte).
 */
class CopyPlaneKernelTest {
    /** Pixel grids (H, W) whose run lengths sit below, at and around 16, 64 and their multiples. */
    private static final long[][] GRIDS = {{1, 7}, {3, 5}, {4, 4}, {1, 17}, {5, 13}, {8, 8}, {23, 21}, {9, 15}};
    private final Random rnd = new Random(CopyFixture.SEED + 2);

    private static Set<Kernel> kernels(Access src, Access dst, ChannelAffine affine) {
        return AccessCopies.steps(AccessCopies.plan(src, dst, affine)).stream()
                .map(s -> s instanceof Step.Run r ? r.kernel() : s instanceof Step.Zero ? Kernel.ZERO : Kernel.GATHER)
                .collect(Collectors.toSet());
    }

    private void checkKernel(Access src, Access dst, ChannelAffine affine, Kernel expected, String what) {
        assertEquals(Set.of(expected), kernels(src, dst, affine), what + ": kernels");
        check(src, dst, affine, rnd, what);
    }

    private static long[] nchw(long n, long c, long[] grid) {
        return new long[] {n, c, grid[0], grid[1]};
    }

    @Test
    void fewPlanesInterleaveIntoChannels() {
        try (Arena arena = Arena.ofShared()) {
            for (long c = 2; c <= 5; c++) {
                for (long[] g : GRIDS) {
                    long[] d = nchw(1 + rnd.nextInt(3), c, g);
                    Kernel k = c <= 4 && g[0] * g[1] >= 8 ? Kernel.INTERLEAVE : Kernel.ELEMENT;
                    checkKernel(strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)),
                            strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)), null, k,
                            "NCHW->NHWC " + Arrays.toString(d));
                }
            }
        }
    }

    @Test
    void interleavedChannelsSplitIntoPlanes() {
        try (Arena arena = Arena.ofShared()) {
            for (long c = 2; c <= 5; c++) {
                for (long[] g : GRIDS) {
                    long[] d = nchw(1 + rnd.nextInt(3), c, g);
                    Kernel k = c <= 4 && g[0] * g[1] >= 8 ? Kernel.DEINTERLEAVE : Kernel.ELEMENT;
                    checkKernel(strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)),
                            strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)), null, k,
                            "NHWC->NCHW " + Arrays.toString(d));
                }
            }
        }
    }

    @Test
    void planesOfOtherFourByteTypesAndGappedPlanes() {
        try (Arena arena = Arena.ofShared()) {
            long[] d = {2, 3, 9, 11};
            checkKernel(strided(arena, DType.S32, StridedLayout.of(TensorFormat.NCHW, d)),
                    strided(arena, DType.S32, StridedLayout.of(TensorFormat.NHWC, d)), null, Kernel.INTERLEAVE, "s32");
            // Planes 150 elements apart (99 used): the plane stride is free, only pixels must be contiguous.
            Access gapped = strided(arena, DType.F32, StridedLayout.of(new long[] {2, 3, 9, 11},
                    new long[] {450, 150, 11, 1}, 3));
            checkKernel(gapped, strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)), null,
                    Kernel.INTERLEAVE, "gapped planes -> NHWC");
            checkKernel(strided(arena, DType.F32, StridedLayout.of(TensorFormat.NHWC, d)), strided(arena, DType.F32,
                    StridedLayout.of(new long[] {2, 3, 9, 11}, new long[] {450, 150, 11, 1}, 3)), null,
                    Kernel.DEINTERLEAVE, "NHWC -> gapped planes");
        }
    }

    @Test
    void u8ChannelsStageToScaledFloatPlanes() {
        try (Arena arena = Arena.ofShared()) {
            long[][] grids = {{5, 7}, {8, 8}, {13, 11}, {1, 65}, {9, 23}, {2, 4}};
            for (long c = 2; c <= 4; c++) {
                for (long[] g : grids) {
                    long[] d = nchw(1 + rnd.nextInt(3), c, g);
                    List<Float> scale = new ArrayList<>();
                    List<Float> bias = new ArrayList<>();
                    for (int k = 0; k < c; k++) {
                        scale.add(1 / (50f + rnd.nextInt(20)));
                        bias.add(-rnd.nextInt(200) / 57f);
                    }
                    ChannelAffine affine = new ChannelAffine(1, scale, bias);
                    Kernel k = g[0] * g[1] >= 8 ? Kernel.BYTE_PLANES : Kernel.CONVERT;
                    checkKernel(strided(arena, DType.U8, StridedLayout.of(TensorFormat.NHWC, d)),
                            strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)), affine, k,
                            "u8 NHWC -> f32 NCHW scale+bias " + Arrays.toString(d));
                    checkKernel(strided(arena, DType.U8, StridedLayout.of(TensorFormat.NHWC, d)),
                            strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)), null, k,
                            "u8 NHWC -> f32 NCHW " + Arrays.toString(d));
                }
            }
        }
    }

    @Test
    void u8StagingWithTheScaleOnAnotherDimensionConvertsRunByRun() {
        try (Arena arena = Arena.ofShared()) {
            long[] d = {3, 3, 7, 13};
            ChannelAffine perImage = new ChannelAffine(0, List.of(0.5f, 2f, 0.25f), List.of(1f, -3f, 0.5f));
            checkKernel(strided(arena, DType.U8, StridedLayout.of(TensorFormat.NHWC, d)),
                    strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, d)), perImage, Kernel.CONVERT,
                    "scale per image");
            long[] five = {1, 5, 7, 13};
            checkKernel(strided(arena, DType.U8, StridedLayout.of(TensorFormat.NHWC, five)),
                    strided(arena, DType.F32, StridedLayout.of(TensorFormat.NCHW, five)), null, Kernel.CONVERT, "C=5");
        }
    }

    @Test
    void stepTwoSlicesGatherEvenLanes() {
        try (Arena arena = Arena.ofShared()) {
            // Rows of one to four vectors of 8 or 16 lanes end to end or overlapping (straight-line
            // blocks), and longer ones (a loop).
            for (long[] d : new long[][] {{2, 3, 9, 17}, {1, 2, 4, 40}, {2, 2, 3, 16}, {1, 1, 3, 9}, {1, 1, 2, 33},
                    {1, 1, 3, 29}, {1, 1, 2, 49}, {1, 2, 2, 56}, {1, 1, 2, 64}, {1, 1, 2, 65}}) {
                long w = 2 * d[3] + 1;
                long h = 2 * d[2];
                Access src = strided(arena, DType.F32, StridedLayout.of(d, new long[] {d[1] * h * w, h * w, 2 * w, 2}, 0));
                checkKernel(src, strided(arena, DType.F32, StridedLayout.packed(d)), null, Kernel.EVEN_GATHER,
                        "slice [:, :, ::2, ::2] of " + Arrays.toString(d));
            }
        }
    }

    @Test
    void evenLaneGatherNeverReadsPastTheSourceSegment() {
        try (Arena arena = Arena.ofShared()) {
            // The last element sits at the segment's end: a vector load one element further would fail.
            StridedLayout l = StridedLayout.of(new long[] {3, 20}, new long[] {40, 2}, 0);
            Access exact = Access.strided(arena.allocate(4 * (l.maxOffset() + 1), 64), DType.F32, l);
            checkKernel(exact, strided(arena, DType.F32, StridedLayout.packed(3, 20)), null, Kernel.EVEN_GATHER,
                    "stride-2 rows ending at the segment end");
        }
    }

    @Test
    void broadcastOverTheOuterLoopReplicatesItsFirstBlock() {
        try (Arena arena = Arena.ofShared()) {
            // Blocks of 17 * 33 * 31 floats (69 KB, above the 64 KiB replication size): one copy, 12,
            // and more blocks than the threaded engine has pieces (it fills one block, then splits the copies).
            // The scalar engine replicates; the vector engines fill these 4 KB runs directly.
            for (long n : new long[] {2, 13, 37}) {
                long[] blocks = {n, 17, 33, 31};
                Access b = Access.strided(arena.allocate(17 * 4), DType.F32, StridedLayout.of(blocks, new long[] {0, 1, 0, 0}));
                checkKernel(b, strided(arena, DType.F32, StridedLayout.packed(blocks)), null, Kernel.FILL,
                        "broadcast f32[1,17,1,1] -> " + Arrays.toString(blocks));
            }
            // Short runs (31 floats, under the vector fill's 1 KiB) in 74 KB blocks: replicated in every engine.
            for (long n : new long[] {2, 37}) {
                long[] blocks = {n, 600, 31};
                Access b = Access.strided(arena.allocate(600 * 4), DType.F32, StridedLayout.of(blocks, new long[] {0, 1, 0}));
                checkKernel(b, strided(arena, DType.F32, StridedLayout.packed(blocks)), null, Kernel.FILL,
                        "broadcast f32[1,600,1] -> " + Arrays.toString(blocks));
            }
            long[] sizes = {13, 17, 33, 31};
            Access bias = Access.strided(arena.allocate(17 * 4), DType.F32, StridedLayout.of(sizes, new long[] {0, 1, 0, 0}));
            // Gaps between the blocks: each block is still dense, so it replicates into the gapped slots.
            Access gapped = strided(arena, DType.F32, StridedLayout.of(sizes, new long[] {17 * 33 * 31 + 5, 33 * 31, 31, 1}, 0));
            checkKernel(bias, gapped, null, Kernel.FILL, "broadcast into blocks with gaps");
            // Padded rows: blocks are not dense, so runs are filled one by one.
            Access padded = strided(arena, DType.F32, StridedLayout.of(sizes, new long[] {17 * 33 * 32, 33 * 32, 32, 1}, 0));
            checkKernel(bias, padded, null, Kernel.FILL, "broadcast into padded rows");
        }
    }
}
