package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code scatter} against a plain loop: random operands, windows and index rows (repeated, and
 * out of range, whose windows are skipped whole), each update combined in the updates' order by
 * an assignment, a commutative op or a subtract. jax's own scatters ({@code .at[i].add},
 * one-hot, histograms, a bf16 scatter-add) are checked against jax in the cli's
 * RunXlaAgreementTest.
 */
class ScatterTest {
    @ArenaPerTest
    private Allocator arena;

    private static String module(String type, String op, int rows, int cols, int k, int window) {
        String combine = op.equals("assign") ? "  ROOT b = " + type + "[] parameter(1)"
                : "  b = " + type + "[] parameter(1)\n  ROOT r = " + type + "[] " + op + "(a, b)";
        return "HloModule m\nupd {\n  a = " + type + "[] parameter(0)\n" + combine + "\n}\nENTRY e {\n"
                + "  x = " + type + "[" + rows + "," + cols + "]{1,0} parameter(0)\n"
                + "  i = s32[" + k + ",2]{1,0} parameter(1)\n"
                + "  u = " + type + "[" + k + "," + window + "]{1,0} parameter(2)\n"
                + "  ROOT s = " + type + "[" + rows + "," + cols + "]{1,0} scatter(x, i, u), update_window_dims={1},"
                + " inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=upd\n}\n";
    }

    @Test
    void updatesLandAsAPlainLoopPutsThemInOrderAndOutOfRangeWindowsAreSkipped() {
        Random rnd = new Random(11);
        for (int trial = 0; trial < 60; trial++) {
            int rows = 1 + rnd.nextInt(6);
            int cols = 1 + rnd.nextInt(7);
            int window = 1 + rnd.nextInt(cols);
            int k = 1 + rnd.nextInt(12);
            String op = new String[] {"assign", "add", "maximum", "minimum", "subtract", "multiply"}[rnd.nextInt(6)];
            boolean floats = rnd.nextBoolean();
            int[] idx = new int[2 * k];
            for (int j = 0; j < idx.length; j++) {
                idx[j] = rnd.nextInt(Math.max(rows, cols) + 3) - 1;   // -1 and past the end too
            }
            TensorView indices = TensorView.of(arena.allocate(8L * k), "s32[" + k + ",2]");
            TensorElements.of(indices).copyFrom(idx);
            String type = floats ? "f32" : "s32";
            TensorView x = TensorView.of(arena.allocate(4L * rows * cols), type + "[" + rows + "," + cols + "]");
            TensorView u = TensorView.of(arena.allocate(4L * k * window), type + "[" + k + "," + window + "]");
            float[] xf = new float[rows * cols];
            float[] uf = new float[k * window];
            int[] xi = new int[rows * cols];
            int[] ui = new int[k * window];
            for (int j = 0; j < xf.length; j++) {
                xf[j] = (float) (rnd.nextGaussian() * 10);
                xi[j] = rnd.nextInt(2001) - 1000;
            }
            for (int j = 0; j < uf.length; j++) {
                uf[j] = (float) (rnd.nextGaussian() * 10);
                ui[j] = rnd.nextInt(2001) - 1000;
            }
            if (floats) {
                TensorElements.of(x).copyFrom(xf);
                TensorElements.of(u).copyFrom(uf);
            } else {
                TensorElements.of(x).copyFrom(xi);
                TensorElements.of(u).copyFrom(ui);
            }
            for (int j = 0; j < k; j++) {
                int r = idx[2 * j];
                int c = idx[2 * j + 1];
                if (r < 0 || r > rows - 1 || c < 0 || c > cols - window) {
                    continue;
                }
                for (int w = 0; w < window; w++) {
                    int at = r * cols + c + w;
                    float a = xf[at];
                    float b = uf[j * window + w];
                    xf[at] = switch (op) {
                        case "assign" -> b;
                        case "add" -> a + b;
                        case "maximum" -> Math.max(a, b);
                        case "minimum" -> Math.min(a, b);
                        case "subtract" -> a - b;
                        default -> a * b;
                    };
                    int ai = xi[at];
                    int bi = ui[j * window + w];
                    xi[at] = switch (op) {
                        case "assign" -> bi;
                        case "add" -> ai + bi;
                        case "maximum" -> Math.max(ai, bi);
                        case "minimum" -> Math.min(ai, bi);
                        case "subtract" -> ai - bi;
                        default -> ai * bi;
                    };
                }
            }
            String text = module(type, op, rows, cols, k, window);
            try (Execution e = HloExecutor.execute(text, Map.of("0", x, "1", indices, "2", u))) {
                if (floats) {
                    assertArrayEquals(xf, TensorElements.of(e.rowMajor()).toFloatArray(), text);
                } else {
                    assertArrayEquals(xi, TensorElements.of(e.rowMajor()).toIntArray(), text);
                }
            }
        }
    }

