package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link HloExecutor#execute(HloModule, String, Map, TensorView)}: the ROOT written into the caller's memory. */
class ExecuteIntoTest {
    /** jax's lowering of {@code jnp.transpose((x.astype(f32) - mean) / std, (0, 3, 1, 2))}: one fused pass. */
    static final String NORMALISE = """
            HloModule jit_norm
            ENTRY main {
              x = u8[2,4,5,3]{3,2,1,0} parameter(0)
              c = f32[2,4,5,3]{3,2,1,0} convert(x)
              mean = f32[3]{0} constant({123.7, 116.3, 103.5})
              m = f32[2,4,5,3]{3,2,1,0} broadcast(mean), dimensions={3}
              s = f32[2,4,5,3]{3,2,1,0} subtract(c, m)
              std = f32[3]{0} constant({58.4, 57.1, 57.4})
              d = f32[2,4,5,3]{3,2,1,0} broadcast(std), dimensions={3}
              n = f32[2,4,5,3]{3,2,1,0} divide(s, d)
              ROOT t = f32[2,3,4,5]{3,2,1,0} transpose(n), dimensions={0,3,1,2}
            }
            """;

    /** Data movement only: a transpose, a reversed strided slice. */
    static final String MOVE = """
            HloModule m
            ENTRY e {
              p = f32[6,4]{1,0} parameter(0)
              t = f32[4,6]{1,0} transpose(p), dimensions={1,0}
              r = f32[4,6]{1,0} reverse(t), dimensions={1}
              ROOT s = f32[4,3]{1,0} slice(r), slice={[0:4], [0:6:2]}
            }
            """;

    @ArenaPerTest
    private Allocator arena;

    private TensorView pixels(long seed) {
        TensorView v = TensorView.of(arena.allocate(2 * 4 * 5 * 3), "u8[2,4,5,3]{3,2,1,0}");
        byte[] b = new byte[(int) v.elementCount()];
        new Random(seed).nextBytes(b);
        v.buffer().segment().copyFrom(MemorySegment.ofArray(b));
        return v;
    }

