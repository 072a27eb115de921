package dev.tensorbuf.ops.exec.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.MiniFloat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The evaluator's semantics on the values where XLA's CPU backend is particular: each expected
 * array is what jax 0.10.2 (jitted, CPU) printed for the same inputs (the agreement with XLA on
 * random modules is RunXlaAgreementTest's, in the cli module).
 */
class PointwiseTest {
    private static final double DN = (float) 1e-40; // an f32 denormal
    private static final double[] A = {DN, DN, -DN, 0, -0.0, Double.NaN, 1, -DN, DN};
    private static final double[] B = {-1, 0, 0, -0.0, 0, 1, Double.NaN, -0.0, (float) 2e-40};

    private static Pointwise.Expr leaf(int k, DType t) {
        return new Pointwise.Leaf(k, t);
    }

    private static Object binary(String op, DType t, Object a, Object b, int n) {
        return Pointwise.eval(new Pointwise.Op(op, t, List.of(leaf(0, t), leaf(1, t)), ""), new Object[] {a, b}, n);
    }

    /** Bits, so that -0 and +0 differ and NaN equals NaN. */
    private static long[] bits(double[] v) {
        long[] r = new long[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = Double.isNaN(v[i]) ? 1 : Double.doubleToRawLongBits(v[i]);
        }
        return r;
    }

    @Test
    void f32MaximumMinimumAndSubtractFlushDenormalsAndOrderZeros() {
        double nan = Double.NaN;
        assertArrayEquals(bits(new double[] {0, 0, 0, 0, 0, nan, nan, -0.0, 0}),
                bits((double[]) binary("maximum", DType.F32, A, B, 9)));
        assertArrayEquals(bits(new double[] {-1, 0, -0.0, -0.0, -0.0, nan, nan, -0.0, 0}),
                bits((double[]) binary("minimum", DType.F32, A, B, 9)));
        assertArrayEquals(bits(new double[] {1, 0, -0.0, 0, -0.0, nan, nan, 0, 0}),
                bits((double[]) binary("subtract", DType.F32, A, B, 9)));
    }

    @Test
    void f32CompareSeesDenormalsAsZero() {
        Pointwise.Expr gt = new Pointwise.Op("compare", DType.PRED, List.of(leaf(0, DType.F32), leaf(1, DType.F32)), "GT FLOAT");
        Pointwise.Expr eq = new Pointwise.Op("compare", DType.PRED, List.of(leaf(0, DType.F32), leaf(1, DType.F32)), "EQ FLOAT");
        assertArrayEquals(new long[] {1, 0, 0, 0, 0, 0, 0, 0, 0}, (long[]) Pointwise.eval(gt, new Object[] {A, B}, 9));
        assertArrayEquals(new long[] {0, 1, 1, 1, 1, 0, 0, 1, 1}, (long[]) Pointwise.eval(eq, new Object[] {A, B}, 9));
        // Total order: -0 < +0, and NaN above +inf.
        Pointwise.Expr lt = new Pointwise.Op("compare", DType.PRED, List.of(leaf(0, DType.F32), leaf(1, DType.F32)), "LT TOTALORDER");
        assertArrayEquals(new long[] {1, 0}, (long[]) Pointwise.eval(lt,
                new Object[] {new double[] {-0.0, Double.NaN}, new double[] {0.0, Double.POSITIVE_INFINITY}}, 2));
    }

    @Test
    void clampIsMinimumOfMaximum() {
        Pointwise.Expr clamp = new Pointwise.Op("clamp", DType.F32,
                List.of(leaf(0, DType.F32), leaf(1, DType.F32), leaf(2, DType.F32)), "");
        double[] lo = new double[9];
        java.util.Arrays.fill(lo, -0.0);
        double[] hi = new double[9];
        java.util.Arrays.fill(hi, DN);
        assertArrayEquals(bits(new double[] {0, 0, -0.0, 0, -0.0, Double.NaN, 0, -0.0, 0}),
                bits((double[]) Pointwise.eval(clamp, new Object[] {lo, A, hi}, 9)));
    }

    @Test
    void integersWrapAndDivideAsXla() {
        assertArrayEquals(new long[] {-128, -1, -3, -2}, (long[]) binary("divide", DType.S8,
                new long[] {-128, 7, -7, 5}, new long[] {-1, 0, 2, -2}, 4));
        assertArrayEquals(new long[] {255}, (long[]) binary("divide", DType.U8, new long[] {7}, new long[] {0}, 1));
        assertArrayEquals(new long[] {-56, 44}, (long[]) binary("add", DType.S8, new long[] {100, -100}, new long[] {100, -112}, 2));
        Pointwise.Expr abs = new Pointwise.Op("abs", DType.S32, List.of(leaf(0, DType.S32)), "");
        assertArrayEquals(new long[] {Integer.MIN_VALUE}, (long[]) Pointwise.eval(abs, new Object[] {new long[] {Integer.MIN_VALUE}}, 1));
    }

    @Test
    void bf16FlushesAndF16KeepsItsDenormals() {
        double bf = MiniFloat.BF16.decode(MiniFloat.BF16.encode(1e-39f));
        assertEquals(0.0, ((double[]) binary("add", DType.BF16, new double[] {bf}, new double[] {bf}, 1))[0]);
        double h = MiniFloat.F16.decode(MiniFloat.F16.encode(1e-7f));
        assertEquals(2 * h, ((double[]) binary("add", DType.F16, new double[] {h}, new double[] {h}, 1))[0]);
    }

    @Test
    void floatToIntegerTruncatesSaturatesAndSendsNanToZero() {
        Pointwise.Expr c = new Pointwise.Op("convert", DType.S32, List.of(leaf(0, DType.F32)), "");
        assertArrayEquals(new long[] {0, Integer.MAX_VALUE, Integer.MIN_VALUE, -2, 0}, (long[]) Pointwise.eval(c,
                new Object[] {new double[] {Double.NaN, 3e9, -3e9, -2.5, DN}}, 5));
    }

    @Test
    void fusedMultiplyAddRoundsOnce() {
        // 1 + 2^-24 squared is 1 + 2^-23 + 2^-48: a product rounded first loses the 2^-48, fma keeps it.
        double x = 1 + 0x1p-23;
        Pointwise.Expr fma = new Pointwise.Op(Pointwise.Op.FMA, DType.F32,
                List.of(leaf(0, DType.F32), leaf(0, DType.F32), leaf(1, DType.F32)), "");
        double r = ((double[]) Pointwise.eval(fma, new Object[] {new double[] {x}, new double[] {-(1 + 0x1p-22)}}, 1))[0];
        assertEquals(0x1p-46, r);
    }
}
