package dev.tensorbuf.cli;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The engine a one-shot job gets from its size, the threads that copy its pieces, and the bytes
 * written: those of one whole copy, whatever the pieces and threads.
 */
class StagedWritesTest {
    private static final CopyEngine DEFAULTS = CopyEngine.of(CopyEngine.Config.of().withScalarFirstBytes(256L << 20).withParallelism(4));

    @Test
    void aJobUpToTheLimitRunsScalarThroughoutOnOneThreadKeepingTheOtherSettings() {
        for (long job : new long[] {0, 1, 411_042_048, 2L << 30}) {
            CopyEngine e = StagedWrites.engineFor(job, 2L << 30, DEFAULTS);
            assertEquals(Long.MAX_VALUE, e.config().scalarFirstBytes(), "job of " + job + " bytes");
            assertEquals(DEFAULTS.config().withScalarFirstBytes(Long.MAX_VALUE).withParallelism(1), e.config());
        }
    }

    @Test
    void aLargerJobOrNoLimitKeepsTheEnginesOwnSettings() {
        assertSame(DEFAULTS, StagedWrites.engineFor((2L << 30) + 1, 2L << 30, DEFAULTS));
        assertSame(DEFAULTS, StagedWrites.engineFor(1, -1, DEFAULTS));
        assertSame(DEFAULTS, StagedWrites.engineFor(Long.MAX_VALUE, -1, DEFAULTS));
    }

    @Test
    void aScalarThroughoutTransposeWritesNumpysBytes() throws Exception {
        // f32[2,3,4,5] holding its own index, NCHW -> NHWC: element [n,h,w,c] is n*60 + c*20 + h*5 + w.
        String old = System.getProperty(StagedWrites.SCALAR_JOB_BYTES);
        System.setProperty(StagedWrites.SCALAR_JOB_BYTES, String.valueOf(1L << 30));
        try (Allocator arena = Allocators.shared()) {
            TensorView src = TensorView.of(arena.allocate(4 * 120), "f32[2,3,4,5]{3,2,1,0}");
            TensorElements el = TensorElements.of(src);
            for (int i = 0; i < 120; i++) {
                el.setFloat(i, i / 60, i / 20 % 3, i / 5 % 4, i % 5);
            }
            TensorView nhwc = Ops.transpose(src, 0, 2, 3, 1);
            ArrayShape target = (ArrayShape) dev.tensorbuf.views.XlaShape.parse("f32[2,4,5,3]{3,2,1,0}");
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (StagedWrites staged = new StagedWrites(2 * 480);
                 WritableByteChannel channel = Channels.newChannel(bytes)) {
                assertEquals(Long.MAX_VALUE, staged.engine().config().scalarFirstBytes());
                staged.writer(nhwc, target, Progress.start(new java.io.PrintStream(new ByteArrayOutputStream()), true, 480))
                        .write(channel);
            }
            float[] got = new float[120];
            ByteBuffer.wrap(bytes.toByteArray()).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(got);
            float[] want = new float[120];
            int k = 0;
            for (int n = 0; n < 2; n++) {
                for (int h = 0; h < 4; h++) {
                    for (int w = 0; w < 5; w++) {
                        for (int c = 0; c < 3; c++) {
                            want[k++] = n * 60 + c * 20 + h * 5 + w;
                        }
                    }
                }
            }
            assertArrayEquals(want, got);
        } finally {
            if (old == null) {
                System.clearProperty(StagedWrites.SCALAR_JOB_BYTES);
            } else {
                System.setProperty(StagedWrites.SCALAR_JOB_BYTES, old);
            }
        }
    }

    @Test
    void aScalarJobsPiecesGetTheThreadsAskedOrOneACoreUpToFourAndAnEngineOfSeveralThreadsOne() {
        CopyEngine scalar = StagedWrites.engineFor(1, 2L << 30, DEFAULTS);
        assertEquals(3, StagedWrites.threadsFor(scalar, 3, 2));
        assertEquals(1, StagedWrites.threadsFor(scalar, 0, 1));
        assertEquals(2, StagedWrites.threadsFor(scalar, 0, 2));
        assertEquals(4, StagedWrites.threadsFor(scalar, 0, 64));
        assertEquals(1, StagedWrites.threadsFor(DEFAULTS, 3, 64));
        assertEquals(1, StagedWrites.threadsFor(DEFAULTS, 0, 64));
    }

