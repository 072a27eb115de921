package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * XLA's rewrites of a divide by a broadcast value, as jax 0.10's CPU backend computes them: a
 * multiply by the broadcast reciprocal, computed as the module runs (flushed); a scalar constant
 * multiplied into that broadcast first; and where XLA leaves the order alone. Each expected value
 * is computed here in float arithmetic, and each test checks that the plain divide differs
 * somewhere, so that it can tell the two apart.
 */
class DivideByBroadcastTest {
    private static final int N = 64;

    @Test
    void aDivideByABroadcastIsAMultiplyByTheReciprocal() {
        String text = HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)",
                "b = f32[64] broadcast(q), dimensions={}", "ROOT r = f32[64] divide(x, b)");
        check(text, (x, q) -> x * (1f / q), (x, q) -> x / q);
    }

    @Test
    void aReciprocalPastTheLargestIsFlushedToZero() {
        String text = HloExecutorTest.module("x = f32[2] parameter(0)", "q = f32[] parameter(1)",
                "b = f32[2] broadcast(q), dimensions={}", "ROOT r = f32[2] divide(x, b)");
        try (Allocator mem = Allocators.shared()) {
            TensorView x = floats(mem, 1e30f, 5f);
            try (Execution e = HloExecutor.execute(text, Map.of("0", x, "1", scalar(mem, 3e38f)))) {
                float[] r = TensorElements.of(e.rowMajor()).toFloatArray();
                assertEquals(0f, r[0], "1 / 3e38 is a denormal, flushed: 1e30 * 0 (jax 0.10), where 1e30 / 3e38 is 3.3e-9");
                assertEquals(0f, r[1]);
            }
        }
    }

    @Test
    void aScalarConstantIsMultipliedIntoTheBroadcastFirst() {
        String text = HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)", "k = f32[] constant(5.75)",
                "bk = f32[64] broadcast(k), dimensions={}", "m = f32[64] multiply(x, bk)",
                "b = f32[64] broadcast(q), dimensions={}", "ROOT r = f32[64] divide(m, b)");
        check(text, (x, q) -> x * (5.75f * (1f / q)), (x, q) -> (x * 5.75f) * (1f / q));
    }

    @Test
    void theConstantGoesIntoTheBroadcastThroughReversesAtTheFootOfTheMoves() {
        // jax 0.10: XLA moves a reverse of x * k onto x, then sinks transposes, reshapes and
        // broadcasts below the outer multiply; a reverse above any other move stops it (seed 1097).
        String[] head = {"x = f32[64] parameter(0)", "q = f32[] parameter(1)", "k = f32[] constant(5.75)",
            "bk = f32[64] broadcast(k), dimensions={}", "m = f32[64] multiply(x, bk)", "b = f32[64] broadcast(q), dimensions={}"};
        String reverses = HloExecutorTest.module(concat(head, "r1 = f32[64] reverse(m), dimensions={0}",
                "r2 = f32[64] reverse(r1), dimensions={0}", "ROOT r = f32[64] multiply(r2, b)"));
        check(reverses, (x, q) -> x * (5.75f * q), (x, q) -> (x * 5.75f) * q);
        String overAReshape = HloExecutorTest.module(concat(head, "s = f32[8,8] reshape(m)", "r1 = f32[8,8] reverse(s), dimensions={0,1}",
                "t = f32[64] reshape(r1)", "r2 = f32[64] reverse(t), dimensions={0}", "ROOT r = f32[64] multiply(r2, b)"));
        check(overAReshape, (x, q) -> (x * 5.75f) * q, (x, q) -> x * (5.75f * q));
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    @Test
    void aBroadcastValueTimesAConstantStaysInOrder() {
        String text = HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)", "k = f32[] constant(5.75)",
                "bk = f32[64] broadcast(k), dimensions={}", "b = f32[64] broadcast(q), dimensions={}",
                "m = f32[64] multiply(x, b)", "ROOT r = f32[64] multiply(m, bk)");
        check(text, (x, q) -> (x * q) * 5.75f, (x, q) -> x * (q * 5.75f));
    }

    /**
     * XLA moves a broadcast below an op of it and a scalar, and below an op of two broadcasts
     * along the same dims, before the rewrites above meet it (jax 0.10.2, seed 1108): a broadcast
     * p times 5.75 times a broadcast q along other dims stays in order, and so does a broadcast
     * scalar s times 5.75 times a broadcast q; but a broadcast q times 5.75 times a broadcast s
     * takes the constant into s, moved below with it. A divide by a broadcast is a true quotient
     * where the dividend is a broadcast along the same dims or of a scalar, a constant one too.
     */
    @Test
    void aBroadcastMovedBelowAnOpMeetsTheRewritesAsItsOperand() {
        Random rnd = new Random(1108);
        float[] p = new float[2];
        float[] q = new float[N];
        float[] q2 = new float[N];
        for (int i = 0; i < N; i++) {
            q[i] = (float) (rnd.nextGaussian() * 100);
            q2[i] = (float) (rnd.nextGaussian() * 100);
        }
        p[0] = (float) (rnd.nextGaussian() * 100);
        p[1] = (float) (rnd.nextGaussian() * 100);
        float s = 2.7182817f;
        float k = 5.75f;
        String head = "p = f32[2] parameter(0); q = f32[64] parameter(1); q2 = f32[64] parameter(2); s = f32[] parameter(3);"
                + " k = f32[] constant(5.75); bk = f32[2,64] broadcast(k), dimensions={}; bp = f32[2,64] broadcast(p), dimensions={0};"
                + " bq = f32[2,64] broadcast(q), dimensions={1}; bq2 = f32[2,64] broadcast(q2), dimensions={1};"
                + " bs = f32[2,64] broadcast(s), dimensions={}";
        List<HloExecutorTest.OneWay> cases = List.of(
                new HloExecutorTest.OneWay("m = f32[2,64] multiply(bp, bk); ROOT r = f32[2,64] multiply(m, bq)",
                        e -> (p[e / N] * k) * q[e % N], e -> p[e / N] * (k * q[e % N])),
                new HloExecutorTest.OneWay("m = f32[2,64] multiply(bs, bk); ROOT r = f32[2,64] multiply(m, bq)",
                        e -> (s * k) * q[e % N], e -> s * (k * q[e % N])),
                new HloExecutorTest.OneWay("m = f32[2,64] multiply(bq, bk); ROOT r = f32[2,64] multiply(m, bs)",
                        e -> q[e % N] * (k * s), e -> (q[e % N] * k) * s),
                new HloExecutorTest.OneWay("m = f32[2,64] multiply(bq, bk); ROOT r = f32[2,64] divide(m, bq2)",
                        e -> (q[e % N] * k) / q2[e % N], e -> (q[e % N] * k) * (1f / q2[e % N])),
                new HloExecutorTest.OneWay("ROOT r = f32[2,64] divide(bk, bq2)", e -> k / q2[e % N], e -> k * (1f / q2[e % N])),
                new HloExecutorTest.OneWay("m = f32[2,64] multiply(bs, bk); ROOT r = f32[2,64] divide(m, bq2)",
                        e -> (s * k) / q2[e % N], e -> (s * k) * (1f / q2[e % N])));
        for (HloExecutorTest.OneWay c : cases) {
            String text = HloExecutorTest.module((head + "; " + c.body()).split("; ?"));
            try (Allocator mem = Allocators.shared(); Execution e = HloExecutor.execute(text,
                    Map.of("0", floats(mem, p), "1", floats(mem, q), "2", floats(mem, q2), "3", scalar(mem, s)))) {
                c.check(TensorElements.of(e.rowMajor()).toFloatArray());
            }
        }
    }

    /**
     * XLA moves a divisor broadcast below the divide of a broadcast scalar (a broadcast of a
     * broadcast of one too, which it merges) only where the divisor is a broadcast as written; a
     * transpose of one is a reciprocal (jax 0.10.2; seed 1129, a reshape of one). Was: a quotient
     * both times, and the merged broadcast not taken as a scalar one.
     */
    @Test
    void aBroadcastOfABroadcastScalarSinksOnlyWithABroadcastAsWritten() {
        String head = "qb = f32[8] broadcast(q), dimensions={}";
        String twice = "qbb = f32[8,64] broadcast(qb), dimensions={0}";
        check(HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)", head, twice,
                "xb = f32[8,64] broadcast(x), dimensions={1}", "ROOT r = f32[8,64] divide(qbb, xb)"),
                (x, q) -> q / x, (x, q) -> q * (1f / x));
        check(HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)", head, twice,
                "xb = f32[64,8] broadcast(x), dimensions={0}", "xt = f32[8,64] transpose(xb), dimensions={1,0}",
                "ROOT r = f32[8,64] divide(qbb, xt)"),
                (x, q) -> q * (1f / x), (x, q) -> q / x);
    }

    /**
     * A pad reading its padding alone is a broadcast of its value to XLA, so a divide by it a
     * multiply by the reciprocal, of a constant pad value or one computed as the program runs; a
     * pad of interior padding alone is a pad (jax 0.10.2; seed 1134). Was: quotients.
     */
    @Test
    void aDivisorCutToItsPaddingIsABroadcastOfItsValue() {
        String slice = "s = f32[1] slice(x), slice={[0:1]}";
        check(HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)", slice,
                "v = f32[64] pad(s, q), padding=65_-2", "ROOT r = f32[64] divide(x, v)"),
                (x, q) -> x * (1f / q), (x, q) -> x / q);
        check(HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)", slice, "k = f32[] constant(3.7)",
                "w = f32[70] pad(s, k), padding=69_0", "v = f32[64] slice(w), slice={[0:64]}", "ROOT r = f32[64] divide(x, v)"),
                (x, q) -> x * (1f / 3.7f), (x, q) -> x / 3.7f);
        check(HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)", "s = f32[2] slice(x), slice={[0:2]}",
                "v = f32[64] pad(s, q), padding=-1_-1_64", "ROOT r = f32[64] divide(x, v)"),
                (x, q) -> x / q, (x, q) -> x * (1f / q));
    }

    @Test
    void aDivideByADivideOfABroadcastTakesItsReciprocal() {
        // x / (b / x) is (x * x) / b (XLA's A / (B / C) is (A * C) / B), then divided as by any broadcast.
        String text = HloExecutorTest.module("x = f32[64] parameter(0)", "q = f32[] parameter(1)",
                "b = f32[64] broadcast(q), dimensions={}", "d = f32[64] divide(b, x)", "ROOT r = f32[64] divide(x, d)");
        check(text, (x, q) -> (x * x) * (1f / q), (x, q) -> (x * x) / q);
    }

    @Test
    void aPadOfTheFilledDimsIsStillABroadcast() {
        String text = HloExecutorTest.module("x = f32[4,10] parameter(0)", "q = f32[8] parameter(1)",
                "b = f32[4,8] broadcast(q), dimensions={1}", "one = f32[] constant(1)",
                "s = f32[4,10] pad(b, one), padding=0_0x1_1", "ROOT r = f32[4,10] divide(x, s)");
        checkAlong(text, new long[] {4, 10}, k -> k % 10 == 0 || k % 10 == 9 ? -1 : k % 10 - 1, true);
    }

    @Test
    void aPadOfAnAddedDimDivides() {
        String text = HloExecutorTest.module("x = f32[6,8] parameter(0)", "q = f32[8] parameter(1)",
                "b = f32[4,8] broadcast(q), dimensions={1}", "one = f32[] constant(1)",
                "s = f32[6,8] pad(b, one), padding=1_1x0_0", "ROOT r = f32[6,8] divide(x, s)");
        checkAlong(text, new long[] {6, 8}, k -> k < 8 || k >= 40 ? -1 : k % 8, false);
    }

    /**
     * XLA moves a pad below a broadcast only where it pads every dim the broadcast's operand fills
     * with more than one element and leaves a dim for the broadcast to add; the padded dims of one
     * element are then filled (jax 0.10.2, f32 and f16; seed 1114). Was: any pad of only filled dims.
     */
    @Test
    void aPadOfEveryFilledDimAndOfDimsOfOneIsABroadcast() {
        String pads = "one = f32[] constant(1)";
        checkAlong(HloExecutorTest.module("x = f32[3,4,3] parameter(0)", "q = f32[8] parameter(1)", pads,
                "qr = f32[2,4] reshape(q)", "b = f32[2,4,3] broadcast(qr), dimensions={0,1}",
                "s = f32[3,4,3] pad(b, one), padding=1_0x0_0x0_0", "ROOT r = f32[3,4,3] divide(x, s)"),
                new long[] {3, 4, 3}, k -> k / 12 == 0 ? -1 : (k / 12 - 1) * 4 + k / 3 % 4, false);
        checkAlong(HloExecutorTest.module("x = f32[9,4,3] parameter(0)", "q = f32[8] parameter(1)", pads,
                "b = f32[8,4,1] broadcast(q), dimensions={0}", "s = f32[9,4,3] pad(b, one), padding=1_0x0_0x1_1",
                "ROOT r = f32[9,4,3] divide(x, s)"),
                new long[] {9, 4, 3}, k -> k / 12 == 0 || k % 3 != 1 ? -1 : k / 12 - 1, true);
        checkAlong(HloExecutorTest.module("x = f32[8,4,3] parameter(0)", "q = f32[8] parameter(1)", pads,
                "b = f32[8,4,1] broadcast(q), dimensions={0}", "s = f32[8,4,3] pad(b, one), padding=0_0x0_0x1_1",
                "ROOT r = f32[8,4,3] divide(x, s)"),
                new long[] {8, 4, 3}, k -> k % 3 != 1 ? -1 : k / 12, false);
        checkAlong(HloExecutorTest.module("x = f32[6,1,1,3] parameter(0)", "q = f32[8] parameter(1)", pads,
                "qs = f32[1] slice(q), slice={[3:4]}", "b = f32[6,1,1,1] broadcast(qs), dimensions={2}",
                "s = f32[6,1,1,3] pad(b, one), padding=0_0x0_0x0_0x1_1", "ROOT r = f32[6,1,1,3] divide(x, s)"),
                new long[] {6, 1, 1, 3}, k -> k % 3 != 1 ? -1 : 3, true);
    }

    @Test
    void aTransposeOfSuchAPadIsStillABroadcast() {
        String text = HloExecutorTest.module("x = f32[10,4] parameter(0)", "q = f32[8] parameter(1)",
                "b = f32[4,8] broadcast(q), dimensions={1}", "one = f32[] constant(1)",
                "p = f32[4,10] pad(b, one), padding=0_0x1_1", "s = f32[10,4] transpose(p), dimensions={1,0}",
                "ROOT r = f32[10,4] divide(x, s)");
        checkAlong(text, new long[] {10, 4}, k -> k / 4 == 0 || k / 4 == 9 ? -1 : k / 4 - 1, true);
    }

    @Test
    void aReshapeThatSplitsAnAddedDimIsStillABroadcast() {
        String text = HloExecutorTest.module("x = f32[2,3,8] parameter(0)", "q = f32[8] parameter(1)",
                "b = f32[6,8] broadcast(q), dimensions={1}", "s = f32[2,3,8] reshape(b)", "ROOT r = f32[2,3,8] divide(x, s)");
        checkAlong(text, new long[] {2, 3, 8}, k -> k % 8, true);
    }

    @Test
    void aReshapeThatMergesTheFilledDimDivides() {
        String text = HloExecutorTest.module("x = f32[48] parameter(0)", "q = f32[8] parameter(1)",
                "b = f32[6,8] broadcast(q), dimensions={1}", "s = f32[48] reshape(b)", "ROOT r = f32[48] divide(x, s)");
        checkAlong(text, new long[] {48}, k -> k % 8, false);
    }

    @Test
    void aSliceOfAConcatenationReadingTheBroadcastAloneIsStillABroadcast() {
        String text = HloExecutorTest.module("x = f32[4,8] parameter(0)", "q = f32[8] parameter(1)",
                "b = f32[4,8] broadcast(q), dimensions={1}", "k = f32[8,8] concatenate(b, x), dimensions={0}",
                "s = f32[4,8] slice(k), slice={[0:4], [0:8]}", "ROOT r = f32[4,8] divide(x, s)");
        checkAlong(text, new long[] {4, 8}, k -> k % 8, true);
    }

    /** bf16 divides: XLA computes it in f32 after the rewrites, and the divide stays one. */
    @Test
    void bf16StillDivides() {
        String text = HloExecutorTest.module("x = bf16[4] parameter(0)", "q = bf16[] parameter(1)",
                "b = bf16[4] broadcast(q), dimensions={}", "ROOT r = bf16[4] divide(x, b)");
        try (Allocator mem = Allocators.shared()) {
            TensorView x = TensorView.of(mem.allocate(8), ArrayShape.of(DType.BF16, 4));
            TensorElements.of(x).copyFrom(new float[] {1f, 2f, 5f, 7f});
            TensorView q = TensorView.of(mem.allocate(2), ArrayShape.of(DType.BF16));
            TensorElements.of(q).setFloat(3f);
            try (Execution e = HloExecutor.execute(text, Map.of("0", x, "1", q))) {
                float[] r = TensorElements.of(e.rowMajor()).toFloatArray();
                // 7 / 3 = 2.333 rounds to bf16 2.328125; 7 * bf16(1/3) = 7 * 0.333984375 = 2.3378906 -> 2.34375.
                assertEquals(2.328125f, r[3]);
            }
        }
    }

    /** Runs {@code text} on random x and a scalar q; every element must be {@code want}, and {@code other} must differ somewhere. */
    private static void check(String text, BiFunction<Float, Float, Float> want, BiFunction<Float, Float, Float> other) {
        Random rnd = new Random(3);
        float[] xs = new float[N];
        for (int i = 0; i < N; i++) {
            xs[i] = (float) (rnd.nextGaussian() * 100);
        }
        float q = 2.7182817f;
        try (Allocator mem = Allocators.shared(); Execution e = HloExecutor.execute(text,
                Map.of("0", floats(mem, xs), "1", scalar(mem, q)))) {
            float[] r = TensorElements.of(e.rowMajor()).toFloatArray();
            int differs = 0;
            for (int i = 0; i < N; i++) {
                assertEquals(Float.floatToRawIntBits(want.apply(xs[i], q)), Float.floatToRawIntBits(r[i]), "element " + i);
                differs += Float.floatToRawIntBits(other.apply(xs[i], q)) != Float.floatToRawIntBits(r[i]) ? 1 : 0;
            }
            assertTrue(differs > 0, "the other order gives the same bits here, so the test cannot tell them apart");
        }
    }

    /**
     * Runs {@code text} on random x of {@code dims} and q = f32[8]; row-major element k of the
     * divisor is q[{@code along(k)}], or the pad value 1 where that is -1. Every element must be a
     * multiply by the reciprocal where {@code reciprocal} holds, else the quotient; and the other
     * must differ somewhere.
     */
    private static void checkAlong(String text, long[] dims, IntUnaryOperator along, boolean reciprocal) {
        Random rnd = new Random(5);
        int n = Math.toIntExact(ArrayShape.of(DType.F32, dims).elementCount());
        float[] xs = new float[n];
        for (int i = 0; i < n; i++) {
            xs[i] = (float) (rnd.nextGaussian() * 100);
        }
        float[] q = new float[8];
        for (int i = 0; i < q.length; i++) {
            q[i] = (float) (rnd.nextGaussian() * 7 + 0.5);
        }
        try (Allocator mem = Allocators.shared()) {
            TensorView x = TensorView.of(mem.allocate(4L * n), ArrayShape.of(DType.F32, dims));
            TensorElements.of(x).copyFrom(xs);
            try (Execution e = HloExecutor.execute(text, Map.of("0", x, "1", floats(mem, q)))) {
                float[] r = TensorElements.of(e.rowMajor()).toFloatArray();
                int differs = 0;
                for (int k = 0; k < n; k++) {
                    float d = along.applyAsInt(k) < 0 ? 1f : q[along.applyAsInt(k)];
                    float product = xs[k] * (1f / d);
                    float quotient = xs[k] / d;
                    assertEquals(Float.floatToRawIntBits(reciprocal ? product : quotient), Float.floatToRawIntBits(r[k]), "element " + k);
                    differs += Float.floatToRawIntBits(reciprocal ? quotient : product) != Float.floatToRawIntBits(r[k]) ? 1 : 0;
                }
                assertTrue(differs > 0, "the other form gives the same bits here, so the test cannot tell them apart");
            }
        }
    }

    private static TensorView floats(Allocator mem, float... values) {
        TensorView v = TensorView.of(mem.allocate(4L * values.length), ArrayShape.of(DType.F32, values.length));
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private static TensorView scalar(Allocator mem, float value) {
        TensorView v = TensorView.of(mem.allocate(4), ArrayShape.of(DType.F32));
        TensorElements.of(v).setFloat(value);
        return v;
    }
}
