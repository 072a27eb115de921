package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.internal.CopyExecutor;
import dev.tensorbuf.ops.copy.internal.EngineThreads;
import dev.tensorbuf.ops.copy.internal.Folds;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.copy.internal.PointwiseCopy;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.WindowDim;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.internal.Extents;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;

/**
 * HLO's {@code reduce} where its result is exact: a reducer that is one associative, commutative
 * op of its two parameters, so that the order XLA's CPU code combines elements in (its vectorised
 * loops use several accumulators) cannot change a bit. Integers and pred by {@code add},
 * {@code multiply} (wrapping), {@code maximum}, {@code minimum}, {@code and}, {@code or},
 * {@code xor}; floats by {@code maximum} and {@code minimum} (NaN wins, -0 below +0), their
 * operands read with denormals flushed as XLA's arithmetic reads them. Float sums and products
 * are refused: their rounding follows XLA's loop order (jax 0.10 sums f32[100] in neither element
 * order nor any fixed number of accumulators).
 *
 * <p>A variadic reduce runs where its reducer is jax's argmax or argmin comparator
 * ({@link #argDirection}): its formula is applied element after element, which gives the first
 * NaN's index, else the smallest index among equal values, whatever order XLA combines in.
 *
 * <p>A float maximum or minimum whose reducer rounds each step through a narrower float (XLA's
 * float normalization, {@link #roundedThrough}) is the reduce rounded once; an argmax so written
 * takes values of the narrower type only.
 *
 * <p>Two cases follow XLA's simplifier, not the reducer: where one element is reduced the result
 * is that element as it is (a denormal kept), and where none is, the init value. The init value
 * must be the reducer's identity ({@code 0} for add, {@code -inf} or the type's least value for
 * maximum, ...): XLA applies it as many times as its loops have accumulators (a sum of 100 ones
 * from 5 is 125, of 1,000 is 1,165, of 1 is 1), so another init is refused when the run reads it.
 *
 * <p>The operand is copied by the engine into a dense buffer with the reduced dims first (many
 * kept elements: each reduced row is folded into an accumulator row) or last (few kept elements:
 * each row is folded in blocks, then halved), unless it is dense that way already; {@link Folds}'
 * typed loops read it straight into the accumulators.
 */
public final class Reductions {
    private Reductions() {
    }

    /** The reducers integer and pred reductions run with: every one {@link Folds} folds. */
    static final List<String> INTEGER_REDUCERS = Folds.OPS;
    /** The reducers float reductions run with: the others round in XLA's own order. */
    static final List<String> FLOAT_REDUCERS = List.of("maximum", "minimum");
    /** Elements a block of a fold holds: an accumulator and a block of the operand fit a core's L2 as doubles. */
    static final int BLOCK = 16 * 1024;
    /** The fewest elements of a row a thread folds apart from the rest of it. */
    static final long MIN_SHARE = 64 * 1024;
    /** Kept elements from which the reduced dims go first: each reduced row is then a long vector to fold in. */
    static final long ROWS_FROM = 64;

    /**
     * {@return why {@code in}, a {@code reduce} in {@code comp}, does not run, or empty when it
     * does} Checked before anything runs: the operand count, the reducer's form, the types.
     */
    public static String refusal(HloModule module, HloComputation comp, HloInstruction in) {
        String name = in.text("to_apply").orElse("").strip();
        String bare = name.startsWith("%") ? name.substring(1) : name;
        HloComputation reducer = module.computations().stream().filter(c -> c.name().equals(bare)).findFirst().orElse(null);
        if (reducer == null) {
            return "the " + in.opcode() + " names no computation of the module: to_apply=" + name;
        }
        if (in.opcode().equals("reduce") && in.operands().size() == 4 && argDirection(reducer) != null) {
            DType values = comp.instruction(in.operands().get(0)).arrayShape().dtype();
            DType indices = comp.instruction(in.operands().get(1)).arrayShape().dtype();
            return Pointwise.TYPES.contains(values) && (indices.kind() == DType.Kind.SIGNED || indices.kind() == DType.Kind.UNSIGNED) ? ""
                    : "an argmax or argmin of " + values.xlaName() + " values and " + indices.xlaName() + " indices does not run;"
                            + " of numbers or pred and integer indices it does";
        }
        if (in.operands().size() != 2) {
            return "a " + in.opcode() + " of " + in.operands().size() / 2 + " arrays at once (variadic) runs only as jax's"
                    + " argmax and argmin write it (the first greatest or least value's index, NaN first); " + bare
                    + " is another reducer";
        }
        String op = reducerOp(reducer);
        if (op == null) {
            return "its reducer " + bare + " is not one op of its two parameters (" + reducer.root().opcode()
                    + " at its root); reduces run by " + String.join(", ", INTEGER_REDUCERS);
        }
        DType t = comp.instruction(in.operands().getFirst()).arrayShape().dtype();
        if (!Pointwise.TYPES.contains(t)) {
            return "a " + in.opcode() + " of " + t.xlaName() + " does not run; of " + typeNames() + " it does";
        }
        if (reducer.root().arrayShape().dtype() != t) {
            return "its reducer " + bare + " computes in " + reducer.root().arrayShape().dtype().xlaName() + ", not the operand's "
                    + t.xlaName();
        }
        if (Pointwise.isFloat(t) && !FLOAT_REDUCERS.contains(op)
                && !(op.equals("add") && ExactSums.TYPES.contains(t))) {
            return "a " + in.opcode() + " by " + op + " of " + t.xlaName() + " rounds in the order XLA's vectorised loops combine"
                    + " elements, which run does not reproduce; float reduces run by maximum and minimum (and those of f32"
                    + " or f64 by add where no order rounds), integer and pred ones by " + String.join(", ", INTEGER_REDUCERS);
        }
        if (t == DType.PRED && (op.equals("add") || op.equals("multiply"))) {
            return "a " + in.opcode() + " of pred by " + op + " does not run; by and, or, xor, maximum or minimum it does";
        }
        return "";
    }

    private static String typeNames() {
        return Pointwise.TYPES.stream().map(DType::xlaName).sorted().reduce((a, b) -> a + ", " + b).orElse("");
    }

