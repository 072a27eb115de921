package dev.tensorbuf.ops.exec;

import static dev.tensorbuf.ops.exec.HloExecutorTest.module;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.exec.ExecutedInstruction;
import dev.tensorbuf.ops.exec.internal.Refusals;
import dev.tensorbuf.ops.exec.internal.UnsupportedOpException;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The front end of {@code run} on the forms jax emits: scalar index arithmetic folded into views,
 * dynamic-update-slice, gather, bitcast-convert, tuples anywhere, annotations as the identity, and
 * refusals that name the real op. Values against brute force or hand-computed arrays; the same
 * programs lowered by jax itself are checked against jax in the cli's RunXlaAgreementTest.
 */
class HloFrontEndTest {
    @ArenaPerTest
    private Allocator arena;

    private TensorView f32(String shape) {
        TensorView v = TensorView.of(arena.allocate(1 << 16), shape);
        float[] values = new float[(int) v.elementCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = i;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private TensorView scalar(String type, long value) {
        TensorView v = TensorView.of(arena.allocate(8), type + "[]");
        TensorElements.of(v).setLong(value);
        return v;
    }

    private static ExecutedInstruction step(Execution x, String name) {
        return x.steps().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    /** jax.jit(lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 4))), as jax 0.10 lowers it. */
    private static final String TRACED_SLICE = module(
            "x.1 = f32[6,4]{1,0} parameter(0)",
            "i.1 = s32[] parameter(1)",
            "constant.3 = s32[] constant(0)",
            "lt.1 = pred[] compare(i.1, constant.3), direction=LT",
            "constant.2 = s32[] constant(6)",
            "add.1 = s32[] add(i.1, constant.2)",
            "select_n.1 = s32[] select(lt.1, add.1, i.1)",
            "ROOT dynamic_slice.1 = f32[2,4]{1,0} dynamic-slice(x.1, select_n.1, constant.3), dynamic_slice_sizes={2,4}");

    @Test
    void jaxNegativeIndexHandlingIsFoldedAndTheSliceStaysAView() {
        // i -> row: -3 -> 3, -1 -> 5 clamped to 4 (the slice is 2 rows), 1 -> 1, -9 -> -3 clamped to 0.
        long[][] cases = {{-3, 3}, {-1, 4}, {1, 1}, {-9, 0}, {7, 4}};
        for (long[] c : cases) {
            try (Execution x = HloExecutor.execute(TRACED_SLICE, Map.of("0", f32("f32[6,4]{1,0}"), "1", scalar("s32", c[0])))) {
                float[] r = TensorElements.of(x.rowMajor()).toFloatArray();
                assertEquals(c[1] * 4, r[0], "first element for i = " + c[0]);
                assertEquals(ExecutedInstruction.Kind.FOLDED, step(x, "select_n.1").kind());
                assertEquals(ExecutedInstruction.Kind.FOLDED, step(x, "lt.1").kind());
                assertEquals("folded to " + (c[0] < 0) + " when the view was made", step(x, "lt.1").reason());
                assertEquals(ExecutedInstruction.Kind.VIEW, step(x, "dynamic_slice.1").kind());
            }
        }
    }

    /** Each op in the result type's width with wraparound, unsigned compared unsigned, as XLA computes. */
    @Test
    void scalarArithmeticWrapsAndComparesAsXla() {
        String text = module(
                "a = s32[] parameter(0)",
                "b = u32[] parameter(1)",
                "big = s32[] constant(2147483647)",
                "one = s32[] constant(1)",
                "wrap = s32[] add(big, one)",
                "m = s32[] multiply(big, big)",
                "s = s32[] subtract(a, big)",
                "lo = s32[] constant(-5)",
                "hi = s32[] constant(5)",
                "c = s32[] clamp(lo, a, hi)",
                "mx = s32[] maximum(a, lo)",
                "mn = s32[] minimum(a, lo)",
                "u1 = u32[] constant(1)",
                "ult = pred[] compare(u1, b), direction=LT",
                "sb = s32[] convert(b)",
                "slt = pred[] compare(one, sb), direction=LT",
                "n = pred[] not(slt)",
                "x = pred[] xor(ult, slt)",
                "w = s64[] convert(wrap)",
                "ub = u32[] convert(a)",
                "u8 = u8[] convert(a)",
                "o = pred[] or(n, slt)",
                "sel = s32[] select(x, c, mx)",
                "ROOT r = (s32[], s32[], s32[], s32[], s32[], s32[], s32[], pred[], s32[], pred[], pred[], pred[], s64[],"
                        + " u32[], u8[], pred[]) tuple(sel, wrap, m, s, c, mx, mn, ult, sb, slt, n, x, w, ub, u8, o)");
        Map<String, TensorView> args = Map.of("0", scalar("s32", -7), "1", scalar("u32", 0xfffffffeL));
        try (Execution x = HloExecutor.execute(text, args)) {
            assertEquals(-5, TensorElements.of(x.rowMajor(0)).getLong()); // x is true: b is 4294967294 unsigned but -2 signed
            Map<String, String> expected = Map.ofEntries(Map.entry("wrap", "-2147483648"), Map.entry("m", "1"),
                    Map.entry("s", "2147483642"), Map.entry("c", "-5"), Map.entry("mx", "-5"), Map.entry("mn", "-7"),
                    Map.entry("ult", "true"), Map.entry("sb", "-2"), Map.entry("slt", "false"), Map.entry("n", "true"),
                    Map.entry("x", "true"), Map.entry("w", "-2147483648"), Map.entry("ub", "4294967289"), Map.entry("u8", "249"),
                    Map.entry("o", "true"));
            expected.forEach((name, value) -> assertEquals("folded to " + value + " when the view was made",
                    step(x, name).reason(), name));
        }
    }

    /**
     * Compares that are not scalar index arithmetic (of arrays, of float scalars) are not folded:
     * they run as elementwise ops, evaluated where their value is needed.
     */
    @Test
    void arrayAndFloatComparesRunAsElementwiseOpsNotFolds() {
        String arrays = module("p = f32[4] parameter(0)", "z = f32[4] parameter(1)", "r = f32[4] reverse(z), dimensions={0}",
                "ROOT lt = pred[4] compare(p, r), direction=LT");
        try (Execution x = HloExecutor.execute(arrays, Map.of("0", f32("f32[4]"), "1", f32("f32[4]")))) {
            // p = [0, 1, 2, 3], reverse(z) = [3, 2, 1, 0]
            assertArrayEquals(new long[] {1, 1, 0, 0}, TensorElements.of(x.rowMajor()).toLongArray());
            assertTrue(step(x, "lt").kind() != ExecutedInstruction.Kind.FOLDED, step(x, "lt").toString());
        }
        String floats = module("p = f32[] parameter(0)", "ROOT lt = pred[] compare(p, p), direction=LT");
        TensorView half = TensorView.of(arena.allocate(4), "f32[]");
        TensorElements.of(half).setFloat(0.5f);
        try (Execution x = HloExecutor.execute(floats, Map.of("0", half))) {
            assertEquals(0, TensorElements.of(x.rowMajor()).getLong());
        }
    }

    /** jax.jit(lambda c, n, p: lax.dynamic_update_slice(c, n, (0, p, 0))): a KV-cache write. */
    @Test
    void dynamicUpdateSliceWritesACopyOfAParameterAndInPlaceIntoItsOwnCopy() {
        String text = module(
                "cache = f32[2,8,4]{2,1,0} parameter(0)",
                "new = f32[2,1,4]{2,1,0} parameter(1)",
                "pos = s32[] parameter(2)",
                "zero = s32[] constant(0)",
                "u = f32[2,8,4]{2,1,0} dynamic-update-slice(cache, new, zero, pos, zero)",
                "ROOT v = f32[2,8,4]{2,1,0} dynamic-update-slice(u, new, zero, zero, zero)");
        TensorView cache = f32("f32[2,8,4]{2,1,0}");
        TensorView update = f32("f32[2,1,4]{2,1,0}");
        for (long pos : new long[] {6, 9, -2}) {
            try (Execution x = HloExecutor.execute(text, Map.of("0", cache, "1", update, "2", scalar("s32", pos)))) {
                TensorView r = x.rowMajor();
                long row = Math.max(0, Math.min(pos, 7));
                for (int b = 0; b < 2; b++) {
                    for (int t = 0; t < 8; t++) {
                        for (int c = 0; c < 4; c++) {
                            float want = t == 0 || t == row ? b * 4 + c : b * 32 + t * 4 + c;
                            assertEquals(want, TensorElements.of(r).getFloat(b, t, c), "pos " + pos + " at " + b + "," + t + "," + c);
                        }
                    }
                }
                assertEquals("the operand copied, the update written into the copy", step(x, "u").reason());
                assertTrue(step(x, "v").reason().startsWith("the update written in place"), step(x, "v").reason());
            }
        }
        assertEquals(5f, TensorElements.of(cache).getFloat(0, 1, 1), "the parameter is never written");
    }

    /** jnp.take-like row gather and x[..., [2, 0, 1]], as jax lowers them, against brute force. */
    @Test
    void gathersWithConstantIndicesAreViewsUpToTheRowLimitThenCopies() {
        String channels = module(
                "x = f32[2,3,4,3]{3,2,1,0} parameter(0)",
                "i = s32[3,1]{1,0} constant({ {2}, {0}, {1} })",
                "ROOT g = f32[2,3,4,3]{3,2,1,0} gather(x, i), offset_dims={0,1,2}, collapsed_slice_dims={3},"
                        + " start_index_map={3}, index_vector_dim=1, slice_sizes={2,3,4,1}");
        TensorView x = f32("f32[2,3,4,3]{3,2,1,0}");
        try (Execution e = HloExecutor.execute(channels, Map.of("0", x))) {
            TensorView r = e.rowMajor();
            int[] map = {2, 0, 1};
            TensorElements.of(x).forEachIndex(i -> assertEquals(TensorElements.of(x).getFloat(i[0], i[1], i[2], map[(int) i[3]]), TensorElements.of(r).getFloat(i)));
            assertEquals(ExecutedInstruction.Kind.VIEW, step(e, "g").kind());
            assertEquals("3 index rows read when the view was made: a concatenation of 3 slices", step(e, "g").reason());
        }
        // 300 rows, some out of range (clamped, as XLA clamps a gather's starts): a copy.
        Random rnd = new Random(7);
        StringBuilder idx = new StringBuilder();
        long[] rows = new long[300];
        for (int k = 0; k < rows.length; k++) {
            rows[k] = rnd.nextInt(12) - 3;
            idx.append(k == 0 ? "" : ", ").append(rows[k]);
        }
        String many = module(
                "x = f32[6,5]{1,0} parameter(0)",
                "i = s32[300]{0} constant({" + idx + "})",
                "ROOT g = f32[300,2]{1,0} gather(x, i), offset_dims={1}, collapsed_slice_dims={0},"
                        + " start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}");
        TensorView y = f32("f32[6,5]{1,0}");
        try (Execution e = HloExecutor.execute(many, Map.of("0", y))) {
            TensorView r = e.rowMajor();
            for (int k = 0; k < rows.length; k++) {
                long row = Math.max(0, Math.min(rows[k], 5));
                assertEquals(TensorElements.of(y).getFloat(row, 0), TensorElements.of(r).getFloat(k, 0));
                assertEquals(TensorElements.of(y).getFloat(row, 1), TensorElements.of(r).getFloat(k, 1));
            }
            assertEquals(ExecutedInstruction.Kind.COPY, step(e, "g").kind());
            assertTrue(step(e, "g").reason().contains("300 index rows, more than 256 pieces a view holds: copied a slice per"
                    + " row"), step(e, "g").reason());
        }
    }

    /**
     * jnp.take_along_axis(x, i, axis=1) as jax 0.10 lowers it: a gather whose operand batching dim
     * 0 pairs with indices dim 0, so row r of the result reads row r of x at the clamped column
     * i[r, k]; as a view for few rows and copied a row at a time past 256, against brute force.
     * Batching dims that do not pair are refused, naming why.
     */
    @Test
    void gathersWithBatchingDimsReadEachRowOfTheOperandAtItsIndices() {
        for (int rows : new int[] {4, 300}) {
            Random rnd = new Random(rows);
            StringBuilder idx = new StringBuilder();
            long[][] at = new long[rows][3];
            for (int r = 0; r < rows; r++) {
                idx.append(r == 0 ? "" : ", ").append('{');
                for (int k = 0; k < 3; k++) {
                    at[r][k] = rnd.nextInt(10) - 2;
                    idx.append(k == 0 ? "" : ", ").append(at[r][k]);
                }
                idx.append('}');
            }
            String text = module(
                    "x = f32[" + rows + ",6]{1,0} parameter(0)",
                    "i = s32[" + rows + ",3]{1,0} constant({" + idx + "})",
                    "ROOT g = f32[" + rows + ",3]{1,0} gather(x, i), offset_dims={}, collapsed_slice_dims={1},"
                            + " start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},"
                            + " index_vector_dim=2, slice_sizes={1,1}");
            TensorView x = f32("f32[" + rows + ",6]{1,0}");
            try (Execution e = HloExecutor.execute(text, Map.of("0", x))) {
                TensorView g = e.rowMajor();
                for (int r = 0; r < rows; r++) {
                    for (int k = 0; k < 3; k++) {
                        long column = Math.max(0, Math.min(at[r][k], 5));
                        assertEquals(TensorElements.of(x).getFloat(r, column), TensorElements.of(g).getFloat(r, k), "row " + r + " index " + k);
                    }
                }
                assertEquals(rows > 256 ? ExecutedInstruction.Kind.COPY : ExecutedInstruction.Kind.VIEW, step(e, "g").kind());
            }
        }
        String unpaired = module(
                "x = f32[4,6]{1,0} parameter(0)",
                "i = s32[5,3]{1,0} constant({ {0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2} })",
                "ROOT g = f32[5,3]{1,0} gather(x, i), offset_dims={}, collapsed_slice_dims={1},"
                        + " start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},"
                        + " index_vector_dim=2, slice_sizes={1,1}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloExecutor.execute(unpaired, Map.of("0", f32("f32[4,6]{1,0}"))).close());
        assertTrue(e.getMessage().contains("start_indices_batching_dims [0] must name indices dims, not the index vector's, as"
                + " long as the operand dims they pair with"), e.getMessage());
    }

    /** Gathers of random windows and index rows (out of range at times), two start dims mapped out of order, against brute force. */
    @Test
    void gathersOfRandomWindowsMatchBruteForce() {
        Random rnd = new Random(11);
        TensorView x = f32("f32[5,6,7]{2,1,0}");
        for (int trial = 0; trial < 40; trial++) {
            int rows = 1 + rnd.nextInt(4);
            long[] starts = new long[rows * 2];
            StringBuilder idx = new StringBuilder();
            for (int k = 0; k < rows; k++) {
                starts[2 * k] = rnd.nextInt(9) - 2;
                starts[2 * k + 1] = rnd.nextInt(10) - 2;
                idx.append(k == 0 ? "" : ", ").append("{").append(starts[2 * k]).append(", ").append(starts[2 * k + 1]).append("}");
            }
            long s0 = 1 + rnd.nextInt(3);
            long s2 = 1 + rnd.nextInt(7);
            String text = module(
                    "x = f32[5,6,7]{2,1,0} parameter(0)",
                    "i = s32[" + rows + ",2]{1,0} constant({" + idx + "})",
                    "ROOT g = f32[" + s0 + "," + rows + "," + s2 + "]{2,1,0} gather(x, i), offset_dims={0,2},"
                            + " collapsed_slice_dims={1}, start_index_map={2,0}, index_vector_dim=1, slice_sizes={" + s0 + ",1," + s2 + "}");
            try (Execution e = HloExecutor.execute(text, Map.of("0", x))) {
                TensorView r = e.rowMajor();
                TensorElements.of(r).forEachIndex(i -> {
                    long k = i[1];
                    long d2 = Math.max(0, Math.min(starts[(int) (2 * k)], 7 - s2));
                    long d0 = Math.max(0, Math.min(starts[(int) (2 * k + 1)], 5 - s0));
                    assertEquals(TensorElements.of(x).getFloat(d0 + i[0], 0, d2 + i[2]), TensorElements.of(r).getFloat(i), text);
                });
            }
        }
    }

    /** Past 256 index rows a gather is copied a row's slice at a time: windows, batch dims in two places, against brute force. */
    @Test
    void gathersPastTheViewLimitCopyEachRowsSliceAsBruteForceReads() {
        Random rnd = new Random(13);
        TensorView x = f32("f32[5,6,7]{2,1,0}");
        for (int trial = 0; trial < 3; trial++) {
            int a = 16 + rnd.nextInt(8);
            int b = 17;  // a * b > 256 rows, as a [a, b, 2] index array
            long[] starts = new long[a * b * 2];
            StringBuilder idx = new StringBuilder();
            for (int p = 0; p < a; p++) {
                idx.append(p == 0 ? "{" : ", {");
                for (int q = 0; q < b; q++) {
                    int k = p * b + q;
                    starts[2 * k] = rnd.nextInt(9) - 2;
                    starts[2 * k + 1] = rnd.nextInt(10) - 2;
                    idx.append(q == 0 ? "" : ", ").append("{").append(starts[2 * k]).append(", ").append(starts[2 * k + 1]).append("}");
                }
                idx.append("}");
            }
            long s0 = 1 + rnd.nextInt(3);
            long s2 = 1 + rnd.nextInt(7);
            // Result dims [a, s0, b, s2]: batch dims 0 and 2, offset dims 1 and 3.
            String text = module(
                    "x = f32[5,6,7]{2,1,0} parameter(0)",
                    "i = s32[" + a + "," + b + ",2]{2,1,0} constant({" + idx + "})",
                    "ROOT g = f32[" + a + "," + s0 + "," + b + "," + s2 + "]{3,2,1,0} gather(x, i), offset_dims={1,3},"
                            + " collapsed_slice_dims={1}, start_index_map={2,0}, index_vector_dim=2, slice_sizes={" + s0 + ",1," + s2 + "}");
            try (Execution e = HloExecutor.execute(text, Map.of("0", x))) {
                TensorView r = e.rowMajor();
                assertEquals(ExecutedInstruction.Kind.COPY, step(e, "g").kind());
                assertTrue(step(e, "g").reason().contains("copied a slice per row"), step(e, "g").reason());
                TensorElements.of(r).forEachIndex(i -> {
                    int k = (int) (i[0] * b + i[2]);
                    long d2 = Math.max(0, Math.min(starts[2 * k], 7 - s2));
                    long d0 = Math.max(0, Math.min(starts[2 * k + 1], 5 - s0));
                    assertEquals(TensorElements.of(x).getFloat(d0 + i[1], 0, d2 + i[3]), TensorElements.of(r).getFloat(i), text);
                });
            }
        }
    }

    @Test
    void bitcastConvertIsAViewBetweenEqualWidthsAndReshapesBetweenOthers() {
        TensorView x = TensorView.of(arena.allocate(16), "f32[4]{0}");
        TensorElements.of(x).copyFrom(new float[] {1f, -0f, Float.NaN, -2.5f});
        String same = module("x = f32[4]{0} parameter(0)", "r = f32[4]{0} reverse(x), dimensions={0}",
                "ROOT b = s32[4]{0} bitcast-convert(r)");
        try (Execution e = HloExecutor.execute(same, Map.of("0", x))) {
            assertArrayEquals(new long[] {Float.floatToRawIntBits(-2.5f), 0x7fc00000, Integer.MIN_VALUE, 0x3f800000},
                    TensorElements.of(e.rowMajor()).toLongArray());
            assertEquals(ExecutedInstruction.Kind.VIEW, step(e, "b").kind());
        }
        String bytes = module("x = f32[4]{0} parameter(0)", "ROOT b = u8[4,4]{1,0} bitcast-convert(x)");
        try (Execution e = HloExecutor.execute(bytes, Map.of("0", x))) {
            // Little-endian: 1.0f is 0x3f800000, bytes 00 00 80 3f.
            assertArrayEquals(new long[] {0, 0, 0x80, 0x3f}, java.util.Arrays.copyOf(TensorElements.of(e.rowMajor()).toLongArray(), 4));
            assertEquals(ExecutedInstruction.Kind.COPY, step(e, "b").kind());
        }
        String back = module("x = f32[4]{0} parameter(0)", "b = u8[4,4]{1,0} bitcast-convert(x)",
                "t = u8[4,4]{0,1} transpose(b), dimensions={0,1}", "ROOT f = f32[4]{0} bitcast-convert(t)");
        try (Execution e = HloExecutor.execute(back, Map.of("0", x))) {
            float[] r = TensorElements.of(e.rowMajor()).toFloatArray();
            assertEquals(List.of(0x3f800000, Integer.MIN_VALUE, 0x7fc00000, Float.floatToRawIntBits(-2.5f)),
                    List.of(Float.floatToRawIntBits(r[0]), Float.floatToRawIntBits(r[1]), Float.floatToRawIntBits(r[2]),
                            Float.floatToRawIntBits(r[3])));
        }
        String wrong = module("x = f32[4]{0} parameter(0)", "ROOT b = u8[4,2]{1,0} bitcast-convert(x)");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(wrong, Map.of("0", x)));
        assertTrue(e.getMessage().contains("the u8 side u8[4,2]{1,0} must be the f32 side f32[4]{0} with one more dimension of 4"), e.getMessage());
    }

    /** A nested jit returning two values: a call whose computation ends in a tuple, then get-tuple-element. */
    @Test
    void tuplesRunAnywhereAndCallsReturnThem() {
        String text = """
                HloModule m
                inner {
                  a = f32[2,3]{1,0} parameter(0)
                  t = f32[3,2]{0,1} transpose(a), dimensions={1,0}
                  r = f32[2,3]{1,0} reverse(a), dimensions={0}
                  ROOT tu = (f32[3,2]{0,1}, f32[2,3]{1,0}) tuple(t, r)
                }
                ENTRY e {
                  x = f32[2,3]{1,0} parameter(0)
                  c = (f32[3,2]{0,1}, f32[2,3]{1,0}) call(x), to_apply=inner
                  g0 = f32[3,2]{0,1} get-tuple-element(c), index=0
                  flat = f32[6]{0} reshape(g0)
                  g1 = f32[2,3]{1,0} get-tuple-element(c), index=1
                  pair = (f32[6]{0}, f32[2,3]{1,0}) tuple(flat, g1)
                  h = f32[2,3]{1,0} get-tuple-element(pair), index=1
                  ROOT out = (f32[6]{0}, f32[2,3]{1,0}) tuple(flat, h)
                }
                """;
        try (Execution x = HloExecutor.execute(text, Map.of("0", f32("f32[2,3]{1,0}")))) {
            assertTrue(x.isTuple());
            assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, TensorElements.of(x.rowMajor(0)).toFloatArray());
            assertArrayEquals(new float[] {3, 4, 5, 0, 1, 2}, TensorElements.of(x.rowMajor(1)).toFloatArray());
            assertEquals("element 1 of %pair", step(x, "h").reason());
            assertFalse(x.steps().stream().anyMatch(s -> s.name().equals("pair")), "a tuple is no view, so no step");
        }
        // The ROOT itself may be the call: its elements are the outputs.
        String rootCall = text.replace("ROOT out = (f32[6]{0}, f32[2,3]{1,0}) tuple(flat, h)", "ROOT out = (f32[3,2]{0,1},"
                + " f32[2,3]{1,0}) call(h), to_apply=inner").replace("  x = f32[2,3]{1,0} parameter(0)",
                "  x = f32[2,3]{1,0} parameter(0)");
        try (Execution x = HloExecutor.execute(rootCall, Map.of("0", f32("f32[2,3]{1,0}")))) {
            assertEquals(2, x.outputCount());
            assertArrayEquals(new float[] {3, 0, 4, 1, 5, 2}, TensorElements.of(x.rowMajor(0)).toFloatArray());
        }
    }

    @Test
    void shardyAnnotationsRunAsTheIdentityAndShapeChangingOnesAreRefusedByName() {
        TensorView p = f32("f32[4,8]{1,0}");
        String annotated = module("x = f32[4,8]{1,0} parameter(0)",
                "s = f32[4,8]{1,0} custom-call(x), custom_call_target=\"xla.sdy.PropagationBarrier\"",
                "ROOT r = f32[4,8]{1,0} reverse(s), dimensions={0}");
        try (Execution x = HloExecutor.execute(annotated, Map.of("0", p))) {
            assertEquals(24f, TensorElements.of(x.rowMajor()).getFloat(0, 0));
            assertEquals("xla.sdy.PropagationBarrier runs as the identity", step(x, "s").reason());
        }
        String local = module("x = f32[4,8]{1,0} parameter(0)",
                "ROOT s = f32[2,4]{1,0} custom-call(x), custom_call_target=\"xla.sdy.GlobalToLocalShape\"");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(local, Map.of("0", p)));
        assertTrue(e.getMessage().contains("custom-call xla.sdy.GlobalToLocalShape turns [4, 8] into [2, 4]"), e.getMessage());
    }

    @Test
    void refusalsNameTheRealOp() {
        String kernel = module("p = f32[4] parameter(0)", "ROOT m = f32[4] custom-call(p), custom_call_target=\"my_kernel\"");
        UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(kernel, Map.of()));
        assertTrue(e.getMessage().startsWith("unsupported op 'custom-call' (instruction %m, line 4): custom_call_target=\"my_kernel\""),
                e.getMessage());
        String loop = """
                HloModule m
                body {
                  b = (s64[], f32[4]{0}) parameter(0)
                  i = s64[] get-tuple-element(b), index=0
                  x = f32[4]{0} get-tuple-element(b), index=1
                  y = f32[4]{0} rsqrt(x)
                  ROOT t = (s64[], f32[4]{0}) tuple(i, y)
                }
                cond {
                  c = (s64[], f32[4]{0}) parameter(0)
                  ROOT k = pred[] constant(false)
                }
                ENTRY e {
                  z = s64[] constant(0)
                  x = f32[4]{0} parameter(0)
                  t = (s64[], f32[4]{0}) tuple(z, x)
                  w = (s64[], f32[4]{0}) while(t), condition=cond, body=body
                  ROOT r = f32[4]{0} get-tuple-element(w), index=1
                }
                """;
        e = assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(loop, Map.of()));
        assertEquals("rsqrt", e.opcode());
        assertTrue(e.getMessage().startsWith("unsupported op 'rsqrt' (instruction %y, line 6, in body, the body of %w, line 17)"),
                e.getMessage());
        String reduce = """
                HloModule m
                add {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT s = f32[] add(a, b)
                }
                ENTRY e {
                  x = f32[2,4]{1,0} parameter(0)
                  ROOT r = f32[2,4]{1,0} all-reduce(x), channel_id=1, replica_groups=mesh['a'=2,'b'=2] {'a'}, use_global_device_ids=true, to_apply=add
                }
                """;
        e = assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(reduce, Map.of()));
        assertEquals("all-reduce", e.opcode());
        assertTrue(e.detail().contains("replica_groups=mesh['a'=2,'b'=2] {'a'} (groups {{0,2},{1,3}})"), e.getMessage());
        String listed = reduce.replace("mesh['a'=2,'b'=2] {'a'}", "{{0,1},{2,3}}");
        e = assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(listed, Map.of()));
        assertTrue(e.detail().contains("replica_groups={{0,1},{2,3}}"), e.getMessage());
    }

    @Test
    void meshReplicaGroupsExpandAsXlaNumbersDevices() {
        assertEquals(" (groups {{0,1,2,3},{4,5,6,7}})", Refusals.describeGroups("mesh['stage'=2,'local'=4] {'local'}"));
        assertEquals(" (groups {{0,4},{1,5},{2,6},{3,7}})", Refusals.describeGroups("mesh['stage'=2,'local'=4] {'stage'}"));
        assertEquals(" (groups {{0,2},{1,3}})",
                Refusals.describeGroups("mesh['axis_0'=2,'axis_1'=2,'axis_2'=1,'axis_3'=1] {'axis_0'}"));
        assertEquals(" (groups {{0,2,1,3}})", Refusals.describeGroups("mesh['a'=2,'b'=2] {'b','a'}"));
        assertEquals("", Refusals.describeGroups("{{0,1}}"));
        assertEquals("", Refusals.describeGroups("mesh['a'=2] {'c'}"));
        // The parser keeps the axes after the space as part of the value.
        HloModule m = HloModule.parse("HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\n"
                + "ENTRY e {\n x = f32[2] parameter(0)\n ROOT r = f32[2] all-reduce(x), replica_groups=mesh['x'=8] {'x'}, to_apply=add\n}\n");
        assertEquals("mesh['x'=8] {'x'}", m.entry().root().text("replica_groups").orElseThrow());
    }

    /** jnp.pad(x, 1, constant_values=-0.0) prints constant(-0): the pad must give -0.0, not +0. */
    @Test
    void negativeZeroConstantPadsWithNegativeZero() {
        String text = module("x = f32[2,2]{1,0} parameter(0)", "c = f32[] constant(-0)",
                "ROOT p = f32[4,4]{1,0} pad(x, c), padding=1_1x1_1");
        try (Execution x = HloExecutor.execute(text, Map.of("0", f32("f32[2,2]{1,0}")))) {
            float[] r = TensorElements.of(x.rowMajor()).toFloatArray();
            int negativeZeros = 0;
            for (float v : r) {
                negativeZeros += Float.floatToRawIntBits(v) == Integer.MIN_VALUE ? 1 : 0;
            }
            assertEquals(12, negativeZeros);
        }
    }

    /** Iota along any dim, in float and narrow integer types; s8 counts wrap as XLA's do. */
    @Test
    void iotaInAnyDimensionAndType() {
        String text = module("a = bf16[3,300]{1,0} iota(), iota_dimension=1",
                "b = s8[200,2]{1,0} iota(), iota_dimension=0",
                "ROOT t = (bf16[3,300]{1,0}, s8[200,2]{1,0}) tuple(a, b)");
        try (Execution x = HloExecutor.execute(text, Map.of())) {
            TensorView a = x.rowMajor(0);
            assertEquals(256.0, TensorElements.of(a).getDouble(2, 257)); // bf16 has 8 significant bits: 257 rounds to 256
            assertEquals(258.0, TensorElements.of(a).getDouble(0, 258));
            assertEquals(-128, TensorElements.of(x.rowMajor(1)).getLong(128, 1));
            assertEquals(127, TensorElements.of(x.rowMajor(1)).getLong(127, 0));
        }
    }
}
