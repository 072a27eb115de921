package dev.tensorbuf.cli;

import dev.tensorbuf.views.DType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Random valid HLO modules of data-movement ops: a parameter, then a chain of transpose, slice,
 * reverse, broadcast, pad, reshape, concatenate (with a reversed copy, an iota or a literal),
 * dynamic-slice (starts from constants and a scalar parameter, some out of range), convert and
 * copy, with random shapes, attributes and layouts (copies and the ROOT), over real and complex
 * types; elementwise steps, reduces, reduce-windows and jax's argmax and argmin between them
 * (each with its reducer computation before the entry).
 */
final class RandomHloModules {
    static final List<DType> INPUT_TYPES = List.of(DType.F32, DType.S32, DType.S8, DType.U8, DType.F16, DType.PRED,
            DType.C64, DType.C128);
    static final List<DType> CONVERT_TYPES = List.of(DType.F32, DType.F64, DType.F16, DType.BF16, DType.S64, DType.S32,
            DType.S16, DType.S8, DType.U32, DType.U8, DType.PRED, DType.C64, DType.C128);
    private static final int MAX_ELEMENTS = 1500;

    /**
     * A generated module: its text, its parameters' shapes in number order, the opcodes it uses and
     * its ROOT's type (bf16 at times, which {@code tensorbuf run} writes to safetensors).
     */
    record Module(String text, List<Param> params, Map<String, Integer> opcodes, DType rootType) {
    }

    /**
     * @param name parameter name; @param dtype type; @param dims dims (row-major);
     * @param denormals whether its values may be denormal: not for one read after a pad or a
     * concatenation. There XLA's CPU code computes an op with a value LLVM knows, the fill or a
     * literal, as a select between the op and that constant, and folds an op with its identity
     * away (a pad with -0 fill plus q is q, also a pad of 1 times q or q divided by it, q minus a
     * pad of 0; jax 0.10, at every size): a denormal q comes out unflushed there and flushed
     * everywhere else, where run flushes it everywhere. The value of the pad after further ops
     * depends on LLVM's folding, so no parameter read after one holds a denormal.
     */
    record Param(String name, DType dtype, long[] dims, boolean denormals) {
    }

    /** A line of the entry; {@code tupleShape}, where not null, is its shape (a variadic reduce's tuple). */
    private record Line(String name, DType dtype, long[] dims, String layout, String rhs, String tupleShape) {
        Line(String name, DType dtype, long[] dims, String layout, String rhs) {
            this(name, dtype, dims, layout, rhs, null);
        }

        String text(boolean root) {
            String shape = tupleShape != null ? tupleShape : shape(dtype, dims) + (layout == null ? "" : layout);
            return (root ? "ROOT " : "") + name + " = " + shape + " " + rhs;
        }
    }

    private final Random rnd;
    private final List<Line> lines = new ArrayList<>();
    private final List<Param> params = new ArrayList<>();
    private final Map<String, Integer> opcodes = new TreeMap<>();
    private String cur;
    private DType dtype;
    private long[] dims;

    private RandomHloModules(Random rnd) {
        this.rnd = rnd;
    }

    static Module generate(Random rnd) {
        return new RandomHloModules(rnd).build();
    }

    private Module build() {
        dtype = INPUT_TYPES.get(rnd.nextInt(INPUT_TYPES.size()));
        dims = randomDims(1 + rnd.nextInt(3), 5);
        params.add(new Param("p0", dtype, dims, true));
        cur = emit("p0", dtype, dims, null, "parameter(0)");
        int steps = 2 + rnd.nextInt(5);
        for (int s = 0; s < steps; s++) {
            step();
        }
        if (rnd.nextInt(8) == 0) {
            convert(DType.BF16); // rounds to nearest even from any type: more bf16 ROOTs than the steps make
        }
        // A bf16 ROOT stays half the time: run writes it to safetensors, the other half to .npy as f32.
        if (!dtype.isNumpyNative() && rnd.nextBoolean()) {
            convert(DType.F32);
        }
        String layout = randomLayout(dims.length);
        if (rnd.nextBoolean() || cur.equals("p0")) {
            lines.add(new Line("out", dtype, dims, layout, "copy(" + cur + ")"));
            count("copy");
            cur = "out";
        } else {
            // The root is the chain's last value, wherever it stands: a skipped op may leave dead lines after it.
            for (int i = 0; i < lines.size(); i++) {
                Line l = lines.get(i);
                if (l.name().equals(cur)) {
                    lines.set(i, new Line(l.name(), l.dtype(), l.dims(), layout, l.rhs()));
                }
            }
        }
        StringBuilder sb = new StringBuilder("HloModule random\n\n");
        for (String c : reducers) {
            sb.append(c).append('\n');
        }
        sb.append("ENTRY main {\n");
        for (Line l : lines) {
            sb.append("  ").append(l.text(l.name().equals(cur))).append('\n');
        }
        sb.append("}\n");
        List<Param> ps = noDenormals ? params.stream().map(p -> new Param(p.name(), p.dtype(), p.dims(), false)).toList() : params;
        return new Module(sb.toString(), List.copyOf(ps), Map.copyOf(opcodes), dtype);
    }

