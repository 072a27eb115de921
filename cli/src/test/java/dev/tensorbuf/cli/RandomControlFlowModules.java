package dev.tensorbuf.cli;

import dev.tensorbuf.views.DType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Random valid HLO modules of {@code while}, {@code conditional} and {@code call}, nested up to
 * two deep, over two arrays of one type and shape. A loop carries a counter, the two arrays (at
 * times swapped each iteration, so that an iteration's result is the next one's other operand)
 * and at times its bound, and stops at a constant or a parameter's bound (from -3, so at times
 * before its first iteration) or, at times, also when an element reaches a constant. A
 * conditional chooses by a pred or by an s32 (-3 to past its last branch, which XLA clamps to the
 * last), its branches given an array, a view or a tuple, and at times returning their parameter
 * as it is. Each computation is made of steps that move data by the counter (dynamic slices and
 * updates, selects by an iota, rotations, shifts with a pad, reverses, transposes among equal
 * dims) and of elementwise ops, a product and a sum among them, whose contraction into one
 * rounding depends on where XLA's pipeline puts the constructs' edges: a call is inlined, so is a
 * branch whose selector XLA folds and a loop it counts to at most one trip; other branches and
 * loops round at their edges, and work on what a loop passes on unchanged is hoisted out of it.
 */
final class RandomControlFlowModules {
    /** Floats twice: where a product and a sum are rounded is what the edges of loops and branches decide. */
    private static final List<DType> TYPES = List.of(DType.F32, DType.S32, DType.U8, DType.BF16, DType.F16, DType.S8,
            DType.PRED, DType.F64, DType.F32, DType.F64, DType.BF16, DType.F16);

    private final Random rnd;
    private final StringBuilder computations = new StringBuilder();
    private final List<RandomHloModules.Param> params = new ArrayList<>();
    private final Map<String, Integer> opcodes = new TreeMap<>();
    private DType t;
    private long[] dims;
    private int names;
    /**
     * The values a pad's fill reaches, through any op: no product of them is made. LLVM folds a
     * product of the fill and a constant into a constant where run contracts it with the sum it
     * feeds (RELIABILITY: late folds beyond pads, not mirrored).
     */
    private final java.util.Set<String> padded = new java.util.HashSet<>();
    /** How many loop bodies the computation being built is in. */
    private int loopDepth;
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("\\b[bepx]\\d+\\b");
    private Computation main;

    private RandomControlFlowModules(Random rnd) {
        this.rnd = rnd;
    }

    static RandomHloModules.Module generate(Random rnd) {
        return new RandomControlFlowModules(rnd).build();
    }

    /** The lines of one computation being built. */
    private final class Computation {
        private final String name;
        private final StringBuilder text = new StringBuilder();

        Computation(String name) {
            this.name = name;
        }

        /** {@return the name of a new instruction {@code rhs} of type {@code shape}} */
        String add(String shape, String rhs) {
            // Not c: c64 and c128 name types.
            String n = (name.equals("main") ? "e" : name.charAt(0) == 'c' ? "x" : name.charAt(0) + "") + names++;
            text.append("  ").append(n).append(" = ").append(shape).append(' ').append(rhs).append('\n');
            count(rhs.substring(0, rhs.indexOf('(')));
            if (rhs.startsWith("pad(") || NAME.matcher(rhs).results().anyMatch(m -> padded.contains(m.group()))) {
                padded.add(n);
            }
            return n;
        }

        /** Declares an entry parameter. */
        void declare(String param, String shape, int number) {
            text.append("  ").append(param).append(" = ").append(shape).append(" parameter(").append(number).append(")\n");
            count("parameter");
        }

        /** {@return the computation's text, {@code root} its result} */
        String text(String root) {
            return name + " {\n" + text.toString().replace("  " + root + " = ", "  ROOT " + root + " = ") + "}\n";
        }

        /** Ends a called computation, {@code root} its result, and sets it before those that call it. */
        String finish(String root) {
            computations.append(text(root)).append('\n');
            return name;
        }
    }

