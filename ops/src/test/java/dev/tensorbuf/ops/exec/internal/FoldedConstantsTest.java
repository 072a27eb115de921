package dev.tensorbuf.ops.exec.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tensorbuf.ops.hlo.HloModule;
import org.junit.jupiter.api.Test;

/** The values the rewrites read behind data movement and converts: the constant's own, then converted. */
class FoldedConstantsTest {
    private static double[] values(String constant, String moves) {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n  c = " + constant + "\n" + moves
                + "  ROOT r = f32[2] parameter(0)\n}\n");
        return FoldedConstants.values(m.entry(), "k");
    }

    /**
     * A constant is read in its own type before a convert widens it, as XLA folds the convert: a
     * bf16 0.3 is 0.30078125 as f32, not 0.3f, and an f8e4m3fn 0.3 is 0.3125.
     */
    @Test
    void aConstantIsReadInItsOwnTypeThenConverted() {
        assertArrayEquals(new double[] {0.30078125, 3.296875},
                values("bf16[2] constant({0.3, 3.3})", "  k = f32[2] convert(c)\n"));
        assertArrayEquals(new double[] {0.3125, 3.25},
                values("f8e4m3fn[2] constant({0.3, 3.3})", "  k = f32[2] convert(c)\n"));
        assertArrayEquals(new double[] {0.300048828125}, // the literal's values, not the broadcast's
                values("f16[] constant(0.3)", "  b = f16[2] broadcast(c), dimensions={}\n  k = f32[2] convert(b)\n"));
        assertArrayEquals(new double[] {(float) 0.3},
                values("f64[] constant(0.3)", "  b = f64[2] broadcast(c), dimensions={}\n  k = f32[2] convert(b)\n"));
        assertArrayEquals(new double[] {Double.POSITIVE_INFINITY}, values("f64[1] constant({1e300})", "  k = f32[1] convert(c)\n"),
                "as the convert leaves it");
        assertArrayEquals(new double[] {0.3}, values("f64[1] constant({0.3})", "  k = f64[1] copy(c)\n"));
        assertArrayEquals(new double[] {1, 0}, values("pred[2] constant({true, false})", "  k = f32[2] convert(c)\n"));
        assertNull(values("c64[1] constant({(1, 2)})", "  k = f32[1] convert(c)\n"), "complex: not followed");
    }

    /** Every convert on the way rounds the values, as XLA's folding of each leaves them. */
    @Test
    void eachConvertOnTheWayIsApplied() {
        assertArrayEquals(new double[] {1, 2}, values("f32[2] constant({1.0001, 2.003})", "  b = bf16[2] convert(c)\n  k = f32[2] convert(b)\n"));
        assertArrayEquals(new double[] {0, (float) 1e-30},
                values("f64[2] constant({1e-50, 1e-30})", "  b = f32[2] convert(c)\n  k = f64[2] convert(b)\n"));
        assertArrayEquals(new double[] {1, -2, 0}, values("f32[3] constant({1.5, -2.9, nan})", "  b = s32[3] convert(c)\n  k = f32[3] convert(b)\n"));
        assertArrayEquals(new double[] {255, 0}, values("f32[2] constant({300, -4})", "  b = u8[2] convert(c)\n  k = f64[2] convert(b)\n"),
                "saturated as XLA converts");
        assertArrayEquals(new double[] {(float) 1e-42}, values("f32[1] constant({1e-42})", "  k = f64[1] convert(c)\n"),
                "a denormal is not flushed by a folded convert (jax 0.10)");
        assertNull(values("s64[1] constant({9007199254740993})", "  k = s64[1] copy(c)\n"), "past a double's whole numbers");
        assertNull(values("f32[1] constant({1})", "  k = f8e4m3fn[1] convert(c)\n"), "into a narrow float: not followed");
    }
}
