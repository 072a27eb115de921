package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code sort} against Java's stable sort: jax's comparator (each NaN made one NaN, -0 made +0,
 * then a TOTALORDER compare) on values with NaNs, infinities and zeros of both signs, along each
 * dim of a random shape, ascending and descending, with an index operand riding along (argsort);
 * two keys compared in turn ({@code jnp.lexsort}); {@code topk} and XLA's {@code TopK} custom-call
 * against a stable sort by XLA's total order.
 * jax's own sorts are checked against jax in the cli's RunXlaAgreementTest.
 */
class SortTest {
    @ArenaPerTest
    private Allocator arena;

    private static String module(int rows, int cols, int dim, String direction, String stable) {
        String s = "f32[" + rows + "," + cols + "]{1,0}";
        String i = "s32[" + rows + "," + cols + "]{1,0}";
        return "HloModule m\ncmp {\n"
                + "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
                + "  nan = f32[] constant(nan)\n  zero = f32[] constant(0)\n"
                + "  na = pred[] compare(a, a), direction=NE\n  nb = pred[] compare(b, b), direction=NE\n"
                + "  za = pred[] compare(a, zero), direction=EQ\n  zb = pred[] compare(b, zero), direction=EQ\n"
                + "  sa = f32[] select(za, zero, a)\n  sb = f32[] select(zb, zero, b)\n"
                + "  ka = f32[] select(na, nan, sa)\n  kb = f32[] select(nb, nan, sb)\n"
                + "  ROOT lt = pred[] compare(ka, kb), direction=" + direction + ", type=TOTALORDER\n}\n"
                + "ENTRY e {\n  x = " + s + " parameter(0)\n  i = " + i + " iota(), iota_dimension=" + dim + "\n"
                + "  t = (" + s + ", " + i + ") sort(x, i), dimensions={" + dim + "}" + stable + ", to_apply=cmp\n"
                + "  ROOT r = " + i + " get-tuple-element(t), index=1\n}\n";
    }

    /** NaN last (jax makes every NaN one positive NaN), -0 equal to +0. */
    private static int order(float a, float b) {
        float ka = Float.isNaN(a) ? Float.NaN : a == 0 ? 0f : a;
        float kb = Float.isNaN(b) ? Float.NaN : b == 0 ? 0f : b;
        return Float.compare(ka, kb);
    }

    /** {@return the positions along {@code dim} of a row-major [rows, cols] ordered by Java's stable sort of {@code byElement} (row-major indices)} */
    private static int[] stableArgsort(int rows, int cols, int dim, Comparator<Integer> byElement) {
        int[] want = new int[rows * cols];
        int len = dim == 0 ? rows : cols;
        for (int other = 0; other < (dim == 0 ? cols : rows); other++) {
            int o = other;
            java.util.function.IntUnaryOperator at = j -> dim == 0 ? j * cols + o : o * cols + j;
            Integer[] perm = new Integer[len];
            for (int j = 0; j < len; j++) {
                perm[j] = j;
            }
            Arrays.sort(perm, (p, q) -> byElement.compare(at.applyAsInt(p), at.applyAsInt(q)));
            for (int j = 0; j < len; j++) {
                want[at.applyAsInt(j)] = perm[j];
            }
        }
        return want;
    }

