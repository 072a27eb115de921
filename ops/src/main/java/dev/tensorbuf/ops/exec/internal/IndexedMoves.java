package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The data-movement ops whose positions come from values: {@code gather} (indices read when the
 * view is made), {@code dynamic-update-slice}, and {@code bitcast-convert}, which reads the same
 * bytes as another type.
 */
public final class IndexedMoves {
    /**
     * Index rows past which a gather is copied rather than viewed: a view holds one piece per
     * row (a concatenation of slices), and a plan over thousands of pieces costs more than
     * copying each row's slice on its own.
     */
    static final long MAX_VIEW_ROWS = 256;

    private IndexedMoves() {
    }

    /** What a gather became: its value, whether it was copied, and why. */
    public record Gathered(TensorView value, boolean copied, String reason) {
    }

    /**
     * {@return XLA's {@code gather} of {@code operand} at the rows of {@code indices}, read now}:
     * each row of start indices (clamped so the slice stays inside, as XLA does) picks a slice of
     * {@code slice_sizes}; the slices, their {@code collapsed_slice_dims} dropped, are laid side by
     * side along the batch dimensions; an operand batching dim is read at the row's position along
     * the indices dim it pairs with. Up to {@link #MAX_VIEW_ROWS} rows the result is a view
     * (a concatenation of the slices: {@code x[..., [2, 0, 1]]} is three strided pieces); past
     * that each row's slice is copied into its place in new memory laid out by {@code shape}.
     *
     * @throws IllegalArgumentException for non-integer indices, or attributes that do not fit the
     *     operands
     */
    public static Gathered gather(HloInstruction in, TensorView operand, TensorView indices, ArrayShape shape,
            Allocator allocator) {
        DType.Kind ik = indices.dtype().kind();
        if (ik != DType.Kind.SIGNED && ik != DType.Kind.UNSIGNED) {
            throw new IllegalArgumentException("the start indices are " + indices.dtype().xlaName() + ", not integers");
        }
        int[] offsetDims = ints(in.ints("offset_dims"));
        int[] collapsed = ints(in.intsOrEmpty("collapsed_slice_dims"));
        int[] startIndexMap = ints(in.ints("start_index_map"));
        long[] sliceSizes = Extents.toArray(in.ints("slice_sizes"));
        int indexVectorDim = (int) in.intValue("index_vector_dim", indices.rank());
        int rank = operand.rank();
        if (sliceSizes.length != rank) {
            throw new IllegalArgumentException("slice_sizes has " + sliceSizes.length + " entries for an operand of rank " + rank);
        }
        for (int d = 0; d < rank; d++) {
            if (sliceSizes[d] < 0 || sliceSizes[d] > operand.dims().get(d)) {
                throw new IllegalArgumentException("slice_sizes[" + d + "]=" + sliceSizes[d] + " is outside [0, "
                        + operand.dims().get(d) + "]");
            }
        }
        for (int c : collapsed) {
            if (c < 0 || c >= rank || sliceSizes[c] != 1) {
                throw new IllegalArgumentException("collapsed_slice_dims " + Arrays.toString(collapsed)
                        + " must name operand dims whose slice size is 1");
            }
        }
        if (indexVectorDim < 0 || indexVectorDim > indices.rank()) {
            throw new IllegalArgumentException("index_vector_dim=" + indexVectorDim + " is not in [0, " + indices.rank() + "]");
        }
        // The indices with their index vector last, of length 1 when index_vector_dim is past the end.
        TensorView rows = indexVectorDim == indices.rank()
                ? Ops.reshape(indices, appended(Extents.toArray(indices.dims()), 1))
                : Ops.transpose(indices, movedLast(indices.rank(), indexVectorDim));
        long[] rowDims = Extents.toArray(rows.dims());
        long vectorLength = rowDims[rowDims.length - 1];
        if (vectorLength != startIndexMap.length) {
            throw new IllegalArgumentException("start_index_map has " + startIndexMap.length + " entries, but each index"
                    + " vector has " + vectorLength);
        }
        for (int m : startIndexMap) {
            if (m < 0 || m >= rank) {
                throw new IllegalArgumentException("start_index_map " + Arrays.toString(startIndexMap)
                        + " names a dim outside the operand's rank " + rank);
            }
        }
        long[] batchDims = Arrays.copyOf(rowDims, rowDims.length - 1);
        int[] operandBatching = ints(in.intsOrEmpty("operand_batching_dims"));
        int[] indicesBatching = ints(in.intsOrEmpty("start_indices_batching_dims"));
        int[] batchingRows = batchingPositions(operand, indices, operandBatching, indicesBatching, indexVectorDim, sliceSizes,
                startIndexMap, collapsed);
        long[] outDims = Extents.toArray(shape.dims());
        if (outDims.length != batchDims.length + offsetDims.length) {
            throw new IllegalArgumentException("the result has rank " + outDims.length + ", but gather makes "
                    + batchDims.length + " batch dims and " + offsetDims.length + " offset dims");
        }
        boolean[] isOffset = new boolean[outDims.length];
        for (int o : offsetDims) {
            if (o < 0 || o >= outDims.length || isOffset[o]) {
                throw new IllegalArgumentException("offset_dims " + Arrays.toString(offsetDims) + " must be distinct dims of the result");
            }
            isOffset[o] = true;
        }
        int[] batchPositions = new int[batchDims.length];
        for (int d = 0, b = 0; d < outDims.length; d++) {
            if (!isOffset[d]) {
                batchPositions[b++] = d;
            }
        }
        long n = 1;
        for (long b : batchDims) {
            n = Math.multiplyExact(n, b);
        }
        Gather g = new Gather(operand, rows, startIndexMap, sliceSizes, collapsed, offsetDims, batchPositions, batchDims, outDims,
                operandBatching, batchingRows);
        if (n <= MAX_VIEW_ROWS && n > 0) {
            return new Gathered(g.assemble(0, new long[batchDims.length]), false,
                    n + " index row" + (n == 1 ? "" : "s") + " read when the view was made: " + (n == 1 ? "a slice" : "a concatenation of " + n + " slices"));
        }
        TensorView out = Materialize.allocate(shape, allocator);
        // One planned copy per index row: its slice (strided runs, a kernel per run) into the
        // result's slab at that row, rather than a map lookup per element.
        long[] batch = new long[batchDims.length];
        long[] stride = new long[outDims.length];
        Arrays.fill(stride, 1);
        for (long k = 0; k < n; k++) {
            long rest = k;
            for (int j = batchDims.length - 1; j >= 0; j--) {
                batch[j] = rest % batchDims[j];
                rest /= batchDims[j];
            }
            long[] start = new long[outDims.length];
            long[] limit = outDims.clone();
            for (int j = 0; j < batch.length; j++) {
                start[batchPositions[j]] = batch[j];
                limit[batchPositions[j]] = batch[j] + 1;
            }
            CopyEngine.defaults().copy(g.piece(batch), Ops.slice(out, start, limit, stride));
        }
        return new Gathered(out, true, n + " index rows, more than " + MAX_VIEW_ROWS + " pieces a view holds: copied"
                + " a slice per row");
    }

