package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.copy.internal.PointwiseCopy;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * XLA's {@code scatter} of one operand ({@code x.at[i].set(v)}, {@code .add}, {@code .max},
 * {@code .min}, {@code .mul}, one-hot by scatter; batching dims too, as {@code vmap} writes
 * them): the operand copied into new memory, then each update combined into the element it lands
 * on, update by update (row-major over the scatter dims, each window's elements within, whatever
 * the order of the updates' dims), as XLA's CPU loop applies them, so that a repeated index or an
 * overlapping window sees the updates before it. A window whose start puts any of it outside the
 * operand is skipped whole, as XLA skips it (jax's default
 * {@code mode='drop'}). Updates go a chunk at a time through {@link Pointwise}'s evaluator with
 * XLA's semantics (denormals flushed in f32 and f64 arithmetic); a chunk ends where an element
 * repeats, so that the order holds.
 */
public final class Scatters {
    /** Ops whose operands' order matters, taken as {@code op(element, update)}. */
    private static final Set<String> BINARY_IN_ORDER = Set.of("subtract", "divide", "remainder", "shift-left",
            "shift-right-logical", "shift-right-arithmetic");

    /** Updates combined in one pass of the evaluator, at most. */
    private static final int CHUNK = 4096;

    private Scatters() {
    }

    /**
     * {@return how {@code update} combines an element with an update: {@code "assign"} (its root
     * is its second parameter) or one of {@link Reductions#INTEGER_REDUCERS}' ops of both, also
     * rounded through a narrower float ({@link Reductions#roundedThrough}: XLA runs a bf16
     * scatter-add in f32 so), or a subtract, divide, remainder or shift of the element by the
     * update, in that order; its op null for anything else}
     */
    static Reductions.Reducer combiner(HloComputation update) {
        return new Reductions.Reducer(combinerOp(update), Reductions.roundedThrough(update));
    }

    private static String combinerOp(HloComputation update) {
        if (update.parameterCount() != 2) {
            return null;
        }
        HloInstruction root = update.root();
        if (root.opcode().equals("parameter") && root.name().equals(update.parameter(1).name())) {
            return "assign";
        }
        String commutative = Reductions.reducerOp(update);
        if (commutative != null) {
            return commutative;
        }
        // Another op of both parameters, in their order: x.at[i].subtract(v) and .divide(v).
        HloInstruction op = Reductions.unrounded(update, root);
        boolean inOrder = op.operands().size() == 2 && op.operands().get(0).equals(update.parameter(0).name())
                && op.operands().get(1).equals(update.parameter(1).name());
        return inOrder && BINARY_IN_ORDER.contains(op.opcode()) ? op.opcode() : null;
    }

    /**
     * {@return the scatter {@code in} of {@code updates} into {@code operand} at {@code indices}, in
     * new memory laid out as {@code shape}}
     *
     * @throws IllegalArgumentException for an update computation that is not an assignment or one
     *     exact op of both parameters, or attributes that do not fit the operands
     */
    static TensorView scatter(HloInstruction in, HloComputation update, TensorView operand, TensorView indices, TensorView updates,
            ArrayShape shape, Allocator allocator) {
        Reductions.Reducer combiner = combiner(update);
        String op = combiner.op();
        if (op == null) {
            throw new IllegalArgumentException("its update computation " + update.name() + " is neither an assignment (ROOT"
                    + " its second parameter) nor one op of both parameters: " + Reductions.INTEGER_REDUCERS + " either way"
                    + " round, or " + new java.util.TreeSet<>(BINARY_IN_ORDER) + " of the element by the update");
        }
        DType t = operand.dtype();
        if (!op.equals("assign") && !Pointwise.TYPES.contains(t)) {
            throw new IllegalArgumentException("a scatter by " + op + " of " + t.xlaName() + " is not supported: it runs on pred,"
                    + " integers, f16, bf16, f32 and f64");
        }
        // Updates of the operand's type and integer indices: checked before the run (Interpreter.checkDeclaredTypes).
        int rank = operand.rank();
        int[] operandBatching = IndexedMoves.ints(in.intsOrEmpty("input_batching_dims"));
        int[] indicesBatching = IndexedMoves.ints(in.intsOrEmpty("scatter_indices_batching_dims"));
        check(operandBatching.length == indicesBatching.length, "input_batching_dims " + Arrays.toString(operandBatching)
                + " and scatter_indices_batching_dims " + Arrays.toString(indicesBatching) + " differ in length");
        int[] windowDims = IndexedMoves.ints(in.intsOrEmpty("update_window_dims"));
        int[] inserted = IndexedMoves.ints(in.intsOrEmpty("inserted_window_dims"));
        int[] toOperand = IndexedMoves.ints(in.ints("scatter_dims_to_operand_dims"));
        int indexVectorDim = (int) in.intValue("index_vector_dim", indices.rank());
        if (indexVectorDim < 0 || indexVectorDim > indices.rank()) {
            throw new IllegalArgumentException("index_vector_dim=" + indexVectorDim + " is not in [0, " + indices.rank() + "]");
        }
        long vectorLength = indexVectorDim == indices.rank() ? 1 : indices.dims().get(indexVectorDim);
        if (vectorLength != toOperand.length) {
            throw new IllegalArgumentException("scatter_dims_to_operand_dims has " + toOperand.length + " entries, but each index"
                    + " vector has " + vectorLength);
        }
        for (int d : toOperand) {
            check(d >= 0 && d < rank, "scatter_dims_to_operand_dims " + Arrays.toString(toOperand) + " names a dim outside the"
                    + " operand's rank " + rank);
        }
        boolean[] isInserted = new boolean[rank];   // inserted window dims and batching dims: no window there
        for (int d : inserted) {
            check(d >= 0 && d < rank && !isInserted[d], "inserted_window_dims " + Arrays.toString(inserted)
                    + " must be distinct dims of the operand");
            isInserted[d] = true;
        }
        for (int j = 0; j < operandBatching.length; j++) {
            int d = operandBatching[j];
            int id = indicesBatching[j];
            check(d >= 0 && d < rank && !isInserted[d], "input_batching_dims " + Arrays.toString(operandBatching)
                    + " must be operand dims apart from the inserted window dims");
            check(id >= 0 && id < indices.rank() && id != indexVectorDim && indices.dims().get(id).equals(operand.dims().get(d)),
                    "scatter_indices_batching_dims " + Arrays.toString(indicesBatching) + " must be indices dims (not the index"
                            + " vector's) as long as the operand's batching dims");
            isInserted[d] = true;
        }
        check(windowDims.length + inserted.length + operandBatching.length == rank, "update_window_dims "
                + Arrays.toString(windowDims) + ", inserted_window_dims " + Arrays.toString(inserted)
                + " and input_batching_dims " + Arrays.toString(operandBatching) + " must count the operand's " + rank + " dims");
        int[] windowToOperand = new int[windowDims.length];   // the operand dim of each window dim, in order
        for (int d = 0, w = 0; d < rank; d++) {
            if (!isInserted[d]) {
                windowToOperand[w++] = d;
            }
        }
        int urank = updates.rank();
        boolean[] isWindow = new boolean[urank];
        for (int d : windowDims) {
            check(d >= 0 && d < urank && !isWindow[d], "update_window_dims " + Arrays.toString(windowDims)
                    + " must be distinct dims of the updates");
            isWindow[d] = true;
        }
        int[] scatterDims = new int[urank - windowDims.length];
        for (int d = 0, s = 0; d < urank; d++) {
            if (!isWindow[d]) {
                scatterDims[s++] = d;
            }
        }
        int[] indexBatch = new int[indices.rank() - (indexVectorDim == indices.rank() ? 0 : 1)];
        for (int d = 0, b = 0; d < indices.rank(); d++) {
            if (d != indexVectorDim) {
                indexBatch[b++] = d;
            }
        }
        check(indexBatch.length == scatterDims.length, "the updates have " + scatterDims.length + " scatter dims, but the"
                + " indices have " + indexBatch.length + " batch dims");
        for (int k = 0; k < scatterDims.length; k++) {
            check(updates.dims().get(scatterDims[k]).equals(indices.dims().get(indexBatch[k])), "updates dim " + scatterDims[k]
                    + " is " + updates.dims().get(scatterDims[k]) + " but indices dim " + indexBatch[k] + " is "
                    + indices.dims().get(indexBatch[k]));
        }
        long[] window = new long[rank];   // the window's extent along each operand dim
        Arrays.fill(window, 1);
        for (int w = 0; w < windowDims.length; w++) {
            long extent = updates.dims().get(windowDims[w]);
            check(extent <= operand.dims().get(windowToOperand[w]), "update window dim " + windowDims[w] + " is " + extent
                    + ", longer than operand dim " + windowToOperand[w]);
            window[windowToOperand[w]] = extent;
        }

        TensorView out = Materialize.allocate(shape, allocator);
        Materialize.copy(operand, out);
        TensorElements src = TensorElements.of(updates);
        TensorElements idx = TensorElements.of(indices);
        TensorElements dst = TensorElements.of(out);
        long[] operandDims = operand.dims().stream().mapToLong(Long::longValue).toArray();
        Chunk chunk = new Chunk(op, combiner.through(), t, allocator);
        long[] u = new long[urank];
        long[] i = new long[indices.rank()];
        long n = updates.elementCount();
        // XLA moves the updates' scatter dims ahead of their window dims: where windows overlap,
        // the later update is combined last (jax 0.10.2: assigning windows [0, 4) and [1, 5) of
        // one row keeps the second's values, with the window dim first in the updates too).
        int[] order = new int[urank];
        System.arraycopy(scatterDims, 0, order, 0, scatterDims.length);
        System.arraycopy(windowDims, 0, order, scatterDims.length, windowDims.length);
        for (long e = 0; e < n; e++) {
            long rest = e;
            for (int k = urank - 1; k >= 0; k--) {
                long size = updates.dims().get(order[k]);
                u[order[k]] = rest % size;
                rest /= size;
            }
            long[] at = new long[rank];
            for (int k = 0; k < scatterDims.length; k++) {
                i[indexBatch[k]] = u[scatterDims[k]];
            }
            boolean inside = true;
            for (int k = 0; k < toOperand.length; k++) {
                if (indexVectorDim < indices.rank()) {
                    i[indexVectorDim] = k;
                }
                long start = idx.getLong(i);
                int d = toOperand[k];
                if (start < 0 || start > operandDims[d] - window[d]) {
                    inside = false;   // XLA skips the whole window
                    break;
                }
                at[d] = start;
            }
            if (!inside) {
                continue;
            }
            for (int j = 0; j < operandBatching.length; j++) {
                at[operandBatching[j]] = i[indicesBatching[j]];   // the update's own row along the batch
            }
            for (int w = 0; w < windowDims.length; w++) {
                at[windowToOperand[w]] += u[windowDims[w]];
            }
            chunk.add(dst, at, src, u.clone());
        }
        chunk.flush(dst);
        return out;
    }

    /** Updates waiting to be combined, none landing on an element another has. */
    private static final class Chunk {
        private final String op;
        private final DType through;
        private final DType t;
        private final TensorView old;
        private final TensorView upd;
        private final long[][] at = new long[CHUNK][];
        private final Set<List<Long>> seen = new HashSet<>();
        private int n;

        Chunk(String op, DType through, DType t, Allocator allocator) {
            this.op = op;
            this.through = through;
            this.t = t;
            this.old = op.equals("assign") ? null : Materialize.allocate(ArrayShape.of(t, CHUNK), allocator);
            this.upd = op.equals("assign") ? null : Materialize.allocate(ArrayShape.of(t, CHUNK), allocator);
        }

        void add(TensorElements dst, long[] where, TensorElements src, long[] from) {
            if (op.equals("assign")) {
                dst.setBits(src.getBits(from), where);
                return;
            }
            List<Long> key = Arrays.stream(where).boxed().toList();
            if (n == CHUNK || !seen.add(key)) {
                flush(dst);
                seen.add(key);
            }
            TensorElements.of(old).setBits(dst.getBits(where), n);
            TensorElements.of(upd).setBits(src.getBits(from), n);
            at[n++] = where;
        }

        void flush(TensorElements dst) {
            if (n == 0) {
                return;
            }
            Object a = PointwiseCopy.read(old.buffer().segment(), t, n);
            Object b = PointwiseCopy.read(upd.buffer().segment(), t, n);
            Pointwise.Expr e = new Pointwise.Op(op, t, List.of(new Pointwise.Leaf(0, t), new Pointwise.Leaf(1, t)), "");
            if (through != null) {
                e = new Pointwise.Op("convert", t, List.of(new Pointwise.Op("convert", through, List.of(e), "")), "");
            }
            Object r = Pointwise.eval(e, new Object[] {a, b}, n, Pointwise.Mode.XLA);
            PointwiseCopy.write(old.buffer().segment(), t, r, n);
            TensorElements o = TensorElements.of(old);
            for (int k = 0; k < n; k++) {
                dst.setBits(o.getBits(k), at[k]);
            }
            n = 0;
            seen.clear();
        }
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