    private void step() {
        int rank = dims.length;
        if (POINTWISE && rnd.nextInt(3) == 0 && pointwise()) {
            return;
        }
        if (POINTWISE && rnd.nextInt(10) == 0 && reduce()) {
            return;
        }
        switch (rnd.nextInt(12)) {
            case 0 -> {
                List<Integer> perm = shuffled(rnd, rank);
                long[] out = new long[rank];
                for (int i = 0; i < rank; i++) {
                    out[i] = dims[perm.get(i)];
                }
                op("transpose", out, "transpose(" + cur + "), dimensions={" + join(perm) + "}");
            }
            case 1 -> {
                long[] out = new long[rank];
                List<String> spec = new ArrayList<>();
                for (int i = 0; i < rank; i++) {
                    long start = rnd.nextLong(dims[i]);
                    long limit = start + 1 + rnd.nextLong(dims[i] - start);
                    long stride = 1 + rnd.nextInt(2);
                    out[i] = Math.ceilDiv(limit - start, stride);
                    spec.add("[" + start + ":" + limit + ":" + stride + "]");
                }
                op("slice", out, "slice(" + cur + "), slice={" + String.join(", ", spec) + "}");
            }
            case 2 -> {
                List<Integer> rev = new ArrayList<>();
                for (int i = 0; i < rank; i++) {
                    if (rnd.nextBoolean() || (i == rank - 1 && rev.isEmpty())) {
                        rev.add(i);
                    }
                }
                op("reverse", dims, "reverse(" + cur + "), dimensions={" + join(rev) + "}");
            }
            case 3 -> {
                if (rank >= 4) {
                    return;
                }
                int at = rnd.nextInt(rank + 1);
                long[] out = new long[rank + 1];
                List<Integer> map = new ArrayList<>();
                for (int i = 0, j = 0; i <= rank; i++) {
                    if (i == at) {
                        out[i] = 1 + rnd.nextInt(3);
                    } else {
                        out[i] = dims[j++];
                        map.add(i);
                    }
                }
                op("broadcast", out, "broadcast(" + cur + "), dimensions={" + join(map) + "}");
            }
            case 4 -> {
                long[] out = new long[rank];
                List<String> spec = new ArrayList<>();
                for (int i = 0; i < rank; i++) {
                    long low = rnd.nextInt(4) - 1;
                    long high = rnd.nextInt(4) - 1;
                    long interior = rnd.nextInt(2);
                    long n = low + high + dims[i] + (dims[i] - 1) * interior;
                    if (n < 1) {
                        low = 0;
                        high = 0;
                        n = dims[i] + (dims[i] - 1) * interior;
                    }
                    out[i] = n;
                    spec.add(low + "_" + high + "_" + interior);
                }
                String fill = emit("pv", dtype, new long[0], null, "constant(" + scalarLiteral() + ")");
                count("constant");
                op("pad", out, "pad(" + cur + ", " + fill + "), padding=" + String.join("x", spec));
                joined = true;
            }
            case 5 -> {
                long total = Arrays.stream(dims).reduce(1, Math::multiplyExact);
                int newRank = 1 + rnd.nextInt(3);
                long[] out = new long[newRank];
                long left = total;
                for (int i = 0; i < newRank - 1; i++) {
                    List<Long> divisors = new ArrayList<>();
                    for (long d = 1; d <= left; d++) {
                        if (left % d == 0) {
                            divisors.add(d);
                        }
                    }
                    out[i] = divisors.get(rnd.nextInt(divisors.size()));
                    left /= out[i];
                }
                out[newRank - 1] = left;
                op("reshape", out, "reshape(" + cur + ")");
            }
            case 6, 7 -> {
                int d = rnd.nextInt(rank);
                long[] out = dims.clone();
                out[d] *= 2;
                String other = switch (rnd.nextInt(3)) {
                    case 0 -> {
                        count("reverse");
                        yield emit("rv", dtype, dims, null, "reverse(" + cur + "), dimensions={" + d + "}");
                    }
                    case 1 -> {
                        if (dtype == DType.PRED) {
                            yield cur;
                        }
                        count("iota");
                        yield emit("io", dtype, dims, null, "iota(), iota_dimension=" + rnd.nextInt(rank));
                    }
                    default -> {
                        count("constant");
                        yield emit("lit", dtype, dims, null, "constant(" + arrayLiteral(0) + ")");
                    }
                };
                op("concatenate", out, "concatenate(" + cur + ", " + other + "), dimensions={" + d + "}");
                joined = true;
            }
            case 8, 9 -> {
                long[] sizes = new long[rank];
                List<String> starts = new ArrayList<>();
                for (int i = 0; i < rank; i++) {
                    sizes[i] = 1 + rnd.nextLong(dims[i]);
                    if (i == 0 && params.size() == 1) {
                        params.add(new Param("i", DType.S32, new long[0], true));
                        lines.addFirst(new Line("i", DType.S32, new long[0], null, "parameter(1)"));
                        starts.add("i");
                    } else {
                        count("constant");
                        starts.add(emit("st", DType.S32, new long[0], null, "constant(" + (rnd.nextInt((int) dims[i] + 4) - 2) + ")"));
                    }
                }
                long[] sizesCopy = sizes.clone();
                op("dynamic-slice", sizesCopy, "dynamic-slice(" + cur + ", " + String.join(", ", starts)
                        + "), dynamic_slice_sizes={" + join(Arrays.stream(sizes).boxed().toList()) + "}");
            }
            case 10 -> convert(CONVERT_TYPES.get(rnd.nextInt(CONVERT_TYPES.size())));
            default -> {
                String name = emit("cp", dtype, dims, randomLayout(rank), "copy(" + cur + ")");
                count("copy");
                cur = name;
            }
        }
    }