    private RandomHloModules.Module build() {
        t = TYPES.get(rnd.nextInt(TYPES.size()));
        boolean large = rnd.nextInt(5) == 0;
        int rank = 1 + rnd.nextInt(large ? 2 : 3);
        dims = new long[rank];
        for (int i = 0; i < rank; i++) {
            // Mostly tiny; at times large enough for run's vector loops.
            dims[i] = 1 + rnd.nextInt(large ? (rank == 1 ? 700 : 40) : rank == 3 ? 3 : 5);
        }
        main = new Computation("main");
        String a = param("p0", t, dims);
        String b = param("p1", t, dims);
        if (rnd.nextInt(4) == 0) {
            a = reverse(main, a);
        }
        String r = construct(main, a, b, null, 0);
        if (rnd.nextInt(3) == 0) {
            // An op on the result outside the construct: a product from inside contracts with it
            // where XLA inlines the construct.
            String other = rnd.nextBoolean() ? "p0" : "p1";
            r = main.add(arr(), binary(main, r, other) + "(" + r + ", " + other + ")");
        }
        if (rnd.nextBoolean()) {
            List<Integer> perm = shuffled(rank);
            r = main.add(arr() + "{" + join(perm) + "}", "copy(" + r + ")");
        }
        String text = "HloModule control\n\n" + computations + "ENTRY " + main.text(r);
        return new RandomHloModules.Module(text, List.copyOf(params), Map.copyOf(opcodes), t);
    }

    /** {@return a while, a conditional or a call on {@code a} and {@code b}} */
    private String construct(Computation c, String a, String b, String i, int depth) {
        return switch (rnd.nextInt(3)) {
            case 0 -> loop(c, a, b, depth);
            case 1 -> conditional(c, a, b, i, depth);
            default -> call(c, a, b, i, depth);
        };
    }

    /**
     * A loop over (counter, a, b[, bound]): the body takes one to three steps on a and b by the
     * counter, and the result is one of the arrays.
     */
    private String loop(Computation c, String a, String b, int depth) {
        boolean carriedBound = rnd.nextBoolean();
        // A nested loop's bound is a constant of its caller's (a parameter is the entry's).
        String bound = !carriedBound ? null : c == main ? scalarParam() : c.add("s32[]", "constant(" + rnd.nextInt(4) + ")");
        // The second array is at times carried in another type, converted where it is used; the
        // arrays at times in other layouts.
        DType u = rnd.nextInt(3) == 0 ? TYPES.get(rnd.nextInt(TYPES.size())) : t;
        String first = arr() + randomLayout();
        String second = shape(u, dims) + randomLayout();
        String state = "(s32[], " + first + ", " + second + (carriedBound ? ", s32[]" : "") + ")";
        String start = c.add("s32[]", "constant(" + (rnd.nextInt(4) == 0 ? rnd.nextInt(3) - 1 : 0) + ")");
        String carriedB = u == t ? b : c.add(shape(u, dims), "convert(" + b + ")");
        boolean carriesConstant = u == t && c == main && carriedBound && rnd.nextInt(4) == 0;
        if (carriesConstant) {
            // A constant, which XLA sinks into the body where the body passes it on unchanged.
            // Only in a loop XLA cannot count: one it inlines it folds whole where the counter
            // makes a select's choice known, which run does not mirror. Nor work on the constant
            // alone: an op of constants that XLA folds to an identity, then drops (x + (c - c)
            // is x, its -0 kept), run computes.
            carriedB = c.add(arr(), "broadcast(" + scalarConstant(c) + "), dimensions={}");
        }
        String init = c.add(state, "tuple(" + start + ", " + a + ", " + carriedB + (carriedBound ? ", " + bound : "") + ")");

        Computation cond = new Computation("cond" + names++);
        String x = cond.add(state, "parameter(0)");
        String counter = cond.add("s32[]", "get-tuple-element(" + x + "), index=0");
        String limit = carriedBound ? cond.add("s32[]", "get-tuple-element(" + x + "), index=3")
                : cond.add("s32[]", "constant(" + rnd.nextInt(5) + ")");
        String go = cond.add("pred[]", "compare(" + counter + ", " + limit + "), direction=LT");
        if (rnd.nextInt(4) == 0) {
            // Also stop when the first element of a reaches a constant.
            String element = cond.add(t.xlaName() + "[]", "reshape(" + cond.add(shape(t, ones()),
                    "slice(" + cond.add(first, "get-tuple-element(" + x + "), index=1") + "), slice={" + firstElement() + "}") + ")");
            String stop = cond.add("pred[]", "compare(" + element + ", " + scalarConstant(cond) + "), direction=NE");
            go = cond.add("pred[]", "and(" + go + ", " + stop + ")");
        }
        String condName = cond.finish(go);

        Computation body = new Computation("body" + names++);
        loopDepth++;
        x = body.add(state, "parameter(0)");
        String i = body.add("s32[]", "get-tuple-element(" + x + "), index=0");
        String p = body.add(first, "get-tuple-element(" + x + "), index=1");
        String stored = body.add(second, "get-tuple-element(" + x + "), index=2");
        String q = u == t ? stored : body.add(arr(), "convert(" + stored + ")");
        taint(a, b, p, stored, q);
        String next = body.add("s32[]", "add(" + i + ", " + body.add("s32[]", "constant(1)") + ")");
        int passed = rnd.nextInt(3);
        String with = q;
        if (passed == 2 && !carriesConstant && rnd.nextBoolean()) {
            // b passes unchanged, so work on it alone is loop-invariant: XLA hoists it out of the
            // loop, into memory, rounded before the body's work that reads it (read once, as a
            // value read twice is in memory either way).
            with = body.add(arr(), (t == DType.PRED ? "xor" : rnd.nextBoolean() && multiplies(q) ? "multiply" : binary(body, q, q)) + "(" + q + ", "
                    + (rnd.nextBoolean() ? q : body.add(arr(), "broadcast(" + scalarConstant(body) + "), dimensions={}")) + ")");
        }
        String stepped = with.equals(q) ? p
                : body.add(arr(), (t == DType.PRED ? "or" : rnd.nextBoolean() ? "add" : "subtract") + "(" + p + ", " + with + ")");
        for (int k = rnd.nextInt(3); k >= 0; k--) {
            stepped = step(body, stepped, q, i, depth + 1);
        }
        String other = switch (passed) {
            case 0 -> p;
            case 1 -> step(body, q, p, i, depth + 1);
            default -> stored;
        };
        if (u != t && !other.equals(stored)) {
            other = body.add(shape(u, dims), "convert(" + other + ")");
        }
        String carried = carriedBound ? ", " + body.add("s32[]", "get-tuple-element(" + x + "), index=3") : "";
        String bodyName = body.finish(body.add(state, "tuple(" + next + ", " + stepped + ", " + other + carried + ")"));
        loopDepth--;

        String w = c.add(state, "while(" + init + "), condition=" + condName + ", body=" + bodyName);
        taint(stepped, other, w);
        if (rnd.nextBoolean()) {
            return c.add(first, "get-tuple-element(" + w + "), index=1");
        }
        String r = c.add(second, "get-tuple-element(" + w + "), index=2");
        return u == t ? r : c.add(arr(), "convert(" + r + ")");
    }