    /**
     * Pieces of one element, of part of a row (a row of 11 f32 is 44 bytes; 24-byte pieces end
     * mid-row), of a few rows and of the whole tensor, on 1 to 4 threads, for several dim orders,
     * odd and unit dims and a conversion to bf16: the bytes are the whole copy's.
     */
    @Test
    void piecesOnSeveralThreadsWriteTheBytesOfOneWholeCopy() throws Exception {
        record Job(String source, int[] perm, DType to) { }
        List<Job> jobs = List.of(
                new Job("f32[3,5,7,11]{3,2,1,0}", new int[] {0, 2, 3, 1}, DType.F32),
                new Job("f32[3,5,7,11]{3,2,1,0}", new int[] {3, 1, 0, 2}, DType.F32),
                new Job("f32[3,5,7,11]{3,2,1,0}", new int[] {0, 2, 3, 1}, DType.BF16),
                new Job("f32[1,13,1,3]{3,2,1,0}", new int[] {0, 2, 3, 1}, DType.F32),
                new Job("f32[37,29]{1,0}", new int[] {1, 0}, DType.F32),
                new Job("u8[2,3,9,5]{3,2,1,0}", new int[] {0, 2, 3, 1}, DType.F32));
        try (Allocator arena = Allocators.shared()) {
            for (Job job : jobs) {
                TensorView src = TensorView.of(arena.allocate(4L * 3 * 5 * 7 * 11), job.source());
                long n = src.elementCount();
                for (long i = 0; i < n; i++) {
                    if (src.dtype() == DType.U8) {
                        src.buffer().segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
                    } else {
                        src.buffer().segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, i * 0.5f - 100);
                    }
                }
                TensorView view = dev.tensorbuf.ops.Ops.transpose(src, job.perm());
                long[] dims = view.dims().stream().mapToLong(Long::longValue).toArray();
                ArrayShape target = ArrayShape.of(job.to(), dims).withLayout(XlaLayout.packedDescending(job.to(), dims.length));
                byte[] whole = new byte[(int) target.arraySize()];
                TensorView all = TensorView.of(arena.allocate(whole.length), target);
                CopyEngine.defaults().copy(view, all);
                all.buffer().segment().asByteBuffer().get(whole);
                for (long stage : new long[] {1, 24, 100, 1 << 20}) {
                    for (int threads = 1; threads <= 4; threads++) {
                        assertArrayEquals(whole, staged(view, target, stage, threads),
                                job.source() + " transposed " + java.util.Arrays.toString(job.perm()) + " to " + job.to()
                                        + " in pieces of " + stage + " bytes on " + threads + " threads");
                    }
                }
                assertArrayEquals(whole, staged(view, target, 100, 3, StagedWrites.HUGE_PAGE_BYTES),
                        job.source() + " in pieces of 100 bytes on 3 threads, the ring on a huge page boundary");
            }
        }
    }

    /**
     * The ring is one region cut into buffers a cache line apart, starting where asked (a huge page
     * boundary, for the launcher's huge pages), and grows for a larger piece or more buffers.
     */
    @Test
    void theRingIsOneRegionStartingWhereAskedAndGrowsForLargerPieces() {
        try (StagedWrites staged = new StagedWrites(DEFAULTS, 1 << 20, 2, StagedWrites.HUGE_PAGE_BYTES)) {
            var ring = staged.stages(4, 1000);
            assertEquals(4, ring.length);
            long first = ring[0].segment().address();
            assertEquals(0, first % StagedWrites.HUGE_PAGE_BYTES, "the ring's start");
            for (int i = 0; i < 4; i++) {
                assertEquals(1000, ring[i].byteSize());
                assertEquals(first + i * 1024L, ring[i].segment().address(), "buffer " + i);
            }
            assertSame(ring, staged.stages(2, 700), "a smaller need keeps the ring");
            var grown = staged.stages(5, 3000);
            assertEquals(5, grown.length);
            assertEquals(0, grown[0].segment().address() % StagedWrites.HUGE_PAGE_BYTES);
            assertEquals(3008, grown[1].segment().address() - grown[0].segment().address());
        }
        assertThrows(IllegalArgumentException.class, () -> new StagedWrites(DEFAULTS, 1 << 20, 2, 96));
        assertThrows(IllegalArgumentException.class, () -> new StagedWrites(DEFAULTS, 1 << 20, 2, 32));
    }

    /**
     * A value the output type cannot hold, in a late piece: the job fails as on one thread, naming
     * the element's index in the tensor, and leaves no copying thread behind.
     */
    @Test
    void aRefusedValueFailsTheJobAsOnOneThreadAndStopsTheOtherThreads() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView src = TensorView.of(arena.allocate(4 * 2 * 3 * 4 * 5), "f32[2,3,4,5]{3,2,1,0}");
            for (int i = 0; i < 120; i++) {
                src.buffer().segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, i == 101 ? Float.NaN : i % 7);
            }
            TensorView nhwc = dev.tensorbuf.ops.Ops.transpose(src, 0, 2, 3, 1);
            ArrayShape target = ArrayShape.of(DType.S8, 2, 4, 5, 3).withLayout(XlaLayout.packedDescending(DType.S8, 4));
            String one = assertThrows(IllegalArgumentException.class, () -> staged(nhwc, target, 3, 1)).getMessage();
            for (int threads = 2; threads <= 4; threads++) {
                int t = threads;
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> staged(nhwc, target, 3, t));
                assertEquals(one, e.getMessage(), threads + " threads");
            }
            assertTrue(one.contains("NaN"), one);
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("tensorbuf-convert-") && t.isAlive()) {
                    fail(t.getName() + " still runs after the job failed");
                }
            }
        }
    }

    private static byte[] staged(TensorView view, ArrayShape target, long stageBytes, int threads) throws Exception {
        return staged(view, target, stageBytes, threads, StagedWrites.STAGE_ALIGNMENT);
    }

    private static byte[] staged(TensorView view, ArrayShape target, long stageBytes, int threads, long ringAlignment)
            throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (StagedWrites staged = new StagedWrites(StagedWrites.engineFor(1, 1, DEFAULTS), stageBytes, threads, ringAlignment);
             WritableByteChannel channel = Channels.newChannel(bytes)) {
            staged.writer(view, target, Progress.start(new java.io.PrintStream(new ByteArrayOutputStream()), true,
                    target.arraySize())).write(channel);
        }
        return bytes.toByteArray();
    }
}
