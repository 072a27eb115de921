package dev.tensorbuf.cli;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The engine a one-shot job gets from its size, and the bytes a scalar-throughout job writes. */
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
}
