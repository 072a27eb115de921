package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * When a fill replicates its first destination block by bulk copies: short runs from the engine's
 * replication size on, long runs (the vector fill's) only when each copy streams (a block of at
 * least 2.5 MiB) and the copies are at least as many as the pieces they are cut into.
 */
class FillReplicasTest {
    /** A per-channel f32 value broadcast over {@code [n, c, hw]} planes, as the planner's loops give it. */
    private static Task channels(long n, long c, long hw) {
        MemorySegment bytes = MemorySegment.NULL;
        return new Task(bytes, bytes, 0, 0, new long[] {n, c, hw}, new long[] {0, 4, 0},
                new long[] {c * hw * 4, hw * 4, 4}, 4, 4, -1, 0);
    }

    @Test
    void longRunsReplicateOnlyBlocksTheCopyStreams() {
        assumeTrue(VectorSupport.AVAILABLE, "the vector fill needs jdk.incubator.vector");
        Task image = channels(32, 64, 112 * 112);
        Task copies = FillKernel.replicas(image, true, FillKernel.REPLICATE_BYTES, 8);
        assertNotNull(copies, "3.2 MB images, 31 copies for 8 pieces");
        assertArrayEquals(new long[] {31, 64 * 112 * 112 * 4}, copies.count());
        assertEquals(64L * 112 * 112 * 4, copies.dstOff(), "the copies start at the second image");
        assertNotNull(FillKernel.replicas(image, true, FillKernel.REPLICATE_BYTES, 1));
        assertNull(FillKernel.replicas(image, true, FillKernel.REPLICATE_BYTES, 32),
                "31 copies for 32 pieces would cut blocks below the streaming size");
        assertNull(FillKernel.replicas(image, true, 0, 1), "replication off");
        Task small = channels(32, 64, 56 * 56);
        assertNull(FillKernel.replicas(small, true, FillKernel.REPLICATE_BYTES, 1),
                "0.8 MB blocks copy with ordinary stores: the vector fill writes them");
        assertNotNull(FillKernel.replicas(small, false, FillKernel.REPLICATE_BYTES, 1),
                "without vector runs, blocks from 64 KiB replicate");
        Task justBelow = channels(4, 1, FillKernel.STREAMING_COPY_BYTES / 4 - 1);
        assertNull(FillKernel.replicas(justBelow, true, FillKernel.REPLICATE_BYTES, 1));
        Task justAt = channels(4, 1, FillKernel.STREAMING_COPY_BYTES / 4);
        assertNotNull(FillKernel.replicas(justAt, true, FillKernel.REPLICATE_BYTES, 1));
    }

    @Test
    void theOuterLoopMustBroadcastOverDenseBlocks() {
        assumeTrue(VectorSupport.AVAILABLE, "the vector fill needs jdk.incubator.vector");
        Task image = channels(32, 64, 112 * 112);
        Task perImage = new Task(image.src(), image.dst(), 0, 0, image.count(), new long[] {256, 4, 0},
                image.dstStride(), 4, 4, -1, 0);
        assertNull(FillKernel.replicas(perImage, true, FillKernel.REPLICATE_BYTES, 1), "each image has its own values");
        Task gaps = new Task(image.src(), image.dst(), 0, 0, image.count(), image.srcStride(),
                new long[] {65 * 112 * 112 * 4, 112 * 112 * 4, 4}, 4, 4, -1, 0);
        assertNotNull(FillKernel.replicas(gaps, true, FillKernel.REPLICATE_BYTES, 1), "blocks apart, each dense");
        Task rowsApart = new Task(image.src(), image.dst(), 0, 0, image.count(), image.srcStride(),
                new long[] {64 * 113 * 112 * 4, 113 * 112 * 4, 4}, 4, 4, -1, 0);
        assertNull(FillKernel.replicas(rowsApart, true, FillKernel.REPLICATE_BYTES, 1), "a block with gaps is no one copy");
    }
}