    /**
     * {@return for each operand batching dim, the position among the index rows' batch dims of the
     * indices dim it is paired with} (jnp.take_along_axis: the row of the indices is the row of
     * the operand the slice is taken from, a slice of 1, dropped from the result as a collapsed dim.)
     */
    private static int[] batchingPositions(TensorView operand, TensorView indices, int[] operandBatching, int[] indicesBatching,
            int indexVectorDim, long[] sliceSizes, int[] startIndexMap, int[] collapsed) {
        if (operandBatching.length != indicesBatching.length) {
            throw new IllegalArgumentException("operand_batching_dims " + Arrays.toString(operandBatching)
                    + " and start_indices_batching_dims " + Arrays.toString(indicesBatching) + " differ in length");
        }
        int[] positions = new int[operandBatching.length];
        for (int k = 0; k < operandBatching.length; k++) {
            int o = operandBatching[k];
            int i = indicesBatching[k];
            if (o < 0 || o >= operand.rank() || sliceSizes[o] != 1 || Arrays.stream(startIndexMap).anyMatch(m -> m == o)
                    || Arrays.stream(collapsed).anyMatch(c -> c == o)) {
                throw new IllegalArgumentException("operand_batching_dims " + Arrays.toString(operandBatching) + " must name operand"
                        + " dims of slice size 1 that neither start_index_map nor collapsed_slice_dims names");
            }
            if (i < 0 || i >= indices.rank() || i == indexVectorDim || operand.dims().get(o).longValue() != indices.dims().get(i).longValue()) {
                throw new IllegalArgumentException("start_indices_batching_dims " + Arrays.toString(indicesBatching) + " must name"
                        + " indices dims, not the index vector's, as long as the operand dims they pair with");
            }
            positions[k] = i < indexVectorDim ? i : i - 1;
        }
        return positions;
    }