    @Test
    void anArgsortOrdersAsJavasStableSortWithNaNsLastAndZerosTied() {
        Random rnd = new Random(23);
        float[] specials = {Float.NaN, -Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 0f, 1f, 1f};
        for (int trial = 0; trial < 40; trial++) {
            int rows = 1 + rnd.nextInt(5);
            int cols = 1 + rnd.nextInt(9);
            int dim = rnd.nextInt(2);
            boolean descending = rnd.nextBoolean();
            float[] x = new float[rows * cols];
            for (int k = 0; k < x.length; k++) {
                x[k] = rnd.nextInt(3) == 0 ? specials[rnd.nextInt(specials.length)] : rnd.nextInt(7) - 3;
            }
            TensorView xv = TensorView.of(arena.allocate(4L * x.length), "f32[" + rows + "," + cols + "]");
            TensorElements.of(xv).copyFrom(x);
            Comparator<Integer> byValue = (p, q) -> order(x[p], x[q]);
            int[] want = stableArgsort(rows, cols, dim, descending ? byValue.reversed() : byValue);
            String text = module(rows, cols, dim, descending ? "GT" : "LT", ", is_stable=true");
            try (Execution e = HloExecutor.execute(text, Map.of("0", xv))) {
                assertArrayEquals(want, TensorElements.of(e.rowMajor()).toIntArray(), Arrays.toString(x) + "\n" + text);
            }
        }
    }

