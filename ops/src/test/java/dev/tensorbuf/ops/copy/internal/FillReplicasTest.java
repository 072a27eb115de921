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
 * replication size on, long runs (the vector fill's) only on a machine where streamed copies write
 * faster, when each copy streams (a block of at least 2.5 MiB) and the copies are at least as many
 * as the pieces they are cut into; the values either way; the setting and the vendor it reads.
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
        Task copies = FillKernel.replicas(image, true, FillKernel.REPLICATE_BYTES, 8, true);
        assertNotNull(copies, "3.2 MB images, 31 copies for 8 pieces");
        assertArrayEquals(new long[] {31, 64 * 112 * 112 * 4}, copies.count());
        assertEquals(64L * 112 * 112 * 4, copies.dstOff(), "the copies start at the second image");
        assertNotNull(FillKernel.replicas(image, true, FillKernel.REPLICATE_BYTES, 1, true));
        assertNull(FillKernel.replicas(image, true, FillKernel.REPLICATE_BYTES, 32, true),
                "31 copies for 32 pieces would cut blocks below the streaming size");
        assertNull(FillKernel.replicas(image, true, 0, 1, true), "replication off");
        assertNull(FillKernel.replicas(image, true, FillKernel.REPLICATE_BYTES, 1, false), "where streamed copies are no faster");
        Task small = channels(32, 64, 56 * 56);
        assertNull(FillKernel.replicas(small, true, FillKernel.REPLICATE_BYTES, 1, true),
                "0.8 MB blocks copy with ordinary stores: the vector fill writes them");
        assertNotNull(FillKernel.replicas(small, false, FillKernel.REPLICATE_BYTES, 1, true),
                "without vector runs, blocks from 64 KiB replicate");
        Task justBelow = channels(4, 1, FillKernel.STREAMING_COPY_BYTES / 4 - 1);
        assertNull(FillKernel.replicas(justBelow, true, FillKernel.REPLICATE_BYTES, 1, true));
        Task justAt = channels(4, 1, FillKernel.STREAMING_COPY_BYTES / 4);
        assertNotNull(FillKernel.replicas(justAt, true, FillKernel.REPLICATE_BYTES, 1, true));
    }

    @Test
    void theOuterLoopMustBroadcastOverDenseBlocks() {
        assumeTrue(VectorSupport.AVAILABLE, "the vector fill needs jdk.incubator.vector");
        Task image = channels(32, 64, 112 * 112);
        Task perImage = new Task(image.src(), image.dst(), 0, 0, image.count(), new long[] {256, 4, 0},
                image.dstStride(), 4, 4, -1, 0);
        assertNull(FillKernel.replicas(perImage, true, FillKernel.REPLICATE_BYTES, 1, true), "each image has its own values");
        Task gaps = new Task(image.src(), image.dst(), 0, 0, image.count(), image.srcStride(),
                new long[] {65 * 112 * 112 * 4, 112 * 112 * 4, 4}, 4, 4, -1, 0);
        assertNotNull(FillKernel.replicas(gaps, true, FillKernel.REPLICATE_BYTES, 1, true), "blocks apart, each dense");
        Task rowsApart = new Task(image.src(), image.dst(), 0, 0, image.count(), image.srcStride(),
                new long[] {64 * 113 * 112 * 4, 113 * 112 * 4, 4}, 4, 4, -1, 0);
        assertNull(FillKernel.replicas(rowsApart, true, FillKernel.REPLICATE_BYTES, 1, true), "a block with gaps is no one copy");
    }

    /** The per-channel fill of f32 [3,5,700,300] (4.2 MB images): the same bytes with streamed copies of the first image, and without. */
    @Test
    void streamedReplicasWriteWhatTheFillWrites() {
        assumeTrue(VectorSupport.AVAILABLE, "the vector fill needs jdk.incubator.vector");
        long n = 3, c = 5, hw = 700 * 300;
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment src = arena.allocate(4 * c, 64);
            for (int k = 0; k < c; k++) {
                src.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, k, 1.5f + k);
            }
            MemorySegment expected = arena.allocate(4 * n * c * hw, 64);
            for (long i = 0; i < n * c * hw; i++) {
                expected.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, 1.5f + (i / hw) % c);
            }
            for (boolean streamed : new boolean[] {true, false}) {
                MemorySegment dst = arena.allocate(4 * n * c * hw, 64);
                Task t = new Task(src, dst, 0, 0, new long[] {n, c, hw}, new long[] {0, 4, 0},
                        new long[] {c * hw * 4, hw * 4, 4}, 4, 4, -1, 0);
                assertEquals(streamed, FillKernel.replicas(t, true, FillKernel.REPLICATE_BYTES, 1, streamed) != null);
                FillKernel.run(t, true, FillKernel.REPLICATE_BYTES, streamed);
                assertEquals(-1, expected.mismatch(dst), "streamed " + streamed);
            }
        }
    }

    @Test
    void theEngineTakesTheSettingFromItsConfigAndTheDefaultIsTheVendorsReadFromCpuinfo(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        assertEquals(CpuInfo.isIntel(), dev.tensorbuf.ops.copy.CopyEngine.Config.of().streamedFills());
        for (boolean streamed : new boolean[] {true, false}) {
            var config = dev.tensorbuf.ops.copy.CopyEngine.Config.of().withStreamedFills(streamed);
            assertEquals(streamed, new CopyExecutor(config, null).streamedFills());
        }
        java.nio.file.Path intel = dir.resolve("intel");
        java.nio.file.Files.writeString(intel, "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                + "flags\t\t: fpu avx512f avx512_fp16\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n");
        assertEquals("GenuineIntel", CpuInfo.read(intel, "vendor_id"));
        assertEquals("fpu avx512f avx512_fp16", CpuInfo.read(intel, "flags"));
        java.nio.file.Path amd = dir.resolve("amd");
        java.nio.file.Files.writeString(amd, "processor\t: 0\nvendor_id\t: AuthenticAMD\n");
        assertEquals("AuthenticAMD", CpuInfo.read(amd, "vendor_id"));
        java.nio.file.Path arm = dir.resolve("arm");
        java.nio.file.Files.writeString(arm, "processor\t: 0\nBogoMIPS\t: 50.00\n");
        assertEquals("", CpuInfo.read(arm, "vendor_id"));
        assertEquals("", CpuInfo.read(arm, "flags"));
        assertEquals("", CpuInfo.read(dir.resolve("missing"), "vendor_id"));
    }
}