    /** A gather's attributes, resolved against its operands. */
    private record Gather(TensorView operand, TensorView rows, int[] startIndexMap, long[] sliceSizes, int[] collapsed,
            int[] offsetDims, int[] batchPositions, long[] batchDims, long[] outDims, int[] operandBatching, int[] batchingRows) {

        /** {@return the clamped start of the slice for the index row at {@code batch}} */
        long[] start(long[] batch) {
            long[] start = new long[operand.rank()];
            for (int k = 0; k < operandBatching.length; k++) {
                start[operandBatching[k]] = batch[batchingRows[k]];
            }
            long[] at = Arrays.copyOf(batch, batch.length + 1);
            for (int k = 0; k < startIndexMap.length; k++) {
                at[batch.length] = k;
                int d = startIndexMap[k];
                long v = TensorElements.of(rows).getLong(at);
                long max = operand.dims().get(d) - sliceSizes[d];
                // u64 indices past 2^63 read as negative: past every dim, so clamped high.
                start[d] = rows.dtype() == DType.U64 && v < 0 ? max : Math.max(0, Math.min(v, max));
            }
            return start;
        }

        /** {@return the slice for the index row at {@code batch}, batch dims of size 1 in the result's positions} */
        TensorView piece(long[] batch) {
            long[] start = start(batch);
            long[] limit = new long[start.length];
            long[] stride = new long[start.length];
            for (int d = 0; d < start.length; d++) {
                limit[d] = start[d] + sliceSizes[d];
                stride[d] = 1;
            }
            TensorView slice = Ops.slice(operand, start, limit, stride);
            long[] dims = outDims.clone();
            for (int p : batchPositions) {
                dims[p] = 1;
            }
            // The slice's uncollapsed dims, in order, are the offset dims in order: reshape drops the
            // collapsed 1s and puts a 1 at each batch position.
            return Ops.reshape(slice, dims);
        }

        /** {@return the result with batch dims from {@code level} on filled, earlier ones fixed by {@code batch}} */
        TensorView assemble(int level, long[] batch) {
            if (level == batchDims.length) {
                return piece(batch);
            }
            List<TensorView> parts = new ArrayList<>();
            for (long j = 0; j < batchDims[level]; j++) {
                long[] next = batch.clone();
                next[level] = j;
                parts.add(assemble(level + 1, next));
            }
            return parts.size() == 1 ? parts.getFirst() : Ops.concatenate(batchPositions[level], parts);
        }
    }

    /**
     * {@return XLA's {@code dynamic-update-slice}: {@code operand} with {@code update} written at
     * the (clamped) starts} Into a copy of the operand in {@code shape}'s layout, or into the
     * operand itself when {@code inPlace} (the caller's judgement: its memory is the run's own and
     * nothing reads it after this) and the update does not read that memory.
     *
     * @return the result and whether it was written in place
     */
    public static Updated dynamicUpdateSlice(HloInstruction in, TensorView operand, boolean inPlace, List<TensorView> ops,
            ArrayShape shape, Allocator allocator) {
        // Checked before the run (Interpreter.checkDeclaredTypes): an update of the operand's type
        // and rank, within it in every dim, and one integer scalar start a dim, all of one type.
        TensorView update = ops.get(1);
        int rank = operand.rank();
        long[] start = new long[rank];
        long[] limit = new long[rank];
        long[] stride = new long[rank];
        for (int d = 0; d < rank; d++) {
            TensorView s = ops.get(d + 2);
            long dim = operand.dims().get(d);
            long u = update.dims().get(d);
            long v = TensorElements.of(s).getLong();
            start[d] = s.dtype() == DType.U64 && v < 0 ? dim - u : Math.max(0, Math.min(v, dim - u));
            limit[d] = start[d] + u;
            stride[d] = 1;
        }
        boolean overlaps = update.buffers().stream().anyMatch(b -> operand.buffers().contains(b));
        boolean here = inPlace && !overlaps;
        TensorView target = here ? operand : Materialize.materialize(operand, shape, allocator);
        CopyEngine.defaults().copy(update, Ops.slice(target, start, limit, stride));
        return new Updated(target, here);
    }

