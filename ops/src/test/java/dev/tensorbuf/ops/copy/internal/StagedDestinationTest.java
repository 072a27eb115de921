package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Which transposes write through the scratch, how a task is cut into chunks for it, and that
 * staged copies are exact.
 */
class StagedDestinationTest {
    private static final long MIN = StagedDestination.MIN_CHUNK_BYTES;

    /** The task NCHW -> NHWC f32 plans to: images, then pixels, then channels (dst order). */
    private static Task nchwToNhwc(long n, long c, long hw) {
        long[] count = {n, hw, c};
        long[] src = {4 * c * hw, 4, 4 * hw};
        long[] dst = {4 * c * hw, 4 * c, 4};
        return new Task(null, null, 0, 0, count, src, dst, 4, 4, -1, 0);
    }

    /** NHWC -> NCHW f32: images, channels, pixels. */
    private static Task nhwcToNchw(long n, long c, long hw) {
        long[] count = {n, c, hw};
        long[] src = {4 * c * hw, 4, 4 * c};
        long[] dst = {4 * c * hw, 4 * hw, 4};
        return new Task(null, null, 0, 0, count, src, dst, 4, 4, -1, 0);
    }

    @Test
    void onlyTransposesThatWriteInStridedPassesAreStaged() {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        assumeTrue(VectorTranspose.LANES == 16, "the banded 16x16 kernel needs 512-bit vectors");
        assertTrue(VectorTranspose.writesInPasses(nchwToNhwc(32, 64, 12544)), "64 channels: four passes per band");
        assertTrue(VectorTranspose.writesInPasses(nchwToNhwc(8, 256, 3136)));
        assertFalse(VectorTranspose.writesInPasses(nchwToNhwc(32, 16, 12544)), "one block across: whole rows");
        assertFalse(VectorTranspose.writesInPasses(nhwcToNchw(32, 64, 12544)), "long destination rows");
        assertFalse(VectorTranspose.writesInPasses(nchwToNhwc(64, 1024, 49)), "destination rows the longer side");
    }

    @Test
    void imagesOfMoreThanTheThresholdAreAChunkEach() {
        List<StagedDestination.Chunk> chunks = StagedDestination.chunks(nchwToNhwc(4, 64, 12544));
        assertEquals(4, chunks.size());
        for (int i = 0; i < 4; i++) {
            Task t = chunks.get(i).task();
            assertTrue(chunks.get(i).staged());
            assertEquals(1, t.count()[0]);
            assertEquals(i * 4L * 64 * 12544, t.dstOff(), "chunk " + i);
            assertEquals(4L * 64 * 12544, StagedDestination.destinationBytes(t));
        }
    }

    @Test
    void aLargeImageIsCutAlongItsPixelsInWholeBlocks() {
        Task whole = nchwToNhwc(1, 64, 65536);
        List<StagedDestination.Chunk> chunks = StagedDestination.chunks(whole);
        long next = 0;
        for (StagedDestination.Chunk c : chunks) {
            Task t = c.task();
            long bytes = StagedDestination.destinationBytes(t);
            assertEquals(next, t.dstOff(), "chunks follow each other");
            assertEquals(0, t.count()[1] % 16, "whole 16-pixel blocks");
            assertTrue(c.staged());
            assertTrue(bytes >= MIN && bytes <= 2 * MIN + 16 * 256, bytes + " bytes");
            next += bytes;
        }
        assertEquals(StagedDestination.destinationBytes(whole), next, "every byte once");
        assertEquals(6, chunks.size(), "16 MiB in chunks of 2.5 to 5 MiB");
    }

    @Test
    void smallOrNonDenseDestinationsAreWrittenDirectly() {
        List<StagedDestination.Chunk> small = StagedDestination.chunks(nchwToNhwc(1, 64, 4096));
        assertEquals(1, small.size());
        assertFalse(small.getFirst().staged(), "1 MiB: under the streaming threshold");
        Task padded = new Task(null, null, 0, 0, new long[] {4, 12544, 64}, new long[] {0, 4, 4 * 12544},
                new long[] {4L * 80 * 12544, 4 * 80, 4}, 4, 4, -1, 0);
        assertEquals(-1, padded.denseDestinationBytes(0), "rows of 80 slots holding 64 values");
        assertFalse(StagedDestination.chunks(padded).getFirst().staged());
        assertEquals(1, StagedDestination.chunks(padded).size());
    }

