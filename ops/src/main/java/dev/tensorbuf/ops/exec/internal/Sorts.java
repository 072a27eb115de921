package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.copy.internal.PointwiseCopy;
import dev.tensorbuf.ops.copy.internal.ScalarLiteral;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.Extents;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * XLA's {@code sort} ({@code jnp.sort}, {@code jnp.argsort}, {@code lax.sort_key_val},
 * {@code jnp.lexsort}, {@code lax.sort} with {@code num_keys}) by a comparator that orders by one
 * or more keys: each a strict compare ({@code LT} ascending, {@code GT} descending) of the same
 * elementwise function of one operand's two sides, chained as jax writes lexicographic order,
 * {@code or(lt(k0), and(eq(k0), lt(k1)))}, the next key deciding where the one before ties. jax's
 * function maps every NaN to one NaN and -0 to +0 before a {@code TOTALORDER} compare. Each key's
 * function is evaluated once over the whole operand with {@link Pointwise}'s XLA semantics; then
 * each row along the sorted dim is ordered by a stable sort of its positions, and every operand
 * is permuted alike. A sort that is not stable ({@code is_stable} absent) leaves the order of
 * equal keys to XLA's library sort, so it is refused where equal keys hold different elements.
 */
public final class Sorts {
    private Sorts() {
    }

    /** A key: its operand, the compare's direction and type, and the function of the operand compared. */
    private record Key(int operand, boolean descending, String type, HloInstruction function) {
    }

    /**
     * {@return the operands of sort {@code in} sorted along its dimension by {@code comparator},
     * each in new memory laid out as its output shape}
     *
     * @throws IllegalArgumentException for a comparator this does not read, operands of different
     *     dims, sub-byte types, or ties an unstable sort would order its own way
     */
    static List<TensorView> sort(HloInstruction in, HloComputation comparator, List<TensorView> operands, List<ArrayShape> shapes,
            Allocator allocator) {
        checkOperands("sort", operands);
        List<Long> along = in.ints("dimensions");
        if (along.size() != 1) {
            throw new IllegalArgumentException("dimensions=" + along + " must name the one dim it sorts along");
        }
        int d = along.getFirst().intValue();
        int rank = operands.getFirst().rank();
        if (d < 0 || d >= rank) {
            throw new IllegalArgumentException("dimensions={" + d + "} is not a dim of rank " + rank);
        }
        boolean stable = in.text("is_stable").map(s -> s.strip().equals("true")).orElse(false);
        return laidOut(sorted(operands, d, order(comparator, operands), comparator, stable, allocator), shapes, allocator);
    }