    /** A dynamic-update-slice's result, and whether it was written into its operand's memory. */
    public record Updated(TensorView value, boolean inPlace) {
    }

    /**
     * {@return the same bytes read as {@code shape}'s type: XLA's {@code bitcast-convert}} Between
     * types of one width, a view of the same memory through the same map, no byte moved. Between
     * widths, as XLA reshapes: a wider source gives a last dim of the ratio (f32[2] to u8[2,4]), a
     * narrower source loses its last dim (u8[2,4] to f32[2]); the source is copied into C order
     * (unless it is in it) and read as the result in C order, so each wide element's bytes are its
     * narrow ones in memory order, little-endian as XLA's CPU backend has them.
     *
     * @param copied set to whether a copy was made
     * @throws IllegalArgumentException for sub-byte or pred types, or dims that do not fit the widths
     */
    public static TensorView bitcastConvert(TensorView source, ArrayShape shape, Allocator allocator, boolean[] copied) {
        DType from = source.dtype();
        DType to = shape.dtype();
        for (DType t : List.of(from, to)) {
            if (t.kind() == DType.Kind.NONE || t == DType.PRED || t.bitWidth() % 8 != 0) {
                throw new IllegalArgumentException("bitcast-convert from " + from + " to " + to + " is not supported: "
                        + t + (t == DType.PRED ? " has no defined bits" : " is not a whole number of bytes"));
            }
        }
        long[] dims = Extents.toArray(shape.dims());
        long[] sourceDims = Extents.toArray(source.dims());
        if (from.bitWidth() == to.bitWidth()) {
            if (!Arrays.equals(dims, sourceDims)) {
                throw new IllegalArgumentException("bitcast-convert between types of one width keeps the dims "
                        + source.dims() + ", not " + shape.dims());
            }
            if (source.access().storageBits() == from.bitWidth()) {
                copied[0] = false;
                return TensorView.over(source.map(), ElementAccess.of(to), dims);
            }
        } else {
            long[] expected = from.bitWidth() > to.bitWidth()
                    ? appended(sourceDims, from.bitWidth() / to.bitWidth())
                    : Arrays.copyOf(sourceDims, Math.max(0, sourceDims.length - 1));
            boolean fits = from.bitWidth() > to.bitWidth() ? from.bitWidth() % to.bitWidth() == 0
                    : to.bitWidth() % from.bitWidth() == 0 && sourceDims.length > 0
                            && sourceDims[sourceDims.length - 1] == to.bitWidth() / from.bitWidth();
            if (!fits || !Arrays.equals(dims, expected)) {
                throw new IllegalArgumentException("bitcast-convert from " + from.xlaName() + source.dims() + " to "
                        + shape + ": " + (from.bitWidth() > to.bitWidth() ? "a wider type gains a last dim of the width ratio"
                                : "a narrower type loses a last dim of the width ratio") + ", as XLA requires");
            }
        }
        ArrayShape dense = ArrayShape.of(from, sourceDims).withLayout(XlaLayout.descending(sourceDims.length));
        TensorView bytes = Materialize.materialize(source, dense, allocator);
        copied[0] = true;
        return TensorView.of(bytes.buffer(), ArrayShape.of(to, dims).withLayout(XlaLayout.descending(dims.length)));
    }

    private static long[] appended(long[] dims, long last) {
        long[] out = Arrays.copyOf(dims, dims.length + 1);
        out[dims.length] = last;
        return out;
    }

    private static int[] movedLast(int rank, int dim) {
        int[] p = new int[rank];
        for (int i = 0, k = 0; i < rank; i++) {
            if (i != dim) {
                p[k++] = i;
            }
        }
        p[rank - 1] = dim;
        return p;
    }

    /** {@return {@code values} as dims, each checked to fit an int} */
    static int[] ints(List<Long> values) {
        int[] out = new int[values.size()];
        for (int i = 0; i < out.length; i++) {
            long v = values.get(i);
            if (v != (int) v) {
                throw new IllegalArgumentException(v + " is not a dimension");
            }
            out[i] = (int) v;
        }
        return out;
    }
}