    /** Whether modules mix elementwise ops into their data movement (-Dtensorbuf.pointwise=false leaves them out). */
    static final boolean POINTWISE = Boolean.parseBoolean(System.getProperty("tensorbuf.pointwise", "true"));
    /** The types elementwise steps run on; a chain in another type converts to one of them first. */
    static final List<DType> POINTWISE_TYPES = List.of(DType.U8, DType.S8, DType.S32, DType.F16, DType.BF16, DType.F32,
            DType.F64, DType.PRED);
    /**
     * Whether the chain's value is a float multiply that no add or subtract may take next: XLA's
     * CPU backend contracts a multiply feeding an add into one fused multiply-add (LLVM sees
     * them in one loop whatever data movement lies between), which the executor mirrors only
     * for a multiply feeding the add directly; so a float multiply is either paired with its add
     * at once ({@code fma} in the opcode counts) or kept from one.
     */
    private boolean multiplyPending;
    /**
     * Whether the chain's value may hold a NaN that an op made rather than one read from a
     * parameter or a literal. Which NaN XLA's CPU code yields there (the operand's, or x86's
     * default NaN with its sign bit set, for minimum(x, nan) as for inf - inf) follows the
     * instructions LLVM picks, not XLA's semantics; a TOTALORDER compare would turn that sign
     * into a different pred, so such a value is compared only with the IEEE directions.
     */
    private boolean opMadeNaN;
    /**
     * Whether the chain went through a pad or a concatenation. Where a multiply-add's product is
     * of the fill, an iota or a literal, LLVM folds it, rounding it, before it would contract the
     * add, where it knows the values (a scalar, or a vector in a loop it unrolls); where a small
     * loop repeats an element (a concatenation with its own reverse), LLVM computes the product
     * once and contracts neither use (jax 0.10: f16 38 * -62.375 - 20.75 is -2390 with a scalar
     * -62.375, -2392 with the same value in a vector of 66; f32 concatenate(p, reverse(p)) * k + q
     * over 5 to 8 elements rounds the product, over 64 contracts). Which it does follows LLVM's
     * unrolling, not XLA's semantics, so no multiply-add follows a pad or a concatenation. Nor
     * are f16 multiply-adds generated: XLA contracts them where the CPU has native half arithmetic
     * (HloExecutorTest checks jax's bits), but there some small unrolled loops not (seed 1011,
     * 3,000 modules).
     */
    private boolean joined;
    /**
     * Whether the operand being made is the addend of a multiply-add. It is then no pad of a dim
     * other than the one its vector is broadcast along: XLA keeps such a pad in its loop (a
     * branch per element), and whether LLVM contracts the multiply-add beside it follows the
     * loop's shape and the operands' order (jax 0.10: add(p * q, pad) over f32[4,8] padded along
     * dim 0 rounds the product in column 0 and contracts it in the others; add(pad, p * q)
     * contracts everywhere, and so do both over f32[3,5,7] padded along dim 1; seed 1073).
     */
    private boolean addendOfProduct;

    /**
     * Whether the chain's value is a convert from an integer (or pred) to a float, data movement
     * aside: no multiply-add is made of it. LLVM rounds such a product before the add in some
     * small loops it unrolls and vectorizes, where it contracts others (jax 0.10: convert(s32) *
     * transpose(q) + 0.125 over f32[4,4] and [8,8], not [3,5] or [16,16], nor an f32 value in its
     * place; seed 1042).
     */
    private boolean fromInteger;

    /** Whether the chain has been broadcast: see {@link #noDenormals}. */
    private boolean broadcast;

    /**
     * Whether no parameter may hold a denormal, because an argmax's value goes on ({@link
     * #argReduce}) or a broadcast value is converted from f32 to bf16: XLA's code for that flushes f32 denormals in some shapes (jax 0.10: f32[2,3] broadcast
     * into [2,3,3] along {0,2}, or into [3,2,3] then transposed, gives bf16 0 for 2^-140; into
     * [2,4,3] or [3,2,3] alone keeps 0x0008, as plain converts do; seed 1041), which run does not
     * predict.
     */
    private boolean noDenormals;

    private static final Set<String> ARITHMETIC = Set.of("add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
            "clamp", "sqrt");

