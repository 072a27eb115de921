package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LoopNest#plan} on loop nests written out by hand: which loops it drops, flips and fuses,
 * the order it leaves, and the kernel it picks at each threshold and one past it. Each copy's
 * values are checked elsewhere; a wrong kernel choice here still copies correctly, only slower,
 * so it shows only in the plan.
 */
class LoopNestTest {
    private static Step.Run plan(List<Loop> loops, DType from, DType to) {
        return LoopNest.plan(loops, 0, 0, -1, from, to, false);
    }

    private static Step.Run plan(List<Loop> loops, DType type) {
        return plan(loops, type, type);
    }

    private static Step.Run run(Kernel k, long so, long dO, int channel, Loop... loops) {
        return new Step.Run(k, so, dO, List.of(loops), channel);
    }

    @Test
    void unitLoopsAreDroppedButTheChannelLoopIsKept() {
        assertEquals(run(Kernel.BULK, 0, 0, -1, new Loop(4, 1, 1)),
                plan(List.of(new Loop(1, 5, 7), new Loop(4, 1, 1)), DType.F32));
        // A channel of size 1 stays a loop, so the run's channel index points at it.
        Step.Run kept = LoopNest.plan(List.of(new Loop(1, 0, 4), new Loop(4, 1, 1)), 0, 0, 0, DType.U8, DType.F32, true);
        assertEquals(run(Kernel.CONVERT, 0, 0, 0, new Loop(1, 0, 4), new Loop(4, 1, 1)), kept);
    }

    @Test
    void allUnitLoopsLeaveOneLoopOfOne() {
        assertEquals(run(Kernel.BULK, 3, 9, -1, new Loop(1, 1, 1)),
                LoopNest.plan(List.of(new Loop(1, 5, 5), new Loop(1, 2, 2)), 3, 9, -1, DType.S16, DType.S16, false));
    }

    @Test
    void negativeDestinationStridesAreFlippedWithTheirOffsets() {
        // dst[3 - i] = src[10 - 2 i]: flipped to dst[i] = src[4 + 2 i].
        assertEquals(run(Kernel.ELEMENT, 4, 0, -1, new Loop(4, 2, 1)),
                LoopNest.plan(List.of(new Loop(4, -2, -1)), 10, 3, -1, DType.F32, DType.F32, false));
        // dst[6 - 2 i] = src[3 - i]: flipped to dst[2 i] = src[i].
        assertEquals(run(Kernel.ELEMENT, 0, 0, -1, new Loop(4, 1, 2)),
                LoopNest.plan(List.of(new Loop(4, -1, -2)), 3, 6, -1, DType.F32, DType.F32, false));
        // A reversed source under a forward destination stays as it is.
        assertEquals(run(Kernel.ELEMENT, 7, 0, -1, new Loop(8, -1, 1)),
                LoopNest.plan(List.of(new Loop(8, -1, 1)), 7, 0, -1, DType.F32, DType.F32, false));
    }

