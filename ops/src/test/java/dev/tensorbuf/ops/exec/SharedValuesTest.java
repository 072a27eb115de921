package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Elementwise chains whose every step reads its value several times, as a Python loop writes
 * them ({@code x = x * x - x}, {@code x = where(x & 1, 3x + 1, x >> 1)}): held as one expression,
 * each value is one node that the evaluator computes once and the report writes once. As trees
 * they doubled or tripled at every step (18 steps ran out of memory), and the evaluator's
 * recursion put a limit near 500 ops on a library caller's 1 MiB stack.
 */
class SharedValuesTest {
    private static final int N = 64;

    @Test
    void aValueReadTwiceEveryStepIsOneNodeAndRunsAsLlvmContractsIt() {
        int steps = 40;
        List<String> body = new ArrayList<>(List.of("v0 = f32[64] parameter(0)"));
        for (int i = 0; i < steps; i++) {
            body.add("m" + i + " = f32[64] multiply(v" + i + ", v" + i + ")");
            body.add((i == steps - 1 ? "ROOT " : "") + "v" + (i + 1) + " = f32[64] subtract(m" + i + ", v" + i + ")");
        }
        float[] x = new float[N];
        Random random = new Random(11);
        for (int k = 0; k < N; k++) {
            x[k] = random.nextFloat() * 2.2f - 0.2f;   // x * x - x keeps [-0.25, 2) in itself
        }
        try (Allocator mem = Allocators.shared();
             Execution e = HloExecutor.execute(HloExecutorTest.module(body.toArray(String[]::new)), Map.of("0", floats(mem, x)))) {
            float[] r = TensorElements.of(e.rowMajor()).toFloatArray();
            for (int k = 0; k < N; k++) {
                float v = x[k];
                for (int i = 0; i < steps; i++) {
                    v = Math.fma(v, v, -v);   // LLVM's contraction of the multiply into the subtract
                }
                assertEquals(Float.floatToRawIntBits(v), Float.floatToRawIntBits(r[k]), "element " + k + " of " + x[k]);
            }
            String expression = epilogue(e, "v" + steps);
            assertTrue(expression.startsWith("$0 = fma(%0, %0, negate(%0)); $1 = fma($0, $0, negate($0)); "), expression);
            assertTrue(expression.length() < 40 * steps, "one binding a step, not a tree of 2^40 leaves: " + expression);
        }
    }

    @Test
    void anIntegerSelectChainReadsItsValueThreeTimesAStep() {
        int steps = 60;
        List<String> body = new ArrayList<>(List.of("v0 = s32[64] parameter(0)", "k1 = s32[] constant(1)",
                "one = s32[64] broadcast(k1), dimensions={}", "k3 = s32[] constant(3)", "three = s32[64] broadcast(k3), dimensions={}"));
        for (int i = 0; i < steps; i++) {
            String v = "v" + i;
            body.add("a" + i + " = s32[64] and(" + v + ", one)");
            body.add("c" + i + " = pred[64] compare(a" + i + ", one), direction=EQ");
            body.add("m" + i + " = s32[64] multiply(" + v + ", three)");
            body.add("t" + i + " = s32[64] add(m" + i + ", one)");
            body.add("h" + i + " = s32[64] shift-right-logical(" + v + ", one)");
            body.add((i == steps - 1 ? "ROOT " : "") + "v" + (i + 1) + " = s32[64] select(c" + i + ", t" + i + ", h" + i + ")");
        }
        int[] x = new int[N];
        for (int k = 0; k < N; k++) {
            x[k] = 1 + 37 * k;
        }
        try (Allocator mem = Allocators.shared();
             Execution e = HloExecutor.execute(HloExecutorTest.module(body.toArray(String[]::new)), Map.of("0", ints(mem, x)))) {
            long[] r = TensorElements.of(e.rowMajor()).toLongArray();
            for (int k = 0; k < N; k++) {
                int v = x[k];
                for (int i = 0; i < steps; i++) {
                    v = (v & 1) == 1 ? 3 * v + 1 : v >>> 1;
                }
                assertEquals(v, r[k], "element " + k + " from " + x[k]);
            }
            assertTrue(epilogue(e, "v" + steps).length() < 120 * steps, epilogue(e, "v" + steps));
        }
    }

    @Test
    void aChainOfThousandsRunsOnADefaultThreadStack() throws Exception {
        int n = 5000;
        List<String> body = new ArrayList<>(List.of("p = f32[4] parameter(0)", "v0 = f32[4] copy(p)"));
        for (int i = 1; i < n; i++) {
            body.add("v" + i + " = f32[4] add(v" + (i - 1) + ", p)");
        }
        body.add("ROOT r = f32[4] copy(v" + (n - 1) + ")");
        String text = HloExecutorTest.module(body.toArray(String[]::new));
        float[][] result = new float[1][];
        Throwable[] failure = new Throwable[1];
        Thread small = new Thread(null, () -> {
            try (Allocator mem = Allocators.shared();
                 Execution e = HloExecutor.execute(text, Map.of("p", floats(mem, 0, 1, 2, 3)))) {
                result[0] = TensorElements.of(e.rowMajor()).toFloatArray();
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "one-MiB-stack", 1 << 20);
        small.start();
        small.join();
        if (failure[0] != null) {
            throw new AssertionError("a chain of " + n + " adds on a 1 MiB stack", failure[0]);
        }
        assertEquals(List.of(0f, (float) n, 2f * n, 3f * n), List.of(result[0][0], result[0][1], result[0][2], result[0][3]));
    }

    /** {@return the expression the copy making {@code name} evaluated} */
    private static String epilogue(Execution e, String name) {
        ExecutedInstruction step = e.steps().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
        CopyPlan.Explanation plan = step.plans().getFirst();
        return plan.epilogue().orElseThrow().expression();
    }

    private static TensorView floats(Allocator mem, float... values) {
        TensorView v = TensorView.of(mem.allocate(4L * values.length), ArrayShape.of(DType.F32, values.length));
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private static TensorView ints(Allocator mem, int... values) {
        TensorView v = TensorView.of(mem.allocate(4L * values.length), ArrayShape.of(DType.S32, values.length));
        TensorElements.of(v).copyFrom(values);
        return v;
    }
}