    /**
     * {@return "GT" where {@code reducer} is jax's argmax comparator, "LT" where it is argmin's, else
     * null} Parameters (value, index, value, index) of the accumulator {@code a} and the element
     * {@code b}; the root {@code tuple(select(P, a, b), select(P or (a == b and ai < bi), ai, bi))}
     * with {@code P = a > b or a != a} ({@code <} for argmin; integers without the NaN test), the
     * operands of {@code or} and {@code and} either way round.
     */
    static String argDirection(HloComputation reducer) {
        if (reducer.parameterCount() != 4 || !reducer.root().opcode().equals("tuple") || reducer.root().operands().size() != 2) {
            return null;
        }
        String a = reducer.parameter(0).name();
        String ai = reducer.parameter(1).name();
        String b = reducer.parameter(2).name();
        String bi = reducer.parameter(3).name();
        HloInstruction value = unrounded(reducer, reducer.instruction(reducer.root().operands().get(0)));
        HloInstruction index = reducer.instruction(reducer.root().operands().get(1));
        if (!isSelect(index, ai, bi)) {
            return null;
        }
        HloInstruction either = reducer.instruction(index.operands().getFirst());
        if (!either.opcode().equals("or") || either.operands().size() != 2) {
            return null;
        }
        for (int k = 0; k < 2; k++) {
            HloInstruction picks = reducer.instruction(either.operands().get(k));
            HloInstruction tie = reducer.instruction(either.operands().get(1 - k));
            String direction = picksDirection(reducer, picks, a, b);
            if (direction == null || !tie.opcode().equals("and") || tie.operands().size() != 2) {
                continue;
            }
            HloInstruction x = reducer.instruction(tie.operands().get(0));
            HloInstruction y = reducer.instruction(tie.operands().get(1));
            boolean ties = isCompare(x, a, b, "EQ") && isCompare(y, ai, bi, "LT") || isCompare(y, a, b, "EQ") && isCompare(x, ai, bi, "LT");
            // The value: select(picks, a, b), or, of pred, the or (argmax) or and (argmin) XLA's
            // simplifier makes of that select (jax 0.10, jnp.argmax of a mask, optimised).
            boolean picked = isSelect(value, a, b) && value.operands().getFirst().equals(picks.name())
                    || value.arrayShape().dtype() == DType.PRED && value.opcode().equals(direction.equals("GT") ? "or" : "and")
                            && value.operands().size() == 2 && Set.copyOf(value.operands()).equals(Set.of(a, b));
            if (ties && picked) {
                return direction;
            }
        }
        return null;
    }

    private static boolean isSelect(HloInstruction in, String onTrue, String onFalse) {
        return in.opcode().equals("select") && in.operands().size() == 3 && in.operands().get(1).equals(onTrue)
                && in.operands().get(2).equals(onFalse);
    }

    private static boolean isCompare(HloInstruction in, String x, String y, String direction) {
        return in.opcode().equals("compare") && in.operands().equals(List.of(x, y))
                && direction.equals(in.text("direction").orElse("")) && in.text("type").map(t -> !t.equals("TOTALORDER")).orElse(true);
    }

    /** {@return the direction of {@code a > b}, {@code a < b}, or either or'd with {@code a != a}; null for anything else} */
    private static String picksDirection(HloComputation reducer, HloInstruction picks, String a, String b) {
        for (String d : List.of("GT", "LT")) {
            if (isCompare(picks, a, b, d)) {
                return d;
            }
        }
        if (!picks.opcode().equals("or") || picks.operands().size() != 2) {
            return null;
        }
        for (int k = 0; k < 2; k++) {
            HloInstruction order = reducer.instruction(picks.operands().get(k));
            HloInstruction nan = reducer.instruction(picks.operands().get(1 - k));
            if (isCompare(nan, a, a, "NE")) {
                for (String d : List.of("GT", "LT")) {
                    if (isCompare(order, a, b, d)) {
                        return d;
                    }
                }
            }
        }
        return null;
    }