    /**
     * An elementwise step on the chain's value: unary ({@code negate}, {@code abs}, {@code not},
     * {@code sign}, {@code sqrt}, the roundings, {@code popcnt}, {@code count-leading-zeros}),
     * binary with a broadcast constant, a per-channel constant vector along one dimension or a new
     * parameter read through a transpose ({@code add} ... {@code xor}, the shifts, {@code divide}
     * and {@code remainder} of integers by nonzero constants), {@code clamp} with scalar bounds,
     * {@code compare} or {@code is-finite} and {@code select},
     * and float multiply-adds. Float constants are at times 0, -0 or 1, which XLA drops from an
     * add, a multiply or a divide (so a denormal is not flushed there), as run does; a
     * multiply-add's are not. {@return whether a step was made}
     */
    private boolean pointwise() {
        if (!POINTWISE_TYPES.contains(dtype)) {
            if (dtype.kind() == DType.Kind.COMPLEX) {
                return false;
            }
            convert(POINTWISE_TYPES.get(rnd.nextInt(POINTWISE_TYPES.size() - 1)));
            return true;
        }
        boolean pred = dtype == DType.PRED;
        boolean isFloat = dtype.kind() == DType.Kind.FLOAT;
        boolean unsigned = dtype.kind() == DType.Kind.UNSIGNED;
        int choice = rnd.nextInt(10);
        String rhs;
        String opcode;
        switch (choice) {
            case 0 -> {
                // No count-leading-zeros of signed values: where XLA folds one of a negative
                // constant it gives -(64 - width), not 0 (jax 0.10; ElementwiseFunctionsTest
                // holds the signed results of parameters).
                List<String> unary = pred ? List.of("not")
                        : isFloat ? List.of("negate", "abs", "sign", "sqrt", "floor", "ceil", "round-nearest-even", "round-nearest-afz",
                                "reduce-precision")
                        : unsigned ? List.of("not", "popcnt", "count-leading-zeros")
                        : List.of("negate", "abs", "not", "sign", "popcnt");
                opcode = unary.get(rnd.nextInt(unary.size()));
                rhs = opcode + "(" + cur + ")";
                if (opcode.equals("reduce-precision")) {
                    // bf16's, f16's, an f8's, and any bits up to f64's.
                    int[][] bits = {{8, 7}, {5, 10}, {4, 3}, {5, 2}, {1 + rnd.nextInt(11), rnd.nextInt(53)}};
                    int[] b = bits[rnd.nextInt(bits.length)];
                    rhs += ", exponent_bits=" + b[0] + ", mantissa_bits=" + b[1];
                }
            }
            case 1 -> {
                if (pred) {
                    return false;
                }
                String lo = constant(false);
                String hi = constant(false);
                opcode = "clamp";
                rhs = "clamp(" + lo + ", " + cur + ", " + hi + ")";
            }
            case 2 -> {
                String p;
                if (isFloat && rnd.nextInt(4) == 0) {
                    p = emit("fin", DType.PRED, dims, null, "is-finite(" + cur + ")");
                    count("is-finite");
                } else {
                    String other = operand(false);
                    String dir = List.of("EQ", "NE", "LT", "LE", "GT", "GE").get(rnd.nextInt(6));
                    String type = isFloat && rnd.nextInt(3) == 0 && !opMadeNaN ? ", type=TOTALORDER" : "";
                    p = emit("cmp", DType.PRED, dims, null, "compare(" + cur + ", " + other + "), direction=" + dir + type);
                    count("compare");
                }
                String alt = operand(false);
                opcode = "select";
                rhs = "select(" + p + ", " + cur + ", " + alt + ")";
            }
            case 3 -> {
                if (!isFloat || multiplyPending || joined || dtype == DType.F16 || fromInteger) {
                    return false;
                }
                // A multiply paired with its add: one fused multiply-add in XLA's CPU code.
                String m = emit("mul", dtype, dims, null, "multiply(" + cur + ", " + operand(true) + ")");
                count("multiply");
                opcode = rnd.nextBoolean() ? "add" : "subtract";
                addendOfProduct = true;
                String other = operand(true);
                addendOfProduct = false;
                rhs = opcode + "(" + (rnd.nextBoolean() ? m + ", " + other : other + ", " + m) + ")";
                count("fma");
            }
            default -> {
                List<String> ops = pred ? List.of("and", "or", "xor", "maximum", "minimum")
                        : isFloat ? List.of("add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum")
                        : List.of("add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or", "xor",
                                "shift-left", "shift-right-logical", "shift-right-arithmetic");
                opcode = ops.get(rnd.nextInt(ops.size()));
                if (multiplyPending && (opcode.equals("add") || opcode.equals("subtract"))) {
                    opcode = "maximum";
                }
                if (isFloat && joined && opcode.equals("divide")) {
                    // After a pad or a concatenation the value may be constants only (a slice of
                    // the fill, of iotas and literals), which XLA folds with the divide, dividing
                    // where it multiplies by the reciprocal of a constant divisor otherwise
                    // (jax 0.10: f16 literals / 3.3125; seed 1045).
                    opcode = "multiply";
                }
                boolean avoidIdentity = !isFloat && !opcode.equals("maximum") && !opcode.equals("minimum");
                boolean bitwise = opcode.equals("and") || opcode.equals("or");
                boolean integerDivision = !isFloat && (opcode.equals("divide") || opcode.equals("remainder"));
                String other = integerDivision || bitwise && isNarrowedSigned() ? constant(true) : operand(avoidIdentity);
                rhs = opcode + "(" + cur + ", " + other + ")";
            }
        }
        count(opcode);
        cur = emit("pw", dtype, dims, null, rhs);
        fromInteger = false;
        opMadeNaN |= isFloat && ARITHMETIC.contains(opcode);
        // A max or min after the multiply may be one XLA drops (with -inf or +inf), leaving it pending.
        multiplyPending = isFloat && (opcode.equals("multiply") || opcode.equals("divide")
                || multiplyPending && (opcode.equals("maximum") || opcode.equals("minimum")));
        return true;
    }

    /** The reducer computations the module's reduces apply, each {@code op} of its two parameters. */
    private final List<String> reducers = new ArrayList<>();

    /**
     * A {@code reduce} of the chain's value over a random set of its dims, by one of the reducers
     * run computes exactly (floats by maximum and minimum, f32 and f64 also by add of the value
     * made small integers, which no order of adding rounds; integers by add, multiply, maximum,
     * minimum, and, or, xor, pred by the last five), from the reducer's identity; a third of the
     * time a {@code reduce-window} instead. A reduce over every dim is broadcast back to a vector.
     * {@return whether a step was made}
     */
    private boolean reduce() {
        if (!POINTWISE_TYPES.contains(dtype) || dims.length == 0) {
            return false;
        }
        boolean isFloat = dtype.kind() == DType.Kind.FLOAT;
        boolean sums = dtype == DType.F32 || dtype == DType.F64;
        List<String> ops = isFloat ? sums ? List.of("maximum", "minimum", "add") : List.of("maximum", "minimum")
                : dtype == DType.PRED ? List.of("and", "or", "xor", "maximum", "minimum")
                : List.of("add", "multiply", "maximum", "minimum", "and", "or", "xor");
        String opcode = ops.get(rnd.nextInt(ops.size()));
        if (dtype != DType.PRED && rnd.nextInt(4) == 0) {
            return argReduce();
        }
        // A reduction by minimum passes a NaN on as XLA's elementwise minimum does, its sign as
        // LLVM's code leaves it (jax 0.10.2: the f16 minimum of a +NaN after the first element is
        // -NaN; seed 1117).
        opMadeNaN |= isFloat && ARITHMETIC.contains(opcode);
        if (isFloat && opcode.equals("add")) {
            // run sums floats where no order rounds: the value made small integers first (s8 and back).
            count("convert");
            String small = emit("s8v", DType.S8, dims, null, "convert(" + cur + ")");
            count("convert");
            cur = emit("iv", dtype, dims, null, "convert(" + small + ")");
        }
        if (rnd.nextInt(3) == 0) {
            return reduceWindow(opcode);
        }
        List<Integer> over = new ArrayList<>();
        List<Long> kept = new ArrayList<>();
        for (int d = 0; d < dims.length; d++) {
            if (rnd.nextBoolean() || d == dims.length - 1 && over.isEmpty()) {
                over.add(d);
            } else {
                kept.add(dims[d]);
            }
        }
        String name = reducer(opcode);
        count("constant");
        String init = emit("init", dtype, new long[0], null, "constant(" + identity(opcode) + ")");
        long[] out = kept.stream().mapToLong(Long::longValue).toArray();
        count("reduce");
        cur = emit("red", dtype, out, null, "reduce(" + cur + ", " + init + "), dimensions={" + join(over) + "}, to_apply=" + name);
        return reducedTo(out);
    }