    @Test
    void anUnstableSortWithDifferingTiesOrAnUnreadComparatorIsRefused() {
        TensorView x = TensorView.of(arena.allocate(16), "f32[1,4]");
        TensorElements.of(x).copyFrom(new float[] {2f, 1f, 2f, 0f});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloExecutor.execute(module(1, 4, 1, "LT", ""), Map.of("0", x)).close());
        assertTrue(e.getMessage().contains("it is not stable (no is_stable=true) and elements 0 and 2"), e.getMessage());
        TensorElements.of(x).copyFrom(new float[] {2f, 1f, 3f, 0f});
        try (Execution ok = HloExecutor.execute(module(1, 4, 1, "LT", ""), Map.of("0", x))) {
            assertArrayEquals(new int[] {3, 1, 0, 2}, TensorElements.of(ok.rowMajor()).toIntArray());   // no ties: any sort agrees
        }
        String lexicographic = module(1, 4, 1, "LT", ", is_stable=true").replace("ROOT lt = pred[] compare(ka, kb), direction=LT, type=TOTALORDER",
                "k1 = pred[] compare(ka, kb), direction=LT, type=TOTALORDER\n  k2 = pred[] compare(c, d), direction=LT\n  ROOT lt = pred[] or(k1, k2)");
        e = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(lexicographic, Map.of("0", x)).close());
        assertTrue(e.getMessage().contains("nor a lexicographic chain of such compares"), e.getMessage());
    }

    /**
     * jax's comparator for {@code num_keys=2} ({@code jnp.lexsort}): a float key first, an int key
     * deciding its ties, an index riding along; the or's and the and's operands in either order.
     */
    private static String lexModule(int rows, int cols, int dim, String direction, boolean swapOr, boolean swapAnd) {
        String s = "f32[" + rows + "," + cols + "]{1,0}";
        String i = "s32[" + rows + "," + cols + "]{1,0}";
        String tie = swapAnd ? "and(second, same)" : "and(same, second)";
        return "HloModule m\ncmp {\n"
                + "  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
                + "  e = s32[] parameter(4)\n  f = s32[] parameter(5)\n"
                + "  nan = f32[] constant(nan)\n  zero = f32[] constant(0)\n"
                + "  na = pred[] compare(a, a), direction=NE\n  nb = pred[] compare(b, b), direction=NE\n"
                + "  za = pred[] compare(a, zero), direction=EQ\n  zb = pred[] compare(b, zero), direction=EQ\n"
                + "  sa = f32[] select(za, zero, a)\n  sb = f32[] select(zb, zero, b)\n"
                + "  ka = f32[] select(na, nan, sa)\n  kb = f32[] select(nb, nan, sb)\n"
                + "  first = pred[] compare(ka, kb), direction=" + direction + ", type=TOTALORDER\n"
                + "  same = pred[] compare(" + (swapAnd ? "kb, ka" : "ka, kb") + "), direction=EQ, type=TOTALORDER\n"
                + "  second = pred[] compare(c, d), direction=LT\n"
                + "  rest = pred[] " + tie + "\n"
                + "  ROOT lt = pred[] or(" + (swapOr ? "rest, first" : "first, rest") + ")\n}\n"
                + "ENTRY e {\n  x = " + s + " parameter(0)\n  y = " + i + " parameter(1)\n"
                + "  i = " + i + " iota(), iota_dimension=" + dim + "\n"
                + "  t = (" + s + ", " + i + ", " + i + ") sort(x, y, i), dimensions={" + dim + "}, is_stable=true, to_apply=cmp\n"
                + "  ROOT r = " + i + " get-tuple-element(t), index=2\n}\n";
    }

    @Test
    void aLexicographicSortOrdersByTheFirstKeyThenTheSecondAsJavasStableSort() {
        Random rnd = new Random(29);
        float[] specials = {Float.NaN, Float.POSITIVE_INFINITY, -0f, 0f, 1f};
        for (int trial = 0; trial < 40; trial++) {
            int rows = 1 + rnd.nextInt(5);
            int cols = 1 + rnd.nextInt(9);
            int dim = rnd.nextInt(2);
            boolean descending = rnd.nextBoolean();
            float[] x = new float[rows * cols];
            int[] y = new int[rows * cols];
            for (int k = 0; k < x.length; k++) {
                x[k] = rnd.nextInt(2) == 0 ? specials[rnd.nextInt(specials.length)] : rnd.nextInt(3);
                y[k] = rnd.nextInt(4) - 2;
            }
            TensorView xv = TensorView.of(arena.allocate(4L * x.length), "f32[" + rows + "," + cols + "]");
            TensorElements.of(xv).copyFrom(x);
            TensorView yv = TensorView.of(arena.allocate(4L * y.length), "s32[" + rows + "," + cols + "]");
            TensorElements.of(yv).copyFrom(y);
            Comparator<Integer> first = (p, q) -> order(x[p], x[q]);
            int[] want = stableArgsort(rows, cols, dim, (descending ? first.reversed() : first).thenComparingInt(p -> y[p]));
            String text = lexModule(rows, cols, dim, descending ? "GT" : "LT", rnd.nextBoolean(), rnd.nextBoolean());
            try (Execution e = HloExecutor.execute(text, Map.of("0", xv, "1", yv))) {
                assertArrayEquals(want, TensorElements.of(e.rowMajor()).toIntArray(),
                        Arrays.toString(x) + "\n" + Arrays.toString(y) + "\n" + text);
            }
        }
        // The tie's compare must be EQ of the first key's own sides: of other values it is no chain.
        String wrong = lexModule(1, 4, 1, "LT", false, false).replace("same = pred[] compare(ka, kb), direction=EQ", "same = pred[] compare(c, d), direction=EQ");
        TensorView xv = TensorView.of(arena.allocate(16), "f32[1,4]");
        TensorView yv = TensorView.of(arena.allocate(16), "s32[1,4]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloExecutor.execute(wrong, Map.of("0", xv, "1", yv)).close());
        assertTrue(e.getMessage().contains("nor a lexicographic chain of such compares"), e.getMessage());
    }

    /** XLA's total order of a float: by its bits, a negative one's magnitude flipped (-NaN < -inf < -0 < +0 < +inf < +NaN). */
    private static int totalOrder(float a, float b) {
        int x = Float.floatToRawIntBits(a);
        int y = Float.floatToRawIntBits(b);
        return Integer.compare(x < 0 ? x ^ Integer.MAX_VALUE : x, y < 0 ? y ^ Integer.MAX_VALUE : y);
    }

    /** The comparator of XLA's CPU custom-call TopK as jax 0.10 writes it (with the positions' parameters, or without). */
    private static String topKComparator(boolean positions) {
        return "gt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                + (positions ? "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n" : "")
                + "  zero = s32[] constant(0)\n  max = s32[] constant(2147483647)\n"
                + "  ia = s32[] bitcast(a)\n  ib = s32[] bitcast(b)\n  xa = s32[] xor(max, ia)\n  xb = s32[] xor(max, ib)\n"
                + "  na = pred[] compare(ia, zero), direction=LT\n  nb = pred[] compare(ib, zero), direction=LT\n"
                + "  ka = s32[] select(na, xa, ia)\n  kb = s32[] select(nb, xb, ib)\n"
                + "  ROOT gt = pred[] compare(ka, kb), direction=GT\n}\n";
    }

    @Test
    void topKTakesTheGreatestOrLeastInXlasTotalOrderTiesByTheLowerPosition() {
        Random rnd = new Random(31);
        float[] specials = {Float.NaN, Float.intBitsToFloat(0xffc00000), Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 0f,
            1f, 1f, -1f};
        for (int trial = 0; trial < 40; trial++) {
            int rows = 1 + rnd.nextInt(4);
            int cols = 1 + rnd.nextInt(9);
            int k = rnd.nextInt(cols + 1);
            int form = rnd.nextInt(4);   // the op (largest, or least), or the custom-call (comparator with or without positions)
            boolean largest = form != 1;
            float[] x = new float[rows * cols];
            for (int i = 0; i < x.length; i++) {
                x[i] = rnd.nextBoolean() ? specials[rnd.nextInt(specials.length)] : rnd.nextInt(5) - 2;
            }
            TensorView xv = TensorView.of(arena.allocate(4L * x.length), "f32[" + rows + "," + cols + "]");
            TensorElements.of(xv).copyFrom(x);
            Comparator<Integer> byTotalOrder = (p, q) -> totalOrder(x[p], x[q]);
            int[] perm = stableArgsort(rows, cols, 1, largest ? byTotalOrder.reversed() : byTotalOrder);
            int[] wantBits = new int[rows * k];
            int[] wantPositions = new int[rows * k];
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < k; j++) {
                    wantPositions[r * k + j] = perm[r * cols + j];
                    wantBits[r * k + j] = Float.floatToRawIntBits(x[r * cols + perm[r * cols + j]]);
                }
            }
            String out = "(f32[" + rows + "," + k + "]{1,0}, s32[" + rows + "," + k + "]{1,0})";
            String text = "HloModule m\n" + (form >= 2 ? topKComparator(form == 3) : "") + "ENTRY e {\n  x = f32[" + rows + "," + cols
                    + "]{1,0} parameter(0)\n  ROOT t = " + out + (form >= 2
                            ? " custom-call(x), custom_call_target=\"TopK\", called_computations={%gt}\n}\n"
                            : " topk(x), k=" + k + ", largest=" + largest + "\n}\n");
            try (Execution e = HloExecutor.execute(text, Map.of("0", xv))) {
                TensorElements values = TensorElements.of(e.rowMajor(0));
                int[] bits = new int[rows * k];
                for (int i = 0; i < bits.length; i++) {
                    bits[i] = (int) values.getBits(i / k, i % k);
                }
                assertArrayEquals(wantBits, bits, Arrays.toString(x) + "\n" + text);
                assertArrayEquals(wantPositions, TensorElements.of(e.rowMajor(1)).toIntArray(), Arrays.toString(x) + "\n" + text);
            }
        }
        TensorView xv = TensorView.of(arena.allocate(16), "f32[1,4]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute("HloModule m\nENTRY e {\n"
                + "  x = f32[1,4]{1,0} parameter(0)\n  ROOT t = (f32[1,5]{1,0}, s32[1,5]{1,0}) topk(x), k=5, largest=true\n}\n",
                Map.of("0", xv)).close());
        assertTrue(e.getMessage().contains("with k=5 (at most 4) in its last dim"), e.getMessage());
    }

    /**
     * A comparator's {@code type=FLOAT} compare as XLA's CPU code makes it, with denormals read as
     * zero: f32, f64 and bf16 denormals tie with both zeros, f16 ones do not (widened exactly).
     * The orders are jax 0.10.2's (argsort of the same bits; f32 also through a negate).
     * {@code TOTALORDER} orders every bit pattern; so does XLA, but where it converts bf16 with
     * AVX512-BF16's instruction (RELIABILITY's open gaps).
     */
    @Test
    void aFloatCompareInAComparatorReadsDenormalsAsZeroButInF16() {
        long[] f32 = {0x8000_0000L, 0x8000_0008L, 8, 0, 0x3f80_0000L, 1, 0x8000_0001L};
        long[] f64 = {0x8000_0000_0000_0000L, 0x8000_0000_0000_0008L, 8, 0, 0x3ff0_0000_0000_0000L, 1, 0x8000_0000_0000_0001L};
        long[] half = {0x8000, 0x8008, 8, 0, 0x3c00, 1, 0x8001};
        long[] bf16 = {0x8000, 0x8008, 8, 0, 0x3f80, 1, 0x8001};
        int[] zerosTie = {0, 1, 2, 3, 5, 6, 4};
        int[] zerosTieDescending = {4, 0, 1, 2, 3, 5, 6};
        assertArgsort("f32", f32, "", "LT", "FLOAT", zerosTie);
        assertArgsort("f32", f32, "", "GT", "FLOAT", zerosTieDescending);
        assertArgsort("f32", f32, "negate", "LT", "FLOAT", zerosTieDescending);
        assertArgsort("f64", f64, "", "LT", "FLOAT", zerosTie);
        assertArgsort("bf16", bf16, "", "LT", "FLOAT", zerosTie);
        assertArgsort("bf16", bf16, "", "GT", "FLOAT", zerosTieDescending);
        assertArgsort("f16", half, "", "LT", "FLOAT", new int[] {1, 6, 0, 3, 5, 2, 4});
        assertArgsort("f16", half, "", "GT", "FLOAT", new int[] {4, 2, 5, 0, 3, 6, 1});
        assertArgsort("f32", f32, "", "LT", "TOTALORDER", new int[] {1, 6, 0, 3, 5, 2, 4});
        assertArgsort("f32", f32, "negate", "LT", "TOTALORDER", new int[] {4, 2, 5, 3, 0, 6, 1});
        assertArgsort("bf16", bf16, "", "LT", "TOTALORDER", new int[] {1, 6, 0, 3, 5, 2, 4});
    }

    private void assertArgsort(String type, long[] bits, String function, String direction, String compareType, int[] want) {
        int n = bits.length;
        String key = function.isEmpty() ? "" : "  fa = " + type + "[] " + function + "(a)\n  fb = " + type + "[] " + function + "(b)\n";
        String sides = function.isEmpty() ? "a, b" : "fa, fb";
        String text = "HloModule m\ncmp {\n  a = " + type + "[] parameter(0)\n  b = " + type + "[] parameter(1)\n"
                + "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n" + key
                + "  ROOT lt = pred[] compare(" + sides + "), direction=" + direction + ", type=" + compareType + "\n}\n"
                + "ENTRY e {\n  x = " + type + "[" + n + "] parameter(0)\n  i = s32[" + n + "] iota(), iota_dimension=0\n"
                + "  t = (" + type + "[" + n + "], s32[" + n + "]) sort(x, i), dimensions={0}, is_stable=true, to_apply=cmp\n"
                + "  ROOT r = s32[" + n + "] get-tuple-element(t), index=1\n}\n";
        TensorView xv = TensorView.of(arena.allocate(8L * n), type + "[" + n + "]");
        for (int i = 0; i < n; i++) {
            TensorElements.of(xv).setBits(bits[i], i);
        }
        try (Execution e = HloExecutor.execute(text, Map.of("0", xv))) {
            assertArrayEquals(want, TensorElements.of(e.rowMajor()).toIntArray(), text);
        }
    }
}