    /**
     * {@return jax's argmax ({@code direction} "GT") or argmin ("LT") of {@code values} over
     * {@code reduced}, with {@code indices} beside them: for each output, the reducer's formula
     * applied element after element in row-major order from the init values, as a tuple of the
     * value and the index, each in new memory laid out as {@code valueShape} and {@code indexShape}}
     * Floats are compared flushed, as XLA's compares read them; a NaN is kept once taken, so the
     * first NaN's index comes out, and among equal values (a denormal equals zero) the smallest
     * index. The value is the chosen element's own bits, flushed where the reduce keeps one
     * element (of two or more; one alone is taken as it is, as by any reduce).
     */
    static List<TensorView> argReduce(TensorView values, TensorView indices, TensorView initValue, TensorView initIndex,
            List<Long> reduced, String direction, DType through, ArrayShape valueShape, ArrayShape indexShape,
            Allocator allocator) {
        if (!values.dims().equals(indices.dims())) {
            throw new IllegalArgumentException("values " + values.shape() + " and indices " + indices.shape() + " differ in dims");
        }
        if (initValue.rank() != 0 || initIndex.rank() != 0 || initValue.dtype() != values.dtype()
                || initIndex.dtype() != indices.dtype()) {
            throw new IllegalArgumentException("the init values " + initValue.shape() + " and " + initIndex.shape() + " are not scalars of "
                    + values.dtype().xlaName() + " and " + indices.dtype().xlaName());
        }
        DType t = values.dtype();
        DType it = indices.dtype();
        int rank = values.rank();
        boolean[] isReduced = reducedDims(reduced, rank);
        long[] dims = Extents.toArray(values.dims());
        int[] keptFirst = order(isReduced, true);
        List<Long> kept = keptDims(values.dims(), isReduced);
        long count = reducedCount(values.dims(), isReduced);
        if (!kept.equals(valueShape.dims()) || !kept.equals(indexShape.dims()) || valueShape.dtype() != t || indexShape.dtype() != it) {
            throw new IllegalArgumentException("reducing " + values.shape() + " over " + reduced + " gives " + kept + ", not "
                    + valueShape + " and " + indexShape);
        }
        long rows = 1;
        for (long n : kept) {
            rows = Math.multiplyExact(rows, n);
        }
        if (rows > Integer.MAX_VALUE || count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("an argmax of " + rows + " rows of " + count + " elements is past the 2^31 - 1 it holds");
        }
        boolean greater = direction.equals("GT");
        boolean flush = true;
        boolean unsignedIndex = it.kind() == DType.Kind.UNSIGNED;
        int vw = Math.max(1, t.bitWidth() / 8);
        int iw = Math.max(1, it.bitWidth() / 8);
        MemorySegment v = dense(values, keptFirst, allocator);
        MemorySegment ix = dense(indices, keptFirst, allocator);
        Object initV = PointwiseCopy.read(initValue.buffer().segment().asSlice(offsetBytes(initValue)), t, 1);
        Object initI = PointwiseCopy.read(initIndex.buffer().segment().asSlice(offsetBytes(initIndex)), it, 1);
        boolean isFloat = Pointwise.isFloat(t);
        Object outV = isFloat ? new double[(int) rows] : new long[(int) rows];
        long[] outI = new long[(int) rows];
        for (int r = 0; r < rows; r++) {
            Object rowV = PointwiseCopy.read(v.asSlice(r * count * vw), t, (int) count);
            long[] rowI = (long[]) PointwiseCopy.read(ix.asSlice(r * count * iw), it, (int) count);
            long ai = ((long[]) initI)[0];
            if (isFloat) {
                double[] xs = (double[]) rowV;
                double av = ((double[]) initV)[0];
                if (through != null) {
                    checkValuesOf(through, xs, t, r);
                }
                for (int e = 0; e < count; e++) {
                    double p = Pointwise.flushIn(av, t, flush);
                    double q = Pointwise.flushIn(xs[e], t, flush);
                    boolean picks = (greater ? p > q : p < q) || Double.isNaN(av);
                    boolean keepsIndex = picks || p == q && less(ai, rowI[e], unsignedIndex);
                    av = picks ? av : xs[e];
                    ai = keepsIndex ? ai : rowI[e];
                }
                // XLA's code for a reduce to one element reads the chosen value flushed (jax 0.10:
                // the argmin of [2^-136, 2^-137] is +0 as f32[], 2^-137 per row of f32[2,2]).
                av = rows == 1 && count > 1 ? Pointwise.flushIn(av, t, flush) : av;
                ((double[]) outV)[r] = through == null ? av
                        : ((double[]) Pointwise.eval(roundTrip(new Pointwise.Leaf(0, t), t, through), new Object[] {new double[] {av}}, 1,
                                Pointwise.Mode.XLA))[0];
            } else {
                long[] xs = (long[]) rowV;
                long av = ((long[]) initV)[0];
                boolean unsigned = t.kind() == DType.Kind.UNSIGNED;
                for (int e = 0; e < count; e++) {
                    int c = unsigned ? Long.compareUnsigned(av, xs[e]) : Long.compare(av, xs[e]);
                    boolean picks = greater ? c > 0 : c < 0;
                    boolean keepsIndex = picks || c == 0 && less(ai, rowI[e], unsignedIndex);
                    av = picks ? av : xs[e];
                    ai = keepsIndex ? ai : rowI[e];
                }
                ((long[]) outV)[r] = av;
            }
            outI[r] = ai;
        }
        long[] keptDims = kept.stream().mapToLong(Long::longValue).toArray();
        TensorView denseV = Materialize.allocateForOverwrite(ArrayShape.of(t, keptDims), allocator);
        TensorView denseI = Materialize.allocateForOverwrite(ArrayShape.of(it, keptDims), allocator);
        PointwiseCopy.write(denseV.buffer().segment(), t, outV, (int) rows);
        PointwiseCopy.write(denseI.buffer().segment(), it, outI, (int) rows);
        return List.of(Materialize.materialize(denseV, valueShape, allocator), Materialize.materialize(denseI, indexShape, allocator));
    }

    /**
     * Refuses a row of an argmax whose reducer rounds its value through {@code through} where a
     * value is not one of that type's: the rounded running value is then compared with unrounded
     * ones, and which index wins depends on the order XLA's loops take the elements in. jax's
     * optimised argmax of bf16 reads bf16 values, which rounding leaves as they are.
     */
    private static void checkValuesOf(DType through, double[] xs, DType t, int row) {
        double[] back = (double[]) Pointwise.eval(roundTrip(new Pointwise.Leaf(0, t), t, through), new Object[] {xs}, xs.length,
                Pointwise.Mode.IEEE);
        for (int e = 0; e < xs.length; e++) {
            if (!Double.isNaN(xs[e]) && Double.doubleToRawLongBits(back[e]) != Double.doubleToRawLongBits(xs[e])) {
                throw new IllegalArgumentException("an argmax or argmin whose reducer rounds its value through " + through.xlaName()
                        + " (XLA's float normalization) runs on " + through.xlaName() + " values only: element " + e + " of row " + row
                        + ", " + xs[e] + ", is not one, and which index wins would depend on the order XLA's loops read the elements in");
            }
        }
    }

    private static boolean less(long a, long b, boolean unsigned) {
        return unsigned ? Long.compareUnsigned(a, b) < 0 : a < b;
    }

    /** {@return the byte offset of a scalar view's one element in its buffer} */
    private static long offsetBytes(TensorView scalar) {
        return scalar.stridedLayout().map(l -> l.offset() * Math.max(1, scalar.dtype().bitWidth() / 8)).orElseThrow(
                () -> new IllegalArgumentException("an init value must be a plain scalar, not " + scalar));
    }

    /**
     * {@return the narrower float type a float reducer rounds its value through, or null} XLA's
     * float normalization runs a reduce of bf16 in f32 and ends its reducer in
     * {@code convert<f32>(convert<bf16>(v))}, the value of a variadic one too (jax 0.10: jnp.max
     * and jnp.argmax of bf16, optimised). A maximum or minimum rounded each step is the reduce
     * rounded once, as rounding is monotonic ({@link #roundThrough}), a window's too, its lone
     * elements included (XLA runs the loop there rather than taking the element as it is); an
     * argmax's values must be values of the narrower type ({@link #argReduce}).
     */
    static DType roundedThrough(HloComputation reducer) {
        HloInstruction v = reducer.root();
        if (v.opcode().equals("tuple") && !v.operands().isEmpty()) {
            v = reducer.instruction(v.operands().getFirst());
        }
        return roundTripOf(reducer, v) == null ? null : reducer.instruction(v.operands().getFirst()).arrayShape().dtype();
    }

