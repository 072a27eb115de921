package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.MiniFloat;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An elementwise expression over views of the same dims, and its evaluator with XLA's CPU
 * semantics: what a chain of {@code convert}, arithmetic, {@code compare}, {@code select} and
 * logic ops computes for one element, applied to a run of elements at a time.
 *
 * <p>The semantics are jaxlib 0.10.2's CPU backend's, checked against it (RunXlaAgreementTest):
 * <ul>
 * <li>f32 and f64 arithmetic runs with denormals flushed, on the way in and out (a denormal
 *     operand reads as a zero of its sign, a denormal result is a zero of its sign); bf16 and
 *     f16 compute in f32 and round the f32 result to nearest even, so bf16 flushes too and f16
 *     keeps its own denormals. {@code negate} and {@code abs} only touch the sign bit.
 * <li>{@code maximum}/{@code minimum} propagate NaN and order -0 below +0 (IEEE 754-2019);
 *     {@code clamp(lo, x, hi)} is {@code minimum(maximum(x, lo), hi)}.
 * <li>{@code compare} of floats is IEEE's (NaN unordered) on flushed operands, or with
 *     {@code type=TOTALORDER} the total order of the bits (-NaN &lt; -inf &lt; ... &lt; -0 &lt; +0 &lt; ... &lt; NaN).
 * <li>Integers wrap to their width; {@code x / 0} is -1 (all ones unsigned) and
 *     {@code MIN / -1} is {@code MIN}; {@code abs(MIN)} is {@code MIN}; {@code x % 0} is {@code x}
 *     and {@code MIN % -1} is 0; a shift by the width or more (the amount read unsigned) gives 0,
 *     or for {@code shift-right-arithmetic} the sign's copies, its value read as signed.
 * <li>{@code reduce-precision} works on the bits of its type itself, unflushed (a NaN as it is).
 * <li>{@code sqrt}, {@code floor}, {@code ceil}, {@code round-nearest-even},
 *     {@code round-nearest-afz} and {@code sign} read their operand flushed and round once;
 *     {@code remainder} of floats is C's {@code fmod}, its divisor flushed but not its dividend
 *     or result. An invalid operation ({@code sqrt(-1)}, {@code x % 0}, {@code inf % y}) gives
 *     x86's default NaN, negative.
 * <li>The rewrites XLA makes before it runs are made by the builder ({@code Fusion}), so the
 *     expression says them: a float divide by a constant (or by ops of constants, which XLA
 *     folds first) is a multiply by its reciprocal
 *     ({@link Op#RECIPROCAL}, f16, f32 and f64 only), and so is a divide by a broadcast of any
 *     value ({@link Op#FLUSHED_RECIPROCAL}, computed as it runs), a divide of a divide is reassociated
 *     ({@code (a / b) / c} is {@code a / (b * c)}, {@code a / (b / c)} is {@code (a * c) / b}; the
 *     same types), two constants in a row folded into one ({@code (a * c1) * c2} is
 *     {@code a * (c1 * c2)}, adds alike: scalars through transposes, reshapes, broadcasts and
 *     reverses between them, whole constants through transposes and reshapes, per-channel
 *     vectors where the value is broadcast along their dims), a float convert that widens before another float convert dropped,
 *     {@code x + 0}, {@code x * 1}, {@code x / 1}, {@code x - 0},
 *     {@code max(x, -inf)}, {@code min(x, +inf)} and {@code clamp(-inf, x, +inf)}
 *     are {@code x} (unflushed), and an f32, f64 or f16 add of a product used once is one fused
 *     multiply-add ({@link Op#FMA}), as LLVM contracts it (f16's computed in f32, then rounded),
 *     unless the product is under a broadcast, which XLA computes apart; a select between the
 *     two values a compare orders reads its choice flushed ({@link Op#FLUSHED_SELECT}), as the
 *     max or min instruction LLVM makes of it does, and a remainder by a constant power of two of
 *     at least 1 reads its dividend flushed ({@link Op#FLUSHED_REMAINDER}), as LLVM's inline code
 *     for it does.
 * </ul>
 * Values travel as doubles (every float type, exactly) or longs (integers as their bits, pred as
 * 0 or 1).
 *
 * <p>Those are the rules of {@link Mode#XLA}, what {@code run} follows. {@link Mode#IEEE} is the
 * copy engine's own arithmetic, {@code ChannelAffine}'s ({@link ChannelExpression}): nothing is
 * flushed, so a denormal operand, result or converted value stays what IEEE 754 makes it.
 */
public final class Pointwise {
    private Pointwise() {
    }

    /** Whose arithmetic an evaluation follows. */
    public enum Mode {
        /** XLA's CPU backend: f32 and f64 denormals flushed to zero in arithmetic, compares and converts. */
        XLA,
        /** IEEE 754 without flushing, as Java's float and double arithmetic: the copy engine's per-channel affine. */
        IEEE
    }

    /** The types an expression computes in: those XLA's elementwise ops and this evaluator share. */
    public static final Set<DType> TYPES = Set.of(DType.PRED, DType.S8, DType.S16, DType.S32, DType.S64, DType.U8,
            DType.U16, DType.U32, DType.U64, DType.F16, DType.BF16, DType.F32, DType.F64);

    /** An expression node; {@link #type()} is the element type of its value. */
    public sealed interface Expr permits Leaf, Op {
        DType type();
    }

    /**
     * Operand {@code index} of the fused copy, read element by element through its own view.
     *
     * @param index the operand
     * @param type its element type
     */
    public record Leaf(int index, DType type) implements Expr {
        @Override
        public String toString() {
            return print(this, k -> "%" + k);
        }
    }

    /**
     * An op on the values of {@code args}.
     *
     * @param op the HLO opcode, or {@link #FMA}, {@link #RECIPROCAL}, {@link #FLUSHED_RECIPROCAL}, {@link #FLUSHED_SELECT} or
     *     {@link #FLUSHED_REMAINDER}
     * @param type the result type
     * @param args the operands' expressions
     * @param detail {@code compare}'s direction and type (e.g. {@code "LT FLOAT"}), {@code reduce-precision}'s
     *     bits ({@code "e8m7"}), else empty
     */
    public record Op(String op, DType type, List<Expr> args, String detail) implements Expr {
        /** {@code fma(a, b, c)}: {@code a * b + c} rounded once. */
        public static final String FMA = "fma";
        /** {@code 1 / a} rounded once in the type, unflushed: XLA's folded reciprocal of a constant divisor. */
        public static final String RECIPROCAL = "reciprocal";
        /**
         * {@code select(p, a, b)} with the value it chooses read flushed: the x86 max or min
         * instruction LLVM makes of {@code select(a > b, a, b)} and its kin.
         */
        public static final String FLUSHED_SELECT = "select_flushed";
        /**
         * {@code remainder(a, c)} with {@code a} read flushed: LLVM's inline code for a divisor
         * that is a constant power of two of at least 1, {@code a - trunc(a / c) * c} with
         * {@code a}'s sign, where {@code fmod} would read {@code a} as it is.
         */
        public static final String FLUSHED_REMAINDER = "remainder_flushed";
        /**
         * {@code 1 / a} computed as the program runs, {@code a} read flushed and the quotient
         * flushed: XLA's rewrite of a divide by a broadcast, {@code A / broadcast(B)}, into
         * {@code A * broadcast(1 / B)}, where {@link #RECIPROCAL} is the reciprocal XLA folds.
         */
        public static final String FLUSHED_RECIPROCAL = "reciprocal_flushed";

        public Op {
            args = List.copyOf(args);
        }

        @Override
        public String toString() {
            return print(this, k -> "%" + k);
        }
    }

    /**
     * {@return {@code e} written as {@code tensorbuf plan --epilogue} reads it: ops as
     * {@code name(arg, ...)}, a convert as {@code convert<f32>(x)}, a compare's direction and type
     * after its operands, and leaf {@code k} as {@code leaf.apply(k)}} The one writer of
     * expressions: {@code toString} names leaves {@code %k}; an epilogue's text writes its
     * constants' leaves as their literals. An op that several ops read (the same node) is written
     * once, bound to a name before the expression that reads it:
     * {@code $0 = multiply(%0, %0); subtract($0, %0)}. Written out in full, a chain
     * {@code x = x * x - x} would double at every step.
     */
    public static String print(Expr e, java.util.function.IntFunction<String> leaf) {
        List<Expr> order = postOrder(e);
        Map<Expr, Integer> uses = uses(order);
        StringBuilder sb = new StringBuilder();
        Map<Expr, String> names = new IdentityHashMap<>();
        for (Expr x : order) {
            if (x instanceof Op && uses.getOrDefault(x, 0) > 1) {
                String name = "$" + names.size();
                sb.append(name).append(" = ");
                print(x, leaf, names, sb);
                sb.append("; ");
                names.put(x, name);
            }
        }
        print(e, leaf, names, sb);
        return sb.toString();
    }

    /** Writes {@code e}, the nodes of {@code names} by name, from a stack of its own (a chain may be thousands deep). */
    private static void print(Expr e, java.util.function.IntFunction<String> leaf, Map<Expr, String> names,
                              StringBuilder sb) {
        ArrayDeque<Expr> nodes = new ArrayDeque<>();
        ArrayDeque<Integer> nextArg = new ArrayDeque<>();
        nodes.push(e);
        nextArg.push(-1);
        while (!nodes.isEmpty()) {
            Expr x = nodes.peek();
            int k = nextArg.pop();
            if (k < 0) {
                String name = x == e ? null : names.get(x);
                if (name != null || x instanceof Leaf) {
                    sb.append(name != null ? name : leaf.apply(((Leaf) x).index()));
                    nodes.pop();
                    continue;
                }
                Op o = (Op) x;
                sb.append(o.op());
                if (o.op().equals("convert")) {
                    sb.append('<').append(o.type().xlaName()).append('>');
                }
                sb.append('(');
                k = 0;
            }
            Op o = (Op) x;
            if (k < o.args().size()) {
                sb.append(k == 0 ? "" : ", ");
                nextArg.push(k + 1);
                nodes.push(o.args().get(k));
                nextArg.push(-1);
            } else {
                if (!o.detail().isEmpty()) {
                    sb.append(", ").append(o.detail());
                }
                sb.append(')');
                nodes.pop();
            }
        }
    }

    /** The elementwise opcodes an expression may hold, as HLO names them, in the order messages list them. */
    public static final List<String> OPCODES = List.of("convert", "add", "subtract", "multiply", "divide", "remainder",
            "maximum", "minimum", "clamp", "negate", "abs", "sign", "sqrt", "floor", "ceil", "round-nearest-even",
            "round-nearest-afz", "is-finite", "compare", "select", "and", "or", "not", "xor", "shift-left",
            "shift-right-logical", "shift-right-arithmetic", "popcnt", "count-leading-zeros", "reduce-precision");

    /** The ops of floats only ({@code is-finite} makes pred of one). */
    public static final Set<String> FLOAT_OPS = Set.of("sqrt", "floor", "ceil", "round-nearest-even", "round-nearest-afz",
            "is-finite", "reduce-precision");

    /** The ops of integers only (pred too for the logic ones). */
    public static final Set<String> INTEGER_OPS = Set.of("and", "or", "xor", "not", "shift-left", "shift-right-logical",
            "shift-right-arithmetic", "popcnt", "count-leading-zeros");

    private static final Set<String> UNARY = Set.of("convert", "negate", "abs", "not", "sign", "sqrt", "floor", "ceil",
            "round-nearest-even", "round-nearest-afz", "is-finite", "popcnt", "count-leading-zeros", "reduce-precision",
            Op.RECIPROCAL, Op.FLUSHED_RECIPROCAL);

    /** {@return how many operands {@code op} takes: an HLO opcode of {@link #OPCODES} or one of {@link Op}'s own} */
    public static int arity(String op) {
        return UNARY.contains(op) ? 1 : TERNARY.contains(op) ? 3 : 2;
    }

    private static final Set<String> TERNARY = Set.of("clamp", "select", Op.FMA, Op.FLUSHED_SELECT);

    /** x86's default NaN, which an invalid operation (sqrt(-1), inf % 1) makes: negative, quiet, no payload. */
    private static final double DEFAULT_NAN = Double.longBitsToDouble(0xfff8000000000000L);

    /** {@return whether {@code t} is a float type here} */
    public static boolean isFloat(DType t) {
        return t.kind() == DType.Kind.FLOAT;
    }

    /**
     * {@return the values of {@code e} for {@code n} elements: a double[] for a float type, else a
     * long[]} {@code leaves[k]} holds operand k's values in the same form.
     */
    public static Object eval(Expr e, Object[] leaves, int n) {
        return eval(e, leaves, n, Mode.XLA);
    }

    /** {@return the values of {@code e} for {@code n} elements, as {@link #eval(Expr, Object[], int)}, under {@code mode}'s rules} */
    public static Object eval(Expr e, Object[] leaves, int n, Mode mode) {
        // In order of a post-order walk, not by recursion: a jitted Python loop writes chains of
        // thousands of ops, deeper than a default thread stack recurses. A value is dropped at
        // its last use, so a chain holds two arrays at a time, as the recursion did.
        List<Expr> order = postOrder(e);
        Map<Expr, Integer> uses = uses(order);
        Map<Expr, Object> values = new IdentityHashMap<>();
        for (Expr x : order) {
            values.put(x, switch (x) {
                case Leaf l -> leaves[l.index()];
                case Op o -> {
                    Object[] a = new Object[o.args().size()];
                    for (int i = 0; i < a.length; i++) {
                        Expr arg = o.args().get(i);
                        a[i] = values.get(arg);
                        if (uses.merge(arg, -1, Integer::sum) == 0) {
                            values.remove(arg);
                        }
                    }
                    yield op(o, a, n, mode == Mode.XLA);
                }
            });
        }
        return values.get(e);
    }

    /** {@return how many times the ops of {@code order} read each node, a node read twice by one op counted twice} */
    private static Map<Expr, Integer> uses(List<Expr> order) {
        Map<Expr, Integer> uses = new IdentityHashMap<>();
        for (Expr x : order) {
            if (x instanceof Op o) {
                for (Expr a : o.args()) {
                    uses.merge(a, 1, Integer::sum);
                }
            }
        }
        return uses;
    }

    /**
     * A table of expression nodes by content: {@link #of} makes every expression of the same ops
     * over the same leaves one node. An operand renumbered for each op that reads it is otherwise
     * built anew each time, and a loop such as Newton's {@code y = y * (1.5 - 0.5 * x * y * y)}
     * then holds its value three times per step, the evaluator computing each. For one builder
     * at a time (a fusion), not for threads.
     */
    public static final class Interner {
        private final Map<Key, Expr> nodes = new HashMap<>();
        private final Set<Expr> canonical = Collections.newSetFromMap(new IdentityHashMap<>());

        /** {@return the node of the table equal to {@code e}, its new nodes entered} Linear in the nodes not yet entered. */
        public Expr of(Expr e) {
            if (canonical.contains(e)) {
                return e;
            }
            Map<Expr, Expr> made = new IdentityHashMap<>();
            ArrayDeque<Expr> pending = new ArrayDeque<>();
            pending.push(e);
            while (!pending.isEmpty()) {
                Expr x = pending.peek();
                if (made.containsKey(x) || canonical.contains(x)) {
                    pending.pop();
                    continue;
                }
                boolean ready = true;
                if (x instanceof Op o) {
                    for (Expr a : o.args()) {
                        if (!made.containsKey(a) && !canonical.contains(a)) {
                            pending.push(a);
                            ready = false;
                        }
                    }
                }
                if (!ready) {
                    continue;
                }
                pending.pop();
                Expr c = switch (x) {
                    case Leaf l -> nodes.computeIfAbsent(new Key(l.index(), l.type(), "", "", List.of()), k -> l);
                    case Op o -> {
                        List<Expr> args = new ArrayList<>(o.args().size());
                        boolean same = true;
                        for (Expr a : o.args()) {
                            Expr ca = canonical.contains(a) ? a : made.get(a);
                            same &= ca == a;
                            args.add(ca);
                        }
                        Op n = same ? o : new Op(o.op(), o.type(), args, o.detail());
                        yield nodes.computeIfAbsent(new Key(-1, o.type(), o.op(), o.detail(), args), k -> n);
                    }
                };
                canonical.add(c);
                made.put(x, c);
            }
            return made.getOrDefault(e, e);
        }

        /** A node's content, its operands compared by identity: they are entered first, so equal ones are one node. */
        private record Key(int leaf, DType type, String op, String detail, List<Expr> args) {
            @Override
            public boolean equals(Object o) {
                if (!(o instanceof Key k) || k.leaf != leaf || k.type != type || !k.op.equals(op) || !k.detail.equals(detail)
                        || k.args.size() != args.size()) {
                    return false;
                }
                for (int i = 0; i < args.size(); i++) {
                    if (k.args.get(i) != args.get(i)) {
                        return false;
                    }
                }
                return true;
            }

            @Override
            public int hashCode() {
                int h = (leaf * 31 + type.hashCode()) * 31 + op.hashCode() * 7 + detail.hashCode();
                for (Expr a : args) {
                    h = h * 31 + System.identityHashCode(a);
                }
                return h;
            }
        }
    }

    /**
     * {@return the distinct nodes of {@code e} (by identity), each after its operands, {@code e}
     * last} The one walk of a whole expression: it keeps its own stack, so that the depth of an
     * expression is bounded by memory, not by the calling thread's stack.
     */
    public static List<Expr> postOrder(Expr e) {
        return dev.tensorbuf.ops.internal.Graphs.postOrder(e, x -> x instanceof Op o ? o.args() : List.of());
    }

    private static Object op(Op o, Object[] a, int n, boolean flush) {
        DType t = o.type();
        DType in = o.args().isEmpty() ? t : o.args().getFirst().type();
        switch (o.op()) {
            case "convert" -> {
                return convert((a[0] instanceof double[] d) ? d : null, (a[0] instanceof long[] l) ? l : null, in, t, n, flush);
            }
            case "select", Op.FLUSHED_SELECT -> {
                long[] p = (long[]) a[0];
                if (isFloat(t)) {
                    double[] x = (double[]) a[1];
                    double[] y = (double[]) a[2];
                    double[] r = new double[n];
                    for (int i = 0; i < n; i++) {
                        r[i] = p[i] != 0 ? x[i] : y[i];
                    }
                    if (o.op().equals(Op.FLUSHED_SELECT)) {
                        for (int i = 0; i < n; i++) {
                            r[i] = flushIn(r[i], t, flush);
                        }
                    }
                    return r;
                }
                long[] x = (long[]) a[1];
                long[] y = (long[]) a[2];
                long[] r = new long[n];
                for (int i = 0; i < n; i++) {
                    r[i] = p[i] != 0 ? x[i] : y[i];
                }
                return r;
            }
            case "compare" -> {
                return compare(o.detail(), in, a[0], a[1], n, flush);
            }
            case "is-finite" -> {
                double[] x = (double[]) a[0];
                long[] r = new long[n];
                for (int i = 0; i < n; i++) {
                    r[i] = Double.isFinite(x[i]) ? 1 : 0;
                }
                return r;
            }
            default -> {
                return isFloat(t) ? floatOp(o.op(), o.detail(), t, a, n, flush) : intOp(o.op(), t, a, n);
            }
        }
    }

    // ---- floats -------------------------------------------------------------------------------

    /** {@return {@code v} (a value of {@code t}) as XLA's CPU arithmetic reads it: an f32 or f64 denormal as a signed zero} */
    public static double flushIn(double v, DType t, boolean flush) {
        if (!flush) {
            return v;
        }
        double smallest = t == DType.F64 ? Double.MIN_NORMAL : t == DType.F16 ? 0 : 0x1p-126;
        return Math.abs(v) < smallest ? Math.copySign(0.0, v) : v;
    }

    /**
     * {@return {@code v}, the result of an op in {@code t} computed exactly or rounded once to
     * double, as XLA stores it} f64: flushed; the others: rounded to f32, flushed, rounded to
     * {@code t}. (For +, -, *, / of f32 operands the double result rounded to f32 is the correctly
     * rounded f32 result: a double carries more than twice f32's 24 bits plus 2.)
     */
    static double result(double v, DType t, boolean flush) {
        if (Double.isNaN(v)) {
            return v; // the NaN the hardware made: an operand's, or x86's default (negative) for an invalid op
        }
        if (t == DType.F64) {
            return flush && Math.abs(v) < Double.MIN_NORMAL ? Math.copySign(0.0, v) : v;
        }
        float f = (float) v;
        if (flush && Math.abs(f) < 0x1p-126f) {
            f = Math.copySign(0f, f);
        }
        return narrow(f, t);
    }

    /** {@return f32 {@code f} rounded to nearest even in {@code t} (f32, bf16 or f16), as a double} */
    public static double narrow(float f, DType t) {
        return switch (t) {
            case F32 -> f;
            case BF16 -> MiniFloat.BF16.decode(MiniFloat.BF16.encode(f));
            case F16 -> MiniFloat.F16.decode(MiniFloat.F16.encode(f));
            default -> throw new IllegalArgumentException("not a float type computed in f32: " + t);
        };
    }

    private static double[] floatOp(String op, String detail, DType t, Object[] a, int n, boolean flush) {
        double[] r = new double[n];
        double[] x = (double[]) a[0];
        double[] y = a.length > 1 ? (double[]) a[1] : null;
        double[] z = a.length > 2 ? (double[]) a[2] : null;
        switch (op) {
            case "negate" -> {
                for (int i = 0; i < n; i++) {
                    r[i] = -x[i];
                }
            }
            case "abs" -> {
                for (int i = 0; i < n; i++) {
                    r[i] = Math.abs(x[i]);
                }
            }
            case Op.RECIPROCAL -> {
                // Folded when XLA compiles, on the host: no flushing, one rounding in the type
                // (f16's through f32, as Eigen's half divides).
                for (int i = 0; i < n; i++) {
                    r[i] = t == DType.F64 ? 1.0 / x[i] : narrow(1f / (float) x[i], t);
                }
            }
            case Op.FLUSHED_RECIPROCAL -> {
                for (int i = 0; i < n; i++) {
                    r[i] = result(1.0 / flushIn(x[i], t, flush), t, flush);
                }
            }
            case "add", "subtract", "multiply", "divide" -> {
                for (int i = 0; i < n; i++) {
                    double p = flushIn(x[i], t, flush);
                    double q = flushIn(y[i], t, flush);
                    double v = switch (op) {
                        case "add" -> p + q;
                        case "subtract" -> p - q;
                        case "multiply" -> p * q;
                        default -> p / q;
                    };
                    r[i] = result(v, t, flush);
                }
            }
            case Op.FMA -> {
                // Two loops, so that neither tests the type per element (the copy engine's affine runs here).
                if (t == DType.F64) {
                    for (int i = 0; i < n; i++) {
                        r[i] = result(Math.fma(flushIn(x[i], t, flush), flushIn(y[i], t, flush), flushIn(z[i], t, flush)), t, flush);
                    }
                } else if (t == DType.F32 && !flush) {
                    // result() of an f32 unflushed is the float itself.
                    for (int i = 0; i < n; i++) {
                        r[i] = Math.fma((float) x[i], (float) y[i], (float) z[i]);
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        float p = (float) flushIn(x[i], t, flush);
                        float q = (float) flushIn(y[i], t, flush);
                        float s = (float) flushIn(z[i], t, flush);
                        r[i] = result(Math.fma(p, q, s), t, flush);
                    }
                }
            }
            case "maximum", "minimum" -> {
                boolean max = op.equals("maximum");
                for (int i = 0; i < n; i++) {
                    r[i] = maxMin(flushIn(x[i], t, flush), flushIn(y[i], t, flush), max);
                }
            }
            case "sqrt" -> {
                // Rounded once to the type: a double's square root of a float's value rounded to
                // the float is its correctly rounded square root (53 bits > 2 * 24 + 2).
                for (int i = 0; i < n; i++) {
                    double p = flushIn(x[i], t, flush);
                    r[i] = Double.isNaN(p) ? p : p < 0 ? DEFAULT_NAN : result(Math.sqrt(p), t, flush);
                }
            }
            case "reduce-precision" -> {
                int[] em = precision(detail);
                for (int i = 0; i < n; i++) {
                    r[i] = reducePrecision(x[i], t, em[0], em[1]);
                }
            }
            case "floor", "ceil", "round-nearest-even", "round-nearest-afz" -> {
                for (int i = 0; i < n; i++) {
                    r[i] = rounded(op, flushIn(x[i], t, flush));
                }
            }
            case "sign" -> {
                for (int i = 0; i < n; i++) {
                    double p = flushIn(x[i], t, flush);
                    r[i] = p == 0 || Double.isNaN(p) ? p : Math.copySign(1.0, p);
                }
            }
            case "remainder", Op.FLUSHED_REMAINDER -> {
                // XLA calls fmod, which reads its dividend as it is and returns it exactly reduced
                // (no flushing either way); the divisor comes through flushed (jax 0.10: a
                // denormal dividend stays, a denormal divisor gives NaN).
                boolean flushDividend = op.equals(Op.FLUSHED_REMAINDER);
                for (int i = 0; i < n; i++) {
                    double p = flushDividend ? flushIn(x[i], t, flush) : x[i];
                    double q = flushIn(y[i], t, flush);
                    r[i] = Double.isNaN(p) ? p : Double.isNaN(q) ? q : q == 0 || Double.isInfinite(p) ? DEFAULT_NAN : p % q;
                }
            }
            case "clamp" -> {
                // clamp(lo, x, hi): operand 0 is the low bound.
                for (int i = 0; i < n; i++) {
                    double v = maxMin(flushIn(y[i], t, flush), flushIn(x[i], t, flush), true);
                    r[i] = maxMin(v, flushIn(z[i], t, flush), false);
                }
            }
            default -> throw new IllegalArgumentException(op + " is not defined on " + t);
        }
        return r;
    }

    /** {@return the exponent and mantissa bits of a {@code reduce-precision} detail, {@code "e8m7"}} */
    public static int[] precision(String detail) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("e(\\d{1,2})m(\\d{1,2})").matcher(detail);
        if (!m.matches() || Integer.parseInt(m.group(1)) < 1) {
            throw new IllegalArgumentException("reduce-precision needs its bits as e<exponent bits>m<mantissa bits> (e8m7),"
                    + " exponent bits from 1, got '" + detail + "'");
        }
        return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
    }

    /**
     * {@return {@code v} rounded to {@code mantissa} bits, to nearest even, and clamped to the
     * range of {@code exponent} bits (past it an infinity, at or under its smallest normal a zero,
     * of {@code v}'s sign), on the bits of {@code t} itself, no flushing: XLA's reduce-precision}
     * A NaN stays as it is.
     */
    static double reducePrecision(double v, DType t, int exponent, int mantissa) {
        if (Double.isNaN(v)) {
            return v;
        }
        int bits = t.bitWidth();
        int srcMantissa = switch (t) {
            case F64 -> 52;
            case F32 -> 23;
            case BF16 -> 7;
            default -> 10;
        };
        int srcExponent = bits - 1 - srcMantissa;
        long x = switch (t) {
            case F64 -> Double.doubleToRawLongBits(v);
            case F32 -> Float.floatToRawIntBits((float) v) & 0xffffffffL;
            case BF16 -> MiniFloat.BF16.encode(v);
            default -> MiniFloat.F16.encode(v);
        };
        long all = bits == 64 ? -1L : (1L << bits) - 1;
        if (mantissa < srcMantissa) {
            long last = 1L << (srcMantissa - mantissa);
            long bias = (last >>> 1) - 1 + ((x & last) >>> (srcMantissa - mantissa));
            x = (x + bias) & ~(last - 1) & all;
        }
        if (exponent < srcExponent) {
            long sign = x & (1L << (bits - 1));
            long exponentMask = ((1L << srcExponent) - 1) << srcMantissa;
            long fieldBias = (1L << (srcExponent - 1)) - 1;
            long reducedBias = (1L << (exponent - 1)) - 1;
            long e = x & exponentMask;
            if (Long.compareUnsigned(e, (fieldBias + reducedBias) << srcMantissa) > 0) {
                x = sign | exponentMask;
            } else if (Long.compareUnsigned(e, (fieldBias - reducedBias) << srcMantissa) <= 0) {
                x = sign;
            }
        }
        return switch (t) {
            case F64 -> Double.longBitsToDouble(x);
            case F32 -> Float.intBitsToFloat((int) x);
            case BF16 -> MiniFloat.BF16.decode((int) x);
            default -> MiniFloat.F16.decode((int) x);
        };
    }

    /** {@return {@code p} rounded to an integer by {@code op}: floor, ceil, round-nearest-even or round-nearest-afz} */
    private static double rounded(String op, double p) {
        if (Double.isNaN(p)) {
            return p;   // as it came: Math.rint gives a NaN of its own sign
        }
        return switch (op) {
            case "floor" -> Math.floor(p);
            case "ceil" -> Math.ceil(p);
            case "round-nearest-even" -> Math.rint(p);
            default -> {
                // |p| + 0.5 could round up in f64 (0.49999999999999994); the fraction is exact.
                double a = Math.abs(p);
                double f = Math.floor(a);
                yield Math.copySign(a - f >= 0.5 ? f + 1 : f, p);
            }
        };
    }

    /** IEEE 754-2019 maximum / minimum: NaN if either is, -0 below +0. */
    static double maxMin(double p, double q, boolean max) {
        if (Double.isNaN(p) || Double.isNaN(q)) {
            return Double.NaN;
        }
        if (p == q) {
            // Equal, so both zeros of possibly different signs or the same value.
            boolean pNeg = Double.doubleToRawLongBits(p) < 0;
            return max ? (pNeg ? q : p) : (pNeg ? p : q);
        }
        return max ? Math.max(p, q) : Math.min(p, q);
    }

    // ---- integers and pred --------------------------------------------------------------------

    /** {@return {@code v} wrapped to {@code t}'s width: sign-extended when signed, masked when unsigned or pred} */
    public static long wrap(long v, DType t) {
        int bits = t == DType.PRED ? 1 : t.bitWidth();
        if (bits == 64) {
            return v;
        }
        return t.kind() == DType.Kind.SIGNED ? v << (64 - bits) >> (64 - bits) : v & ((1L << bits) - 1);
    }

    private static long[] intOp(String op, DType t, Object[] a, int n) {
        long[] r = new long[n];
        long[] x = (long[]) a[0];
        long[] y = a.length > 1 ? (long[]) a[1] : null;
        long[] z = a.length > 2 ? (long[]) a[2] : null;
        boolean unsigned = t.kind() != DType.Kind.SIGNED;
        long min = t.kind() == DType.Kind.SIGNED ? -1L << (t.bitWidth() - 1) : 0;
        int bits = t == DType.PRED ? 1 : t.bitWidth();
        long mask = bits == 64 ? -1L : (1L << bits) - 1;
        for (int i = 0; i < n; i++) {
            long p = x[i];
            long q = y == null ? 0 : y[i];
            long v = switch (op) {
                case "negate" -> -p;
                case "abs" -> unsigned ? p : Math.abs(p);
                case "not" -> t == DType.PRED ? (p == 0 ? 1 : 0) : ~p;
                case "add" -> p + q;
                case "subtract" -> p - q;
                case "multiply" -> p * q;
                case "divide" -> q == 0 ? -1 : unsigned ? Long.divideUnsigned(p, q) : (p == min && q == -1) ? p : p / q;
                case "remainder" -> q == 0 ? p : unsigned ? Long.remainderUnsigned(p, q) : (p == min && q == -1) ? 0 : p % q;
                case "sign" -> Long.signum(p);
                // A shift by the width or more (the amount read unsigned) shifts every bit out;
                // an arithmetic one leaves the sign's copies, the value read as signed.
                case "shift-left" -> Long.compareUnsigned(q & mask, bits) >= 0 ? 0 : p << q;
                case "shift-right-logical" -> Long.compareUnsigned(q & mask, bits) >= 0 ? 0 : (p & mask) >>> q;
                case "shift-right-arithmetic" -> (p << (64 - bits) >> (64 - bits)) >> (Long.compareUnsigned(q & mask, bits) >= 0 ? bits - 1 : q);
                case "popcnt" -> Long.bitCount(p & mask);
                case "count-leading-zeros" -> Long.numberOfLeadingZeros(p & mask) - (64 - bits);
                case "and" -> p & q;
                case "or" -> p | q;
                case "xor" -> p ^ q;
                case "maximum" -> (unsigned ? Long.compareUnsigned(p, q) : Long.compare(p, q)) >= 0 ? p : q;
                case "minimum" -> (unsigned ? Long.compareUnsigned(p, q) : Long.compare(p, q)) <= 0 ? p : q;
                case "clamp" -> {
                    // clamp(lo, x, hi) = min(max(x, lo), hi)
                    long m = (unsigned ? Long.compareUnsigned(q, p) : Long.compare(q, p)) >= 0 ? q : p;
                    yield (unsigned ? Long.compareUnsigned(m, z[i]) : Long.compare(m, z[i])) <= 0 ? m : z[i];
                }
                default -> throw new IllegalArgumentException(op + " is not defined on " + t);
            };
            r[i] = wrap(v, t);
        }
        return r;
    }

    // ---- compare ------------------------------------------------------------------------------

    private static long[] compare(String detail, DType t, Object a, Object b, int n, boolean flush) {
        String[] parts = detail.split(" ");
        String dir = parts[0];
        boolean total = parts.length > 1 && parts[1].equals("TOTALORDER");
        long[] r = new long[n];
        if (isFloat(t)) {
            double[] x = (double[]) a;
            double[] y = (double[]) b;
            for (int i = 0; i < n; i++) {
                boolean v;
                if (total) {
                    int c = Long.compare(totalKey(x[i]), totalKey(y[i]));
                    v = holds(dir, c);
                } else {
                    double p = flushIn(x[i], t, flush);
                    double q = flushIn(y[i], t, flush);
                    v = switch (dir) {
                        case "EQ" -> p == q;
                        case "NE" -> p != q;
                        case "LT" -> p < q;
                        case "LE" -> p <= q;
                        case "GT" -> p > q;
                        default -> p >= q;
                    };
                }
                r[i] = v ? 1 : 0;
            }
            return r;
        }
        long[] x = (long[]) a;
        long[] y = (long[]) b;
        boolean unsigned = t.kind() != DType.Kind.SIGNED;
        for (int i = 0; i < n; i++) {
            int c = unsigned ? Long.compareUnsigned(x[i], y[i]) : Long.compare(x[i], y[i]);
            r[i] = holds(dir, c) ? 1 : 0;
        }
        return r;
    }

    /** {@return whether compare direction {@code dir} holds for a three-way comparison result {@code c}} */
    public static boolean holds(String dir, int c) {
        return switch (dir) {
            case "EQ" -> c == 0;
            case "NE" -> c != 0;
            case "LT" -> c < 0;
            case "LE" -> c <= 0;
            case "GT" -> c > 0;
            case "GE" -> c >= 0;
            default -> throw new IllegalArgumentException("comparison direction " + dir + " is not one of EQ, NE, LT, LE, GT, GE");
        };
    }

    /** {@return a long whose signed order is the total order of the float {@code v}'s bits (widening keeps it)} */
    private static long totalKey(double v) {
        long bits = Double.doubleToRawLongBits(v);
        return bits < 0 ? bits ^ Long.MAX_VALUE : bits;
    }

    // ---- convert ------------------------------------------------------------------------------

    /** XLA's {@code convert}, value by value, as {@code exec.internal.Conversions.convert} does it into memory. */
    private static Object convert(double[] fd, long[] il, DType from, DType to, int n, boolean flush) {
        if (isFloat(to)) {
            double[] r = new double[n];
            for (int i = 0; i < n; i++) {
                double v;
                if (fd != null) {
                    v = flush ? flushed(fd[i], from, to) : fd[i];
                } else if (from == DType.U64 && il[i] < 0) {
                    v = unsignedToDouble(il[i], to);
                } else {
                    v = to == DType.F32 ? (float) il[i] : (double) il[i];
                }
                r[i] = v;
            }
            // The rounding into the type, a loop per type rather than a switch per element.
            switch (to) {
                case F64 -> {
                }
                case F32 -> {
                    for (int i = 0; i < n; i++) {
                        r[i] = (float) r[i];
                    }
                }
                case BF16 -> {
                    for (int i = 0; i < n; i++) {
                        r[i] = MiniFloat.BF16.decode(MiniFloat.BF16.encode(r[i]));
                    }
                }
                case F16 -> {
                    for (int i = 0; i < n; i++) {
                        r[i] = MiniFloat.F16.decode(MiniFloat.F16.encode(r[i]));
                    }
                }
                default -> {
                    for (int i = 0; i < n; i++) {
                        r[i] = narrowStored(r[i], to);
                    }
                }
            }
            return r;
        }
        long[] r = new long[n];
        for (int i = 0; i < n; i++) {
            long v;
            if (to == DType.PRED) {
                v = fd != null ? ((flush ? nonZero(fd[i], from) : fd[i] != 0 || Double.isNaN(fd[i])) ? 1 : 0) : (il[i] != 0 ? 1 : 0);
            } else if (fd != null) {
                v = saturate(fd[i], to);
            } else {
                v = il[i];
            }
            r[i] = wrap(v, to);
        }
        return r;
    }

    /**
     * {@return {@code v}, a value of real type {@code from}, as XLA's CPU backend hands it to type
     * {@code to}} That backend runs with denormals flushed to zero (jaxlib 0.10.2 checked on every
     * pattern, ConvertXlaAgreementTest): between f32 and f64 (bf16 travels as f32) a denormal f32
     * reads as zero and an f64 narrows to f32 first, its denormal results zero (a compare to
     * {@code pred}, {@link #nonZero}, sees an f32 or f64 denormal as zero). Other pairs convert
     * without flushing, as the f16 and f8 conversions are not done in f32 arithmetic. f64 into f16
     * goes through f32, rounding twice, where the CPU has no native f16 ({@link
     * CpuInfo#hasHalfArithmetic}): LLVM then calls a library function, and XLA's own narrows to f32
     * first (jax 0.10 on an AMD EPYC: 1 + 2^-11 + 2^-40 gives 1, where rounding once gives
     * 1 + 2^-10); its constant folding rounds once.
     */
    public static double flushed(double v, DType from, DType to) {
        if (from == DType.F64 && to == DType.F16 && !CpuInfo.hasHalfArithmetic()) {
            return (float) v;   // an f32 denormal, flushed or not, is a zero of its sign in f16
        }
        boolean single = from == DType.F32 || from == DType.BF16;
        if (single && to == DType.F64) {
            return Math.abs(v) < 0x1p-126 ? Math.copySign(0.0, v) : v;
        }
        if (from == DType.F64 && (to == DType.F32 || to == DType.BF16)) {
            float f = (float) v;
            return Math.abs(f) < 0x1p-126f ? Math.copySign(0.0, f) : f;
        }
        return v;
    }

    /**
     * {@return whether XLA's convert to pred gives true: an f32 or f64 denormal compares as zero
     * (see {@link #flushed}), and so does f8e8m0fnu's smallest value, 2^-127, compared as an f32}
     */
    public static boolean nonZero(double v, DType from) {
        double smallest = from == DType.F32 || from == DType.F8E8M0FNU ? 0x1p-126
                : from == DType.F64 ? Double.MIN_NORMAL : Double.MIN_VALUE;
        return Math.abs(v) >= smallest || Double.isNaN(v);
    }

    /** {@return the integer bits XLA gives for a float: truncated, clamped to the type, NaN as 0} */
    public static long saturate(double v, DType to) {
        if (Double.isNaN(v)) {
            return 0;
        }
        double t = v < 0 ? Math.ceil(v) : Math.floor(v);
        int bits = to.bitWidth();
        if (to.kind() == DType.Kind.UNSIGNED) {
            if (t <= 0) {
                return 0;
            }
            if (bits == 64) {
                if (t >= 0x1p64) {
                    return -1L;
                }
                return t >= 0x1p63 ? (long) (t - 0x1p63) ^ Long.MIN_VALUE : (long) t;
            }
            long max = (1L << bits) - 1;
            return t >= max ? max : (long) t;
        }
        long min = -1L << (bits - 1);
        long max = ~min;
        if (t <= min) {
            return min;
        }
        return t >= max ? max : (long) t;
    }

    /** {@return {@code v} rounded into a float type narrower than f16 (the f8, f6 and f4 family) as ElementAccess stores it} */
    private static double narrowStored(double v, DType to) {
        ElementAccess a = ElementAccess.of(to);
        MemorySegment one = MemorySegment.ofArray(new long[1]);
        a.setDouble(one, 0, v);
        return a.getDouble(one, 0);
    }

    /** {@return u64 bits past 2^63 as a value of {@code to}: rounded once for f32, else to a double first} */
    private static double unsignedToDouble(long bits, DType to) {
        if (to == DType.F32) {
            // Halve keeping the lost bit sticky, convert (one rounding), double back: exact scaling.
            return 2.0 * (float) ((bits >>> 1) | (bits & 1));
        }
        return 2.0 * (double) ((bits >>> 1) | (bits & 1));
    }
}
