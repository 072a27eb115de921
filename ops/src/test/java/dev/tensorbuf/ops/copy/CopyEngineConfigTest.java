package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** {@link CopyEngine.Config}: one value for every engine setting, validated, and the system properties read in one place. */
class CopyEngineConfigTest {

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        CopyEngine.Config d = CopyEngine.Config.of();
        assertEquals(Math.min(CopyEngine.MAX_PARALLELISM, Runtime.getRuntime().availableProcessors()), d.parallelism());
        assertTrue(d.vectorKernels());
        assertEquals(4L << 20, d.parallelThresholdBytes());
        assertEquals(0, d.scalarFirstBytes());
        assertTrue(d.stageDestination());
        assertEquals(256 << 10, d.transposeBandBytes());
        assertEquals(64 << 10, d.replicateBytes());
        assertEquals(500, d.spinMicros());
        assertEquals(d, CopyEngine.Config.fromProperties(new Properties()), "no property set: the defaults");
    }

    @Test
    void propertiesMapOntoTheirSettings() {
        Properties p = new Properties();
        p.setProperty("tensorbuf.copy.parallelism", "3");
        p.setProperty("tensorbuf.copy.vector", "false");
        p.setProperty("tensorbuf.copy.parallelThresholdBytes", "1024");
        p.setProperty("tensorbuf.copy.scalarFirstBytes", "268435456");
        p.setProperty("tensorbuf.copy.stageDestination", "FALSE");
        p.setProperty("tensorbuf.copy.transposeBandBytes", "0");
        p.setProperty("tensorbuf.copy.replicateBytes", "4096");
        p.setProperty("tensorbuf.copy.spinMicros", " 20 ");
        p.setProperty("tensorbuf.copy.warmup", "false");
        p.setProperty("tensorbuf.copy.streamedFills", "true");
        p.setProperty("tensorbuf.other", "ignored");
        assertEquals(new CopyEngine.Config(3, false, 1024, 268435456, false, 0, 4096, 20, false, true),
                CopyEngine.Config.fromProperties(p));
        p.setProperty("tensorbuf.copy.streamedFills", "false");
        assertEquals(false, CopyEngine.Config.fromProperties(p).streamedFills());
        p.setProperty("tensorbuf.copy.streamedFills", " Auto");
        assertEquals(CopyEngine.Config.of().streamedFills(), CopyEngine.Config.fromProperties(p).streamedFills(),
                "auto: the CPU's default");
    }

    @Test
    void badPropertiesAndValuesAreNamed() {
        Properties p = new Properties();
        p.setProperty("tensorbuf.copy.parallelThresholdBytes", "4MiB");
        var e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.Config.fromProperties(p));
        assertEquals("system properties tensorbuf.copy.*: tensorbuf.copy.parallelThresholdBytes=4MiB is not an integer",
                e.getMessage());
        Properties q = new Properties();
        q.setProperty("tensorbuf.copy.vector", "no");
        e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.Config.fromProperties(q));
        assertEquals("system properties tensorbuf.copy.*: tensorbuf.copy.vector=no is not true or false", e.getMessage());
        Properties s = new Properties();
        s.setProperty("tensorbuf.copy.streamedFills", "yes");
        e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.Config.fromProperties(s));
        assertEquals("system properties tensorbuf.copy.*: tensorbuf.copy.streamedFills=yes is not true, false or auto",
                e.getMessage());
        Properties r = new Properties();
        r.setProperty("tensorbuf.copy.parallelism", "0");
        e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.Config.fromProperties(r));
        assertEquals("system properties tensorbuf.copy.*: parallelism must be >= 1, got 0", e.getMessage());

        CopyEngine.Config d = CopyEngine.Config.of();
        assertEquals("parallelism must be >= 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> d.withParallelism(0)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withParallelism(CopyEngine.MAX_PARALLELISM + 1))
                .getMessage().startsWith("parallelism 4097 is above the most"));
        assertEquals("parallel threshold must be >= 0 bytes, got -1",
                assertThrows(IllegalArgumentException.class, () -> d.withParallelThresholdBytes(-1)).getMessage());
        assertEquals("scalarFirstBytes must be >= 0, got -5",
                assertThrows(IllegalArgumentException.class, () -> d.withScalarFirstBytes(-5)).getMessage());
        assertEquals("transposeBandBytes must be >= 0 (0: unbanded), got -1",
                assertThrows(IllegalArgumentException.class, () -> d.withTransposeBandBytes(-1)).getMessage());
        assertEquals("replicateBytes must be >= 0 (0: never), got -1",
                assertThrows(IllegalArgumentException.class, () -> d.withReplicateBytes(-1)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withSpinMicros(Long.MAX_VALUE)).getMessage()
                .startsWith("spinMicros must be in [0, "));
    }

    @Test
    void anEngineRunsItsConfig() {
        CopyEngine.Config c = CopyEngine.Config.of().withParallelism(3).withParallelThresholdBytes(1000);
        CopyEngine engine = CopyEngine.of(c);
        assertEquals(c, engine.config());
        assertEquals(3, engine.parallelism());
        assertEquals(1, engine.threadsFor(999));
        assertEquals(3, engine.threadsFor(1000));
        assertEquals(c.withVectorKernels(false), CopyEngine.of(c.withVectorKernels(false)).config());
        assertEquals(false, CopyEngine.of(c.withVectorKernels(false)).vectorKernels());
        // The older factories start from the system properties' settings, as before.
        assertEquals(CopyEngine.defaults().config().withParallelism(2), CopyEngine.of(2).config());
    }

    /** Every setting a kernel reads gives the same bytes: replication, bands and staging change the order of writes only. */
    @Test
    void kernelSettingsChangeNoByte() {
        try (Allocator a = Allocators.shared()) {
            TensorView nchw = TensorView.of(a.allocate(4L * 2 * 64 * 40 * 40), "f32[2,64,40,40]{3,2,1,0}");
            float[] values = new float[(int) nchw.elementCount()];
            for (int i = 0; i < values.length; i++) {
                values[i] = i * 0.5f;
            }
            TensorElements.of(nchw).copyFrom(values);
            TensorView src = Ops.transpose(nchw, 0, 2, 3, 1);
            float[] reference = null;
            CopyEngine.Config base = CopyEngine.Config.of().withParallelism(2).withParallelThresholdBytes(0);
            for (CopyEngine.Config c : new CopyEngine.Config[] {base, base.withTransposeBandBytes(0),
                    base.withTransposeBandBytes(1 << 12), base.withStageDestination(false), base.withReplicateBytes(0),
                    base.withVectorKernels(false), base.withSpinMicros(0), base.withScalarFirstBytes(1 << 20)}) {
                TensorView nhwc = TensorView.of(a.allocate(4L * 2 * 64 * 40 * 40), "f32[2,40,40,64]{3,2,1,0}");
                CopyEngine.of(c).copy(src, nhwc);
                float[] got = TensorElements.of(nhwc).toFloatArray();
                if (reference == null) {
                    reference = got;
                    assertEquals(TensorElements.of(nchw).getFloat(1, 63, 39, 38), TensorElements.of(nhwc).getFloat(1, 39, 38, 63));
                } else {
                    assertArrayEquals(reference, got, c.toString());
                }
            }
        }
    }

    /**
     * The blocked transpose's four loop orders (banded or not, either side the longer) against
     * each element's own position: several blocks a row and a band, and edges that are not whole
     * blocks, both ways between NCHW and NHWC.
     */
    @Test
    void transposeBandsMoveEveryElementToItsPlace() {
        // No warm-up: the first copies would run the scalar kernel while the vector one warms.
        CopyEngine.Config base = CopyEngine.Config.of().withParallelism(1).withWarmup(false);
        for (long[] d : new long[][] {{2, 40, 9, 7}, {1, 96, 6, 11}, {3, 33, 12, 12}}) {
            for (CopyEngine.Config cfg : new CopyEngine.Config[] {base, base.withTransposeBandBytes(0),
                    base.withTransposeBandBytes(1 << 10), base.withStageDestination(false)}) {
                assertTransposesBothWays(CopyEngine.of(cfg), d);
            }
        }
    }

    /**
     * The scalar transpose, 2x2 elements a step, and the odd row and column left over, both ways
     * between NCHW and NHWC; every element against its own position.
     */
    @Test
    void scalarTransposeBlocksAndTheirEdgesMoveEveryElementToItsPlace() {
        CopyEngine scalar = CopyEngine.of(CopyEngine.Config.of().withParallelism(1).withVectorKernels(false));
        for (long[] d : new long[][] {{1, 8, 2, 4}, {2, 9, 3, 3}, {1, 10, 3, 5}, {2, 33, 1, 17}, {1, 64, 4, 4}}) {
            assertTransposesBothWays(scalar, d);
        }
    }

    /**
     * Copies f32 NCHW {@code dims} to NHWC and back with {@code engine}, through its transpose
     * kernel, and checks every element of the NHWC copy at its place and the round trip whole.
     */
    private static void assertTransposesBothWays(CopyEngine engine, long[] dims) {
        long n = dims[0], c = dims[1], h = dims[2], w = dims[3];
        String where = engine.config() + " " + java.util.Arrays.toString(dims);
        try (Allocator a = Allocators.shared()) {
            TensorView nchw = TensorView.of(a.allocate(4L * n * c * h * w), "f32[" + n + "," + c + "," + h + "," + w + "]{3,2,1,0}");
            float[] values = new float[(int) nchw.elementCount()];
            for (int i = 0; i < values.length; i++) {
                values[i] = i + 0.5f;
            }
            TensorElements.of(nchw).copyFrom(values);
            TensorView nhwc = TensorView.of(a.allocate(4L * n * c * h * w), "f32[" + n + "," + h + "," + w + "," + c + "]{3,2,1,0}");
            assertTrue(engine.explain(Ops.transpose(nchw, 0, 2, 3, 1), nhwc).toString().contains("TRANSPOSE"),
                    () -> "the transpose kernel runs: " + where);
            engine.copy(Ops.transpose(nchw, 0, 2, 3, 1), nhwc);
            TensorView back = TensorView.of(a.allocate(4L * n * c * h * w), nchw.shape().toString());
            engine.copy(Ops.transpose(nhwc, 0, 3, 1, 2), back);
            TensorElements there = TensorElements.of(nhwc);
            for (long i = 0; i < n; i++) {
                for (long k = 0; k < c; k++) {
                    for (long y = 0; y < h; y++) {
                        for (long x = 0; x < w; x++) {
                            float want = ((i * c + k) * h + y) * w + x + 0.5f;
                            long at = i, ch = k, yy = y, xx = x;
                            assertEquals(want, there.getFloat(i, y, x, k),
                                    () -> "NCHW->NHWC " + where + " at " + at + "," + ch + "," + yy + "," + xx);
                        }
                    }
                }
            }
            assertArrayEquals(values, TensorElements.of(back).toFloatArray(), "NHWC->NCHW " + where);
        }
    }
}