    /** Batching dims, as vmap writes x.at[i].add(v) per row: row b's update lands in row b. */
    @Test
    void aBatchedScatterUpdatesEachRowAtItsOwnIndices() {
        String text = """
                HloModule m
                upd {
                  a = s32[] parameter(0)
                  b = s32[] parameter(1)
                  ROOT r = s32[] add(a, b)
                }
                ENTRY e {
                  x = s32[3,5]{1,0} parameter(0)
                  i = s32[3,2,1]{2,1,0} parameter(1)
                  u = s32[3,2]{1,0} parameter(2)
                  ROOT s = s32[3,5]{1,0} scatter(x, i, u), update_window_dims={}, inserted_window_dims={1},
                    scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2,
                    to_apply=upd
                }
                """;
        TensorView x = TensorView.of(arena.allocate(60), "s32[3,5]");
        TensorElements.of(x).copyFrom(new int[15]);
        TensorView i = TensorView.of(arena.allocate(24), "s32[3,2,1]");
        TensorElements.of(i).copyFrom(new int[] {4, 4, 0, 9, 2, 1});
        TensorView u = TensorView.of(arena.allocate(24), "s32[3,2]");
        TensorElements.of(u).copyFrom(new int[] {1, 10, 100, 1000, 7, 8});
        try (Execution e = HloExecutor.execute(text, Map.of("0", x, "1", i, "2", u))) {
            assertArrayEquals(new int[] {0, 0, 0, 0, 11, 100, 0, 0, 0, 0, 0, 8, 7, 0, 0}, TensorElements.of(e.rowMajor()).toIntArray());
        }
    }

    /**
     * Windows that overlap land update by update, though the window dim comes first in the
     * updates: [0, 4) then [1, 5) keeps the second window's values where they meet, as jax 0.10.2
     * does (element by element in the updates' order would keep the first's 2, 3 and 4). The sum
     * of f32 windows adds in that order too: 1e8 + 1 + -1e8 is 0, 1e8 + -1e8 + 1 would be 1.
     */
    @Test
    void overlappingWindowsLandUpdateByUpdateWhateverTheUpdatesDimOrder() {
        String assign = """
                HloModule m
                upd {
                  a = s32[] parameter(0)
                  ROOT b = s32[] parameter(1)
                }
                ENTRY e {
                  x = s32[5]{0} parameter(0)
                  i = s32[2,1]{1,0} parameter(1)
                  u = s32[4,2]{1,0} parameter(2)
                  ROOT s = s32[5]{0} scatter(x, i, u), update_window_dims={0}, inserted_window_dims={},
                    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=upd
                }
                """;
        TensorView x = TensorView.of(arena.allocate(20), "s32[5]");
        TensorElements.of(x).copyFrom(new int[5]);
        TensorView i = TensorView.of(arena.allocate(8), "s32[2,1]");
        TensorElements.of(i).copyFrom(new int[] {0, 1});
        TensorView u = TensorView.of(arena.allocate(32), "s32[4,2]");
        TensorElements.of(u).copyFrom(new int[] {1, 10, 2, 20, 3, 30, 4, 40});
        try (Execution e = HloExecutor.execute(assign, Map.of("0", x, "1", i, "2", u))) {
            assertArrayEquals(new int[] {1, 10, 20, 30, 40}, TensorElements.of(e.rowMajor()).toIntArray());
        }
        String add = assign.replace("s32", "f32").replace("ROOT b = f32[] parameter(1)", "b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)")
                .replace("f32[2,1]", "s32[2,1]").replace("f32[4,2]", "f32[2,3]").replace("update_window_dims={0}", "update_window_dims={1}");
        // Updates [2,3] with the window dim last, against [3,2] with it first: both give one order.
        TensorView xf = TensorView.of(arena.allocate(20), "f32[5]");
        TensorElements.of(xf).copyFrom(new float[] {0, 1e8f, 0, 0, 0});
        TensorView uf = TensorView.of(arena.allocate(24), "f32[2,3]");
        TensorElements.of(uf).copyFrom(new float[] {0, 1, 0, -1e8f, 0, 0});
        try (Execution e = HloExecutor.execute(add, Map.of("0", xf, "1", i, "2", uf))) {
            assertArrayEquals(new float[] {0, 0, 0, 0, 0}, TensorElements.of(e.rowMajor()).toFloatArray());
        }
        String addWindowFirst = add.replace("f32[2,3]", "f32[3,2]").replace("update_window_dims={1}", "update_window_dims={0}");
        TensorView ut = TensorView.of(arena.allocate(24), "f32[3,2]");
        TensorElements.of(ut).copyFrom(new float[] {0, -1e8f, 1, 0, 0, 0});
        try (Execution e = HloExecutor.execute(addWindowFirst, Map.of("0", xf, "1", i, "2", ut))) {
            assertArrayEquals(new float[] {0, 0, 0, 0, 0}, TensorElements.of(e.rowMajor()).toFloatArray());
        }
    }

    @Test
    void anUpdateComputationThatIsNoOneOpIsRefusedNamingIt() {
        String text = module("f32", "add", 2, 2, 1, 1).replace("ROOT r = f32[] add(a, b)", "s = f32[] add(a, b)\n  ROOT r = f32[] negate(s)");
        TensorView x = TensorView.of(arena.allocate(16), "f32[2,2]");
        TensorView i = TensorView.of(arena.allocate(8), "s32[1,2]");
        TensorView u = TensorView.of(arena.allocate(4), "f32[1,1]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloExecutor.execute(text, Map.of("0", x, "1", i, "2", u)).close());
        assertTrue(e.getMessage().contains("its update computation upd is neither an assignment"), e.getMessage());
        String reversed = module("f32", "subtract", 2, 2, 1, 1).replace("subtract(a, b)", "subtract(b, a)");
        e = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(reversed, Map.of("0", x, "1", i, "2", u)).close());
        assertTrue(e.getMessage().contains("[divide, remainder, shift-left, shift-right-arithmetic, shift-right-logical, subtract]"
                + " of the element by the update"), e.getMessage());
    }
}