    /**
     * {@return the {@code k} greatest (or least) elements of each row along {@code x}'s last dim,
     * in order, and their positions (s32), each in new memory laid out as {@code shapes}} This is
     * XLA's {@code topk} ({@code lax.top_k}; {@code largest=true} unless written otherwise), which
     * orders floats by their bits (-NaN below -inf, -0 below +0, +NaN above +inf) and ties by the
     * lower position, and its CPU custom-call {@code TopK}, whose {@code comparator} orders the
     * same way ({@code comparator} null for the op, which has none).
     *
     * @throws IllegalArgumentException for a rank-0 or sub-byte operand, output shapes that are
     *     not {@code x}'s with {@code k} in its last dim, or indices that are not s32
     */
    static List<TensorView> topK(HloInstruction in, HloComputation comparator, TensorView x, List<ArrayShape> shapes,
            Allocator allocator) {
        checkOperands("topk", List.of(x));
        int d = x.rank() - 1;
        if (d < 0) {
            throw new IllegalArgumentException("its operand is a scalar: top-k picks along the last dim");
        }
        long[] dims = Extents.toArray(x.dims());
        long k = shapes.size() == 2 ? shapes.getFirst().rank() == x.rank() ? shapes.getFirst().dim(d) : -1 : -1;
        long[] want = dims.clone();
        if (k >= 0) {
            want[d] = k;
        }
        if (k < 0 || k > dims[d] || in.text("k").isPresent() && !in.text("k").get().strip().equals(Long.toString(k))
                || !Arrays.equals(Extents.toArray(shapes.get(0).dims()), want) || !Arrays.equals(Extents.toArray(shapes.get(1).dims()), want)
                || shapes.get(0).dtype() != x.dtype() || shapes.get(1).dtype() != DType.S32) {
            throw new IllegalArgumentException("its output " + shapes + " is not (" + x.dtype().xlaName() + ", s32) of "
                    + x.dims() + " with k" + in.text("k").map(t -> "=" + t.strip()).orElse("") + " (at most " + dims[d]
                    + ") in its last dim");
        }
        long total = x.elementCount();
        TensorView positions = Materialize.allocateForOverwrite(ArrayShape.of(DType.S32, dims), allocator);
        MemorySegment p = positions.buffer().segment();
        for (long i = 0; i < total; i++) {
            p.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, i, (int) (i % dims[d]));
        }
        List<TensorView> operands = List.of(x, positions);
        // TopK's comparator takes the values' two sides, and at times the positions' too.
        List<Key> order = comparator == null ? List.of(new Key(0, largest(in), "TOTALORDER", null))
                : order(comparator, comparator.parameterCount() == 2 ? List.of(x) : operands);
        long[] start = new long[dims.length];
        long[] stride = new long[dims.length];
        Arrays.fill(stride, 1);
        List<TensorView> firstK = new ArrayList<>();
        for (TensorView v : sorted(operands, d, order, comparator, true, allocator)) {
            firstK.add(dev.tensorbuf.ops.Ops.slice(v, start, want, stride));
        }
        return laidOut(firstK, shapes, allocator);
    }

    /** {@return whether {@code topk} {@code in} takes the greatest elements: {@code largest=true}, XLA's default} */
    static boolean largest(HloInstruction in) {
        return in.text("largest").map(t -> !t.strip().equals("false")).orElse(true);
    }

    /** Refuses operands of different dims, sub-byte and complex types. */
    private static void checkOperands(String op, List<TensorView> operands) {
        for (TensorView o : operands) {
            if (!o.dims().equals(operands.getFirst().dims())) {
                throw new IllegalArgumentException("its operands' dims differ: " + operands.stream().map(TensorView::dims).toList());
            }
            if (o.dtype().bitWidth() % 8 != 0 || o.dtype().kind() == DType.Kind.COMPLEX) {
                throw new IllegalArgumentException("a " + op + " of " + o.dtype().xlaName() + " is not supported: it orders whole"
                        + " bytes, real types");
            }
        }
    }

    /** {@return each of {@code views} copied into new memory laid out as its shape in {@code shapes}} */
    private static List<TensorView> laidOut(List<TensorView> views, List<ArrayShape> shapes, Allocator allocator) {
        List<TensorView> out = new ArrayList<>();
        for (int k = 0; k < views.size(); k++) {
            TensorView laid = Materialize.allocate(shapes.get(k), allocator);
            Materialize.copy(views.get(k), laid);
            out.add(laid);
        }
        return out;
    }

    /**
     * {@return {@code operands} sorted along dim {@code d} by the keys of {@code order}, each in
     * new row-major memory} Each key's function of {@code comparator} is evaluated once over its
     * operand; a row is ordered by a stable sort.
     */
    private static List<TensorView> sorted(List<TensorView> operands, int d, List<Key> order, HloComputation comparator,
            boolean stable, Allocator allocator) {
        long[] dims = Extents.toArray(operands.getFirst().dims());
        long total = operands.getFirst().elementCount();
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a sort of " + total + " elements is past 2^31-1, which this sort holds");
        }
        int count = (int) total;
        // Every operand dense in row-major order, and each key's function over all of it.
        List<TensorView> dense = new ArrayList<>();
        for (TensorView o : operands) {
            TensorView c = Materialize.allocateForOverwrite(ArrayShape.of(o.dtype(), dims), allocator);
            Materialize.copy(o, c);
            dense.add(c);
        }
        long[][] keys = new long[order.size()][];   // each ordered as its compare orders it, as signed longs
        for (int k = 0; k < keys.length; k++) {
            keys[k] = ordered(comparator, order.get(k), dense.get(order.get(k).operand()), count);
        }
        long len = dims[d];
        long inner = 1;
        for (int k = d + 1; k < dims.length; k++) {
            inner *= dims[k];
        }
        long outer = len == 0 ? 0 : total / (len * inner);
        List<TensorView> sorted = new ArrayList<>();
        for (TensorView o : dense) {
            sorted.add(Materialize.allocateForOverwrite(ArrayShape.of(o.dtype(), dims), allocator));
        }
        Integer[] perm = new Integer[(int) len];
        for (long o = 0; o < outer; o++) {
            for (long i = 0; i < inner; i++) {
                long base = o * len * inner + i;
                for (int j = 0; j < len; j++) {
                    perm[j] = j;
                }
                long step = inner;
                Arrays.sort(perm, (p, q) -> compare(order, keys, (int) (base + p * step), (int) (base + q * step)));   // stable
                if (!stable) {
                    checkTies(perm, order, keys, dense, base, step);
                }
                for (int k = 0; k < dense.size(); k++) {
                    MemorySegment from = dense.get(k).buffer().segment();
                    MemorySegment to = sorted.get(k).buffer().segment();
                    int w = dense.get(k).dtype().bitWidth() / 8;
                    for (int j = 0; j < len; j++) {
                        MemorySegment.copy(from, (base + perm[j] * step) * w, to, (base + j * step) * w, w);
                    }
                }
            }
        }
        return sorted;
    }

    /** {@return the order of elements {@code a} and {@code b} (row-major) by the keys in turn} */
    private static int compare(List<Key> order, long[][] keys, int a, int b) {
        for (int k = 0; k < keys.length; k++) {
            int c = Long.compare(keys[k][a], keys[k][b]);
            if (c != 0) {
                return order.get(k).descending() ? -c : c;
            }
        }
        return 0;
    }

    /** Refuses equal keys next to each other whose elements differ in any operand: XLA's unstable sort orders them its own way. */
    private static void checkTies(Integer[] perm, List<Key> order, long[][] keys, List<TensorView> dense, long base, long step) {
        for (int j = 1; j < perm.length; j++) {
            long a = base + perm[j - 1] * step;
            long b = base + perm[j] * step;
            if (compare(order, keys, (int) a, (int) b) != 0) {
                continue;
            }
            for (TensorView o : dense) {
                int w = o.dtype().bitWidth() / 8;
                MemorySegment s = o.buffer().segment();
                if (MemorySegment.mismatch(s, a * w, a * w + w, s, b * w, b * w + w) != -1) {
                    throw new IllegalArgumentException("it is not stable (no is_stable=true) and elements " + a + " and "
                            + b + " (row-major) tie under its comparator but differ; XLA's library sort orders such ties its"
                            + " own way, which run does not reproduce");
                }
            }
        }
    }

    /**
     * {@return {@code key}'s function over the {@code count} elements of its operand {@code dense},
     * as signed longs in the order its compare gives them}
     */
    private static long[] ordered(HloComputation comparator, Key key, TensorView dense, int count) {
        if (key.function() == null) {
            return totalOrder(dense, count);
        }
        Object compared = column(comparator, key.function(), PointwiseCopy.read(dense.buffer().segment(), dense.dtype(), count),
                count, new java.util.HashMap<>());
        long[] keys = new long[count];
        DType kt = key.function().arrayShape().dtype();
        if (compared instanceof double[] f) {
            for (int i = 0; i < count; i++) {
                if (key.type().equals("FLOAT") && Double.isNaN(f[i])) {
                    throw new IllegalArgumentException("its comparator compares floats with type=FLOAT, under which a NaN (element "
                            + i + " of operand " + key.operand() + ") is unordered; jax's comparators use TOTALORDER");
                }
                keys[i] = floatOrder(Double.doubleToRawLongBits(key.type().equals("FLOAT") ? comparedAsFloat(f[i], kt) : f[i]), 64);
            }
        } else {
            long[] l = (long[]) compared;
            boolean unsigned = key.type().equals("UNSIGNED") || kt.kind() == DType.Kind.UNSIGNED && !key.type().equals("SIGNED");
            for (int i = 0; i < count; i++) {
                keys[i] = unsigned ? l[i] ^ Long.MIN_VALUE : l[i];
            }
        }
        return keys;
    }

    /**
     * {@return {@code v} of type {@code t} as a {@code type=FLOAT} compare sees it: -0 as +0, and
     * for f32, f64 and bf16 (which XLA compares in f32) a denormal as zero, since XLA's CPU code
     * runs with denormals read as zero} f16 is widened to f32 exactly, where its denormals are
     * normal numbers, so they stay apart from zero (jax 0.10.2: a stable sort by LT of f32
     * {-0, -d, d, 0, 1, e, -e}, d and e denormal, moves only the 1; of f16 it orders them all).
     */
    private static double comparedAsFloat(double v, DType t) {
        double smallestNormal = switch (t) {
            case F32, BF16 -> Float.MIN_NORMAL;
            case F64 -> Double.MIN_NORMAL;
            default -> 0;
        };
        return v == 0 || Math.abs(v) < smallestNormal ? 0.0 : v;
    }

    /**
     * {@return the keys {@code comparator} orders the operands by, the first deciding} Read from
     * its root: a strict compare of one operand's two sides, or jax's lexicographic chain
     * {@code or(that compare, and(eq of the same sides, the rest))}, operands of either in either order.
     */
    private static List<Key> order(HloComputation comparator, List<TensorView> operands) {
        int n = operands.size();
        if (comparator.parameterCount() != 2 * n) {
            throw new IllegalArgumentException("its comparator " + comparator.name() + " has " + comparator.parameterCount()
                    + " parameters for " + n + " operands: a sort's comparator takes two of each");
        }
        String refusal = "its comparator " + comparator.name() + " is not a strict compare (LT or GT) of one operand's two"
                + " sides, each through the same elementwise ops, nor a lexicographic chain of such compares"
                + " (or(lt(k0), and(eq(k0), lt(k1))), as jax writes one)";
        List<Key> keys = new ArrayList<>();
        HloInstruction at = comparator.root();
        while (true) {
            Key strict = strict(comparator, at, n);
            if (strict != null) {
                keys.add(strict);
                return keys;
            }
            if (!at.opcode().equals("or") || at.operands().size() != 2) {
                throw new IllegalArgumentException(refusal);
            }
            HloInstruction next = null;
            for (int side = 0; side < 2 && next == null; side++) {
                strict = strict(comparator, comparator.instruction(at.operands().get(side)), n);
                HloInstruction rest = comparator.instruction(at.operands().get(1 - side));
                if (strict == null || !rest.opcode().equals("and") || rest.operands().size() != 2) {
                    continue;
                }
                for (int e = 0; e < 2 && next == null; e++) {
                    if (ties(comparator, comparator.instruction(rest.operands().get(e)), strict)) {
                        next = comparator.instruction(rest.operands().get(1 - e));
                    }
                }
            }
            if (next == null) {
                throw new IllegalArgumentException(refusal);
            }
            keys.add(strict);
            at = next;
        }
    }

    /**
     * {@return the {@code count} elements of row-major {@code dense} as signed longs in XLA's
     * total order: integers by value; floats by their bits, a negative one's magnitude bits
     * flipped, so -NaN < -inf < -0 < +0 < +inf < +NaN}
     */
    private static long[] totalOrder(TensorView dense, int count) {
        DType t = dense.dtype();
        int w = t.bitWidth();
        MemorySegment s = dense.buffer().segment();
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            long raw = switch (w) {
                case 8 -> s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i);
                case 16 -> s.getAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i);
                case 32 -> s.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, i);
                default -> s.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i);
            };
            if (Pointwise.isFloat(t)) {
                keys[i] = floatOrder(raw, w);
            } else if (t.kind() == DType.Kind.UNSIGNED || t == DType.PRED) {
                keys[i] = w == 64 ? raw ^ Long.MIN_VALUE : raw & ((1L << w) - 1);
            } else {
                keys[i] = raw;
            }
        }
        return keys;
    }

    /** {@return the sign-extended bits {@code raw} of a float {@code w} bits wide as a signed long in XLA's total order: a negative one's magnitude flipped} */
    private static long floatOrder(long raw, int w) {
        return raw ^ ((raw >> 63) & (w == 64 ? Long.MAX_VALUE : (1L << (w - 1)) - 1));
    }

    /** {@return the key {@code c} compares, where it is a strict compare of one of the {@code n} operands' two sides, else null} */
    private static Key strict(HloComputation comparator, HloInstruction c, int n) {
        String direction = c.text("direction").orElse("");
        if (!c.opcode().equals("compare") || c.operands().size() != 2 || !direction.equals("LT") && !direction.equals("GT")) {
            return null;
        }
        HloInstruction a = comparator.instruction(c.operands().get(0));
        HloInstruction b = comparator.instruction(c.operands().get(1));
        for (int j = 0; j < n; j++) {
            if (mirrors(comparator, a, b, comparator.parameter(2 * j).name(), comparator.parameter(2 * j + 1).name(), 0)) {
                return new Key(j, direction.equals("GT"), type(c, a), a);
            }
        }
        return null;
    }

    /**
     * {@return whether {@code c} holds exactly where {@code key}'s compare ties: an {@code EQ}
     * compare of the same function of the same two sides (either way round) under the same type}
     */
    private static boolean ties(HloComputation comparator, HloInstruction c, Key key) {
        if (!c.opcode().equals("compare") || c.operands().size() != 2 || !c.text("direction").orElse("").equals("EQ")) {
            return false;
        }
        if (!type(c, key.function()).equals(key.type())) {
            return false;
        }
        String pa = comparator.parameter(2 * key.operand()).name();
        String pb = comparator.parameter(2 * key.operand() + 1).name();
        HloInstruction a = comparator.instruction(c.operands().get(0));
        HloInstruction b = comparator.instruction(c.operands().get(1));
        return mirrors(comparator, a, key.function(), pa, pa, 0) && mirrors(comparator, b, a, pb, pa, 0)
                || mirrors(comparator, b, key.function(), pa, pa, 0) && mirrors(comparator, a, b, pb, pa, 0);
    }

    /** {@return compare {@code c}'s type, of operands as {@code side}: as written, else the default for their dtype} */
    private static String type(HloInstruction c, HloInstruction side) {
        DType t = side.arrayShape().dtype();
        return c.text("type").orElse(Pointwise.isFloat(t) ? "FLOAT" : t.kind() == DType.Kind.UNSIGNED ? "UNSIGNED" : "SIGNED");
    }

    /** {@return the literal of scalar constant {@code c}, as written} */
    private static String literal(HloInstruction c) {
        return c.payload().strip();
    }

    /** {@return whether {@code b} is {@code a} with parameter {@code pa} in place of {@code pb}} */
    private static boolean mirrors(HloComputation comp, HloInstruction a, HloInstruction b, String pa, String pb, int depth) {
        if (depth > 32 || !a.opcode().equals(b.opcode()) || !a.shape().equals(b.shape()) || a.operands().size() != b.operands().size()) {
            return false;
        }
        switch (a.opcode()) {
            case "parameter" -> {
                return a.name().equals(pa) && b.name().equals(pb);
            }
            case "constant" -> {
                return a.arrayShape().rank() == 0 && literal(a).equals(literal(b));
            }
            default -> {
                if (!Pointwise.OPCODES.contains(a.opcode()) && !BITCASTS.contains(a.opcode()) || !a.text("direction").equals(b.text("direction"))
                        || !a.text("type").equals(b.text("type"))) {
                    return false;
                }
                for (int k = 0; k < a.operands().size(); k++) {
                    if (!mirrors(comp, comp.instruction(a.operands().get(k)), comp.instruction(b.operands().get(k)), pa, pb, depth + 1)) {
                        return false;
                    }
                }
                return true;
            }
        }
    }

    private static final java.util.Set<String> BITCASTS = java.util.Set.of("bitcast", "bitcast-convert");

    /**
     * {@return the column of {@code a}, a function of the comparator's key parameter, over all
     * {@code n} key values {@code key}} Each op through {@link Pointwise} with XLA's semantics; a
     * bitcast of a scalar (XLA's optimised comparator reads a float's bits as an integer to order
     * it) reinterprets the bits.
     */
    private static Object column(HloComputation comp, HloInstruction a, Object key, int n, java.util.Map<String, Object> done) {
        Object known = done.get(a.name());
        if (known != null) {
            return known;
        }
        DType t = a.arrayShape().dtype();
        Object out;
        if (a.opcode().equals("parameter")) {
            out = key;
        } else if (a.opcode().equals("constant")) {
            String text = literal(a);
            if (Pointwise.isFloat(t)) {
                double[] c = new double[n];
                Arrays.fill(c, ScalarLiteral.parse(text, t));
                out = c;
            } else {
                long[] c = new long[n];
                Arrays.fill(c, t == DType.PRED ? (text.equals("true") ? 1 : 0) : Literals.integer(text, t));
                out = c;
            }
        } else if (BITCASTS.contains(a.opcode())) {
            HloInstruction from = comp.instruction(a.operands().getFirst());
            DType ft = from.arrayShape().dtype();
            if (ft.bitWidth() != t.bitWidth() || Pointwise.isFloat(t)) {
                throw new IllegalArgumentException("its comparator bitcasts " + ft.xlaName() + " to " + t.xlaName()
                        + ", which this sort does not read");
            }
            Object x = column(comp, from, key, n, done);
            long[] bits = new long[n];
            int w = t.bitWidth();
            for (int i = 0; i < n; i++) {
                long raw = x instanceof double[] f ? floatBits(f[i], ft) : ((long[]) x)[i];
                bits[i] = t.kind() == DType.Kind.SIGNED ? raw << (64 - w) >> (64 - w) : w == 64 ? raw : raw & ((1L << w) - 1);
            }
            out = bits;
        } else {
            List<Pointwise.Expr> leaves = new ArrayList<>();
            Object[] columns = new Object[a.operands().size()];
            for (int k = 0; k < columns.length; k++) {
                HloInstruction o = comp.instruction(a.operands().get(k));
                columns[k] = column(comp, o, key, n, done);
                leaves.add(new Pointwise.Leaf(k, o.arrayShape().dtype()));
            }
            out = Pointwise.eval(new Pointwise.Op(a.opcode(), t, leaves, Fusion.detail(a, a.opcode(), leaves)), columns, n,
                    Pointwise.Mode.XLA);
        }
        done.put(a.name(), out);
        return out;
    }

    /** {@return the bits of float {@code v} of type {@code t}} */
    private static long floatBits(double v, DType t) {
        return switch (t) {
            case F64 -> Double.doubleToRawLongBits(v);
            case F32 -> Float.floatToRawIntBits((float) v) & 0xffff_ffffL;
            case F16 -> dev.tensorbuf.views.internal.MiniFloat.F16.encode(v);
            case BF16 -> dev.tensorbuf.views.internal.MiniFloat.BF16.encode(v);
            default -> throw new IllegalArgumentException("no bits of " + t.xlaName());
        };
    }
}