    /** {@return {@code x} where {@code v} is {@code convert(convert(x))} back to x's float type through a narrower float; else null} */
    private static HloInstruction roundTripOf(HloComputation reducer, HloInstruction v) {
        if (!v.opcode().equals("convert") || v.operands().size() != 1) {
            return null;
        }
        HloInstruction narrow = reducer.instruction(v.operands().getFirst());
        if (!narrow.opcode().equals("convert") || narrow.operands().size() != 1) {
            return null;
        }
        HloInstruction x = reducer.instruction(narrow.operands().getFirst());
        DType f = v.arrayShape().dtype();
        DType through = narrow.arrayShape().dtype();
        return Pointwise.isFloat(f) && Pointwise.isFloat(through) && x.arrayShape().dtype() == f
                && through.bitWidth() < f.bitWidth() ? x : null;
    }

    /**
     * A reducer as read from its computation: one op of its two parameters ({@link #reducerOp};
     * null where it is not one), each step rounded through the narrower float {@code through}
     * where that is not null ({@link #roundedThrough}).
     */
    record Reducer(String op, DType through) {
        /** {@return the reducer computation {@code reducer} is} */
        static Reducer of(HloComputation reducer) {
            return new Reducer(reducerOp(reducer), roundedThrough(reducer));
        }

        /** {@return the op, and the type each step rounds through where it does} */
        String describe() {
            return through == null ? op : op + " rounded through " + through.xlaName();
        }
    }

    /** {@return what {@code v} rounds through a narrower float, or {@code v}} */
    static HloInstruction unrounded(HloComputation reducer, HloInstruction v) {
        HloInstruction x = roundTripOf(reducer, v);
        return x == null ? v : x;
    }

    /**
     * {@return {@code r}, a float maximum or minimum, converted to {@code through} and back into
     * new memory laid out as {@code out}; {@code r} where {@code through} is null} Rounding is
     * monotonic, so rounding each step's maximum gives the maximum rounded once (jax 0.10, f32
     * [7,300] through bf16 along either dim).
     */
    private static TensorView roundThrough(TensorView r, DType through, ArrayShape out, Allocator allocator) {
        if (through == null) {
            return r;
        }
        TensorView narrow = Conversions.convert(r, ArrayShape.of(through, Extents.toArray(r.dims())), allocator);
        return Conversions.convert(narrow, out, allocator);
    }

    /** {@return the op a reducer computation is, {@code op(p0, p1)} either way round on scalars; null for any other} */
    static String reducerOp(HloComputation reducer) {
        if (reducer.parameterCount() != 2) {
            return null;
        }
        HloInstruction root = unrounded(reducer, reducer.root());
        if (!INTEGER_REDUCERS.contains(root.opcode()) || root.operands().size() != 2 || !root.arrayShape().dims().isEmpty()) {
            return null;
        }
        Set<String> params = Set.of(reducer.parameter(0).name(), reducer.parameter(1).name());
        if (!Set.copyOf(root.operands()).equals(params)) {
            return null;
        }
        for (int k = 0; k < 2; k++) {
            if (!reducer.parameter(k).arrayShape().equals(root.arrayShape())) {
                return null;
            }
        }
        return root.opcode();
    }

    /**
     * {@return {@code operand} reduced over {@code reduced} by {@code op}, in new memory laid out as
     * {@code out}, rounded through {@code through} where it is not null ({@link #roundedThrough})}
     * {@code init} is a scalar, checked to be {@code op}'s identity.
     *
     * @throws IllegalArgumentException if {@code init} is not the identity, or the dims do not fit
     */
    static TensorView reduce(TensorView operand, TensorView init, List<Long> reduced, String op, DType through, ArrayShape out,
            Allocator allocator) {
        DType t = operand.dtype();
        int rank = operand.rank();
        boolean[] isReduced = reducedDims(reduced, rank);
        checkInit(init, t, op);
        long[] kept = Extents.toArray(checkedKept(operand.shape(), isReduced, reduced, out));
        long rows = 1;
        for (long k : kept) {
            rows = Math.multiplyExact(rows, k);
        }
        long count = reducedCount(operand.dims(), isReduced);
        if (count == 0 || rows == 0) {
            return Materialize.materialize(Ops.broadcast(init, kept), out, allocator);
        }
        if (count == 1) {
            // XLA's simplifier makes this a reshape: the element as it is, a denormal unflushed,
            // not rounded by a reducer that rounds (jax 0.10).
            return Materialize.materialize(Ops.reshape(operand, kept), out, allocator);
        }
        if (FLOAT_REDUCERS.contains(op) && (t == DType.F32 || t == DType.F64) && through == null && repeatsAlong(operand, isReduced)) {
            // XLA's simplifier makes a maximum or minimum over the dims a broadcast added the
            // broadcast's operand: its elements as they are, a denormal unflushed (jax 0.10.2, of
            // a broadcast, of a pad too, and of transposes, slices, reverses and reshapes of one;
            // seed 1137). Not seen through: a copy into new memory, a pad along the reduced dims
            // and an elementwise op of the broadcast, which XLA moves out of the way first. A bf16
            // reduce XLA computes in f32, flushed.
            long[] limit = Extents.toArray(operand.dims());
            for (int k = 0; k < rank; k++) {
                limit[k] = isReduced[k] ? 1 : limit[k];
            }
            long[] unit = new long[rank];
            java.util.Arrays.fill(unit, 1);
            return Materialize.materialize(Ops.reshape(Ops.slice(operand, new long[rank], limit, unit), kept), out, allocator);
        }
        if (rows > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a reduce into " + rows + " elements is past the 2^31 - 1 it holds");
        }
        if (Pointwise.isFloat(t) && op.equals("add")) {
            MemorySegment dense = dense(operand, order(isReduced, true), allocator);
            TensorView sums = Materialize.allocateForOverwrite(ArrayShape.of(t, kept), allocator);
            ExactSums.sum(t, through, dense, (int) rows, count, sums.buffer().segment());
            return Materialize.materialize(sums, out, allocator);
        }
        int code = Folds.op(op);
        TensorView result = Materialize.allocateForOverwrite(ArrayShape.of(t, kept), allocator);
        int width = Math.max(1, t.bitWidth() / 8);
        int[] perm = order(isReduced, false);
        int[] keptFirst = order(isReduced, true);
        // The order the operand is dense in already, else the one that suits the counts, copied.
        boolean reducedFirst = inPlace(operand, keptFirst) == null && (inPlace(operand, perm) != null || rows >= ROWS_FROM);
        CopyExecutor threads = EngineThreads.of(CopyEngine.defaults());
        int parallel = threads.threadsFor(Math.multiplyExact(Math.multiplyExact(rows, count), width));
        MemorySegment segment = result.buffer().segment();
        if (reducedFirst) {
            foldReducedFirst(code, t, dense(operand, perm, allocator), rows, count, segment, threads, parallel);
        } else {
            foldRows(code, t, dense(operand, keptFirst, allocator), rows, count, segment, threads, parallel);
        }
        return roundThrough(Materialize.materialize(result, out, allocator), through, out, allocator);
    }