    @Test
    void aZeroDestinationStrideOverSeveralIterationsIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> plan(List.of(new Loop(3, 1, 0)), DType.F32));
        assertTrue(e.getMessage().contains("3"), e.getMessage());
        // One iteration at stride 0 is no repeat: as a channel loop it is kept, not refused.
        assertEquals(run(Kernel.CONVERT, 0, 0, 1, new Loop(5, 1, 1), new Loop(1, 1, 0)),
                LoopNest.plan(List.of(new Loop(1, 1, 0), new Loop(5, 1, 1)), 0, 0, 0, DType.U8, DType.F32, true));
    }

    @Test
    void loopsAreOrderedByDestinationStrideThenSourceStride() {
        // dst[i][j] = src[j][i] for i < 3, j < 5, written as the inner loop first.
        Step.Run r = plan(List.of(new Loop(5, 3, 1), new Loop(3, 1, 5)), DType.S64);
        assertEquals(List.of(new Loop(3, 1, 5), new Loop(5, 3, 1)), r.loops());
        // Equal destination strides (a zero step writes them): the larger source stride goes outside.
        Step.Run tie = plan(List.of(new Loop(2, 1, 4), new Loop(2, 9, 4), new Loop(4, 2, 1)), DType.S64);
        assertEquals(List.of(new Loop(2, 9, 4), new Loop(2, 1, 4), new Loop(4, 2, 1)), tie.loops());
    }

    @Test
    void loopsContiguousOnBothSidesFuse() {
        assertEquals(run(Kernel.BULK, 0, 0, -1, new Loop(6, 1, 1)),
                plan(List.of(new Loop(2, 3, 3), new Loop(3, 1, 1)), DType.F32));
        // Contiguous on the destination only: kept apart.
        assertEquals(run(Kernel.BULK, 0, 0, -1, new Loop(2, 4, 3), new Loop(3, 1, 1)),
                plan(List.of(new Loop(2, 4, 3), new Loop(3, 1, 1)), DType.F32));
        // Contiguous on the source only: kept apart.
        assertEquals(List.of(new Loop(2, 3, 4), new Loop(3, 1, 1)),
                plan(List.of(new Loop(2, 3, 4), new Loop(3, 1, 1)), DType.F32).loops());
        // Three loops fuse into one.
        assertEquals(run(Kernel.BULK, 0, 0, -1, new Loop(24, 1, 1)),
                plan(List.of(new Loop(2, 12, 12), new Loop(3, 4, 4), new Loop(4, 1, 1)), DType.F32));
    }

    @Test
    void theChannelLoopIsNeverFused() {
        List<Loop> loops = List.of(new Loop(2, 3, 3), new Loop(3, 1, 1));
        assertEquals(run(Kernel.CONVERT, 0, 0, 0, new Loop(2, 3, 3), new Loop(3, 1, 1)),
                LoopNest.plan(loops, 0, 0, 0, DType.U8, DType.F32, true));
        assertEquals(run(Kernel.CONVERT, 0, 0, 1, new Loop(2, 3, 3), new Loop(3, 1, 1)),
                LoopNest.plan(loops, 0, 0, 1, DType.U8, DType.F32, true));
        // Without a scale and bias the same loops fuse.
        assertEquals(run(Kernel.CONVERT, 0, 0, -1, new Loop(6, 1, 1)),
                LoopNest.plan(loops, 0, 0, -1, DType.U8, DType.F32, false));
    }

    @Test
    void aScaleAndBiasConvertsEvenBetweenEqualTypes() {
        assertEquals(Kernel.CONVERT,
                LoopNest.plan(List.of(new Loop(8, 1, 1)), 0, 0, -1, DType.F32, DType.F32, true).kernel());
        assertEquals(Kernel.BULK, plan(List.of(new Loop(8, 1, 1)), DType.F32).kernel());
        assertEquals(Kernel.CONVERT, plan(List.of(new Loop(8, 1, 1)), DType.F32, DType.F16).kernel());
    }

    /**
     * u8 HWC with {@code c} channels and {@code w} pixels per row (and one pixel of row padding,
     * so rows do not fuse) into f32 CHW.
     */
    private static List<Loop> hwcToChw(long h, long w, long c) {
        return List.of(new Loop(h, (w + 1) * c, w), new Loop(w, c, 1), new Loop(c, 1, h * w));
    }

    @Test
    void interleavedBytesToFloatPlanesTakeTheBytePlaneKernel() {
        // The channel loop moves just outside the pixel loop.
        assertEquals(run(Kernel.BYTE_PLANES, 0, 0, -1, new Loop(2, 27, 8), new Loop(3, 1, 16), new Loop(8, 3, 1)),
                plan(hwcToChw(2, 8, 3), DType.U8, DType.F32));
        assertEquals(Kernel.BYTE_PLANES, plan(hwcToChw(2, 8, 2), DType.U8, DType.F32).kernel());
        assertEquals(Kernel.BYTE_PLANES, plan(hwcToChw(2, 8, 4), DType.U8, DType.F32).kernel());
        // Five channels, seven pixels a row, or another pair of types: the general conversion.
        assertEquals(Kernel.CONVERT, plan(hwcToChw(2, 8, 5), DType.U8, DType.F32).kernel());
        assertEquals(Kernel.CONVERT, plan(hwcToChw(2, 7, 3), DType.U8, DType.F32).kernel());
        assertEquals(Kernel.CONVERT, plan(hwcToChw(2, 8, 3), DType.S8, DType.F32).kernel());
        assertEquals(Kernel.CONVERT, plan(hwcToChw(2, 8, 3), DType.U8, DType.F16).kernel());
        // One row of pixels is still two loops: channels and pixels.
        assertEquals(run(Kernel.BYTE_PLANES, 0, 0, -1, new Loop(3, 1, 8), new Loop(8, 3, 1)),
                plan(List.of(new Loop(8, 3, 1), new Loop(3, 1, 8)), DType.U8, DType.F32));
        // A single strided loop has no channel loop to pair with.
        assertEquals(run(Kernel.CONVERT, 0, 0, -1, new Loop(8, 3, 1)),
                plan(List.of(new Loop(8, 3, 1)), DType.U8, DType.F32));
    }

    @Test
    void theBytePlaneKernelKeepsTheScaleAndBiasChannel() {
        // Channel loop given as index 2 of the input; it ends just outside the pixel loop.
        Step.Run r = LoopNest.plan(hwcToChw(2, 8, 3), 0, 0, 2, DType.U8, DType.F32, true);
        assertEquals(run(Kernel.BYTE_PLANES, 0, 0, 1, new Loop(2, 27, 8), new Loop(3, 1, 16), new Loop(8, 3, 1)), r);
        // A channel that is not the byte-stride loop: no byte planes.
        Step.Run other = LoopNest.plan(hwcToChw(2, 8, 3), 0, 0, 0, DType.U8, DType.F32, true);
        assertEquals(run(Kernel.CONVERT, 0, 0, 1, new Loop(3, 1, 16), new Loop(2, 27, 8), new Loop(8, 3, 1)), other);
    }

    @Test
    void aScaleAndBiasSkipsTheBf16PairKernels() {
        // f32[2,128] rows into bf16 (2,1) pairs: column (128, 1, 2), row pair (2, 128, 1).
        List<Loop> loops = List.of(new Loop(128, 1, 2), new Loop(2, 128, 1));
        assertEquals(Kernel.CONVERT_PAIR_INTERLEAVE, plan(loops, DType.F32, DType.BF16).kernel());
        assertEquals(Kernel.CONVERT, LoopNest.plan(loops, 0, 0, -1, DType.F32, DType.BF16, true).kernel());
    }

    @Test
    void contiguousRunsAreBulkAndBroadcastRunsFill() {
        assertEquals(run(Kernel.BULK, 2, 5, -1, new Loop(3, 8, 4), new Loop(4, 1, 1)),
                LoopNest.plan(List.of(new Loop(3, 8, 4), new Loop(4, 1, 1)), 2, 5, -1, DType.F32, DType.F32, false));
        assertEquals(run(Kernel.FILL, 0, 0, -1, new Loop(3, 1, 4), new Loop(4, 0, 1)),
                plan(List.of(new Loop(3, 1, 4), new Loop(4, 0, 1)), DType.F32));
    }

    /** dst[i][j] = src[j][i] over {@code rows x cols} of the destination. */
    private static List<Loop> transpose(long rows, long cols) {
        return List.of(new Loop(rows, 1, cols), new Loop(cols, rows, 1));
    }

    @Test
    void transposesOfEightByEightAndMoreTakeTheTransposeKernel() {
        assertEquals(run(Kernel.TRANSPOSE, 0, 0, -1, new Loop(8, 1, 8), new Loop(8, 8, 1)),
                plan(transpose(8, 8), DType.F32));
        assertEquals(Kernel.ELEMENT, plan(transpose(7, 8), DType.F32).kernel());
        assertEquals(Kernel.ELEMENT, plan(transpose(8, 7), DType.F32).kernel());
        assertEquals(Kernel.ELEMENT, plan(transpose(8, 8), DType.F64).kernel());
        assertEquals(Kernel.ELEMENT, plan(transpose(8, 8), DType.S16).kernel());
        // The source-contiguous loop moves just outside the run.
        Step.Run r = plan(List.of(new Loop(8, 1, 80), new Loop(10, 65, 8), new Loop(8, 8, 1)), DType.F32);
        assertEquals(run(Kernel.TRANSPOSE, 0, 0, -1, new Loop(10, 65, 8), new Loop(8, 1, 80), new Loop(8, 8, 1)), r);
        // A reversed inner source is no transpose.
        assertEquals(Kernel.ELEMENT,
                LoopNest.plan(List.of(new Loop(8, 1, 8), new Loop(8, -8, 1)), 56, 0, -1, DType.F32, DType.F32, false).kernel());
    }

    @Test
    void fewPlanesInterleaveAndDeinterleave() {
        // NCHW -> NHWC, c channels of 8 pixels: channel loop (c, 8, 1), pixel loop (8, 1, c).
        for (long c = 2; c <= 4; c++) {
            assertEquals(run(Kernel.INTERLEAVE, 0, 0, -1, new Loop(8, 1, c), new Loop(c, 8, 1)),
                    plan(List.of(new Loop(c, 8, 1), new Loop(8, 1, c)), DType.F32), "c=" + c);
            assertEquals(run(Kernel.DEINTERLEAVE, 0, 0, -1, new Loop(c, 1, 8), new Loop(8, c, 1)),
                    plan(List.of(new Loop(8, c, 1), new Loop(c, 1, 8)), DType.F32), "c=" + c);
        }
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(5, 8, 1), new Loop(8, 1, 5)), DType.F32).kernel());
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(8, 5, 1), new Loop(5, 1, 8)), DType.F32).kernel());
        // Seven pixels: too short a run.
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(3, 7, 1), new Loop(7, 1, 3)), DType.F32).kernel());
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(7, 3, 1), new Loop(3, 1, 7)), DType.F32).kernel());
        // Planes that are not packed together on the interleaved side.
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(3, 8, 1), new Loop(8, 1, 4)), DType.F32).kernel());
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(8, 4, 1), new Loop(3, 1, 8)), DType.F32).kernel());
        // Other widths.
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(3, 8, 1), new Loop(8, 1, 3)), DType.S8).kernel());
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(8, 3, 1), new Loop(3, 1, 8)), DType.F64).kernel());
    }

    @Test
    void twoByteElementsInterleaveInPairs() {
        assertEquals(run(Kernel.PAIR_INTERLEAVE, 0, 0, -1, new Loop(5, 1, 2), new Loop(2, 5, 1)),
                plan(List.of(new Loop(2, 5, 1), new Loop(5, 1, 2)), DType.BF16));
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(3, 5, 1), new Loop(5, 1, 3)), DType.BF16).kernel());
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(2, 5, 1), new Loop(5, 1, 4)), DType.BF16).kernel());
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(2, 5, 1), new Loop(5, 1, 2)), DType.S8).kernel());
    }

    @Test
    void strideTwoRunsOfEightFourByteElementsGatherEvenLanes() {
        assertEquals(run(Kernel.EVEN_GATHER, 0, 0, -1, new Loop(8, 2, 1)), plan(List.of(new Loop(8, 2, 1)), DType.F32));
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(7, 2, 1)), DType.F32).kernel());
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(8, 3, 1)), DType.F32).kernel());
        assertEquals(Kernel.ELEMENT, plan(List.of(new Loop(8, 2, 1)), DType.F64).kernel());
        // Two interleaved channels de-interleave as planes; a stride-2 run with no channel loop gathers.
        assertEquals(Kernel.DEINTERLEAVE, plan(List.of(new Loop(8, 2, 1), new Loop(2, 1, 9)), DType.F32).kernel());
        assertEquals(run(Kernel.EVEN_GATHER, 0, 0, -1, new Loop(3, 17, 9), new Loop(8, 2, 1)),
                plan(List.of(new Loop(8, 2, 1), new Loop(3, 17, 9)), DType.F32));
    }

    /**
     * A T(8,128) tile source into row-major f32 rows of {@code 128 * tilesPerRow} columns: row
     * tiles, rows in a tile, column tiles, the 128 columns of a tile row.
     */
    private static List<Loop> tiledRows(long tilesPerRow, long columns) {
        long rowLength = columns * tilesPerRow;
        return List.of(new Loop(2, 8 * rowLength, 8 * rowLength), new Loop(8, columns, rowLength),
                new Loop(tilesPerRow, 8 * columns, columns), new Loop(columns, 1, 1));
    }

    @Test
    void shortRunsPutTheLoopWithFewerRowsJustOutside() {
        // 16 column tiles against 8 rows a tile: the rows go inside the column tiles.
        assertEquals(List.of(new Loop(2, 16384, 16384), new Loop(16, 1024, 128), new Loop(8, 128, 2048),
                new Loop(128, 1, 1)), plan(tiledRows(16, 128), DType.F32).loops());
        // 15 column tiles is under twice 8 rows: kept in destination order.
        assertEquals(tiledRows(15, 128), plan(tiledRows(15, 128), DType.F32).loops());
        // Runs of exactly 4096 bytes are still short; one element more is not.
        assertEquals(new Loop(8, 1024, 16384), plan(tiledRows(16, 1024), DType.F32).loops().get(2));
        assertEquals(tiledRows(16, 1025), plan(tiledRows(16, 1025), DType.F32).loops());
        assertEquals(new Loop(8, 2048, 32768), plan(tiledRows(16, 2048), DType.F16).loops().get(2));
        assertEquals(tiledRows(16, 2049), plan(tiledRows(16, 2049), DType.F16).loops());
    }

    @Test
    void threeLoopsAreEnoughToReorder() {
        List<Loop> loops = List.of(new Loop(8, 128, 2048), new Loop(16, 1024, 128), new Loop(128, 1, 1));
        assertEquals(List.of(new Loop(16, 1024, 128), new Loop(8, 128, 2048), new Loop(128, 1, 1)),
                plan(loops, DType.F32).loops());
        // Two loops: nothing to move.
        List<Loop> two = List.of(new Loop(16, 1024, 128), new Loop(128, 1, 1));
        assertEquals(two, plan(two, DType.F32).loops());
    }
}