    @Test
    void smallImagesMakeOneChunkTogether() {
        List<StagedDestination.Chunk> five = StagedDestination.chunks(nchwToNhwc(5, 64, 2048));
        assertEquals(1, five.size(), "five images of 512 KiB");
        assertTrue(five.getFirst().staged());
        assertEquals(5, five.getFirst().task().count()[0]);
    }

    /**
     * NCHW -> NHWC through the engine on one thread, with shapes that stage whole images, cut a
     * large image along its pixels with a pixel count that is no multiple of 16, and leave a short
     * tail: every element equals the source element it came from.
     */
    @Test
    void stagedTransposesAreExact() {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        // Two images a chunk each; one image cut in three along its pixels; 5 images in a chunk of
        // three and a direct tail of two (2.4 MB).
        long[][] shapes = {{2, 64, 112, 112}, {1, 48, 233, 229}, {5, 32, 96, 98}};
        List<List<Boolean>> stagedChunks = List.of(List.of(true, true), List.of(true, true, true), List.of(true, false));
        Random random = new Random(11);
        for (int k = 0; k < shapes.length; k++) {
            long[] dims = shapes[k];
            try (Arena arena = Arena.ofConfined()) {
                long elements = dims[0] * dims[1] * dims[2] * dims[3];
                MemorySegment src = arena.allocate(elements * 4, 64);
                MemorySegment dst = arena.allocate(elements * 4, 64);
                int salt = random.nextInt();
                for (long i = 0; i < elements; i++) {
                    src.setAtIndex(ValueLayout.JAVA_INT, i, (int) i * 31 + salt);
                }
                CopyEngine engine = CopyEngine.of(1);
                CopyPlan plan = AccessCopies.plan(Access.strided(src, DType.F32, StridedLayout.of(TensorFormat.NCHW, dims)),
                        Access.strided(dst, DType.F32, StridedLayout.of(TensorFormat.NHWC, dims)));
                Step.Run run = (Step.Run) AccessCopies.steps(plan).getFirst();
                assertEquals(Kernel.TRANSPOSE, run.kernel(), plan.toString());
                List<Boolean> staged = StagedDestination.chunks(nchwToNhwc(dims[0], dims[1], dims[2] * dims[3])).stream()
                        .map(StagedDestination.Chunk::staged).toList();
                assertEquals(stagedChunks.get(k), staged, java.util.Arrays.toString(dims));
                engine.execute(plan);
                long c = dims[1];
                long hw = dims[2] * dims[3];
                for (long n = 0; n < dims[0]; n++) {
                    for (long p = 0; p < hw; p++) {
                        for (long ch = 0; ch < c; ch++) {
                            long from = (n * c + ch) * hw + p;
                            long to = (n * hw + p) * c + ch;
                            int want = (int) from * 31 + salt;
                            int got = dst.getAtIndex(ValueLayout.JAVA_INT, to);
                            if (got != want) {
                                throw new AssertionError(java.util.Arrays.toString(dims) + ": [" + n + "," + ch + ",pixel "
                                        + p + "] holds " + got + ", expected " + want);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * A staged copy's scratch is counted while held, freed by {@code releaseScratch} and allocated
     * again by the next staged copy.
     */
    @Test
    void scratchIsAccountedAndReleased() {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        assumeTrue(VectorTranspose.LANES == 16, "the banded 16x16 kernel needs 512-bit vectors");
        long[] dims = {2, 64, 112, 112};
        long bytes = 4L * 2 * 64 * 112 * 112;
        long scratch = StagedDestination.SCRATCH_BYTES;
        try (Arena arena = Arena.ofShared()) {
            Access src = Access.strided(arena.allocate(bytes, 64), DType.F32, StridedLayout.of(TensorFormat.NCHW, dims));
            Access dst = Access.strided(arena.allocate(bytes, 64), DType.F32, StridedLayout.of(TensorFormat.NHWC, dims));
            CopyEngine.releaseScratch();
            assertEquals(0, CopyExecutor.scratchMemory().heldBytes(), "nothing kept after a release");

            long before = CopyExecutor.scratchMemory().allocations();
            AccessCopies.copy(CopyEngine.of(1), src, dst);
            ScratchMemory one = CopyExecutor.scratchMemory();
            assertEquals(scratch, one.heldBytes(), one.toString());
            assertEquals(0, one.inUseBytes(), one.toString());
            assertEquals(before + 1, one.allocations(), "two chunks, one buffer: " + one);
            assertTrue(one.peakHeldBytes() >= scratch, one.toString());
            assertTrue(one.toString().startsWith("copy scratch: " + scratch + " bytes held (0 in use, peak "
                    + one.peakHeldBytes() + "), " + one.allocations() + " buffer"), one.toString());
            // As docs/copy-engine.md quotes it for a fresh process.
            assertEquals("copy scratch: 6291456 bytes held (0 in use, peak 6291456), 1 buffer allocated",
                    new ScratchMemory(scratch, 0, scratch, 1).toString());
            assertEquals("copy scratch: 0 bytes held (0 in use, peak 12582912), 2 buffers allocated",
                    new ScratchMemory(0, 0, 2 * scratch, 2).toString());

            assertEquals(scratch, CopyEngine.releaseScratch());
            assertEquals(0, CopyExecutor.scratchMemory().heldBytes());
            assertEquals(0, CopyEngine.releaseScratch(), "nothing left to free");

            // Eight images: each of the two threads' four pieces is one image, large enough to stage.
            long[] eight = {8, 64, 112, 112};
            AccessCopies.copy(CopyEngine.of(2, true, 0), 
                    Access.strided(arena.allocate(4 * bytes, 64), DType.F32, StridedLayout.of(TensorFormat.NCHW, eight)),
                    Access.strided(arena.allocate(4 * bytes, 64), DType.F32, StridedLayout.of(TensorFormat.NHWC, eight)));
            ScratchMemory two = CopyExecutor.scratchMemory();
            assertEquals(0, two.inUseBytes(), two.toString());
            assertTrue(two.heldBytes() >= scratch && two.heldBytes() <= 2 * scratch, two.toString());
            assertEquals(two.heldBytes(), CopyEngine.releaseScratch());
        }
    }

    /** More buffers in use at once than cores: the pool keeps one per core and frees the rest at once. */
    @Test
    void thePoolKeepsOneBufferPerCore() {
        StagedDestination.release();
        int cores = Runtime.getRuntime().availableProcessors();
        long scratch = StagedDestination.SCRATCH_BYTES;
        List<StagedDestination.Scratch> taken = new java.util.ArrayList<>();
        for (int i = 0; i <= cores; i++) {
            taken.add(StagedDestination.take());
        }
        ScratchMemory busy = StagedDestination.memory();
        assertEquals((cores + 1) * scratch, busy.inUseBytes(), busy.toString());
        assertEquals((cores + 1) * scratch, busy.heldBytes(), busy.toString());
        assertTrue(busy.peakHeldBytes() >= (cores + 1) * scratch, busy.toString());
        taken.forEach(StagedDestination::give);
        ScratchMemory idle = StagedDestination.memory();
        assertEquals(0, idle.inUseBytes(), idle.toString());
        assertEquals(cores * scratch, idle.heldBytes(), idle.toString());
        assertFalse(taken.getLast().segment().scope().isAlive(), "the one the pool could not keep is freed");
        assertTrue(taken.getFirst().segment().scope().isAlive(), "kept for reuse");
        assertEquals(cores * scratch, StagedDestination.release());
        assertFalse(taken.getFirst().segment().scope().isAlive(), "freed by the release");
    }
}