    /**
     * {@return whether {@code view} repeats one element along every reduced dim} Where no piece of
     * its map reads a reduced dim, in its offset or in the part of the index space it covers: a
     * broadcast along those dims, and moves of one; a pad or concatenation along them is not seen
     * through.
     */
    private static boolean repeatsAlong(TensorView view, boolean[] isReduced) {
        for (ViewMap.Single piece : view.map().pieces()) {
            IndexingMap map = piece.map();
            for (int k = 0; k < isReduced.length; k++) {
                if (isReduced[k] && (map.readsDim(k)
                        || !map.dimBounds().get(k).equals(new Interval(0, view.dims().get(k) - 1)))) {
                    return false;   // its offset reads the dim, or the piece covers part of it
                }
            }
        }
        return true;
    }

    /** Writes the box of a value from {@code start}, {@code dims} long, into {@code dst}: a held expression evaluated in chunks. */
    interface BoxSource {
        void box(long[] start, long[] dims, TensorView dst);
    }

    /**
     * Bytes of a value a chunk of {@link #reduceInChunks} holds, evaluated and then folded while
     * in cache. Each chunk is planned and handed to the threads afresh, which smaller chunks pay
     * more often ({@code ReduceBenchmark}'s {@code max_abs_*} cases measure the whole).
     */
    static final long CHUNK_BYTES = 8L << 20;

    /**
     * {@return whether {@link #reduceInChunks} takes a reduce of a value of {@code dims} over
     * {@code reduced}} It does where more than one element is reduced into each result and the
     * value is more than a chunk.
     */
    static boolean chunks(List<Long> dims, List<Long> reduced, DType t) {
        int rank = dims.size();
        boolean[] isReduced = reducedDims(reduced, rank);
        if (rank == 0 || t.bitWidth() % 8 != 0) {
            return false;
        }
        return reducedCount(dims, isReduced) > 1 && Math.multiplyExact(Extents.elementCount("a reduce's operand", dims), t.bitWidth() / 8) > CHUNK_BYTES;
    }

    /**
     * {@return {@link #reduce} of a value read in chunks from {@code source}, where {@link #chunks}
     * holds} A chunk is a range of one dim, the split (the first whose inner dims make at most half
     * a chunk), at one index of each dim before it: a box whose results are contiguous. It is
     * written into one scratch in the order its fold reads (the reduced dims last where the last
     * dim is reduced, else first where many elements are kept), folded there, and its results
     * written, or joined with those of the chunks before it that reduce into them. Never more than
     * a chunk of the value is in memory.
     */
    static TensorView reduceInChunks(BoxSource source, ArrayShape operand, TensorView init, List<Long> reduced, String op,
            DType through, ArrayShape out, Allocator allocator) {
        DType t = operand.dtype();
        checkInit(init, t, op);
        long[] dims = Extents.toArray(operand.dims());
        int rank = dims.length;
        boolean[] isReduced = reducedDims(reduced, rank);
        int[] keptFirst = order(isReduced, true);
        int[] reducedFirst = order(isReduced, false);
        List<Long> kept = checkedKept(operand, isReduced, reduced, out);
        long keptElements = Extents.elementCount("a reduce's result", kept);
        if (keptElements > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a reduce into " + keptElements + " elements is past the 2^31 - 1 it holds");
        }
        // Where each dim's index moves the result: row-major strides over the kept dims, 0 for reduced ones.
        long[] resultStride = new long[rank];
        long stride = 1;
        for (int d = rank - 1; d >= 0; d--) {
            resultStride[d] = isReduced[d] ? 0 : stride;
            stride *= isReduced[d] ? 1 : dims[d];
        }
        int width = t.bitWidth() / 8;
        int split = 0;
        while (Extents.elementCount("a row", operand.dims().subList(split + 1, rank)) * width > CHUNK_BYTES / 2) {
            split++;
        }
        long inner = Extents.elementCount("a row", operand.dims().subList(split + 1, rank));
        long chunkRows = Math.min(dims[split], Math.max(1, CHUNK_BYTES / (inner * width)));
        long outer = Extents.elementCount("the outer dims", operand.dims().subList(0, split));
        int code = Folds.op(op);
        CopyExecutor threads = EngineThreads.of(CopyEngine.defaults());
        int parallel = threads.threadsFor(chunkRows * inner * width);
        TensorView result = Materialize.allocateForOverwrite(ArrayShape.of(t, Extents.toArray(kept)), allocator);
        MemorySegment results = result.buffer().segment();
        MemorySegment partial = Materialize.allocateForOverwrite(ArrayShape.of(t, Math.min(keptElements, chunkRows * inner)), allocator)
                .buffer().segment();
        TensorView scratch = Materialize.allocateForOverwrite(ArrayShape.of(t, chunkRows * inner), allocator);
        long[] start = new long[rank];
        long[] chunkDims = dims.clone();
        for (int d = 0; d < split; d++) {
            chunkDims[d] = 1;
        }
        for (long o = 0; o < outer; o++) {
            boolean firstOuter = true;
            long outerOffset = 0;
            long rest = o;
            for (int d = split - 1; d >= 0; d--) {
                start[d] = rest % dims[d];
                rest /= dims[d];
                firstOuter &= !isReduced[d] || start[d] == 0;
                outerOffset += start[d] * resultStride[d];
            }
            for (long from = 0; from < dims[split]; from += chunkRows) {
                long to = Math.min(dims[split], from + chunkRows);
                start[split] = from;
                chunkDims[split] = to - from;
                long elements = (to - from) * inner;
                long rows = 1;
                for (int d = 0; d < rank; d++) {
                    rows *= isReduced[d] ? 1 : chunkDims[d];
                }
                long count = elements / rows;
                // The last dim reduced: its runs stay whole with the reduced dims last. Else many kept
                // elements read as whole rows with the reduced dims first, few as rows of their own.
                int[] order = !isReduced[rank - 1] && rows >= ROWS_FROM ? reducedFirst : keptFirst;
                long[] orderedDims = new long[rank];
                for (int d = 0; d < rank; d++) {
                    orderedDims[d] = chunkDims[order[d]];
                }
                TensorView dense = Ops.reshape(Ops.slice(scratch, new long[] {0}, new long[] {elements}, new long[] {1}), orderedDims);
                source.box(start.clone(), chunkDims.clone(), Ops.transpose(dense, inverse(order)));
                boolean first = firstOuter && (!isReduced[split] || from == 0);
                MemorySegment into = results.asSlice((outerOffset + from * resultStride[split]) * width, rows * width);
                MemorySegment target = first ? into : partial;
                if (order == reducedFirst) {
                    foldReducedFirst(code, t, scratch.buffer().segment(), rows, count, target, threads, parallel);
                } else {
                    foldRows(code, t, scratch.buffer().segment(), rows, count, target, threads, parallel);
                }
                if (!first) {
                    merge(code, t, into, partial, (int) rows);
                }
            }
        }
        return roundThrough(Materialize.materialize(result, out, allocator), through, out, allocator);
    }

