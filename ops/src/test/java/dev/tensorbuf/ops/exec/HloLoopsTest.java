package dev.tensorbuf.ops.exec;

import static dev.tensorbuf.ops.exec.HloExecutorTest.floats;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code while} and {@code conditional} as XLA runs them, against values computed here by plain
 * loops: a loop whose trip count is a counter in its value, one that never runs its body, one
 * whose end depends on the data, a loop inside a loop's body, and branches chosen by a pred and
 * by an index (out of range: the last); and where XLA's pipeline puts the rounding at their
 * edges: branches chosen at run time or by a constant, loops it counts to at most one trip, work
 * it hoists out of a loop and constants it sinks into one. The forms jax emits (threefry's
 * rounds, {@code scan}, {@code while_loop}, {@code cond}, {@code switch}) are checked against jax
 * itself in the cli's RunXlaAgreementTest.
 */
class HloLoopsTest {
    @ArenaPerTest
    private Allocator arena;

    /** x <- x * 1.5 + i for i in [0, n): a counter and an array carried in a tuple. */
    private static String affineLoop(String n) {
        return """
                HloModule m
                body {
                  b = (s32[], f32[4]{0}) parameter(0)
                  i = s32[] get-tuple-element(b), index=0
                  x = f32[4]{0} get-tuple-element(b), index=1
                  k = f32[] constant(1.5)
                  kb = f32[4]{0} broadcast(k), dimensions={}
                  m = f32[4]{0} multiply(x, kb)
                  fi = f32[] convert(i)
                  ib = f32[4]{0} broadcast(fi), dimensions={}
                  y = f32[4]{0} add(m, ib)
                  one = s32[] constant(1)
                  j = s32[] add(i, one)
                  ROOT t = (s32[], f32[4]{0}) tuple(j, y)
                }
                cond {
                  c = (s32[], f32[4]{0}) parameter(0)
                  i = s32[] get-tuple-element(c), index=0
                  n = s32[] constant(TRIPS)
                  ROOT lt = pred[] compare(i, n), direction=LT
                }
                ENTRY e {
                  z = s32[] constant(0)
                  x = f32[4]{0} parameter(0)
                  t = (s32[], f32[4]{0}) tuple(z, x)
                  w = (s32[], f32[4]{0}) while(t), condition=cond, body=body
                  ROOT r = f32[4]{0} get-tuple-element(w), index=1
                }
                """.replace("TRIPS", n);
    }