    /**
     * The chain goes on from a reduction's result of {@code out}: no multiply is pending past it,
     * nor a convert from an integer, and a scalar is broadcast back to a vector. {@return true}
     */
    private boolean reducedTo(long[] out) {
        dims = out;
        multiplyPending = false;
        fromInteger = false;
        if (dims.length == 0) {
            op("broadcast", new long[] {1 + rnd.nextInt(4)}, "broadcast(" + cur + "), dimensions={}");
        }
        return true;
    }

    /** {@return per dim the low and high edge padding of {@code name} where it is a pad, else zeros} */
    private long[][] cutEdges(String name, int rank) {
        long[][] edges = new long[rank][2];
        Line line = line(name);
        if (!line.rhs().startsWith("pad(")) {
            return edges;
        }
        String[] dimsConfig = line.rhs().substring(line.rhs().indexOf("padding=") + "padding=".length()).split("x");
        for (int d = 0; d < rank && d < dimsConfig.length; d++) {
            String[] parts = dimsConfig[d].split("_");
            edges[d][0] = Long.parseLong(parts[0]);
            edges[d][1] = Long.parseLong(parts[1]);
        }
        return edges;
    }

    /**
     * A {@code reduce-window} of the chain's value by {@code opcode}: per dim a window of 1 to 3,
     * a stride of 1 or 2, edge padding of 0 or 1, and at times an lhs_dilate or rhs_dilate of 2.
     * {@return whether a step was made}
     */
    private boolean reduceWindow(String opcode) {
        int rank = dims.length;
        long[] out = new long[rank];
        List<String> size = new ArrayList<>();
        List<String> stride = new ArrayList<>();
        List<String> pad = new ArrayList<>();
        List<String> lhs = new ArrayList<>();
        List<String> rhs = new ArrayList<>();
        long[][] cut = cutEdges(cur, rank);
        for (int d = 0; d < rank; d++) {
            long k = 1 + rnd.nextInt(3);
            long s = 1 + rnd.nextInt(2);
            // No window padding past a pad's cut edge: XLA's simplifier folds the pad into the
            // window's padding by adding the edges (-1 + 1 = 0), which brings back the element the
            // pad cut (jax 0.10, seed 1089), where run computes the program as written.
            long lo = rnd.nextInt(2) * (cut[d][0] < 0 ? 0 : 1);
            long hi = rnd.nextInt(2) * (cut[d][1] < 0 ? 0 : 1);
            long ld = rnd.nextInt(5) == 0 ? 2 : 1;
            long rd = rnd.nextInt(5) == 0 ? 2 : 1;
            long base = (dims[d] - 1) * ld + 1 + lo + hi;
            long span = (k - 1) * rd + 1;
            if (base < span) {
                return false;
            }
            out[d] = (base - span) / s + 1;
            size.add(Long.toString(k));
            stride.add(Long.toString(s));
            pad.add(lo + "_" + hi);
            lhs.add(Long.toString(ld));
            rhs.add(Long.toString(rd));
        }
        if (Arrays.stream(out).reduce(1, Math::multiplyExact) > MAX_ELEMENTS) {
            return false;
        }
        String name = reducer(opcode);
        count("constant");
        String init = emit("init", dtype, new long[0], null, "constant(" + identity(opcode) + ")");
        count("reduce-window");
        cur = emit("rw", dtype, out, null, "reduce-window(" + cur + ", " + init + "), window={size=" + String.join("x", size)
                + " stride=" + String.join("x", stride) + " pad=" + String.join("x", pad) + " lhs_dilate=" + String.join("x", lhs)
                + " rhs_dilate=" + String.join("x", rhs) + "}, to_apply=" + name);
        return reducedTo(out);
    }

    /**
     * jax's argmax or argmin of the chain's value along one dim, with an s32 iota as the indices:
     * a variadic reduce of (values, indices), then its index (the chain goes on in s32) or, a third
     * of the time, its value. {@return whether a step was made}
     */
    private boolean argReduce() {
        int d = rnd.nextInt(dims.length);
        boolean max = rnd.nextBoolean();
        boolean isFloat = dtype.kind() == DType.Kind.FLOAT;
        String t = dtype.xlaName();
        String name = "arg" + reducers.size();
        reducers.add(name + " {\n  a = " + t + "[] parameter(0)\n  ai = s32[] parameter(1)\n  b = " + t + "[] parameter(2)\n"
                + "  bi = s32[] parameter(3)\n  o = pred[] compare(a, b), direction=" + (max ? "GT" : "LT") + "\n"
                + (isFloat ? "  n = pred[] compare(a, a), direction=NE\n  p = pred[] or(o, n)\n" : "")
                + "  v = " + t + "[] select(" + (isFloat ? "p" : "o") + ", a, b)\n  e = pred[] compare(a, b), direction=EQ\n"
                + "  l = pred[] compare(ai, bi), direction=LT\n  tie = pred[] and(e, l)\n  q = pred[] or(" + (isFloat ? "p" : "o")
                + ", tie)\n"
                + "  i = s32[] select(q, ai, bi)\n  ROOT r = (" + t + "[], s32[]) tuple(v, i)\n}\n");
        count("iota");
        String io = emit("io", DType.S32, dims, null, "iota(), iota_dimension=" + d);
        count("constant");
        String init = emit("init", dtype, new long[0], null, "constant(" + (max ? identity("maximum") : identity("minimum")) + ")");
        count("constant");
        String zero = emit("zero", DType.S32, new long[0], null, "constant(0)");
        long[] out = new long[dims.length - 1];
        for (int k = 0, j = 0; k < dims.length; k++) {
            if (k != d) {
                out[j++] = dims[k];
            }
        }
        String kept = join(Arrays.stream(out).boxed().toList());
        String tuple = "(" + t + "[" + kept + "], s32[" + kept + "])";
        count(max ? "argmax" : "argmin");
        String r = "ar" + lines.size();
        lines.add(new Line(r, dtype, out, null, "reduce(" + cur + ", " + io + ", " + init + ", " + zero + "), dimensions={" + d
                + "}, to_apply=" + name, tuple));
        boolean value = rnd.nextInt(3) == 0;
        // XLA reads the value flushed where the reduce keeps one element, which its rewrites can
        // make of a larger one (a concatenation of two rows into two outputs; seed 1064): run
        // does not predict those, so a module that goes on from the value holds no denormal.
        noDenormals |= value && isFloat;
        if (!value) {
            dtype = DType.S32;
        }
        cur = emit("gi", dtype, out, null, "get-tuple-element(" + r + "), index=" + (value ? 0 : 1));
        return reducedTo(out);
    }