    /** {@code into[i] = op(into[i], other[i])} for the {@code n} values of {@code t} dense in each, a block at a time. */
    private static void merge(int code, DType t, MemorySegment into, MemorySegment other, int n) {
        int width = t.bitWidth() / 8;
        for (int from = 0; from < n; from += BLOCK) {
            int m = Math.min(BLOCK, n - from);
            Object acc = Folds.load(t, into, (long) from * width, m);
            Folds.merge(code, t, acc, Folds.load(t, other, (long) from * width, m), m);
            Folds.finish(t, acc, m);
            PointwiseCopy.write(into.asSlice((long) from * width), t, Folds.values(acc, m), m);
        }
    }

    private static int[] inverse(int[] perm) {
        int[] inv = new int[perm.length];
        for (int i = 0; i < perm.length; i++) {
            inv[perm[i]] = i;
        }
        return inv;
    }

    /**
     * Folds {@code count} rows of {@code rows} values of {@code t}, dense in {@code dense}, into
     * one row written to {@code out}: a block of kept elements a piece where there are enough
     * blocks for the threads, else each block's rows cut in shares, folded apart and joined.
     */
    private static void foldReducedFirst(int code, DType t, MemorySegment dense, long rows, long count, MemorySegment out,
                                         CopyExecutor threads, int parallel) {
        int width = Math.max(1, t.bitWidth() / 8);
        long rowBytes = rows * width;
        int blocks = (int) Math.ceilDiv(rows, BLOCK);
        int shares = parallel == 1 ? 1 : (int) Math.min(count, Math.ceilDiv(2L * parallel, blocks));
        Object[] partial = new Object[shares == 1 ? 0 : blocks * shares];
        runPieces(threads, parallel, blocks * shares, i -> {
            long c = (long) (i / shares) * BLOCK;
            int n = (int) Math.min(BLOCK, rows - c);
            long from = count * (i % shares) / shares;
            long to = count * (i % shares + 1) / shares;
            Object acc = Folds.load(t, dense, from * rowBytes + c * width, n);
            Folds.combineRows(code, t, acc, dense, (from + 1) * rowBytes + c * width, rowBytes, to - from - 1, n);
            if (shares == 1) {
                Folds.finish(t, acc, n);
                PointwiseCopy.write(out.asSlice(c * width), t, Folds.values(acc, n), n);
            } else {
                partial[i] = acc;
            }
        });
        for (int b = 0; b < blocks && shares > 1; b++) {
            int n = (int) Math.min(BLOCK, rows - (long) b * BLOCK);
            Object acc = partial[b * shares];
            for (int k = 1; k < shares; k++) {
                Folds.merge(code, t, acc, partial[b * shares + k], n);
            }
            Folds.finish(t, acc, n);
            PointwiseCopy.write(out.asSlice((long) b * BLOCK * width), t, Folds.values(acc, n), n);
        }
    }

    /**
     * Folds each of {@code rows} rows of {@code count} values of {@code t}, dense in {@code dense},
     * into one value written to {@code out}: rows apiece where there are enough for the threads,
     * else each row cut in shares, folded apart and joined.
     */
    private static void foldRows(int code, DType t, MemorySegment dense, long rows, long count, MemorySegment out,
                                 CopyExecutor threads, int parallel) {
        int width = Math.max(1, t.bitWidth() / 8);
        Object values = Pointwise.isFloat(t) ? new double[(int) rows] : new long[(int) rows];
        int shares = parallel == 1 ? 1 : (int) Math.max(1, Math.min(Math.ceilDiv(2L * parallel, rows), count / MIN_SHARE));
        int pieces = (int) Math.min(rows * shares, 4L * parallel);
        Object[] partial = new Object[shares == 1 ? 0 : (int) rows * shares];
        runPieces(threads, parallel, pieces, p -> {
            for (long i = rows * shares * p / pieces, end = rows * shares * (p + 1) / pieces; i < end; i++) {
                long k = i / shares;
                long from = count * (i % shares) / shares;
                long to = count * (i % shares + 1) / shares;
                Object acc = Folds.foldRow(code, t, dense, (k * count + from) * width, to - from);
                if (shares == 1) {
                    System.arraycopy(Folds.values(acc, 1), 0, values, (int) k, 1);
                } else {
                    partial[(int) i] = acc;
                }
            }
        });
        for (int k = 0; k < rows && shares > 1; k++) {
            Object acc = partial[k * shares];
            for (int j = 1; j < shares; j++) {
                Folds.merge(code, t, acc, partial[k * shares + j], 1);
            }
            Folds.finish(t, acc, 1);
            System.arraycopy(Folds.values(acc, 1), 0, values, k, 1);
        }
        PointwiseCopy.write(out, t, values, (int) rows);
    }

    /** Runs the pieces on the engine's threads where {@code parallel} says the work is large enough, else here. */
    private static void runPieces(CopyExecutor threads, int parallel, int count, IntConsumer piece) {
        if (parallel > 1) {
            threads.runPieces(count, piece);
        } else {
            for (int i = 0; i < count; i++) {
                piece.accept(i);
            }
        }
    }