    private TensorView f32(float... values) {
        TensorView v = TensorView.of(arena.allocate(4L * values.length), "f32[" + values.length + "]");
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    @Test
    void aLoopRunsItsBodyUntilItsConditionIsFalse() {
        float[] x = {1f, -2.5f, 0.1f, 1e6f};
        for (int n : new int[] {0, 1, 6, 40}) {
            float[] want = x.clone();
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < want.length; k++) {
                    // XLA contracts the multiply and the add into one fused multiply-add.
                    want[k] = Math.fma(want[k], 1.5f, (float) i);
                }
            }
            assertArrayEquals(want, floats(affineLoop(Integer.toString(n)), Map.of("0", f32(x))), "n = " + n);
        }
        // The loop is one step of the run, which says how often its body ran.
        try (Execution e = HloExecutor.execute(affineLoop("6"), Map.of("0", f32(x)))) {
            ExecutedInstruction loop = e.steps().stream().filter(s -> s.opcode().equals("while")).findFirst().orElseThrow();
            assertEquals(ExecutedInstruction.Kind.COPY, loop.kind());
            assertEquals("a loop: its body body ran 6 times", loop.reason());
        }
    }

    /** 4 MiB values over 40 iterations: past 64 MiB the value moves to a fresh arena, and the old one is closed. */
    @Test
    void aLongLoopOfLargeValuesMovesItsValueBetweenArenas() {
        int n = 1 << 20;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (i % 1000) * 0.001f - 0.5f;
        }
        TensorView in = TensorView.of(arena.allocate(4L * n), "f32[" + n + "]");
        TensorElements.of(in).copyFrom(x);
        float[] got = floats(affineLoop("40").replace("f32[4]", "f32[" + n + "]"), Map.of("0", in));
        for (int i : new int[] {0, 1, 999, 1000, n / 2 + 7, n - 1}) {
            float want = x[i];
            for (int k = 0; k < 40; k++) {
                want = Math.fma(want, 1.5f, (float) k);
            }
            assertEquals(want, got[i], "element " + i);
        }
    }

    @Test
    void aLoopWhoseEndDependsOnTheDataAndALoopInsideABody() {
        String halve = """
                HloModule m
                body {
                  b = f32[3]{0} parameter(0)
                  two = f32[] constant(2)
                  tb = f32[3]{0} broadcast(two), dimensions={}
                  ROOT h = f32[3]{0} divide(b, tb)
                }
                cond {
                  c = f32[3]{0} parameter(0)
                  s = f32[] constant(1)
                  init = pred[] constant(false)
                  sb = f32[3]{0} broadcast(s), dimensions={}
                  g = pred[3]{0} compare(c, sb), direction=GT
                  ROOT any = pred[] reduce(g, init), dimensions={0}, to_apply=or
                }
                or {
                  p = pred[] parameter(0)
                  q = pred[] parameter(1)
                  ROOT o = pred[] or(p, q)
                }
                ENTRY e {
                  x = f32[3]{0} parameter(0)
                  ROOT w = f32[3]{0} while(x), condition=cond, body=body
                }
                """;
        // The largest, 100, is halved until it is 0.78125; every element is halved alike.
        assertArrayEquals(new float[] {0.0234375f, 0.46875f, 0.78125f}, floats(halve, Map.of("0", f32(3f, 60f, 100f))));
        String outer = affineLoop("3").replace("ENTRY e {", """
                obody {
                  ob = (s32[], f32[4]{0}) parameter(0)
                  oi = s32[] get-tuple-element(ob), index=0
                  ox = f32[4]{0} get-tuple-element(ob), index=1
                  z = s32[] constant(0)
                  it = (s32[], f32[4]{0}) tuple(z, ox)
                  iw = (s32[], f32[4]{0}) while(it), condition=cond, body=body
                  iy = f32[4]{0} get-tuple-element(iw), index=1
                  one = s32[] constant(1)
                  oj = s32[] add(oi, one)
                  ROOT ot = (s32[], f32[4]{0}) tuple(oj, iy)
                }
                ENTRY e {""").replace("w = (s32[], f32[4]{0}) while(t), condition=cond, body=body",
                "w = (s32[], f32[4]{0}) while(t), condition=cond, body=obody");
        float[] x = {1f, 2f, -3f, 0.5f};
        float[] want = x.clone();
        for (int o = 0; o < 3; o++) {
            for (int i = 0; i < 3; i++) {
                for (int k = 0; k < want.length; k++) {
                    want[k] = Math.fma(want[k], 1.5f, (float) i);
                }
            }
        }
        assertArrayEquals(want, floats(outer, Map.of("0", f32(x))));
    }

    @Test
    void aConditionalRunsTheBranchItsSelectorChooses() {
        String byPred = """
                HloModule m
                flip {
                  a = f32[4]{0} parameter(0)
                  ROOT r = f32[4]{0} reverse(a), dimensions={0}
                }
                twice {
                  a = f32[4]{0} parameter(0)
                  ROOT d = f32[4]{0} add(a, a)
                }
                ENTRY e {
                  x = f32[4]{0} parameter(0)
                  s = f32[] parameter(1)
                  z = f32[] constant(0)
                  p = pred[] compare(s, z), direction=GT
                  ROOT c = f32[4]{0} conditional(p, x, x), true_computation=flip, false_computation=twice
                }
                """;
        TensorView x = f32(1f, 2f, 3f, 4f);
        assertArrayEquals(new float[] {4f, 3f, 2f, 1f}, floats(byPred, Map.of("0", x, "1", scalar(1f))));
        assertArrayEquals(new float[] {2f, 4f, 6f, 8f}, floats(byPred, Map.of("0", x, "1", scalar(-1f))));
        String byIndex = byPred.replace("p = pred[] compare(s, z), direction=GT", "p = s32[] convert(s)")
                .replace("conditional(p, x, x), true_computation=flip, false_computation=twice",
                        "conditional(p, x, x), branch_computations={twice, flip}");
        assertArrayEquals(new float[] {2f, 4f, 6f, 8f}, floats(byIndex, Map.of("0", x, "1", scalar(0f))));
        assertArrayEquals(new float[] {4f, 3f, 2f, 1f}, floats(byIndex, Map.of("0", x, "1", scalar(1f))));
        // Out of range either way: the last branch, as XLA runs it.
        assertArrayEquals(new float[] {4f, 3f, 2f, 1f}, floats(byIndex, Map.of("0", x, "1", scalar(7f))));
        assertArrayEquals(new float[] {4f, 3f, 2f, 1f}, floats(byIndex, Map.of("0", x, "1", scalar(-1f))));
    }

    /**
     * A conditional chosen at run time is an edge elementwise work does not cross: a product in a
     * branch is rounded before the sum after the conditional, and a product before it before the
     * sum in the branch (XLA's CPU code, jax 0.10; RunXlaAgreementTest's control-flow seed 3), also
     * where the selector is index arithmetic of a parameter. A selector XLA knows (a constant)
     * makes its simplifier inline the branch, and then the two contract.
     */
    @Test
    void aBranchChosenAtRunTimeRoundsItsProductsAtItsEdges() {
        String out = """
                HloModule m
                keep {
                  a = f32[4]{0} parameter(0)
                  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, a)
                }
                square {
                  a = f32[4]{0} parameter(0)
                  m = f32[4]{0} multiply(a, a)
                  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(m, a)
                }
                ENTRY e {
                  x = f32[4]{0} parameter(0)
                  y = f32[4]{0} parameter(1)
                  s = s32[] SELECTOR
                  c = (f32[4]{0}, f32[4]{0}) conditional(s, x, x), branch_computations={keep, square}
                  g = f32[4]{0} get-tuple-element(c), index=0
                  ROOT r = f32[4]{0} add(g, y)
                }
                """;
        String in = """
                HloModule m
                keep {
                  t = (f32[4]{0}, f32[4]{0}) parameter(0)
                  ROOT a = f32[4]{0} get-tuple-element(t), index=1
                }
                sum {
                  t = (f32[4]{0}, f32[4]{0}) parameter(0)
                  a = f32[4]{0} get-tuple-element(t), index=0
                  b = f32[4]{0} get-tuple-element(t), index=1
                  ROOT r = f32[4]{0} add(a, b)
                }
                ENTRY e {
                  x = f32[4]{0} parameter(0)
                  y = f32[4]{0} parameter(1)
                  s = s32[] SELECTOR
                  m = f32[4]{0} multiply(x, x)
                  t = (f32[4]{0}, f32[4]{0}) tuple(m, y)
                  ROOT c = f32[4]{0} conditional(s, t, t), branch_computations={keep, sum}
                }
                """;
        float[] x = X;
        float[] y = Y;
        float[] rounded = squarePlus(false);
        float[] fused = squarePlus(true);
        for (int k = 0; k < 4; k++) {
            assertTrue(rounded[k] != fused[k], "the values tell a fused multiply-add from two roundings");
        }
        for (String text : java.util.List.of(out, in)) {
            for (int selector : new int[] {1, 5}) {
                assertArrayEquals(rounded, floats(text.replace("SELECTOR", "parameter(2)"),
                        Map.of("0", f32(x), "1", f32(y), "2", s32(selector))), text);
            }
            // Folded when run reads it, but from a parameter: XLA does not know it.
            String computed = text.replace("s = s32[] SELECTOR", "p = s32[] parameter(2)\n  one = s32[] constant(1)\n  s = s32[] add(p, one)");
            assertArrayEquals(rounded, floats(computed, Map.of("0", f32(x), "1", f32(y), "2", s32(0))), computed);
            assertArrayEquals(fused, floats(text.replace("SELECTOR", "constant(1)"), Map.of("0", f32(x), "1", f32(y))), text);
        }
    }

    /**
     * A conditional of two branches chosen by a {@code pred} at run time, whose branches do only
     * cheap work, is a select of both to XLA's conditional simplifier, no edge: a product the
     * chosen branch returns contracts with the sum after it, and a product given to it with the sum
     * in it (jax 0.10.2, f16, f32 and f64; control-flow seed 33, module 952). A branch that moves
     * elements (a reverse), or one that only hands on its parameter, keeps the conditional, and
     * the product is rounded at its edge. (Where both branches read the same operand and both
     * end in a sum, LLVM rounds some products, by shape: not mirrored, RELIABILITY.)
     */
    @Test
    void aPredConditionalOfCheapBranchesIsASelectSoProductsContractAcrossIt() {
        String out = """
                HloModule m
                square {
                  a = f32[4]{0} parameter(0)
                  ROOT m = f32[4]{0} multiply(a, a)
                }
                other {
                  b = f32[4]{0} parameter(0)
                  c = f32[] constant(-0.3)
                  cb = f32[4]{0} broadcast(c), dimensions={}
                  m = f32[4]{0} multiply(b, cb)
                  ROOT r = f32[4]{0} OTHER
                }
                ENTRY e {
                  x = f32[4]{0} parameter(0)
                  y = f32[4]{0} parameter(1)
                  p = pred[] parameter(2)
                  k = f32[4]{0} conditional(p, x, y), true_computation=square, false_computation=other
                  ROOT o = f32[4]{0} add(k, y)
                }
                """;
        String in = """
                HloModule m
                plus {
                  a = f32[4]{0} parameter(0)
                  c = f32[] constant(1.7)
                  cb = f32[4]{0} broadcast(c), dimensions={}
                  ROOT r = f32[4]{0} add(a, cb)
                }
                other {
                  b = f32[4]{0} parameter(0)
                  ROOT r = f32[4]{0} OTHER
                }
                ENTRY e {
                  x = f32[4]{0} parameter(0)
                  y = f32[4]{0} parameter(1)
                  p = pred[] parameter(2)
                  m = f32[4]{0} multiply(x, x)
                  ROOT k = f32[4]{0} conditional(p, m, y), true_computation=plus, false_computation=other
                }
                """;
        float[] fusedOut = squarePlus(true);
        float[] roundedOut = squarePlus(false);
        float[] fusedIn = new float[4];
        float[] roundedIn = new float[4];
        float[] otherOut = new float[4];
        for (int k = 0; k < 4; k++) {
            fusedIn[k] = Math.fma(X[k], X[k], 1.7f);
            roundedIn[k] = X[k] * X[k] + 1.7f;
            otherOut[k] = Math.fma(Y[k], -0.3f, Y[k]) + Y[k];
        }
        java.util.function.BiFunction<String, Boolean, float[]> run = (text, chosen) ->
                floats(text, Map.of("0", f32(X), "1", f32(Y), "2", pred(chosen)));
        String cheap = out.replace("OTHER", "add(m, b)");
        assertArrayEquals(fusedOut, run.apply(cheap, true));
        assertArrayEquals(otherOut, run.apply(cheap, false));
        assertArrayEquals(fusedIn, run.apply(in.replace("OTHER", "negate(b)"), true));
        // Moves that change nothing leave the branch cheap, and empty where they are all it does.
        assertArrayEquals(fusedOut, run.apply(out.replace("  ROOT r = f32[4]{0} OTHER",
                "  r = f32[4]{0} add(m, b)\n  ROOT t = f32[4]{0} transpose(r), dimensions={0}"), true));
        assertArrayEquals(roundedIn, run.apply(in.replace("OTHER", "copy(b)"), true));
        // A reverse is not cheap to the simplifier: the conditional stays.
        assertArrayEquals(roundedOut, run.apply(out.replace("OTHER", "reverse(m), dimensions={0}"), true));
        assertArrayEquals(roundedIn, run.apply(in.replace("OTHER", "reverse(b), dimensions={0}"), true));
    }

    private TensorView pred(boolean value) {
        TensorView v = TensorView.of(arena.allocate(1), "pred[]");
        TensorElements.of(v).setLong(value ? 1 : 0);
        return v;
    }

    /**
     * XLA inlines every call before it fuses, so a product the callee returns, even as a copy in
     * its own layout, contracts with the sum after the call (control-flow seed 24, module 723:
     * the ROOT copy was evaluated, rounding the product).
     */
    @Test
    void aProductACallReturnsContractsWithTheSumAfterIt() {
        String text = """
                HloModule m
                square {
                  a = f32[4]{0} parameter(0)
                  m = f32[4]{0} multiply(a, a)
                  ROOT c = f32[4]{0} copy(m)
                }
                ENTRY e {
                  x = f32[4]{0} parameter(0)
                  y = f32[4]{0} parameter(1)
                  s = f32[4]{0} call(x), to_apply=square
                  ROOT r = f32[4]{0} add(s, y)
                }
                """;
        assertArrayEquals(squarePlus(true), floats(text, Map.of("0", f32(X), "1", f32(Y))));
    }

    /**
     * XLA counts the trips of a loop whose counter starts at a constant and whose condition reads
     * only the counter: a loop of no trips becomes its initial value and a loop of one its body,
     * so a product in the body, or before a loop of none, is one multiply-add with a sum after the
     * loop. A loop it cannot count (a bound from a parameter) keeps its edges: rounded there (jax
     * 0.10; RunXlaAgreementTest's control-flow modules).
     */
    @Test
    void aLoopXlaCountsToAtMostOneTripFusesAcrossItsEdges() {
        String text = """
                HloModule m
                cond {
                  c = (s32[], f32[4]{0}, s32[]) parameter(0)
                  i = s32[] get-tuple-element(c), index=0
                  n = s32[] BOUND
                  ROOT lt = pred[] compare(i, n), direction=LT
                }
                body {
                  b = (s32[], f32[4]{0}, s32[]) parameter(0)
                  i = s32[] get-tuple-element(b), index=0
                  x = f32[4]{0} get-tuple-element(b), index=1
                  n = s32[] get-tuple-element(b), index=2
                  m = f32[4]{0} multiply(x, x)
                  one = s32[] constant(1)
                  j = s32[] add(i, one)
                  ROOT t = (s32[], f32[4]{0}, s32[]) tuple(j, m, n)
                }
                ENTRY e {
                  x = f32[4]{0} parameter(0)
                  y = f32[4]{0} parameter(1)
                  n = s32[] parameter(2)
                  z = s32[] constant(0)
                  init = f32[4]{0} INIT
                  t = (s32[], f32[4]{0}, s32[]) tuple(z, init, n)
                  w = (s32[], f32[4]{0}, s32[]) while(t), condition=cond, body=body
                  g = f32[4]{0} get-tuple-element(w), index=1
                  ROOT r = f32[4]{0} add(g, y)
                }
                """;
        float[] x = X;
        float[] y = Y;
        float[] rounded = squarePlus(false);
        float[] fused = squarePlus(true);
        Map<String, TensorView> one = Map.of("0", f32(x), "1", f32(y), "2", s32(1));
        Map<String, TensorView> none = Map.of("0", f32(x), "1", f32(y), "2", s32(0));
        assertArrayEquals(fused, floats(text.replace("BOUND", "constant(1)").replace("INIT", "copy(x)"), one));
        assertArrayEquals(fused, floats(text.replace("BOUND", "constant(0)").replace("INIT", "multiply(x, x)"), none));
        // The bound read from the loop's value, which starts as a parameter: not counted.
        String uncounted = text.replace("n = s32[] BOUND", "n = s32[] get-tuple-element(c), index=2");
        assertArrayEquals(rounded, floats(uncounted.replace("INIT", "copy(x)"), one));
        assertArrayEquals(rounded, floats(uncounted.replace("INIT", "multiply(x, x)"), none));
        // Inlined, the counter is a constant: x * 1.5 + convert(0) is x * 1.5, its -0 kept.
        float[] once = floats(affineLoop("1"), Map.of("0", f32(-0f, 1f, -2f, 0.5f)));
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(once[0]));
        assertArrayEquals(new float[] {-0f, 1.5f, -3f, 0.75f}, once);
    }

    /**
     * Work on values a loop passes on unchanged is loop-invariant, and XLA's code motion computes
     * it once before the loop: y + w * w in the body, w invariant, rounds w * w before the sum on
     * every trip, not one multiply-add (jax 0.10).
     */
    @Test
    void loopInvariantWorkIsRoundedBeforeTheBodyReadsIt() {
        String text = """
                HloModule m
                cond {
                  c = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
                  i = s32[] get-tuple-element(c), index=0
                  n = s32[] constant(3)
                  ROOT lt = pred[] compare(i, n), direction=LT
                }
                body {
                  b = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
                  i = s32[] get-tuple-element(b), index=0
                  y = f32[4]{0} get-tuple-element(b), index=1
                  w = f32[4]{0} get-tuple-element(b), index=2
                  m = f32[4]{0} multiply(w, w)
                  s = f32[4]{0} add(y, m)
                  one = s32[] constant(1)
                  j = s32[] add(i, one)
                  ROOT t = (s32[], f32[4]{0}, f32[4]{0}) tuple(j, s, w)
                }
                ENTRY e {
                  w = f32[4]{0} parameter(0)
                  y = f32[4]{0} parameter(1)
                  z = s32[] constant(0)
                  t = (s32[], f32[4]{0}, f32[4]{0}) tuple(z, y, w)
                  l = (s32[], f32[4]{0}, f32[4]{0}) while(t), condition=cond, body=body
                  ROOT r = f32[4]{0} get-tuple-element(l), index=1
                }
                """;
        float[] w = X;
        float[] y = Y;
        float[] rounded = y.clone();
        float[] fused = y.clone();
        for (int trip = 0; trip < 3; trip++) {
            for (int k = 0; k < 4; k++) {
                rounded[k] += w[k] * w[k];
                fused[k] = Math.fma(w[k], w[k], fused[k]);
            }
        }
        assertTrue(!java.util.Arrays.equals(rounded, fused), "the values tell a fused multiply-add from two roundings");
        assertArrayEquals(rounded, floats(text, Map.of("0", f32(w), "1", f32(y))));
    }

    /**
     * An element a loop passes on unchanged (through a move XLA removes, too) that starts as a
     * constant, XLA sinks into the loop as that constant: a divide by it is then a multiply by its reciprocal, as outside any loop
     * (jax 0.10: x / {3, 7, 10, 0.3} twice gives these bits, where two true divides differ).
     */
    @Test
    void aConstantTheLoopPassesOnIsAConstantInItsBody() {
        String text = """
                HloModule m
                cond {
                  c = (s32[], f32[4]{0}, f32[4]{0}, s32[]) parameter(0)
                  i = s32[] get-tuple-element(c), index=0
                  n = s32[] get-tuple-element(c), index=3
                  ROOT lt = pred[] compare(i, n), direction=LT
                }
                body {
                  b = (s32[], f32[4]{0}, f32[4]{0}, s32[]) parameter(0)
                  i = s32[] get-tuple-element(b), index=0
                  x = f32[4]{0} get-tuple-element(b), index=1
                  d = f32[4]{0} get-tuple-element(b), index=2
                  n = s32[] get-tuple-element(b), index=3
                  q = f32[4]{0} divide(x, d)
                  one = s32[] constant(1)
                  j = s32[] add(i, one)
                  ROOT t = (s32[], f32[4]{0}, f32[4]{0}, s32[]) tuple(j, q, d, n)
                }
                ENTRY e {
                  x = f32[4]{0} parameter(0)
                  n = s32[] parameter(1)
                  z = s32[] constant(0)
                  d = f32[4]{0} constant({3, 7, 10, 0.3})
                  t = (s32[], f32[4]{0}, f32[4]{0}, s32[]) tuple(z, x, d, n)
                  w = (s32[], f32[4]{0}, f32[4]{0}, s32[]) while(t), condition=cond, body=body
                  ROOT r = f32[4]{0} get-tuple-element(w), index=1
                }
                """;
        float[] x = X;
        float[] d = {3f, 7f, 10f, 0.3f};
        float[] want = {0x1.f49f4cp-4f, -0x1.13da64p-4f, 0x1.3b645ap-4f, 0x1.aaaaaap+1f};
        for (int k = 0; k < 4; k++) {
            assertEquals(want[k], x[k] * (1f / d[k]) * (1f / d[k]));
        }
        assertTrue(x[0] / d[0] / d[0] != want[0], "the values tell a multiply by the reciprocal from a divide");
        assertArrayEquals(want, floats(text, Map.of("0", f32(x), "1", s32(2))));
        // Passed on through a transpose in the same order, which XLA's simplifier removes first.
        String transposed = text.replace("ROOT t = (s32[], f32[4]{0}, f32[4]{0}, s32[]) tuple(j, q, d, n)",
                "dt = f32[4]{0} transpose(d), dimensions={0}\n  ROOT t = (s32[], f32[4]{0}, f32[4]{0}, s32[]) tuple(j, q, dt, n)");
        assertArrayEquals(want, floats(transposed, Map.of("0", f32(x), "1", s32(2))), transposed);
    }

    /**
     * A loop XLA inlines hands on what its body made in the body's layout: an inner loop's
     * f32[2,3]{0,1}, where the outer loop's shape says {1,0}. The output is the array, not its
     * bytes read in another layout (control-flow seed 18, module 959: a permuted result).
     */
    @Test
    void anInlinedLoopHandsOnItsValueInTheLayoutItWasMadeIn() {
        String text = """
                HloModule m
                icond {
                  c = (s32[], f32[2,3]{0,1}) parameter(0)
                  i = s32[] get-tuple-element(c), index=0
                  n = s32[] constant(2)
                  ROOT lt = pred[] compare(i, n), direction=LT
                }
                ibody {
                  b = (s32[], f32[2,3]{0,1}) parameter(0)
                  i = s32[] get-tuple-element(b), index=0
                  x = f32[2,3]{0,1} get-tuple-element(b), index=1
                  one = s32[] constant(1)
                  j = s32[] add(i, one)
                  ROOT t = (s32[], f32[2,3]{0,1}) tuple(j, x)
                }
                ocond {
                  c = (s32[], f32[2,3]{1,0}) parameter(0)
                  i = s32[] get-tuple-element(c), index=0
                  n = s32[] constant(1)
                  ROOT lt = pred[] compare(i, n), direction=LT
                }
                obody {
                  b = (s32[], f32[2,3]{1,0}) parameter(0)
                  i = s32[] get-tuple-element(b), index=0
                  x = f32[2,3]{1,0} get-tuple-element(b), index=1
                  z = s32[] constant(0)
                  t0 = (s32[], f32[2,3]{0,1}) tuple(z, x)
                  w = (s32[], f32[2,3]{0,1}) while(t0), condition=icond, body=ibody
                  y = f32[2,3]{0,1} get-tuple-element(w), index=1
                  one = s32[] constant(1)
                  j = s32[] add(i, one)
                  ROOT t = (s32[], f32[2,3]{1,0}) tuple(j, y)
                }
                ENTRY e {
                  p = f32[2,3]{1,0} parameter(0)
                  z = s32[] constant(0)
                  t = (s32[], f32[2,3]{1,0}) tuple(z, p)
                  w = (s32[], f32[2,3]{1,0}) while(t), condition=ocond, body=obody
                  ROOT r = f32[2,3]{1,0} get-tuple-element(w), index=1
                }
                """;
        float[] values = {0, 1, 2, 3, 4, 5};
        TensorView p = TensorView.of(arena.allocate(24), "f32[2,3]");
        TensorElements.of(p).copyFrom(values);
        try (Execution x = HloExecutor.execute(text, Map.of("0", p))) {
            // The result in the ROOT's layout, {1,0}: its bytes in row-major order.
            java.lang.foreign.MemorySegment bytes = x.result().buffer().segment();
            for (int k = 0; k < values.length; k++) {
                assertEquals(values[k], bytes.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, k), "element " + k);
            }
        }
    }

    @Test
    void aLoopOrBranchOfTheWrongShapeIsRefusedNamingIt() {
        String wrongBody = affineLoop("2").replace("ROOT t = (s32[], f32[4]{0}) tuple(j, y)",
                "ys = f32[3]{0} slice(y), slice={[0:3]}\n  ROOT t = (s32[], f32[3]{0}) tuple(j, ys)");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> floats(wrongBody, Map.of("0", f32(1f, 2f, 3f, 4f))));
        assertTrue(e.getMessage().contains("its body body's ROOT is (s32[], f32[3]{0}), not (s32[], f32[4]{0})"), e.getMessage());
        String countCondition = affineLoop("2").replace("ROOT lt = pred[] compare(i, n), direction=LT", "ROOT lt = s32[] add(i, n)");
        e = assertThrows(IllegalArgumentException.class, () -> floats(countCondition, Map.of("0", f32(1f, 2f, 3f, 4f))));
        assertTrue(e.getMessage().contains("its condition cond returns s32[]: a loop's condition returns pred[]"), e.getMessage());
    }

    /** Values whose x * x + y tells a fused multiply-add from two roundings in every element. */
    private static final float[] X = {1.1f, -3.3f, 7.7f, 0.3f};
    private static final float[] Y = {-1.21f, 10.89f, -59.29f, -0.09f};

    /** {@return x * x + y of {@link #X} and {@link #Y}, one fused multiply-add or two roundings} */
    private static float[] squarePlus(boolean fused) {
        float[] r = new float[X.length];
        for (int k = 0; k < r.length; k++) {
            r[k] = fused ? Math.fma(X[k], X[k], Y[k]) : X[k] * X[k] + Y[k];
        }
        return r;
    }

    private TensorView s32(int value) {
        TensorView v = TensorView.of(arena.allocate(4), "s32[]");
        TensorElements.of(v).setLong(value);
        return v;
    }

    private TensorView scalar(float value) {
        TensorView v = TensorView.of(arena.allocate(4), "f32[]");
        TensorElements.of(v).setFloat(value);
        return v;
    }
}