    private TensorView floats(String shape, int n) {
        TensorView v = TensorView.of(arena.allocate(4L * n), shape);
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = i * 1.5f - 7;
        }
        TensorElements.of(v).copyFrom(f);
        return v;
    }

    private static byte[] bytes(TensorView v, long n) {
        return v.buffer().segment().asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    /** The allocating run's C-order bytes: what {@code into} must hold, bit for bit. */
    private static byte[] allocating(String text, Map<String, TensorView> args, long n) {
        try (Execution e = HloExecutor.execute(text, args)) {
            return bytes(e.rowMajor(), n);
        }
    }

    private static int[] bits(float[] f) {
        int[] b = new int[f.length];
        for (int i = 0; i < f.length; i++) {
            b[i] = Float.floatToRawIntBits(f[i]);
        }
        return b;
    }

    @Test
    void aFusedPointwiseRootIsWrittenIntoTheCallersMemoryBitForBit() {
        Map<String, TensorView> args = Map.of("0", pixels(1));
        long n = 4L * 2 * 3 * 4 * 5;
        byte[] expected = allocating(NORMALISE, args, n);
        TensorView into = TensorView.of(arena.allocate(n), "f32[2,3,4,5]{3,2,1,0}");
        try (Execution e = HloExecutor.execute(HloModule.parse(NORMALISE), NORMALISE, args, into)) {
            assertSame(into, e.result());
            assertSame(into, e.rowMajor());
            assertEquals(ExecutedInstruction.Kind.COPY, e.steps().getLast().kind());
        }
        assertArrayEquals(expected, bytes(into, n));
        float[] want = TensorElements.of(into).toFloatArray();
        // Another layout of the destination: the same values, the engine writes it.
        TensorView colMajor = TensorView.of(arena.allocate(n), "f32[2,3,4,5]{0,1,2,3}");
        try (Execution e = HloExecutor.execute(HloModule.parse(NORMALISE), NORMALISE, args, colMajor)) {
            assertArrayEquals(bits(want), bits(TensorElements.of(e.rowMajor()).toFloatArray()));
        }
        assertArrayEquals(bits(want), bits(TensorElements.of(colMajor).toFloatArray()));
    }

    @Test
    void aDataMovementRootIsCopiedIntoTheCallersMemoryBitForBit() {
        Map<String, TensorView> args = Map.of("0", floats("f32[6,4]{1,0}", 24));
        byte[] expected = allocating(MOVE, args, 48);
        TensorView into = TensorView.of(arena.allocate(48), "f32[4,3]{1,0}");
        try (Execution e = HloExecutor.execute(HloModule.parse(MOVE), MOVE, args, into)) {
            assertSame(into, e.result());
        }
        assertArrayEquals(expected, bytes(into, 48));
        // p[j][i] at t[i][5 - j], slice every other column: row 0 is p[5][0], p[3][0], p[1][0].
        assertArrayEquals(new float[] {5 * 4 * 1.5f - 7, 3 * 4 * 1.5f - 7, 4 * 1.5f - 7},
                java.util.Arrays.copyOf(TensorElements.of(into).toFloatArray(), 3));
    }

    @Test
    void aDestinationOfAnotherShapeOrTypeIsRefusedNamingBoth() {
        Map<String, TensorView> args = Map.of("0", pixels(1));
        HloModule m = HloModule.parse(NORMALISE);
        for (String given : List.of("u8[2,3,4,5]{3,2,1,0}", "f32[2,4,5,3]{3,2,1,0}")) {
            TensorView into = TensorView.of(arena.allocate(480), given);
            var e = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(m, NORMALISE, args, into));
            assertTrue(e.getMessage().contains(given.substring(0, given.indexOf('{'))), e.getMessage());
            assertTrue(e.getMessage().contains("f32[2,3,4,5]"), e.getMessage());
        }
    }

    @Test
    void theDestinationOutlivesTheExecutionAndTakesTheNextBatch() {
        HloModule m = HloModule.parse(NORMALISE);
        long n = 4L * 2 * 3 * 4 * 5;
        TensorView into = TensorView.of(arena.allocate(n), "f32[2,3,4,5]{3,2,1,0}");
        for (long seed = 1; seed <= 3; seed++) {
            Map<String, TensorView> args = Map.of("0", pixels(seed));
            Execution e = HloExecutor.execute(m, NORMALISE, args, into);
            e.close();
            assertThrows(IllegalStateException.class, e::result);
            assertTrue(into.buffer().segment().scope().isAlive());
            assertArrayEquals(allocating(NORMALISE, args, n), bytes(into, n), "batch " + seed);
        }
    }

    @Test
    void aTupleRootIsRefusedByName() {
        String text = """
                HloModule m
                ENTRY e {
                  p = f32[6,4]{1,0} parameter(0)
                  t = f32[4,6]{1,0} transpose(p), dimensions={1,0}
                  ROOT pair = (f32[6,4]{1,0}, f32[4,6]{1,0}) tuple(p, t)
                }
                """;
        TensorView into = TensorView.of(arena.allocate(96), "f32[6,4]{1,0}");
        var e = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(HloModule.parse(text), text,
                Map.of("0", floats("f32[6,4]{1,0}", 24)), into));
        assertTrue(e.getMessage().contains("%pair is a tuple of 2 arrays"), e.getMessage());
    }

    @Test
    void exampleFromJavadoc() {
        HloModule module = HloModule.parse(NORMALISE);
        String text = NORMALISE;
        Allocator memory = arena;
        List<TensorView> batches = List.of(pixels(1), pixels(2));
        List<float[]> seen = new ArrayList<>();
        java.util.function.Consumer<TensorView> consume = v -> seen.add(TensorElements.of(v).toFloatArray());
        TensorView nchw = TensorView.of(memory.allocate(4L * 2 * 3 * 4 * 5), "f32[2,3,4,5]{3,2,1,0}");
        for (TensorView batch : batches) {
            try (Execution e = HloExecutor.execute(module, text, Map.of("0", batch), nchw)) {
                consume.accept(e.result());                 // nchw, this batch's values
            }
        }
        assertEquals(2, seen.size());
        try (Execution e = HloExecutor.execute(text, Map.of("0", batches.get(0)))) {
            assertArrayEquals(bits(TensorElements.of(e.rowMajor()).toFloatArray()), bits(seen.get(0)));
        }
        assertTrue(!java.util.Arrays.equals(seen.get(0), seen.get(1)));
    }
}