    /** The most elements a window of {@link #reduceWindow} folds: one operand view each. */
    static final int MAX_WINDOW = 1024;

    /**
     * {@return {@code operand} reduced by {@code op} over each window, in new memory laid out as
     * {@code out}} The operand is padded with {@code init} (edges and {@code lhs_dilate}'s holes)
     * as a view; each window element is then a strided slice of that view, and one elementwise
     * pass folds the slices, {@code op(...op(op(init, s0), s1)..., sk)}, block by block. XLA keeps
     * a window of one element with strides and dilations of 1 as the pad it is, elements
     * unflushed; any other runs its loop, which flushes each element, a lone one too (jax 0.10).
     *
     * @throws IllegalArgumentException for a window that does not fit the operand, a reversed
     *     one, one past {@link #MAX_WINDOW} elements, or an init value that is not the identity
     */
    static TensorView reduceWindow(TensorView operand, TensorView init, List<WindowDim> window, String op, DType through,
            ArrayShape out, Allocator allocator) {
        DType t = operand.dtype();
        int rank = operand.rank();
        if (window.size() != rank) {
            throw new IllegalArgumentException("window={...} has " + window.size() + " dims for an operand of " + rank);
        }
        checkInit(init, t, op);
        long[] low = new long[rank];
        long[] high = new long[rank];
        long[] interior = new long[rank];
        long[] outDims = new long[rank];
        long windowCount = 1;
        boolean trivial = true;
        for (int d = 0; d < rank; d++) {
            WindowDim w = window.get(d);
            if (w.reversal()) {
                throw new IllegalArgumentException("a reversed window (rhs_reversal) belongs to convolutions, not reduce-window");
            }
            low[d] = w.padLow();
            high[d] = w.padHigh();
            interior[d] = w.baseDilation() - 1;
            windowCount = Math.multiplyExact(windowCount, w.size());
            trivial &= w.size() == 1 && w.stride() == 1 && w.baseDilation() == 1 && w.windowDilation() == 1;
        }
        TensorView padded = Ops.pad(operand, low, high, interior, init);
        for (int d = 0; d < rank; d++) {
            WindowDim w = window.get(d);
            long span = Math.addExact(Math.multiplyExact(w.size() - 1, w.windowDilation()), 1);
            long base = padded.dims().get(d);
            outDims[d] = base < span ? 0 : (base - span) / w.stride() + 1;
        }
        if (!Arrays.equals(outDims, Extents.toArray(out.dims())) || out.dtype() != t) {
            throw new IllegalArgumentException("the window over " + operand.shape() + " gives " + t.xlaName()
                    + Arrays.toString(outDims) + ", not " + out);
        }
        // A reducer that rounds (roundedThrough) is not simplified away: XLA runs the loop, which
        // rounds a lone element too (jax 0.10, windows of 1x1).
        if (trivial && through == null) {
            return Materialize.materialize(padded, out, allocator);
        }
        TensorView initEverywhere = Ops.broadcast(init, outDims);
        if (Arrays.stream(outDims).anyMatch(n -> n == 0)) {
            return Materialize.materialize(initEverywhere, out, allocator);
        }
        if (windowCount > MAX_WINDOW) {
            throw new IllegalArgumentException("a window of " + windowCount + " elements: run folds windows of up to " + MAX_WINDOW
                    + ", one view of the operand each");
        }
        if (Pointwise.isFloat(t) && op.equals("add")) {
            // Folded below in one order: exactly XLA's sums where no order rounds, checked here.
            MemorySegment dense = dense(operand, order(new boolean[rank], true), allocator);   // in its own order
            ExactSums.checkWindows(t, through, dense, operand.elementCount(), windowCount);
        }
        List<TensorView> leaves = new ArrayList<>(List.of(initEverywhere));
        Pointwise.Expr expr = new Pointwise.Leaf(0, t);
        long[] at = new long[rank];
        for (long k = 0; k < windowCount; k++) {
            long[] start = new long[rank];
            long[] limit = new long[rank];
            long[] stride = new long[rank];
            for (int d = 0; d < rank; d++) {
                WindowDim w = window.get(d);
                start[d] = at[d] * w.windowDilation();
                stride[d] = w.stride();
                limit[d] = start[d] + (outDims[d] - 1) * w.stride() + 1;
            }
            leaves.add(Ops.slice(padded, start, limit, stride));
            expr = new Pointwise.Op(op, t, List.of(expr, new Pointwise.Leaf(leaves.size() - 1, t)), "");
            for (int d = rank - 1; d >= 0 && ++at[d] == window.get(d).size(); d--) {
                at[d] = 0;
            }
        }
        if (through != null) {
            expr = roundTrip(expr, t, through);   // each step rounded is the whole rounded once (roundedThrough)
        }
        TensorView result = Materialize.allocateForOverwrite(out, allocator);
        PointwiseCopy.run(expr, leaves, result, allocator);
        return result;
    }

    /** {@return {@code e} of type {@code t} converted to {@code through} and back} */
    private static Pointwise.Expr roundTrip(Pointwise.Expr e, DType t, DType through) {
        return new Pointwise.Op("convert", t, List.of(new Pointwise.Op("convert", through, List.of(e), "")), "");
    }

    /** {@return the operand's elements, its dims permuted by {@code perm}, dense in row-major order: its own memory where it is so} */
    private static MemorySegment dense(TensorView operand, int[] perm, Allocator allocator) {
        MemorySegment own = inPlace(operand, perm);
        if (own != null) {
            return own;
        }
        TensorView permuted = Ops.transpose(operand, perm);
        TensorView copy = Materialize.materialize(permuted, ArrayShape.of(permuted.dtype(), Extents.toArray(permuted.dims())), allocator);
        return copy.buffer().segment();
    }

    /** {@return the operand's memory from its first element where its dims permuted by {@code perm} are dense in row-major order; else null} */
    private static MemorySegment inPlace(TensorView operand, int[] perm) {
        TensorView permuted = Ops.transpose(operand, perm);
        StridedLayout packed = StridedLayout.packed(Extents.toArray(permuted.dims()));
        var layout = permuted.stridedLayout();
        if (layout.isEmpty() || !layout.get().strides().equals(packed.strides()) || permuted.dtype().bitWidth() % 8 != 0) {
            return null;
        }
        return permuted.buffer().segment().asSlice(layout.get().offset() * (permuted.dtype().bitWidth() / 8));
    }