    /**
     * {@return the name of a new reducer computation: {@code opcode} of its two parameters, in the
     * chain's type} About half the f32 and f64 maxima and minima (not sums, whose small integers
     * could round in bf16) round each step through bf16 or f32 and back, as XLA's float
     * normalization writes a reduce of bf16 (decided by the count of
     * lines so far, so that the random stream, and every other module of a seed, stays as it was).
     */
    private String reducer(String opcode) {
        String t = dtype.xlaName();
        String name = "red" + reducers.size();
        String op = "  ROOT c = " + t + "[] " + opcode + "(a, b)\n";
        if ((dtype == DType.F32 || dtype == DType.F64) && lines.size() % 2 == 1 && !opcode.equals("add")) {
            String through = dtype == DType.F32 ? "bf16" : "f32";
            op = "  m = " + t + "[] " + opcode + "(a, b)\n  n = " + through + "[] convert(m)\n  ROOT c = " + t + "[] convert(n)\n";
        }
        reducers.add(name + " {\n  a = " + t + "[] parameter(0)\n  b = " + t + "[] parameter(1)\n" + op + "}\n");
        return name;
    }

    /** {@return the identity of {@code opcode} on the chain's type, as an HLO literal} */
    private String identity(String opcode) {
        if (dtype.kind() == DType.Kind.FLOAT) {
            return opcode.equals("maximum") ? "-inf" : opcode.equals("add") ? "0" : "inf";
        }
        if (dtype == DType.PRED) {
            return opcode.equals("and") || opcode.equals("minimum") ? "true" : "false";
        }
        int w = dtype.bitWidth();
        boolean signed = dtype.kind() == DType.Kind.SIGNED;
        long ones = w == 64 ? -1L : (1L << w) - 1;
        return switch (opcode) {
            case "add", "or", "xor" -> "0";
            case "multiply" -> "1";
            case "and" -> signed ? "-1" : Long.toUnsignedString(ones);
            case "maximum" -> signed ? Long.toString(-1L << (w - 1)) : "0";
            default -> signed ? Long.toString(~(-1L << (w - 1))) : Long.toUnsignedString(ones);
        };
    }

    /**
     * {@return an operand of the chain's type and dims: a broadcast constant, a per-channel
     * constant vector, a new parameter read transposed, or a new scalar or vector parameter
     * broadcast} {@code nonIdentity} keeps 0 and 1 out.
     */
    private String operand(boolean nonIdentity) {
        int rank = dims.length;
        if (rnd.nextInt(5) == 0) {
            // A parameter broadcast: a vector along one dim, or a scalar. XLA divides by one as a
            // multiply by the broadcast reciprocal, computed as the program runs.
            long[] declared = rank == 0 || rnd.nextInt(3) == 0 ? new long[0] : new long[] {dims[rnd.nextInt(rank)]};
            int along = -1;
            if (declared.length == 1) {
                List<Integer> fits = new ArrayList<>();
                for (int d = 0; d < rank; d++) {
                    if (dims[d] == declared[0]) {
                        fits.add(d);
                    }
                }
                along = fits.get(rnd.nextInt(fits.size()));
            }
            int padded = along >= 0 && dims[along] > 2 && rnd.nextInt(3) == 0 ? along : -1;
            if (padded >= 0) {
                declared[0] -= 2;
            }
            String name = "q" + params.size();
            params.add(new Param(name, dtype, declared, !joined));
            lines.addFirst(new Line(name, dtype, declared, null, "parameter(" + (params.size() - 1) + ")"));
            return rank < 2 || along < 0 || padded >= 0 || rnd.nextInt(3) > 0 ? paddedBroadcast(name, along, padded)
                    : reshapedBroadcast(name, along);
        }
        switch (rnd.nextInt(3)) {
            case 0 -> {
                return constant(nonIdentity);
            }
            case 1 -> {
                if (rank > 0) {
                    int d = rnd.nextInt(rank);
                    List<String> values = new ArrayList<>();
                    // At times a vector that counts 0, 1, 2, ... from -0, or whose reciprocals do
                    // from -inf: XLA makes it, or the reciprocal it folds, an iota, whose 0 is +0.
                    boolean counts = dtype.kind() == DType.Kind.FLOAT && !nonIdentity && rnd.nextInt(8) == 0;
                    boolean reciprocals = rnd.nextBoolean();
                    for (long k = 0; k < dims[d]; k++) {
                        values.add(!counts ? pointwiseLiteral(nonIdentity) : k == 0 ? (reciprocals ? "-inf" : "-0.0")
                                : reciprocals ? Float.toString(1f / k) : Long.toString(k));
                    }
                    count("constant");
                    String move = null;
                    if (counts && rnd.nextBoolean()) {
                        // At times moved into counting: XLA folds the slice or reverse with the
                        // constant into a new one, which is then the iota (a divide by it a true
                        // quotient), or whose folded reciprocal is.
                        if (rnd.nextBoolean()) {
                            Collections.reverse(values);
                            move = "reverse(%s), dimensions={0}";
                        } else {
                            values.addFirst(pointwiseLiteral(true));
                            move = "slice(%s), slice={[1:" + values.size() + "]}";
                        }
                    }
                    String v = emit("chan", dtype, new long[] {values.size()}, null, "constant({" + String.join(", ", values) + "})");
                    if (move != null) {
                        count(move.substring(0, move.indexOf('(')));
                        v = emit("mv", dtype, new long[] {dims[d]}, null, move.formatted(v));
                    }
                    count("broadcast");
                    return emit("bc", dtype, dims, null, "broadcast(" + v + "), dimensions={" + d + "}");
                }
                return constant(nonIdentity);
            }
            default -> {
                List<Integer> perm = shuffled(rnd, rank);
                long[] declared = new long[rank];
                // transpose(q, perm) has dims[i] = declared[perm[i]].
                for (int i = 0; i < rank; i++) {
                    declared[perm.get(i)] = dims[i];
                }
                String name = "q" + params.size();
                params.add(new Param(name, dtype, declared, !joined));
                lines.addFirst(new Line(name, dtype, declared, null, "parameter(" + (params.size() - 1) + ")"));
                count("transpose");
                return emit("qt", dtype, dims, null, "transpose(" + name + "), dimensions={" + join(perm) + "}");
            }
        }
    }

