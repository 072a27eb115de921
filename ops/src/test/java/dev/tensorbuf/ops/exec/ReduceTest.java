package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.exec.internal.UnsupportedOpException;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code run}'s {@code reduce}: random reductions of views (transposed, stepped, reversed) by
 * every reducer and type it runs, against an element-by-element fold; the cases where jax 0.10
 * does what no fold says (one element kept as it is, none giving the init, denormals flushed);
 * and the refusals, each naming why.
 */
class ReduceTest {
    private static final List<DType> TYPES = List.of(DType.F32, DType.F64, DType.F16, DType.BF16, DType.S32, DType.S8,
            DType.U8, DType.U32, DType.S64, DType.U16, DType.PRED);
    private static final List<String> INTEGER_OPS = List.of("add", "multiply", "maximum", "minimum", "and", "or", "xor");

    @Test
    void randomReductionsOfViewsEqualAFoldElementByElement() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        Random rnd = new Random(seed);
        for (int c = 0; c < 300; c++) {
            DType t = TYPES.get(rnd.nextInt(TYPES.size()));
            List<String> ops = reducers(t);
            String op = ops.get(rnd.nextInt(ops.size()));
            int rank = 1 + rnd.nextInt(4);
            long[] dims = new long[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = rnd.nextInt(8) == 0 ? rnd.nextInt(2) : 1 + rnd.nextInt(rank == 1 ? 3000 : rank == 2 ? 90 : 9);
            }
            List<Integer> over = new ArrayList<>();
            for (int d = 0; d < rank; d++) {
                if (rnd.nextBoolean()) {
                    over.add(d);
                }
            }
            String view = List.of("transpose", "reverse", "slice", "flip", "none").get(rnd.nextInt(5));
            check(t, op, dims, over, view, rnd, "seed " + seed + " case " + c);
        }
    }

    /** {@return the reducers run takes for {@code t}} */
    private static List<String> reducers(DType t) {
        return t.kind() == DType.Kind.FLOAT ? List.of("maximum", "minimum")
                : t == DType.PRED ? List.of("maximum", "minimum", "and", "or", "xor") : INTEGER_OPS;
    }

    /** Rows longer than a fold's block (16 Ki), with a part block at the end, and few kept elements. */
    @Test
    void longRowsFoldInBlocks() {
        Random rnd = new Random(7);
        check(DType.F32, "maximum", new long[] {3, 40_001}, List.of(1), "none", rnd, "f32[3,40001] max over 1");
        check(DType.S32, "add", new long[] {2, 70_000}, List.of(1), "reverse", rnd, "s32[2,70000] add over 1");
        check(DType.U8, "minimum", new long[] {100_003}, List.of(0), "none", rnd, "u8[100003] min");
    }

    /**
     * Operands past the engine's parallel threshold (4 MiB) fold on its threads: kept elements
     * apiece, or few kept elements each folded in shares that are then joined.
     */
    @Test
    void largeReductionsFoldOnTheEngineThreadsAndJoinTheirShares() {
        Random rnd = new Random(13);
        check(DType.F32, "maximum", new long[] {3, 400_003}, List.of(1), "none", rnd, true, "f32[3,400003] max over 1: rows in shares");
        check(DType.F32, "minimum", new long[] {1100, 1100}, List.of(0, 1), "none", rnd, true, "f32[1100,1100] min: one row in shares");
        check(DType.F32, "maximum", new long[] {1100, 1100}, List.of(0), "none", rnd, true, "f32[1100,1100] max over 0: rows in shares");
        check(DType.F32, "maximum", new long[] {1100, 1100}, List.of(1), "none", rnd, true, "f32[1100,1100] max over 1: rows apiece");
        check(DType.S32, "add", new long[] {1100, 1100}, List.of(0), "none", rnd, true, "s32[1100,1100] add over 0");
        check(DType.S32, "add", new long[] {2, 700_001}, List.of(1), "none", rnd, true, "s32[2,700001] add over 1");
        check(DType.S64, "xor", new long[] {700, 900}, List.of(0), "transpose", rnd, true, "s64[700,900] xor of a transpose");
    }

    /**
     * A held elementwise expression past a chunk (8 MiB) is evaluated a chunk at a time, in the
     * order its fold reads, and folded there: over the last dims, over all of them, over dim 0
     * (each chunk's results joined with those before), over dims between kept ones, with a part
     * chunk at the end; where dim 0's rows are past half a chunk, chunks are ranges of a later dim
     * at one index of those before it. A value of one chunk is not chunked.
     */
    @Test
    void heldExpressionsReduceAChunkAtATime() {
        Random rnd = new Random(17);
        check(DType.F32, "maximum", new long[] {3001, 1000}, List.of(1), "flip", rnd, true, true, "-f32[3001,1000] max over 1");
        check(DType.F32, "minimum", new long[] {3001, 1000}, List.of(0, 1), "flip", rnd, true, true, "-f32[3001,1000] min");
        check(DType.F32, "maximum", new long[] {3001, 1000}, List.of(0), "flip", rnd, true, true, "-f32[3001,1000] max over 0");
        check(DType.F32, "maximum", new long[] {14, 300, 170, 3}, List.of(0, 1, 2), "flip", rnd, true, true,
                "-f32[14,300,170,3] max over 0,1,2: few kept");
        check(DType.S32, "add", new long[] {1001, 5, 700}, List.of(0, 2), "flip", rnd, false, true, "~s32[1001,5,700] add over 0,2");
        check(DType.S32, "add", new long[] {1001, 5, 700}, List.of(1), "flip", rnd, false, true, "~s32[1001,5,700] add over 1");
        check(DType.S32, "add", new long[] {1001, 5, 700}, List.of(1, 2), "flip", rnd, false, true, "~s32[1001,5,700] add over 1,2");
        check(DType.S32, "add", new long[] {2, 3, 700_000}, List.of(0, 2), "flip", rnd, false, true,
                "~s32[2,3,700000] add over 0,2: ranges of dim 1");
        check(DType.F32, "minimum", new long[] {2, 3, 700_000}, List.of(1), "flip", rnd, true, true,
                "-f32[2,3,700000] min over 1: ranges of dim 1");
        check(DType.S32, "xor", new long[] {3, 40, 100, 300}, List.of(0, 2, 3), "flip", rnd, false, true,
                "~s32[3,40,100,300] xor over 0,2,3: per channel");
        check(DType.F32, "maximum", new long[] {1000, 2000}, List.of(0), "flip", rnd, true, false, "-f32[1000,2000] max over 0: one chunk");
    }

    /**
     * Rows folded whole (into vector registers), and reduced dims folded four rows a pass, with
     * part vectors and part passes at the ends; without NaN, so that the maximum's and minimum's
     * signed zeros and flushed denormals show. A row of negatives, zeros and denormals has a
     * denormal or a zero for its maximum.
     */
    @Test
    void longFoldsWithoutNaNKeepSignedZerosAndFlushDenormals() {
        Random rnd = new Random(11);
        for (String op : List.of("maximum", "minimum")) {
            check(DType.F32, op, new long[] {5, 1003}, List.of(1), "none", rnd, true, "f32[5,1003] " + op + " over 1");
            check(DType.F32, op, new long[] {1003, 77}, List.of(0), "none", rnd, true, "f32[1003,77] " + op + " over 0");
        }
        check(DType.S32, "add", new long[] {1003, 77}, List.of(0), "none", rnd, true, "s32[1003,77] add over 0");
        check(DType.S32, "add", new long[] {3, 1001}, List.of(1), "none", rnd, true, "s32[3,1001] add over 1");
        float denormal = Float.MIN_VALUE * 9;
        String text = "HloModule m\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] maximum(a, b)\n}\n"
                + "ENTRY e {\n  p = f32[3,100] parameter(0)\n  z = f32[] constant(-inf)\n"
                + "  ROOT out = f32[3] reduce(p, z), dimensions={1}, to_apply=r\n}\n";
        try (Allocator mem = Allocators.shared()) {
            TensorView p = TensorView.of(mem.allocate(4 * 300), ArrayShape.of(DType.F32, 3, 100));
            TensorElements e = TensorElements.of(p);
            for (int j = 0; j < 100; j++) {
                e.setFloat(-1f - j, 0, j);
                e.setFloat(-1f - j, 1, j);
                e.setFloat(-1f - j, 2, j);
            }
            e.setFloat(denormal, 0, 61);
            e.setFloat(-denormal, 1, 97);
            e.setFloat(-0f, 2, 3);
            e.setFloat(-denormal, 2, 70);
            try (Execution x = HloExecutor.execute(text, Map.of("0", p))) {
                float[] r = TensorElements.of(x.rowMajor()).toFloatArray();
                assertEquals(Float.floatToRawIntBits(0f), Float.floatToRawIntBits(r[0]), "a denormal maximum, flushed to +0");
                assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(r[1]), "a negative denormal maximum, flushed to -0");
                assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(r[2]), "-0 and a negative denormal: -0");
            }
        }
    }

    private static void check(DType t, String op, long[] dims, List<Integer> over, String view, Random rnd, String what) {
        check(t, op, dims, over, view, rnd, false, what);
    }

    private static void check(DType t, String op, long[] dims, List<Integer> over, String view, Random rnd, boolean noNaN, String what) {
        check(t, op, dims, over, view, rnd, noNaN, null, what);
    }

    /**
     * As above, with no NaN among the values where {@code noNaN} holds, and, where {@code chunked}
     * is not null, the reduce's step saying whether it evaluated its operand a chunk at a time.
     */
    private static void check(DType t, String op, long[] dims, List<Integer> over, String view, Random rnd, boolean noNaN,
                              Boolean chunked, String what) {
        int rank = dims.length;
        long[] opDims = dims.clone();
        String body;
        String p = shape(t, dims) + " parameter(0)";
        switch (view) {
            case "transpose" -> {
                int[] perm = new int[rank];
                for (int d = 0; d < rank; d++) {
                    perm[d] = rank - 1 - d;
                    opDims[d] = dims[rank - 1 - d];
                }
                body = "v = " + shape(t, opDims) + " transpose(p), dimensions={" + join(perm) + "}";
            }
            case "reverse" -> body = "v = " + shape(t, dims) + " reverse(p), dimensions={0}";
            case "slice" -> {
                List<String> spec = new ArrayList<>();
                for (int d = 0; d < rank; d++) {
                    opDims[d] = (dims[d] + 1) / 2;
                    spec.add("[0:" + dims[d] + ":2]");
                }
                body = "v = " + shape(t, opDims) + " slice(p), slice={" + String.join(", ", spec) + "}";
            }
            case "flip" -> body = "v = " + shape(t, dims) + (t.kind() == DType.Kind.FLOAT ? " negate(p)" : " not(p)");
            default -> body = "v = " + shape(t, dims) + " copy(p)";
        }
        long[] outDims = keptDims(opDims, over);
        String text = "HloModule m\nr {\n  a = " + t.xlaName() + "[] parameter(0)\n  b = " + t.xlaName() + "[] parameter(1)\n"
                + "  ROOT c = " + t.xlaName() + "[] " + op + "(a, b)\n}\nENTRY e {\n  p = " + p + "\n  " + body + "\n  z = "
                + t.xlaName() + "[] constant(" + identity(t, op) + ")\n  ROOT out = " + shape(t, outDims) + " reduce(v, z), dimensions={"
                + over.stream().map(String::valueOf).collect(Collectors.joining(",")) + "}, to_apply=r\n}\n";
        long n = Arrays.stream(dims).reduce(1, Math::multiplyExact);
        try (Allocator mem = Allocators.shared()) {
            TensorView arg = TensorView.of(mem.allocate(Math.max(1, n * Math.max(1, t.bitWidth() / 8))), ArrayShape.of(t, dims));
            TensorElements e = TensorElements.of(arg);
            long[] values = new long[(int) n];
            for (int i = 0; i < n; i++) {
                do {
                    values[i] = randomBits(t, rnd);
                } while (noNaN && isNaN(t, values[i]));
                e.setBits(values[i], unflatten(i, dims));
            }
            long[] got;
            try (Execution x = HloExecutor.execute(text, Map.of("0", arg))) {
                if (chunked != null) {
                    String reason = x.steps().stream().filter(s -> s.name().equals("out")).findFirst().orElseThrow().reason();
                    assertEquals(chunked, reason.contains("a chunk at a time"), what + ": " + reason);
                }
                TensorElements r = TensorElements.of(x.rowMajor());
                got = new long[(int) r.view().elementCount()];
                for (int i = 0; i < got.length; i++) {
                    got[i] = r.getBits(unflatten(i, outDims));
                }
            }
            long[] want = reference(t, op, dims, view, opDims, over, outDims, values);
            assertEquals(want.length, got.length, what);
            for (int i = 0; i < want.length; i++) {
                if (!(isNaN(t, want[i]) && isNaN(t, got[i]))) {
                    int at = i;
                    assertEquals(want[i], got[i], () -> what + ": " + text + " element " + at);
                }
            }
        }
    }

    /** The fold, element by element, of the view's elements read as the brute force reads them. */
    private static long[] reference(DType t, String op, long[] dims, String view, long[] opDims, List<Integer> over,
                                    long[] outDims, long[] values) {
        int rank = dims.length;
        long outCount = Arrays.stream(outDims).reduce(1, Math::multiplyExact);
        long count = 1;
        for (int d : over) {
            count *= opDims[d];
        }
        long[] out = new long[(int) outCount];
        boolean[] seen = new boolean[(int) outCount];
        long opCount = Arrays.stream(opDims).reduce(1, Math::multiplyExact);
        for (long i = 0; i < opCount; i++) {
            long[] idx = unflatten(i, opDims);
            long[] src = idx.clone();
            switch (view) {
                case "transpose" -> {
                    for (int d = 0; d < rank; d++) {
                        src[rank - 1 - d] = idx[d];
                    }
                }
                case "reverse" -> src[0] = dims[0] - 1 - idx[0];
                case "slice" -> {
                    for (int d = 0; d < rank; d++) {
                        src[d] = 2 * idx[d];
                    }
                }
                default -> {
                }
            }
            long v = values[(int) flatten(src, dims)];
            if (view.equals("flip")) {
                // negate of a float flips its sign bit; not of an integer or pred flips every bit.
                int w = t == DType.PRED ? 1 : t.bitWidth();
                long mask = w == 64 ? -1L : (1L << w) - 1;
                v = t.kind() == DType.Kind.FLOAT ? v ^ (1L << (w - 1)) : ~v & mask;
            }
            List<Long> kept = new ArrayList<>();
            for (int d = 0; d < rank; d++) {
                if (!over.contains(d)) {
                    kept.add(idx[d]);
                }
            }
            int o = (int) flatten(kept.stream().mapToLong(Long::longValue).toArray(), outDims);
            if (count == 1) {
                out[o] = v;
            } else if (!seen[o]) {
                out[o] = flush(t, v);
            } else {
                out[o] = apply(t, op, out[o], flush(t, v));
            }
            seen[o] = true;
        }
        for (int o = 0; o < outCount; o++) {
            if (!seen[o]) {
                out[o] = bitsOf(t, identity(t, op));
            }
        }
        return out;
    }

    private static long apply(DType t, String op, long a, long b) {
        if (t.kind() == DType.Kind.FLOAT) {
            double x = value(t, a);
            double y = value(t, b);
            if (Double.isNaN(x)) {
                return a;
            }
            if (Double.isNaN(y)) {
                return b;
            }
            boolean max = op.equals("maximum");
            if (x == y) {
                // -0 below +0
                boolean aNeg = (a >>> (t.bitWidth() - 1) & 1) == 1;
                return max == aNeg ? b : a;
            }
            return (x > y) == max ? a : b;
        }
        long bits = t == DType.PRED ? 1 : t.bitWidth();
        long mask = bits == 64 ? -1L : (1L << bits) - 1;
        long x = signed(t, a);
        long y = signed(t, b);
        boolean unsigned = t.kind() != DType.Kind.SIGNED;
        long r = switch (op) {
            case "add" -> x + y;
            case "multiply" -> x * y;
            case "maximum" -> (unsigned ? Long.compareUnsigned(x, y) : Long.compare(x, y)) >= 0 ? x : y;
            case "minimum" -> (unsigned ? Long.compareUnsigned(x, y) : Long.compare(x, y)) <= 0 ? x : y;
            case "and" -> x & y;
            case "or" -> x | y;
            case "xor" -> x ^ y;
            default -> throw new AssertionError(op);
        };
        return r & mask;
    }

    private static long signed(DType t, long bits) {
        int w = t == DType.PRED ? 1 : t.bitWidth();
        return t.kind() == DType.Kind.SIGNED && w < 64 ? bits << (64 - w) >> (64 - w) : bits;
    }

    /** A denormal of f32, f64 or bf16 as XLA's arithmetic reads it: its signed zero. f16's stay. */
    private static long flush(DType t, long bits) {
        if (t != DType.F32 && t != DType.F64 && t != DType.BF16) {
            return bits;
        }
        int w = t.bitWidth();
        int mantissa = t == DType.F32 ? 23 : t == DType.F64 ? 52 : 7;
        long exponent = (bits >>> mantissa) & ((1L << (w - 1 - mantissa)) - 1);
        return exponent == 0 ? bits & (1L << (w - 1)) : bits;
    }

    private static double value(DType t, long bits) {
        return switch (t) {
            case F32 -> Float.intBitsToFloat((int) bits);
            case F64 -> Double.longBitsToDouble(bits);
            case F16 -> Float.float16ToFloat((short) bits);
            case BF16 -> Float.intBitsToFloat((int) bits << 16);
            default -> throw new AssertionError(t);
        };
    }

    private static boolean isNaN(DType t, long bits) {
        return t.kind() == DType.Kind.FLOAT && Double.isNaN(value(t, bits));
    }

    /** Special values often: NaN, infinities, zeros of both signs, denormals, the integer extremes. */
    private static long randomBits(DType t, Random rnd) {
        int w = t == DType.PRED ? 1 : t.bitWidth();
        long mask = w == 64 ? -1L : (1L << w) - 1;
        if (t.kind() == DType.Kind.FLOAT) {
            long sign = 1L << (w - 1);
            int mantissa = t == DType.F32 ? 23 : t == DType.F64 ? 52 : t == DType.F16 ? 10 : 7;
            long inf = mask & ~sign & ~((1L << mantissa) - 1);
            return switch (rnd.nextInt(12)) {
                case 0 -> inf | 1L << (mantissa - 1);
                case 1 -> inf | (rnd.nextBoolean() ? sign : 0);
                case 2 -> rnd.nextBoolean() ? sign : 0;
                case 3 -> (1 + rnd.nextInt(5)) | (rnd.nextBoolean() ? sign : 0);
                default -> rnd.nextLong() & mask & ~inf | (rnd.nextLong() & inf & ~(1L << (w - 2)));
            };
        }
        return switch (rnd.nextInt(6)) {
            case 0 -> mask;
            case 1 -> 0;
            case 2 -> (mask >>> 1) + (rnd.nextBoolean() ? 1 : 0);
            default -> rnd.nextLong() & (rnd.nextBoolean() ? mask : Math.min(mask, 7));
        };
    }

    private static String identity(DType t, String op) {
        if (t.kind() == DType.Kind.FLOAT) {
            return op.equals("maximum") ? "-inf" : "inf";
        }
        if (t == DType.PRED) {
            return op.equals("minimum") || op.equals("and") ? "true" : "false";
        }
        boolean signed = t.kind() == DType.Kind.SIGNED;
        int w = t.bitWidth();
        return switch (op) {
            case "add", "or", "xor" -> "0";
            case "multiply" -> "1";
            case "and" -> signed ? "-1" : Long.toUnsignedString(w == 64 ? -1L : (1L << w) - 1);
            case "maximum" -> signed ? Long.toString(-1L << (w - 1)) : "0";
            case "minimum" -> signed ? Long.toString(~(-1L << (w - 1))) : Long.toUnsignedString(w == 64 ? -1L : (1L << w) - 1);
            default -> throw new AssertionError(op);
        };
    }

    private static long bitsOf(DType t, String literal) {
        return switch (literal) {
            case "-inf" -> t == DType.F32 ? 0xff800000L : t == DType.F64 ? 0xfff0000000000000L : t == DType.F16 ? 0xfc00 : 0xff80;
            case "inf" -> t == DType.F32 ? 0x7f800000L : t == DType.F64 ? 0x7ff0000000000000L : t == DType.F16 ? 0x7c00 : 0x7f80;
            case "true" -> 1;
            case "false" -> 0;
            default -> {
                int w = t.bitWidth();
                long v = Long.parseUnsignedLong(literal.startsWith("-") ? Long.toUnsignedString(Long.parseLong(literal)) : literal);
                yield w == 64 ? v : v & ((1L << w) - 1);
            }
        };
    }

    /**
     * reduce-window: random windows (sizes, strides, edge padding, lhs_dilate and rhs_dilate) over
     * random operands, against the window folded element by element in the padded, dilated base.
     */
    @Test
    void randomReduceWindowsEqualAFoldOverEachWindow() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        Random rnd = new Random(seed);
        for (int c = 0; c < 200; c++) {
            DType t = TYPES.get(rnd.nextInt(TYPES.size()));
            List<String> ops = reducers(t);
            String op = ops.get(rnd.nextInt(ops.size()));
            int rank = 1 + rnd.nextInt(3);
            long[] dims = new long[rank];
            long[][] w = new long[rank][];
            long[] out = new long[rank];
            List<String> size = new ArrayList<>();
            List<String> stride = new ArrayList<>();
            List<String> pad = new ArrayList<>();
            List<String> lhs = new ArrayList<>();
            List<String> rhs = new ArrayList<>();
            boolean trivial = rnd.nextInt(6) == 0;
            for (int d = 0; d < rank; d++) {
                dims[d] = 1 + rnd.nextInt(rank == 1 ? 40 : 9);
                // size, stride, low, high, lhs_dilate, rhs_dilate
                w[d] = trivial ? new long[] {1, 1, rnd.nextInt(3), rnd.nextInt(3), 1, 1}
                        : new long[] {1 + rnd.nextInt(3), 1 + rnd.nextInt(3), rnd.nextInt(3), rnd.nextInt(3), 1 + rnd.nextInt(2),
                            1 + rnd.nextInt(2)};
                long base = (dims[d] - 1) * w[d][4] + 1 + w[d][2] + w[d][3];
                long span = (w[d][0] - 1) * w[d][5] + 1;
                out[d] = base < span ? 0 : (base - span) / w[d][1] + 1;
                size.add(Long.toString(w[d][0]));
                stride.add(Long.toString(w[d][1]));
                pad.add(w[d][2] + "_" + w[d][3]);
                lhs.add(Long.toString(w[d][4]));
                rhs.add(Long.toString(w[d][5]));
            }
            // A window of one element with unit strides and dilations is a pad, whichever branch drew it.
            trivial = Arrays.stream(w).allMatch(v -> v[0] == 1 && v[1] == 1 && v[4] == 1 && v[5] == 1);
            String window = "size=" + String.join("x", size) + " stride=" + String.join("x", stride) + " pad=" + String.join("x", pad)
                    + " lhs_dilate=" + String.join("x", lhs) + " rhs_dilate=" + String.join("x", rhs);
            String what = "seed " + seed + " case " + c + ": " + shape(t, dims) + " " + op + " window={" + window + "}";
            String text = "HloModule m\nr {\n  a = " + t.xlaName() + "[] parameter(0)\n  b = " + t.xlaName() + "[] parameter(1)\n"
                    + "  ROOT c = " + t.xlaName() + "[] " + op + "(a, b)\n}\nENTRY e {\n  p = " + shape(t, dims) + " parameter(0)\n"
                    + "  z = " + t.xlaName() + "[] constant(" + identity(t, op) + ")\n  ROOT out = " + shape(t, out)
                    + " reduce-window(p, z), window={" + window + "}, to_apply=r\n}\n";
            long n = Arrays.stream(dims).reduce(1, Math::multiplyExact);
            long[] values = new long[(int) n];
            try (Allocator mem = Allocators.shared()) {
                TensorView arg = TensorView.of(mem.allocate(n * Math.max(1, t.bitWidth() / 8)), ArrayShape.of(t, dims));
                for (int i = 0; i < n; i++) {
                    values[i] = randomBits(t, rnd);
                    TensorElements.of(arg).setBits(values[i], unflatten(i, dims));
                }
                try (Execution x = HloExecutor.execute(text, Map.of("0", arg))) {
                    TensorElements r = TensorElements.of(x.rowMajor());
                    long outCount = Arrays.stream(out).reduce(1, Math::multiplyExact);
                    for (long o = 0; o < outCount; o++) {
                        long[] oi = unflatten(o, out);
                        long acc = bitsOf(t, identity(t, op));
                        long[] k = new long[rank];
                        long windowCount = Arrays.stream(w).mapToLong(v -> v[0]).reduce(1, Math::multiplyExact);
                        for (long j = 0; j < windowCount; j++) {
                            long[] src = new long[rank];
                            boolean inside = true;
                            for (int d = 0; d < rank; d++) {
                                long q = oi[d] * w[d][1] + k[d] * w[d][5] - w[d][2];
                                inside &= q >= 0 && q % w[d][4] == 0 && q / w[d][4] < dims[d];
                                src[d] = q / Math.max(1, w[d][4]);
                            }
                            if (inside) {
                                long v = values[(int) flatten(src, dims)];
                                acc = trivial ? v : apply(t, op, acc, flush(t, v));
                            }
                            for (int d = rank - 1; d >= 0 && ++k[d] == w[d][0]; d--) {
                                k[d] = 0;
                            }
                        }
                        long got = r.getBits(oi);
                        if (!(isNaN(t, acc) && isNaN(t, got))) {
                            assertEquals(acc, got, what + " at " + Arrays.toString(oi));
                        }
                    }
                }
            }
        }
    }

    /**
     * jax's argmax and argmin (a reduce of values and their positions): the index is the first
     * NaN's, else the smallest position among the values equal to the greatest (least), floats
     * compared flushed (a denormal equals zero, -0 equals +0); the value is the first NaN, else the
     * last of those equal values, as the reducer's selects pick it. Random shapes, dims and types.
     */
    @Test
    void argmaxAndArgminGiveTheFirstPositionAndTheLastEqualValue() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        Random rnd = new Random(seed);
        List<DType> types = List.of(DType.F32, DType.F64, DType.F16, DType.BF16, DType.S32, DType.U8, DType.S8, DType.PRED);
        for (int c = 0; c < 150; c++) {
            DType t = types.get(rnd.nextInt(types.size()));
            boolean max = rnd.nextBoolean();
            // Of pred, XLA's simplifier makes the value's select an or (argmax) or an and (argmin): jnp.argmax of a mask, optimised.
            boolean logical = t == DType.PRED && rnd.nextBoolean();
            int rank = 1 + rnd.nextInt(3);
            long[] dims = new long[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = 1 + rnd.nextInt(rank == 1 ? 200 : 7);
            }
            List<Integer> over = new ArrayList<>();
            for (int d = 0; d < rank; d++) {
                if (rnd.nextBoolean() || d == rank - 1 && over.isEmpty()) {
                    over.add(d);
                }
            }
            long[] out = keptDims(dims, over);
            boolean isFloat = t.kind() == DType.Kind.FLOAT;
            String v = t.xlaName();
            String text = "HloModule a\nr {\n  a = " + v + "[] parameter(0)\n  ai = s32[] parameter(1)\n  b = " + v + "[] parameter(2)\n"
                    + "  bi = s32[] parameter(3)\n  o = pred[] compare(a, b), direction=" + (max ? "GT" : "LT") + "\n"
                    + (isFloat ? "  n = pred[] compare(a, a), direction=NE\n  p = pred[] or(n, o)\n" : "")
                    + (logical ? "  s = pred[] " + (max ? "or" : "and") + "(b, a)\n" : "  s = " + v + "[] select(" + (isFloat ? "p" : "o") + ", a, b)\n")
                    + "  e = pred[] compare(a, b), direction=EQ\n"
                    + "  l = pred[] compare(ai, bi), direction=LT\n  tie = pred[] and(l, e)\n  q = pred[] or(tie, " + (isFloat ? "p" : "o")
                    + ")\n  i = s32[] select(q, ai, bi)\n  ROOT rt = (" + v + "[], s32[]) tuple(s, i)\n}\nENTRY e {\n  x = "
                    + shape(t, dims) + " parameter(0)\n  ix = " + shape(DType.S32, dims) + " parameter(1)\n  z = " + v + "[] constant("
                    + identity(t, max ? "maximum" : "minimum") + ")\n  zi = s32[] constant(0)\n  ROOT m = (" + shape(t, out) + ", "
                    + shape(DType.S32, out) + ") reduce(x, ix, z, zi), dimensions={"
                    + over.stream().map(String::valueOf).collect(Collectors.joining(",")) + "}, to_apply=r\n}\n";
            long n = Arrays.stream(dims).reduce(1, Math::multiplyExact);
            long[] values = new long[(int) n];
            String what = "seed " + seed + " case " + c + ": " + (max ? "argmax " : "argmin ") + shape(t, dims) + " over " + over;
            try (Allocator mem = Allocators.shared()) {
                TensorView x = TensorView.of(mem.allocate(n * Math.max(1, t.bitWidth() / 8)), ArrayShape.of(t, dims));
                TensorView ix = TensorView.of(mem.allocate(4 * n), ArrayShape.of(DType.S32, dims));
                long[] few = new long[4];
                for (int k = 0; k < few.length; k++) {
                    few[k] = randomBits(t, rnd);
                }
                for (int i = 0; i < n; i++) {
                    // Repeats from a few values, so that ties are common.
                    values[i] = rnd.nextBoolean() ? few[rnd.nextInt(few.length)] : randomBits(t, rnd);
                    long[] idx = unflatten(i, dims);
                    TensorElements.of(x).setBits(values[i], idx);
                    long position = 0;
                    for (int d : over) {
                        position = position * dims[d] + idx[d];
                    }
                    TensorElements.of(ix).setLong(position, idx);
                }
                try (Execution e = HloExecutor.execute(text, Map.of("0", x, "1", ix))) {
                    TensorElements gotV = TensorElements.of(e.result(0));
                    TensorElements gotI = TensorElements.of(e.result(1));
                    long outCount = Arrays.stream(out).reduce(1, Math::multiplyExact);
                    for (long o = 0; o < outCount; o++) {
                        long[] oi = unflatten(o, out);
                        // The elements of this output in row-major order of the reduced dims.
                        List<Long> row = new ArrayList<>();
                        long count = 1;
                        for (int d : over) {
                            count *= dims[d];
                        }
                        for (long p = 0; p < count; p++) {
                            long[] idx = new long[rank];
                            long rest = p;
                            for (int k = over.size() - 1; k >= 0; k--) {
                                int d = over.get(k);
                                idx[d] = rest % dims[d];
                                rest /= dims[d];
                            }
                            for (int d = 0, j = 0; d < rank; d++) {
                                if (!over.contains(d)) {
                                    idx[d] = oi[j++];
                                }
                            }
                            row.add(values[(int) flatten(idx, dims)]);
                        }
                        long wantI = -1;
                        long wantV = 0;
                        for (int p = 0; p < row.size() && wantI < 0; p++) {
                            if (isNaN(t, row.get(p))) {
                                wantI = p;
                                wantV = row.get(p);
                            }
                        }
                        if (wantI < 0) {
                            int best = -1;
                            for (int p = 0; p < row.size(); p++) {
                                if (best < 0 || order(t, row.get(p), row.get(best)) * (max ? 1 : -1) > 0) {
                                    best = p;
                                }
                            }
                            wantI = best;
                            for (int p = 0; p < row.size(); p++) {
                                if (order(t, row.get(p), row.get(best)) == 0) {
                                    wantV = row.get(p);
                                }
                            }
                        }
                        if (isFloat && outCount == 1 && count > 1) {
                            wantV = flush(t, wantV);   // XLA's reduce to one element reads its value flushed
                        }
                        assertEquals(wantI, gotI.getLong(oi), what + " index at " + Arrays.toString(oi));
                        long gv = gotV.getBits(oi);
                        if (!(isNaN(t, wantV) && isNaN(t, gv))) {
                            assertEquals(wantV, gv, what + " value at " + Arrays.toString(oi));
                        }
                    }
                }
            }
        }
    }

    /**
     * jax 0.10 (seed 1064): the value of an argmin into one element is flushed, into more it is
     * the chosen element's bits, and of one element the element as it is. 2^-136 and 2^-137 are
     * equal to the compare, so the later, 2^-137, is chosen.
     */
    @Test
    void anArgminIntoOneElementReadsItsValueFlushed() {
        long d1 = 0x00080000;
        long d2 = 0x00040000;
        assertEquals(List.of(0L), argminValues("f32[2]", "{0}", "f32[]", 0, d1, d2));
        assertEquals(List.of(0L), argminValues("f32[1,2]", "{1}", "f32[1]", 1, 0x80000000L, d2));
        assertEquals(List.of(0x7fc00001L), argminValues("f32[1,2]", "{1}", "f32[1]", 1, 0x7fc00001L, d2));
        assertEquals(List.of(d2, d2), argminValues("f32[2,2]", "{0}", "f32[2]", 0, d1, d1, d2, d2));
        assertEquals(List.of(d1), argminValues("f32[1]", "{0}", "f32[]", 0, d1));
    }

    private static List<Long> argminValues(String in, String dims, String out, int iotaDim, long... bits) {
        String s32 = "s32" + in.substring(3);
        String text = "HloModule a\nr {\n  a = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  b = f32[] parameter(2)\n"
                + "  bi = s32[] parameter(3)\n  o = pred[] compare(a, b), direction=LT\n  n = pred[] compare(a, a), direction=NE\n"
                + "  p = pred[] or(o, n)\n  v = f32[] select(p, a, b)\n  e = pred[] compare(a, b), direction=EQ\n"
                + "  l = pred[] compare(ai, bi), direction=LT\n  tie = pred[] and(e, l)\n  q = pred[] or(p, tie)\n"
                + "  i = s32[] select(q, ai, bi)\n  ROOT t = (f32[], s32[]) tuple(v, i)\n}\nENTRY e {\n  x = " + in + " parameter(0)\n"
                + "  io = " + s32 + " iota(), iota_dimension=" + iotaDim + "\n  init = f32[] constant(inf)\n  z = s32[] constant(0)\n"
                + "  m = (" + out + ", s32" + out.substring(3) + ") reduce(x, io, init, z), dimensions=" + dims + ", to_apply=r\n"
                + "  ROOT v = " + out + " get-tuple-element(m), index=0\n}\n";
        return runBits(text, in, bits);
    }

    /** {@return the sign of x - y as XLA's compares see them: floats flushed, so -0, +0 and denormals are equal} */
    private static int order(DType t, long x, long y) {
        if (t.kind() == DType.Kind.FLOAT) {
            return Double.compare(value(t, flush(t, x)) + 0.0, value(t, flush(t, y)) + 0.0);
        }
        return t.kind() == DType.Kind.UNSIGNED ? Long.compareUnsigned(x, y) : Long.compare(signed(t, x), signed(t, y));
    }

    /** jax 0.10: a window of one element with strides and dilations of 1 is a pad, its elements unflushed; any other flushes. */
    @Test
    void aWindowOfOneIsAPadUnlessAStrideOrDilationMakesItALoop() {
        long den = 71362;
        long[] six = {den, den, den, den, den, den};
        assertEquals(List.of(den, den, den, den, den, den), windowBits("size=1", 6, six));
        assertEquals(List.of(0xff800000L, den, den, den, den, den, den, 0xff800000L), windowBits("size=1 pad=1_1", 8, six));
        assertEquals(List.of(0L, 0L, 0L), windowBits("size=1 stride=2", 3, six));
        assertEquals(List.of(0L, 0L, 0L, 0L, 0L, 0L), windowBits("size=1 rhs_dilate=3", 6, six));
        assertEquals(List.of(0L, 0xff800000L, 0L, 0xff800000L, 0L, 0xff800000L, 0L, 0xff800000L, 0L, 0xff800000L, 0L),
                windowBits("size=1 lhs_dilate=2", 11, six));
        assertEquals(List.of(0L, 0L, 0L, 0L), windowBits("size=2 stride=2 pad=1_1", 4, six));
    }

    private static List<Long> windowBits(String window, int outN, long[] values) {
        String text = "HloModule m\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] maximum(a, b)\n}\n"
                + "ENTRY e {\n  p = f32[" + values.length + "] parameter(0)\n  z = f32[] constant(-inf)\n  ROOT out = f32[" + outN
                + "] reduce-window(p, z), window={" + window + "}, to_apply=r\n}\n";
        try (Allocator mem = Allocators.shared()) {
            TensorView arg = TensorView.of(mem.allocate(4L * values.length), ArrayShape.of(DType.F32, values.length));
            for (int i = 0; i < values.length; i++) {
                TensorElements.of(arg).setBits(values[i], i);
            }
            try (Execution x = HloExecutor.execute(text, Map.of("0", arg))) {
                List<Long> got = new ArrayList<>();
                for (long i = 0; i < outN; i++) {
                    got.add(TensorElements.of(x.rowMajor()).getBits(i));
                }
                return got;
            }
        }
    }

    @Test
    void oneElementIsKeptAsItIsNoneGivesTheInitAndOthersAreFlushed() {
        // jax 0.10: max over one f32 denormal (2^-149 * 71362) keeps it; over [1,3] along both dims flushes it.
        long den = 71362;
        assertEquals(List.of(den), bits("f32[1]", "f32[]", "{0}", "maximum", "-inf", den));
        assertEquals(List.of(den, 0x80000000L | den), bits("f32[2,1]", "f32[2]", "{1}", "maximum", "-inf", den, 0x80000000L | den));
        assertEquals(List.of(den, den, den), bits("f32[1,3]", "f32[3]", "{0}", "maximum", "-inf", den, den, den));
        assertEquals(List.of(0L), bits("f32[1,3]", "f32[]", "{0,1}", "maximum", "-inf", den, den, den));
        // min of [1e-40, 2e-40, -1e-40] is -0: each read as a signed zero, -0 below +0.
        assertEquals(List.of(0x80000000L), bits("f32[3]", "f32[]", "{0}", "minimum", "inf", 71362, 142725, 0x80000000L | 71362));
        assertEquals(List.of(0L), bits("f32[2]", "f32[]", "{0}", "maximum", "-inf", 0x80000000L, 0));
        assertEquals(List.of(0x80000000L), bits("f32[2]", "f32[]", "{0}", "minimum", "inf", 0, 0x80000000L));
        assertEquals(List.of(0xff800000L, 0xff800000L), bits("f32[0,2]", "f32[2]", "{0}", "maximum", "-inf"));
        // bf16 computes in f32 and flushes; f16's denormals are normal in f32 and stay.
        assertEquals(List.of(0L), bits("bf16[10]", "bf16[]", "{0}", "maximum", "-inf", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1));
        assertEquals(List.of(2L), bits("f16[10]", "f16[]", "{0}", "maximum", "-inf", 2, 2, 2, 2, 2, 2, 2, 2, 2, 2));
        // A NaN wins wherever it stands.
        assertTrue(Float.isNaN(Float.intBitsToFloat((int) (long) bits("f32[3]", "f32[]", "{0}", "minimum", "inf", 0x3f800000L,
                0x7fc00000L, 0xff800000L).getFirst())));
    }

    /**
     * XLA's simplifier makes a maximum or minimum over the dims a broadcast added the broadcast's
     * operand, its denormals unflushed; over a dim the operand fills too, or in bf16 (computed in
     * f32), each element is read flushed (jax 0.10.2; seed 1137, a broadcast of a pad). Was:
     * flushed throughout.
     */
    @Test
    void aMaximumOverTheDimsABroadcastAddedIsItsOperandUnflushed() {
        long den = 0x80000000L | 520945;   // -7.3e-40
        String head = "HloModule m\nred {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] minimum(a, b)\n}\n"
                + "ENTRY e {\n  x = f32[2] parameter(0)\n  init = f32[] constant(inf)\n  ";
        String tail = "\n}\n";
        assertEquals(List.of(den, 520945L), runBits(head + "v = f32[2,3] broadcast(x), dimensions={0}\n"
                + "  ROOT r = f32[2] reduce(v, init), dimensions={1}, to_apply=red" + tail, "f32[2]", den, 520945));
        assertEquals(List.of(den, 520945L), runBits(head + "b = f32[3,2,4] broadcast(x), dimensions={1}\n"
                + "  v = f32[4,3,2] transpose(b), dimensions={2,0,1}\n"
                + "  ROOT r = f32[2] reduce(v, init), dimensions={0,1}, to_apply=red" + tail, "f32[2]", den, 520945));
        assertEquals(List.of(den, 520945L, 0x41cc0000L), runBits(head + "c = f32[] constant(25.5)\n  p = f32[3] pad(x, c), padding=0_1\n"
                + "  v = f32[3,2] broadcast(p), dimensions={0}\n"
                + "  ROOT r = f32[3] reduce(v, init), dimensions={1}, to_apply=red" + tail, "f32[2]", den, 520945));
        assertEquals(List.of(0x80000000L), runBits(head + "v = f32[3,2] broadcast(x), dimensions={1}\n"
                + "  ROOT r = f32[] reduce(v, init), dimensions={0,1}, to_apply=red" + tail, "f32[2]", den, 520945));
        assertEquals(List.of(0x8000L, 0L), runBits(head.replace("f32", "bf16") + "v = bf16[2,3] broadcast(x), dimensions={0}\n"
                + "  ROOT r = bf16[2] reduce(v, init), dimensions={1}, to_apply=red" + tail, "bf16[2]", 0x8001L, 0x0001L));
    }

    /**
     * XLA's float normalization writes a reduce of bf16 in f32 with a reducer that rounds each step
     * through bf16 (jnp.max, jnp.argmax and max pools of bf16, optimised). Every value below is jax
     * 0.10's for the same module: a maximum or minimum rounded each step is the one over the
     * flushed elements rounded once; one element is the reshape XLA makes of it, not rounded; a
     * window of one element runs the loop, rounded and flushed.
     */
    @Test
    void aReducerRoundingThroughBf16IsTheReduceRoundedOnce() {
        long a = Float.floatToRawIntBits(1.001f);
        long b = Float.floatToRawIntBits(1.002f);
        long c = Float.floatToRawIntBits(1.0039f);
        long half = 0x3f000000L;
        long minus3 = 0xc0400000L;
        long den = Float.floatToRawIntBits(1e-40f);
        long[] rows = {a, b, c, half, minus3, den, 0x80000000L | den, 0, 0x80000000L, Float.floatToRawIntBits(2e-39f),
            0x7fc00000L, 0x3f800000L, 0x40000000L, 0x40400000L, 0x40800000L};
        List<Long> max = rounded("reduce", "f32[3,5]", "f32[3]", "dimensions={1}", "maximum", "-inf", rows);
        assertEquals(List.of(0x3f800000L, 0L), max.subList(0, 2));
        assertTrue(Float.isNaN(Float.intBitsToFloat((int) (long) max.get(2))));
        List<Long> min = rounded("reduce", "f32[3,5]", "f32[3]", "dimensions={1}", "minimum", "inf", rows);
        assertEquals(List.of(minus3, 0x80000000L), min.subList(0, 2));
        assertEquals(List.of(a, c, den), rounded("reduce", "f32[3,1]", "f32[3]", "dimensions={1}", "maximum", "-inf", a, c, den));
        assertEquals(List.of(0x3f800000L, 0x3f800000L, 0x3f800000L, half), rounded("reduce-window", "f32[5]", "f32[4]", "window={size=2}",
                "maximum", "-inf", a, b, c, half, minus3));
        assertEquals(List.of(0x3f800000L, 0L, 0x80000000L, minus3), rounded("reduce-window", "f32[4]", "f32[4]", "window={size=1}",
                "maximum", "-inf", a, den, 0x80000000L | den, minus3));
        // Random rows, against the largest element rounded to bf16 once.
        Random rnd = new Random(7);
        long[] values = new long[7 * 300];
        for (int i = 0; i < values.length; i++) {
            values[i] = Float.floatToRawIntBits((float) (rnd.nextGaussian() * 3)) & 0xFFFFFFFFL;
        }
        List<Long> got = rounded("reduce", "f32[7,300]", "f32[7]", "dimensions={1}", "maximum", "-inf", values);
        for (int r = 0; r < 7; r++) {
            float m = Float.NEGATIVE_INFINITY;
            for (int e = 0; e < 300; e++) {
                m = Math.max(m, Float.intBitsToFloat((int) values[r * 300 + e]));
            }
            int bits = Float.floatToRawIntBits(m);
            long bf16 = (((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) << 16) & 0xFFFFFFFFL;
            assertEquals(bf16, got.get(r), "row " + r);
        }
    }

    /** The same reducer in jax's argmax: on bf16 values (what jax gives it) it is the argmax; on others it is refused, naming why. */
    @Test
    void anArgmaxRoundingThroughBf16TakesBf16Values() {
        String text = "HloModule a\nr {\n  a = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  b = f32[] parameter(2)\n"
                + "  bi = s32[] parameter(3)\n  o = pred[] compare(a, b), direction=GT\n  n = pred[] compare(a, a), direction=NE\n"
                + "  p = pred[] or(o, n)\n  v = f32[] select(p, a, b)\n  e = pred[] compare(a, b), direction=EQ\n"
                + "  l = pred[] compare(ai, bi), direction=LT\n  tie = pred[] and(e, l)\n  q = pred[] or(p, tie)\n  vb = bf16[] convert(v)\n"
                + "  vf = f32[] convert(vb)\n  i = s32[] select(q, ai, bi)\n  ROOT t = (f32[], s32[]) tuple(vf, i)\n}\nENTRY e {\n"
                + "  x = f32[2,4] parameter(0)\n  io = s32[2,4] iota(), iota_dimension=1\n  init = f32[] constant(-inf)\n"
                + "  z = s32[] constant(0)\n  m = (f32[2], s32[2]) reduce(x, io, init, z), dimensions={1}, to_apply=r\n"
                + "  ROOT idx = s32[2] get-tuple-element(m), index=1\n}\n";
        try (Allocator mem = Allocators.shared()) {
            TensorView x = TensorView.of(mem.allocate(32), ArrayShape.of(DType.F32, 2, 4));
            float[] bf16Values = {1.5f, 3f, 3f, -2f, 0.25f, Float.NaN, 8f, Float.NaN};
            for (int i = 0; i < 8; i++) {
                TensorElements.of(x).setDouble(bf16Values[i], i / 4, i % 4);
            }
            try (Execution e = HloExecutor.execute(text, Map.of("0", x))) {
                assertEquals(1L, TensorElements.of(e.rowMajor()).getLong(0));
                assertEquals(1L, TensorElements.of(e.rowMajor()).getLong(1));
            }
            // 1.002 and 1.001 both round to 1 in bf16: which wins would follow XLA's loop order.
            TensorElements.of(x).setDouble(1.002f, 0, 0);
            TensorElements.of(x).setDouble(1.001f, 0, 1);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(text, Map.of("0", x)));
            assertTrue(refused.getMessage().contains("rounds its value through bf16 (XLA's float normalization) runs on bf16 values only:"
                    + " element 0 of row 0, 1.00199"), refused.getMessage());
        }
    }

    /** {@return the bits of a {@code reduce} or {@code reduce-window} of f32 whose reducer rounds through bf16, jax's way} */
    private static List<Long> rounded(String opcode, String in, String out, String attribute, String op, String init, long... values) {
        String text = "HloModule m\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] " + op + "(a, b)\n"
                + "  n = bf16[] convert(c)\n  ROOT w = f32[] convert(n)\n}\nENTRY e {\n  p = " + in + " parameter(0)\n"
                + "  z = f32[] constant(" + init + ")\n  ROOT out = " + out + " " + opcode + "(p, z), " + attribute + ", to_apply=r\n}\n";
        return runBits(text, in, values);
    }

    /**
     * f32 sums where every partial sum in any order is an f32 (multiples of one power of two
     * whose magnitudes add up to at most 2^24 of it) are exact, whatever order XLA adds in; others
     * are refused as the module runs. Random integer-valued rows scaled by powers of two, against
     * the exact sum in long arithmetic, reduced and summed over windows.
     */
    @Test
    void floatSumsRunWhereNoOrderRoundsAndAreRefusedWhereOneWould() {
        Random rnd = new Random(41);
        for (int trial = 0; trial < 30; trial++) {
            int rows = 1 + rnd.nextInt(4);
            int count = 2 + rnd.nextInt(300);
            int scale = rnd.nextInt(21) - 10;
            long[] values = new long[rows * count];
            long[] units = new long[rows * count];
            for (int i = 0; i < values.length; i++) {
                units[i] = rnd.nextInt(511) - 255;
                values[i] = Float.floatToRawIntBits(Math.scalb((float) units[i], scale)) & 0xFFFFFFFFL;
            }
            List<Long> sums = bits("f32[" + rows + "," + count + "]", "f32[" + rows + "]", "{1}", "add", "0", values);
            List<Long> windows = runBits("HloModule m\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n"
                    + "ENTRY e {\n  p = f32[" + rows + "," + count + "] parameter(0)\n  z = f32[] constant(0)\n  ROOT out = f32[" + rows
                    + "," + (count - 1) + "] reduce-window(p, z), window={size=1x2}, to_apply=r\n}\n", "f32[" + rows + "," + count + "]", values);
            for (int r = 0; r < rows; r++) {
                long exact = 0;
                for (int k = 0; k < count; k++) {
                    exact += units[r * count + k];
                    if (k > 0) {
                        float pair = Math.scalb((float) (units[r * count + k - 1] + units[r * count + k]), scale);
                        assertEquals(Float.floatToRawIntBits(pair == 0 ? 0f : pair), (int) (long) windows.get(r * (count - 1) + k - 1),
                                "trial " + trial + " window " + r + "," + (k - 1));
                    }
                }
                float want = Math.scalb((float) exact, scale);
                assertEquals(Float.floatToRawIntBits(want == 0 ? 0f : want), (int) (long) sums.get(r), "trial " + trial + " row " + r);
            }
        }
        // A sum of -0s is +0 (jax 0.10); 2^23 + 2^22 + 1 is exact; 2^24 + 1 is not an f32, so the order decides.
        assertEquals(List.of(0L, (long) Float.floatToRawIntBits(12582913f)), bits("f32[2,3]", "f32[2]", "{1}", "add", "0",
                0x80000000L, 0x80000000L, 0x80000000L, Float.floatToRawIntBits(0x1p23f), Float.floatToRawIntBits(0x1p22f), 0x3f800000L));
        IllegalArgumentException rounds = assertThrows(IllegalArgumentException.class, () -> bits("f32[2]", "f32[]", "{0}", "add", "0",
                Float.floatToRawIntBits(0x1p24f), 0x3f800000L));
        assertTrue(rounds.getMessage().contains("the float sum of result 0 could round"), rounds.getMessage());
        IllegalArgumentException nan = assertThrows(IllegalArgumentException.class, () -> bits("f32[2]", "f32[]", "{0}", "add", "0",
                0x7fc00000L, 0x3f800000L));
        assertTrue(nan.getMessage().contains("a float sum over a NaN (element 0 of result 0)"), nan.getMessage());
        IllegalArgumentException denormal = assertThrows(IllegalArgumentException.class, () -> bits("f32[2]", "f32[]", "{0}", "add",
                "0", 1, 0x3f800000L));
        assertTrue(denormal.getMessage().contains("a denormal, which XLA reads as zero"), denormal.getMessage());
    }

    @Test
    void integersWrapAndPredReducesAreAnyAndAll() {
        // jax 0.10: the product of 1..39 in s32 wraps to 0; u8 sums wrap; xor of 1..39 is 0.
        long[] oneTo39 = new long[39];
        Arrays.setAll(oneTo39, i -> i + 1);
        assertEquals(List.of(0L), bits("s32[39]", "s32[]", "{0}", "multiply", "1", oneTo39));
        assertEquals(List.of(0L), bits("s32[39]", "s32[]", "{0}", "xor", "0", oneTo39));
        assertEquals(List.of(47L), bits("u8[3]", "u8[]", "{0}", "add", "0", 200, 100, 3));
        assertEquals(List.of(200L), bits("u8[3]", "u8[]", "{0}", "maximum", "0", 200, 100, 3));
        assertEquals(List.of(0xffL), bits("s8[3]", "s8[]", "{0}", "minimum", "127", 5, 0xff, 3), "s8 -1 is the least");
        assertEquals(List.of(1L, 0L), bits("pred[2,3]", "pred[2]", "{1}", "or", "false", 0, 1, 0, 0, 0, 0));
        assertEquals(List.of(0L, 1L), bits("pred[2,3]", "pred[2]", "{1}", "and", "true", 0, 1, 1, 1, 1, 1));
    }

    /** jnp.max(jnp.abs(x)) / 127 then x divided by it: a reduce of a held op, its result a divisor that is no constant. */
    @Test
    void quantizationScaleIsAReduceOfAHeldValue() {
        String text = """
                HloModule q
                region_0.1 {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT m = f32[] maximum(a, b)
                }
                ENTRY e {
                  x = f32[2,3] parameter(0)
                  ab = f32[2,3] abs(x)
                  ninf = f32[] constant(-inf)
                  amax = f32[] reduce(ab, ninf), dimensions={0,1}, to_apply=region_0.1
                  c = f32[] constant(127)
                  s = f32[] divide(amax, c)
                  sb = f32[2,3] broadcast(s), dimensions={}
                  ROOT q = f32[2,3] divide(x, sb)
                }
                """;
        float[] x = {0.5f, -2.54f, 1f, 0.25f, -1.27f, 2f};
        float scale = 2.54f * (1f / 127f);
        try (Allocator mem = Allocators.shared(); Execution e = HloExecutor.execute(text, Map.of("0", floats(mem, x)))) {
            float[] q = TensorElements.of(e.rowMajor()).toFloatArray();
            for (int i = 0; i < x.length; i++) {
                assertEquals(x[i] / scale, q[i], "element " + i);
            }
            ExecutedInstruction amax = e.steps().stream().filter(s -> s.name().equals("amax")).findFirst().orElseThrow();
            assertEquals(ExecutedInstruction.Kind.REDUCED, amax.kind());
            assertTrue(amax.reason().startsWith("by maximum over dims [0, 1]; evaluates abs(%0)"), amax.reason());
        }
    }

    @Test
    void refusalsNameWhy() {
        UnsupportedOpException sum = assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(
                reduceText("f16[4]", "f16[]", "{0}", "add", "0"), Map.of()));
        assertTrue(sum.detail().contains("rounds in the order XLA's vectorised loops combine elements"), sum.getMessage());
        assertTrue(sum.getMessage().contains("(instruction %out, line 10)"), sum.getMessage());
        UnsupportedOpException pred = assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(
                reduceText("pred[4]", "pred[]", "{0}", "add", "false"), Map.of()));
        assertTrue(pred.detail().contains("by and, or, xor, maximum or minimum it does"), pred.getMessage());
        String argmax = """
                HloModule a
                r {
                  a = f32[] parameter(0)
                  i = s32[] parameter(1)
                  b = f32[] parameter(2)
                  j = s32[] parameter(3)
                  gt = pred[] compare(a, b), direction=GT
                  v = f32[] select(gt, a, b)
                  k = s32[] select(gt, i, j)
                  ROOT t = (f32[], s32[]) tuple(v, k)
                }
                ENTRY e {
                  x = f32[4,6] parameter(0)
                  io = s32[4,6] iota(), iota_dimension=1
                  ninf = f32[] constant(-inf)
                  zero = s32[] constant(0)
                  ROOT m = (f32[4], s32[4]) reduce(x, io, ninf, zero), dimensions={1}, to_apply=r
                }
                """;
        UnsupportedOpException variadic = assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(argmax, Map.of()));
        assertTrue(variadic.detail().startsWith("a reduce of 2 arrays at once"), variadic.getMessage());
        String twoOps = reduceText("s32[4]", "s32[]", "{0}", "add", "0").replace("ROOT c = s32[] add(a, b)",
                "d = s32[] add(a, b)\n  ROOT c = s32[] multiply(d, b)");
        UnsupportedOpException notOne = assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(twoOps, Map.of()));
        assertTrue(notOne.detail().startsWith("its reducer r is not one op of its two parameters (multiply at its root)"),
                notOne.getMessage());
        try (Allocator mem = Allocators.shared()) {
            TensorView ints = TensorView.of(mem.allocate(16), ArrayShape.of(DType.S32, 4));
            IllegalArgumentException init = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(
                    reduceText("s32[4]", "s32[]", "{0}", "add", "5"), Map.of("0", ints)));
            assertTrue(init.getMessage().contains("the init value 5 is not the identity of add on s32 (0): XLA applies an init as"
                    + " many times as its loops have accumulators"), init.getMessage());
            TensorView fs = TensorView.of(mem.allocate(16), ArrayShape.of(DType.F32, 4));
            IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(
                    reduceText("f32[4]", "f32[]", "{0}", "maximum", "0"), Map.of("0", fs)));
            assertTrue(zero.getMessage().contains("the init value 0.0 is not the identity of maximum on f32 (-inf): XLA's simplifier"
                    + " takes an init for the identity"), zero.getMessage());
        }
    }

    private static List<Long> bits(String in, String out, String dims, String op, String init, long... values) {
        return runBits(reduceText(in, out, dims, op, init), in, values);
    }

    /** {@return the result of {@code text} run over parameter 0 of shape {@code in} holding {@code values}, as bits in row-major order} */
    private static List<Long> runBits(String text, String in, long... values) {
        ArrayShape shape = ArrayShape.parse(in);
        long[] inDims = shape.dims().stream().mapToLong(Long::longValue).toArray();
        try (Allocator mem = Allocators.shared()) {
            TensorView arg = TensorView.of(mem.allocate(Math.max(8, values.length * 8L)), shape);
            for (int i = 0; i < values.length; i++) {
                TensorElements.of(arg).setBits(values[i], unflatten(i, inDims));
            }
            try (Execution x = HloExecutor.execute(text, Map.of("0", arg))) {
                TensorElements r = TensorElements.of(x.rowMajor());
                long[] outDims = x.rowMajor().dims().stream().mapToLong(Long::longValue).toArray();
                List<Long> got = new ArrayList<>();
                for (long i = 0; i < r.view().elementCount(); i++) {
                    got.add(r.getBits(unflatten(i, outDims)));
                }
                return got;
            }
        }
    }

    private static String reduceText(String in, String out, String dims, String op, String init) {
        String t = in.substring(0, in.indexOf('['));
        return "HloModule m\nr {\n  a = " + t + "[] parameter(0)\n  b = " + t + "[] parameter(1)\n  ROOT c = " + t + "[] " + op
                + "(a, b)\n}\nENTRY e {\n  p = " + in + " parameter(0)\n  z = " + t + "[] constant(" + init + ")\n"
                + "  ROOT out = " + out + " reduce(p, z), dimensions=" + dims + ", to_apply=r\n}\n";
    }

    private static TensorView floats(Allocator mem, float[] values) {
        TensorView v = TensorView.of(mem.allocate(4L * values.length), ArrayShape.of(DType.F32, 2, 3));
        for (int i = 0; i < values.length; i++) {
            TensorElements.of(v).setDouble(values[i], i / 3, i % 3);
        }
        return v;
    }

    private static long[] keptDims(long[] dims, List<Integer> over) {
        List<Long> kept = new ArrayList<>();
        for (int d = 0; d < dims.length; d++) {
            if (!over.contains(d)) {
                kept.add(dims[d]);
            }
        }
        return kept.stream().mapToLong(Long::longValue).toArray();
    }

    private static long[] unflatten(long i, long[] dims) {
        long[] idx = new long[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            idx[d] = dims[d] == 0 ? 0 : i % dims[d];
            i = dims[d] == 0 ? 0 : i / dims[d];
        }
        return idx;
    }

    private static long flatten(long[] idx, long[] dims) {
        long i = 0;
        for (int d = 0; d < dims.length; d++) {
            i = i * dims[d] + idx[d];
        }
        return i;
    }

    private static String shape(DType t, long[] dims) {
        return t.xlaName() + "[" + Arrays.stream(dims).mapToObj(String::valueOf).collect(Collectors.joining(",")) + "]";
    }

    private static String join(int[] values) {
        return Arrays.stream(values).mapToObj(String::valueOf).collect(Collectors.joining(","));
    }
}