    /**
     * A conditional of two or three branches chosen by an s32 parameter, or of two by a pred
     * (a parameter, or a comparison of the counter); each branch is given a, b, a view of a or the
     * tuple (a, b), and takes up to two steps or returns what it was given.
     */
    private String conditional(Computation c, String a, String b, String i, int depth) {
        boolean byPred = rnd.nextBoolean();
        int n = byPred ? 2 : 2 + rnd.nextInt(2);
        String selector;
        if (c != main) {
            selector = byPred ? c.add("pred[]", "compare(" + i + ", " + c.add("s32[]", "constant(" + rnd.nextInt(3) + ")")
                    + "), direction=" + (rnd.nextBoolean() ? "LT" : "EQ")) : i;
        } else {
            selector = byPred ? param("p" + params.size(), DType.PRED, new long[0]) : scalarParam();
            if (rnd.nextInt(3) == 0) {
                // Index arithmetic of a parameter: folded when run reads it, unknown to XLA.
                String k = c.add("s32[]", "constant(" + (rnd.nextInt(3) - 1) + ")");
                selector = byPred ? c.add("pred[]", "xor(" + selector + ", " + c.add("pred[]", "constant(true)") + ")")
                        : c.add("s32[]", "add(" + selector + ", " + k + ")");
            }
        }
        boolean tupleResult = rnd.nextInt(4) == 0;
        String resultShape = tupleResult ? "(" + arr() + ", " + arr() + ")" : arr();
        List<String> branches = new ArrayList<>();
        List<String> fromBranches = new ArrayList<>();
        List<String> operands = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Computation branch = new Computation("branch" + names++);
            String given;
            String p;
            String q;
            switch (rnd.nextInt(4)) {
                case 0 -> {
                    given = c.add("(" + arr() + ", " + arr() + ")", "tuple(" + a + ", " + b + ")");
                    String x = branch.add("(" + arr() + ", " + arr() + ")", "parameter(0)");
                    p = branch.add(arr(), "get-tuple-element(" + x + "), index=0");
                    q = branch.add(arr(), "get-tuple-element(" + x + "), index=1");
                }
                case 1 -> {
                    given = reverse(c, a);
                    p = branch.add(arr(), "parameter(0)");
                    q = p;
                }
                default -> {
                    given = rnd.nextBoolean() ? a : b;
                    p = branch.add(arr(), "parameter(0)");
                    q = p;
                }
            }
            taint(a, b, p, q);
            String r = p;
            for (int s = rnd.nextInt(3); s > 0; s--) {
                r = step(branch, r, q, null, depth + 1);
            }
            if (tupleResult) {
                r = branch.add(resultShape, "tuple(" + r + ", " + (rnd.nextBoolean() ? q : p) + ")");
            }
            branches.add(branch.finish(r));
            fromBranches.add(r);
            operands.add(given);
        }
        String chosen = byPred
                ? "true_computation=" + branches.get(0) + ", false_computation=" + branches.get(1)
                : "branch_computations={" + String.join(", ", branches) + "}";
        String r = c.add(resultShape, "conditional(" + selector + ", " + String.join(", ", operands) + "), " + chosen);
        if (fromBranches.stream().anyMatch(padded::contains)) {
            padded.add(r);
        }
        return tupleResult ? c.add(arr(), "get-tuple-element(" + r + "), index=" + rnd.nextInt(2)) : r;
    }

    /** A call of a computation of a and b that takes one or two steps. */
    private String call(Computation c, String a, String b, String i, int depth) {
        Computation callee = new Computation("callee" + names++);
        String p = callee.add(arr(), "parameter(0)");
        String q = callee.add(arr(), "parameter(1)");
        taint(a, b, p, q);
        String r = p;
        for (int s = 1 + rnd.nextInt(2); s > 0; s--) {
            r = step(callee, r, q, null, depth + 1);
        }
        String called = c.add(arr(), "call(" + a + ", " + b + "), to_apply=" + callee.finish(r));
        taint(r, r, called);
        return called;
    }

    /**
     * One step on {@code a} with {@code b}, by the counter {@code i} where there is one (else a
     * constant): an elementwise op, a product and a sum, a dynamic update or slice, a select by an
     * iota, a rotation, a shift with a pad, a reverse, a transpose among equal dims, or (under two
     * deep) a construct of its own.
     */
    private String step(Computation c, String a, String b, String i, int depth) {
        if (i == null) {
            i = c.add("s32[]", "constant(" + (rnd.nextInt(5) - 1) + ")");
        }
        int d = rnd.nextInt(dims.length);
        int kind = rnd.nextInt(depth < 2 ? 12 : 11);
        switch (kind) {
            case 10: {
                // The counter as a value, as in jax's fori_loop.
                String v = c.add(arr(), "broadcast(" + c.add(t.xlaName() + "[]", "convert(" + i + ")") + "), dimensions={}");
                return c.add(arr(), (t == DType.PRED ? "or" : binary(c, a, v)) + "(" + a + ", " + v + ")");
            }
            case 0:
                return c.add(arr(), binary(c, a, b) + "(" + a + ", " + b + ")");
            case 1: {
                if (!multiplies(a) || padded.contains(b)) {
                    return c.add(arr(), binary(c, a, b) + "(" + a + ", " + b + ")");
                }
                String scaled = c.add(arr(), (t == DType.PRED ? "and" : "multiply") + "(" + a + ", "
                        + c.add(arr(), "broadcast(" + scalarConstant(c) + "), dimensions={}") + ")");
                return c.add(arr(), (t == DType.PRED ? "xor" : rnd.nextBoolean() ? "add" : "subtract") + "(" + scaled + ", " + b + ")");
            }
            case 2: {
                long[] part = dims.clone();
                part[d] = 1 + rnd.nextInt((int) dims[d]);
                String update = c.add(shape(t, part), "slice(" + b + "), slice={" + spans(part) + "}");
                return c.add(arr(), "dynamic-update-slice(" + a + ", " + update + ", " + starts(c, d, i) + ")");
            }
            case 3: {
                long[] joined = dims.clone();
                joined[d] *= 2;
                String both = c.add(shape(t, joined), "concatenate(" + a + ", " + b + "), dimensions={" + d + "}");
                return c.add(arr(), "dynamic-slice(" + both + ", " + starts(c, d, i) + "), dynamic_slice_sizes={" + join(box(dims)) + "}");
            }
            case 4: {
                String at = c.add(shape(DType.S32, dims), "iota(), iota_dimension=" + d);
                String limit = c.add(shape(DType.S32, dims), "broadcast(" + i + "), dimensions={}");
                String mask = c.add(shape(DType.PRED, dims), "compare(" + at + ", " + limit + "), direction=" + (rnd.nextBoolean() ? "LT" : "GE"));
                return c.add(arr(), "select(" + mask + ", " + a + ", " + b + ")");
            }
            case 5: {
                if (dims[d] < 2) {
                    return reverse(c, a);
                }
                long[] tail = dims.clone();
                tail[d] = dims[d] - 1;
                long[] head = dims.clone();
                head[d] = 1;
                String rest = c.add(shape(t, tail), "slice(" + a + "), slice={" + spans(d, 1, dims[d]) + "}");
                String first = c.add(shape(t, head), "slice(" + a + "), slice={" + spans(d, 0, 1) + "}");
                return c.add(arr(), "concatenate(" + rest + ", " + first + "), dimensions={" + d + "}");
            }
            case 6: {
                if (dims[d] < 2) {
                    return c.add(arr(), "copy(" + a + ")");
                }
                long[] tail = dims.clone();
                tail[d] = dims[d] - 1;
                String rest = c.add(shape(t, tail), "slice(" + a + "), slice={" + spans(d, 1, dims[d]) + "}");
                List<String> pads = new ArrayList<>();
                for (int k = 0; k < dims.length; k++) {
                    pads.add(k == d ? "0_1" : "0_0");
                }
                return c.add(arr(), "pad(" + rest + ", " + scalarConstant(c) + "), padding=" + String.join("x", pads));
            }
            case 7:
                return reverse(c, a);
            case 8: {
                List<Integer> perm = new ArrayList<>(IntStream.range(0, dims.length).boxed().toList());
                // Swaps of dims of one size keep the shape.
                for (int k = 0; k < dims.length; k++) {
                    int m = rnd.nextInt(dims.length);
                    if (dims[perm.get(k)] == dims[perm.get(m)]) {
                        Collections.swap(perm, k, m);
                    }
                }
                return c.add(arr(), "transpose(" + a + "), dimensions={" + join(perm) + "}");
            }
            case 9:
                return c.add(arr(), "copy(" + a + ")");
            default:
                return construct(c, a, b, i, depth);
        }
    }

    /**
     * {@return a reverse of {@code a} along some dims} Not along the minor dim of an f32 array
     * longer than 8 there, nor of an f16 one (which contracts on processors with AVX512-FP16):
     * LLVM's vector loop then rounds a product of the reverse before the sum it feeds, its scalar
     * loop contracts them, by where each element falls (jax 0.10: f32[38] and longer, f32[3,40]
     * on the EPYC; f32[21,21], f16[36] and f16[427] on a Sapphire Rapids Xeon, control-flow seeds
     * 23 and 25; RELIABILITY lists it with the other vectorisation choices run does not mirror).
     * Nor along a minor dim of 3 in an array of a multiple of 12 elements, where the vector loop
     * rounds the product at the last element of each row (f32 and f64 [4,3], [8,3], [2,4,3]; not
     * [3,3] or [5,3]: control-flow seed 31).
     */
    private String reverse(Computation c, String a) {
        List<Integer> along = subset(dims.length);
        long minor = dims[dims.length - 1];
        if ((t == DType.F32 || t == DType.F16) && minor > 8
                || t.kind() == DType.Kind.FLOAT && minor == 3 && Arrays.stream(dims).reduce(1, (x, y) -> x * y) % 12 == 0) {
            along.remove(Integer.valueOf(dims.length - 1));
        }
        return along.isEmpty() ? c.add(arr(), "copy(" + a + ")") : c.add(arr(), "reverse(" + a + "), dimensions={" + join(along) + "}");
    }

    /** {@return the start indices of a dynamic slice or update: the counter along dim {@code d}, zeros elsewhere} */
    private String starts(Computation c, int d, String i) {
        List<String> s = new ArrayList<>();
        for (int k = 0; k < dims.length; k++) {
            s.add(k == d ? i : c.add("s32[]", "constant(" + (rnd.nextInt(4) == 0 ? 1 : 0) + ")"));
        }
        return String.join(", ", s);
    }

    /**
     * {@return an elementwise op of two arrays, for {@code c}} A divide only in a loop's body (by
     * a constant XLA sinks there too): run does not mirror XLA's rewrites of a divide across a
     * call's edges (RELIABILITY), and only in a body does no call or inlined branch end next to it.
     */
    private String binary(Computation c, String a, String b) {
        boolean divides = c.name.startsWith("body");
        List<String> ops = switch (t.kind()) {
            case BOOLEAN -> List.of("and", "or", "xor");
            case FLOAT -> padded.contains(a) || padded.contains(b) ? List.of("maximum", "minimum")
                    : !multiplies(a) ? List.of("add", "subtract", "maximum", "minimum")
                    : divides ? List.of("add", "subtract", "multiply", "divide", "maximum", "minimum")
                    : List.of("add", "subtract", "multiply", "maximum", "minimum");
            default -> List.of("add", "subtract", "multiply", "maximum", "minimum", "and", "or", "xor");
        };
        return ops.get(rnd.nextInt(ops.size()));
    }

    /**
     * {@return whether a product of {@code a} may be made} Not of what a pad's fill reaches
     * ({@link #padded}), nor of small bf16 arrays in a loop: there XLA's CPU code on a processor
     * with AVX512-BF16 and -FP16 (Sapphire Rapids) does not round a product before the sum it
     * feeds (bf16[32] and less in a body; bf16[48] and more rounds it, as run always does), a
     * choice of its code generator run does not mirror (RELIABILITY).
     */
    private boolean multiplies(String a) {
        long elements = java.util.Arrays.stream(dims).reduce(1, Math::multiplyExact);
        return !padded.contains(a) && !(t == DType.BF16 && loopDepth > 0 && elements <= 64);
    }

    private String scalarConstant(Computation c) {
        String v = switch (t.kind()) {
            case BOOLEAN -> rnd.nextBoolean() ? "true" : "false";
            // Most not exact in binary, so that products of the arguments' eighths round.
            case FLOAT -> List.of("1.5", "-0.25", "0.1", "-7.75", "1.1", "-0.3", "2.7").get(rnd.nextInt(7));
            case UNSIGNED -> Integer.toString(rnd.nextInt(6));
            default -> Integer.toString(rnd.nextInt(9) - 4);
        };
        return c.add(t.xlaName() + "[]", "constant(" + v + ")");
    }

    private String scalarParam() {
        return param("p" + params.size(), DType.S32, new long[0]);
    }

    private String param(String name, DType type, long[] shape) {
        main.declare(name, shape(type, shape), params.size());
        params.add(new RandomHloModules.Param(name, type, shape, false));
        return name;
    }

    /** Marks {@code inside}, a computation's view of {@code a} and {@code b}, as reached by a pad's fill where they are. */
    private void taint(String a, String b, String... inside) {
        if (padded.contains(a) || padded.contains(b)) {
            padded.addAll(List.of(inside));
        }
    }

    /** {@return a layout other than the default at times, or nothing} */
    private String randomLayout() {
        return dims.length > 1 && rnd.nextInt(3) == 0 ? "{" + join(shuffled(dims.length)) + "}" : "";
    }

    private String arr() {
        return shape(t, dims);
    }

    private long[] ones() {
        long[] one = new long[dims.length];
        Arrays.fill(one, 1);
        return one;
    }

    private String firstElement() {
        return Arrays.stream(dims).mapToObj(x -> "[0:1]").collect(Collectors.joining(", "));
    }

    private String spans(long[] part) {
        return Arrays.stream(part).mapToObj(x -> "[0:" + x + "]").collect(Collectors.joining(", "));
    }

    private String spans(int d, long from, long to) {
        List<String> s = new ArrayList<>();
        for (int k = 0; k < dims.length; k++) {
            s.add(k == d ? "[" + from + ":" + to + "]" : "[0:" + dims[k] + "]");
        }
        return String.join(", ", s);
    }

    /** {@return a non-empty subset of {@code 0..rank-1}, ascending} */
    private List<Integer> subset(int rank) {
        List<Integer> picked = new ArrayList<>(shuffled(rank).subList(0, 1 + rnd.nextInt(rank)));
        Collections.sort(picked);
        return picked;
    }

    private List<Integer> shuffled(int n) {
        return RandomHloModules.shuffled(rnd, n);
    }

    private void count(String op) {
        opcodes.merge(op, 1, Integer::sum);
    }

    private static List<Long> box(long[] values) {
        return Arrays.stream(values).boxed().toList();
    }

    private static String shape(DType t, long[] dims) {
        return RandomHloModules.shape(t, dims);
    }

    private static String join(List<? extends Number> values) {
        return RandomHloModules.join(values);
    }
}