    /** Refuses an init value that is not a scalar of {@code t}, or not {@code op}'s identity. */
    private static void checkInit(TensorView init, DType t, String op) {
        if (init.rank() != 0 || init.dtype() != t) {
            throw new IllegalArgumentException("the init value is " + init.shape() + ", not a " + t.xlaName() + "[] scalar");
        }
        checkIdentity(init, op);
    }

    /** Refuses an init value that is not {@code op}'s identity, which XLA applies an unknown number of times. */
    private static void checkIdentity(TensorView init, String op) {
        DType t = init.dtype();
        TensorElements e = TensorElements.of(init);
        boolean identity;
        String expected;
        if (Pointwise.isFloat(t)) {
            double v = e.getDouble();
            double want = op.equals("maximum") ? Double.NEGATIVE_INFINITY : op.equals("add") ? 0 : Double.POSITIVE_INFINITY;
            identity = v == want;   // a sum's 0 of either sign
            expected = op.equals("maximum") ? "-inf" : op.equals("add") ? "0" : "inf";
            if (!identity) {
                throw notIdentity(op, t, Double.toString(v), expected);
            }
            return;
        }
        long v = Pointwise.wrap(e.getLong(), t);
        long ones = Pointwise.wrap(-1, t);
        long least = t.kind() == DType.Kind.SIGNED ? -1L << (t.bitWidth() - 1) : 0;
        long most = t.kind() == DType.Kind.SIGNED ? ~least : ones;
        long want = switch (op) {
            case "add", "or", "xor" -> 0;
            case "multiply" -> 1;
            case "and" -> ones;
            case "maximum" -> least;
            case "minimum" -> most;
            default -> throw new AssertionError(op);
        };
        if (v != want) {
            String shown = t == DType.PRED ? (v != 0 ? "true" : "false") : t.kind() == DType.Kind.UNSIGNED ? Long.toUnsignedString(v)
                    : Long.toString(v);
            String wanted = t == DType.PRED ? (want != 0 ? "true" : "false") : t.kind() == DType.Kind.UNSIGNED
                    ? Long.toUnsignedString(want) : Long.toString(want);
            throw notIdentity(op, t, shown, wanted);
        }
    }

    private static IllegalArgumentException notIdentity(String op, DType t, String value, String identity) {
        // maximum, minimum, and and or would not notice how often the init is applied, but XLA's
        // simplifier takes it for the identity: it drops it where it splits a reduce (jax 0.10: a
        // max over concatenate(p[1,1], iota[1,1]) from 84 is max(p, 0), each one-element piece
        // taken as itself), so which rewrites fire decides the result.
        String why = Set.of("maximum", "minimum", "and", "or").contains(op)
                ? "XLA's simplifier takes an init for the identity and drops it where it splits a reduce (over a"
                        + " concatenation, pieces of one element), so the result hangs on its rewrites"
                : "XLA applies an init as many times as its loops have accumulators (a sum of 100 ones from 5 is 125),"
                        + " so the result is XLA's own";
        return new IllegalArgumentException("the init value " + value + " is not the identity of " + op + " on " + t.xlaName()
                + " (" + identity + "): " + why + "; apply the value after the reduce instead");
    }

    /** {@return the dims in order, the kept ones first and the reduced ones after, or the other way round, each group in order} */
    private static int[] order(boolean[] isReduced, boolean keptFirst) {
        int[] order = new int[isReduced.length];
        int k = 0;
        for (boolean reducedOnes : new boolean[] {!keptFirst, keptFirst}) {
            for (int d = 0; d < isReduced.length; d++) {
                if (isReduced[d] == reducedOnes) {
                    order[k++] = d;
                }
            }
        }
        return order;
    }

    /** {@return the elements folded into each result: the product of the reduced dims} */
    private static long reducedCount(List<Long> dims, boolean[] isReduced) {
        long count = 1;
        for (int d = 0; d < dims.size(); d++) {
            count = isReduced[d] ? Math.multiplyExact(count, dims.get(d)) : count;
        }
        return count;
    }

    /** {@return the dims a reduce of {@code operand} keeps, checked to be {@code out}'s, of its type} */
    private static List<Long> checkedKept(ArrayShape operand, boolean[] isReduced, List<Long> reduced, ArrayShape out) {
        List<Long> kept = keptDims(operand.dims(), isReduced);
        if (!kept.equals(out.dims()) || out.dtype() != operand.dtype()) {
            throw new IllegalArgumentException("reducing " + operand + " over " + reduced + " gives " + operand.dtype().xlaName() + kept
                    + ", not " + out);
        }
        return kept;
    }

    private static List<Long> keptDims(List<Long> dims, boolean[] isReduced) {
        List<Long> kept = new ArrayList<>();
        for (int d = 0; d < dims.size(); d++) {
            if (!isReduced[d]) {
                kept.add(dims.get(d));
            }
        }
        return kept;
    }

    /** {@return whether reducing a value of {@code dims} over {@code reduced} folds one element into each result} */
    static boolean reducesOneElement(List<Long> dims, List<Long> reduced) {
        return reducedCount(dims, reducedDims(reduced, dims.size())) == 1;
    }

    /**
     * Checks a reduce of one element into each result, which XLA's simplifier makes a reshape of
     * {@code operand}: {@code init} {@code op}'s identity, {@code out} the kept dims.
     */
    static void checkReshape(ArrayShape operand, TensorView init, List<Long> reduced, String op, ArrayShape out) {
        checkInit(init, operand.dtype(), op);
        checkedKept(operand, reducedDims(reduced, operand.dims().size()), reduced, out);
    }

    /** {@return the dims {@code in} reduces over, as written; {@link #reducedDims} checks them} */
    static List<Long> dimensions(HloInstruction in) {
        return in.intsOrEmpty("dimensions");
    }

    /** {@return which of {@code rank} dims {@code reduced} names} @throws IllegalArgumentException for one out of range or named twice */
    private static boolean[] reducedDims(List<Long> reduced, int rank) {
        boolean[] isReduced = new boolean[rank];
        for (long d : reduced) {
            if (d < 0 || d >= rank || isReduced[(int) d]) {
                throw new IllegalArgumentException("dimensions=" + reduced + " must be distinct dims of the operand's " + rank);
            }
            isReduced[(int) d] = true;
        }
        return isReduced;
    }
}