    private String constant(boolean nonIdentity) {
        count("constant");
        String c = emit("k", dtype, new long[0], null, "constant(" + pointwiseLiteral(nonIdentity) + ")");
        count("broadcast");
        return dims.length == 0 ? c : emit("bk", dtype, dims, null, "broadcast(" + c + "), dimensions={}");
    }

    /**
     * {@return q broadcast to the chain's dims along {@code along} (or a scalar where it is -1),
     * with a pad of 1_1 where {@code padded} is a dim} The pad is of {@code along} itself, which
     * XLA moves into the broadcast (so a divide by it is a multiply by the reciprocal), or at
     * times of another dim of at least 3, which it does not.
     */
    private String paddedBroadcast(String q, int along, int padded) {
        if (padded < 0 && along >= 0 && dims.length > 1 && rnd.nextInt(4) == 0) {
            int other = rnd.nextInt(dims.length);
            padded = other != along && dims[other] > 2 && !addendOfProduct ? other : -1;
        }
        long[] inner = dims.clone();
        if (padded >= 0) {
            inner[padded] -= 2;
        }
        count("broadcast");
        String b = emit("qb", dtype, inner, null, "broadcast(" + q + "), dimensions={" + (along < 0 ? "" : along) + "}");
        if (padded < 0) {
            return b;
        }
        count("constant");
        String value = emit("k", dtype, new long[0], null, "constant(" + pointwiseLiteral(true) + ")");
        count("pad");
        StringBuilder config = new StringBuilder();
        for (int d = 0; d < dims.length; d++) {
            config.append(d == 0 ? "" : "x").append(d == padded ? "1_1" : "0_0");
        }
        return emit("qp", dtype, dims, null, "pad(" + b + ", " + value + "), padding=" + config);
    }

    /**
     * {@return vector q broadcast along {@code along} into the chain's dims with those before it
     * merged into one and those after it into another, then reshaped to the chain's dims} XLA
     * takes such a reshape into the broadcast. At times the dims after q's are merged with those
     * before it instead, which moves q's dim: XLA keeps that reshape apart, and divides by it.
     */
    private String reshapedBroadcast(String q, int along) {
        long before = 1;
        long after = 1;
        for (int d = 0; d < dims.length; d++) {
            before *= d < along ? dims[d] : 1;
            after *= d > along ? dims[d] : 1;
        }
        long[] merged = rnd.nextInt(3) == 0 ? new long[] {before * after, dims[along]} : new long[] {before, dims[along], after};
        count("broadcast");
        String b = emit("qb", dtype, merged, null, "broadcast(" + q + "), dimensions={1}");
        count("reshape");
        return emit("qr", dtype, dims, null, "reshape(" + b + ")");
    }

    /** A literal of the chain's type: small integers, or floats with the special values at times; never 0 or 1 when asked. */
    private String pointwiseLiteral(boolean nonIdentity) {
        if (dtype == DType.PRED) {
            return rnd.nextBoolean() ? "true" : "false";
        }
        String v;
        do {
            v = switch (dtype.kind()) {
                case UNSIGNED -> Integer.toString(rnd.nextInt(dtype.bitWidth() >= 16 ? 70000 : 256));
                case SIGNED -> Integer.toString(rnd.nextInt(dtype.bitWidth() >= 16 ? 140000 : 256) - (dtype.bitWidth() >= 16 ? 70000 : 128));
                default -> switch (rnd.nextInt(12)) {
                    case 0 -> "inf";
                    case 1 -> "-inf";
                    case 2 -> "nan";
                    case 3 -> List.of("0", "-0.0", "1").get(rnd.nextInt(3));
                    default -> Float.toString((rnd.nextInt(2000) - 1000) / 16f);
                };
            };
        } while (nonIdentity && (v.equals("0") || v.equals("1") || v.equals("0.0") || v.equals("1.0") || v.equals("-0.0")));
        return v;
    }

    /**
     * Converts the chain's value, except from complex to real types: jaxlib 0.10.2 crashes on some
     * of those (on pred always; on any real type when the value folds to a constant, such as an
     * iota along a dimension of 1), so the random modules leave them to ConvertXlaAgreementTest,
     * which converts parameters.
     */
    private void convert(DType to) {
        if (dtype.kind() == DType.Kind.COMPLEX && to.kind() != DType.Kind.COMPLEX) {
            return;
        }
        noDenormals |= broadcast && dtype == DType.F32 && to == DType.BF16;
        boolean integers = isInteger(dtype) && isInteger(to);
        if (integersFromFloats && integers && (dtype.bitWidth() == to.bitWidth() && dtype.kind() != to.kind()
                || dtype.kind() == DType.Kind.SIGNED && to.kind() == DType.Kind.UNSIGNED && to.bitWidth() >= 32)) {
            return;
        }
        integersFromFloats = integers ? integersFromFloats : isInteger(to) && !isInteger(dtype) && dtype != DType.PRED;
        fromInteger = (isInteger(dtype) || dtype == DType.PRED) && to.kind() == DType.Kind.FLOAT;
        dtype = to;
        op("convert", dims, "convert(" + cur + ")");
    }

    /**
     * {@return whether the chain's value is a convert to a narrower signed integer, copies aside}
     * jaxlib 0.10's CPU compiler crashes the process (SIGSEGV) on an {@code and} or {@code or} of
     * such a convert with another value that is not a constant, at any size from 2 elements
     * (s32 -> s8, s16; s64 -> s32; seed 1012), so there the other operand is a constant.
     */
    private boolean isNarrowedSigned() {
        Line value = line(cur);
        while (value.rhs().startsWith("copy(")) {
            value = line(operandOf(value));
        }
        if (!value.rhs().startsWith("convert(")) {
            return false;
        }
        DType from = line(operandOf(value)).dtype();
        return from.kind() == DType.Kind.SIGNED && value.dtype().kind() == DType.Kind.SIGNED && value.dtype().bitWidth() < from.bitWidth();
    }

    private Line line(String name) {
        return lines.stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow();
    }

    /** {@return the one operand of a unary line such as {@code convert(v3)}} */
    private static String operandOf(Line l) {
        return l.rhs().substring(l.rhs().indexOf('(') + 1, l.rhs().indexOf(')'));
    }

    /**
     * Whether the chain's integers were converted from floats. LLVM folds a float converted to a
     * signed integer, then to the unsigned one of its width, then to a float, into the float
     * truncated (a negative value stays negative, where HLO's converts give 2^32 - n): XLA's CPU
     * code does so inside one loop (jax 0.10: f32 -5.5 -> s32 -> u32 -> f16 is -5, not inf), run
     * does not, so such a flip of signedness is not generated. Nor a signed one to an unsigned
     * integer of 32 or 64 bits of another width: from f16 and the f8 types, whose integers fit
     * in 32 bits, LLVM folds those too (f16 -157.3 -> s64 -> u32 -> f16 is -157, not inf;
     * -> s32 -> u64 -> u32 -> f32 as well; seed 1078), though not always (-> s32 -> u64 -> f32,
     * and f8e5m2 -> s64 -> u32 -> f32, keep 2^n - 157).
     */
    private boolean integersFromFloats;

    private static boolean isInteger(DType t) {
        return t.kind() == DType.Kind.SIGNED || t.kind() == DType.Kind.UNSIGNED;
    }

    private void op(String opcode, long[] out, String rhs) {
        long n = Arrays.stream(out).reduce(1, Math::multiplyExact);
        if (n > MAX_ELEMENTS || n == 0) {
            return;
        }
        broadcast |= opcode.equals("broadcast");
        count(opcode);
        cur = emit("v", dtype, out, null, rhs);
        dims = out;
    }

    private String emit(String prefix, DType t, long[] d, String layout, String rhs) {
        String name = prefix.equals("p0") ? prefix : prefix + lines.size();
        lines.add(new Line(name, t, d, layout, rhs));
        return name;
    }

    private void count(String opcode) {
        opcodes.merge(opcode, 1, Integer::sum);
    }

    private String scalarLiteral() {
        return switch (dtype.kind()) {
            case BOOLEAN -> rnd.nextBoolean() ? "true" : "false";
            case UNSIGNED -> Integer.toString(rnd.nextInt(100));
            case SIGNED -> Integer.toString(rnd.nextInt(100) - 50);
            case COMPLEX -> "(" + realLiteral() + ", " + realLiteral() + ")";
            default -> realLiteral();
        };
    }

    /**
     * Quarters up to +-50, and at times negative zero. Not as XLA prints it ("-0"): XLA's text
     * parser, which xla_run.py runs these modules through, reads "-0" back as +0, where run keeps
     * the -0 of the program it was printed from (RunXlaAgreementTest's pad_negative_zero).
     */
    private String realLiteral() {
        return switch (rnd.nextInt(30)) {
            case 0 -> "-0e0";
            case 1 -> "-0.0";
            default -> (rnd.nextInt(400) - 200) / 4.0 + "";
        };
    }

    private String arrayLiteral(int level) {
        if (level == dims.length) {
            return scalarLiteral();
        }
        List<String> parts = new ArrayList<>();
        for (long k = 0; k < dims[level]; k++) {
            parts.add(arrayLiteral(level + 1));
        }
        return "{" + String.join(", ", parts) + "}";
    }

    private long[] randomDims(int rank, int max) {
        long[] d = new long[rank];
        for (int i = 0; i < rank; i++) {
            d[i] = 1 + rnd.nextInt(max);
        }
        return d;
    }

    private String randomLayout(int rank) {
        return "{" + join(shuffled(rnd, rank)) + "}";
    }

    /** {@return {@code 0..n-1} in an order {@code rnd} draws} */
    static List<Integer> shuffled(Random rnd, int n) {
        List<Integer> perm = IntStream.range(0, n).boxed().collect(Collectors.toList());
        Collections.shuffle(perm, rnd);
        return perm;
    }

    static String shape(DType t, long[] dims) {
        return t.xlaName() + "[" + join(Arrays.stream(dims).boxed().toList()) + "]";
    }

    static String join(List<? extends Number> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
