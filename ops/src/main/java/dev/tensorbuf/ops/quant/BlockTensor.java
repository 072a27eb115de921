package dev.tensorbuf.ops.quant;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.BlockSource;
import dev.tensorbuf.ops.copy.internal.Planner;
import dev.tensorbuf.ops.copy.internal.ScratchRows;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A block-quantized tensor as a value: a {@link BlockType}, logical dims (row-major, the innermost
 * one cut into blocks), and where its rows are. Ops make new values over the same bytes: slices
 * of any dim, the innermost included (a slice inside a block starts part way into its first block
 * and is read through the blocks it covers), selecting one index of an outer dim (one expert of a
 * stacked {@code [experts, rows, cols]} tensor), permutations and (over dense outer dims of whole
 * blocks) reshapes that keep the innermost dim last, and concatenation along an outer dim. Values
 * are read by {@link #dequantize(TensorView)} into any view the copy engine writes, or one at a
 * time by {@link #getFloat}.
 * {@snippet :
 * // 8 experts of [14336, 4096] Q4_K weights, stacked as GGUF MoE files hold them
 * BlockTensor experts = BlockTensor.of(buffer, BlockType.Q4_K, 8, 14336, 4096);
 * BlockTensor e3 = experts.select(0, 3);            // Q4_K[14336, 4096], no copy
 * BlockTensor top = e3.slice(0, 0, 128);            // Q4_K[128, 4096]
 * top.dequantize(TensorView.of(out, "bf16[4096,128]{0,1}"));  // into a transposed bf16 layout
 * BlockTensor window = top.slice(1, 100, 300);      // Q4_K[128, 200]: inside blocks 0 and 1 of each row
 * window.getFloat(5, 0);                            // value 100 of row 5, read through its block
 * }
 *
 * <p>Concatenations are held as parts, each a strided run of rows with its place in the whole; ops
 * on the whole apply to every part. A reshape of a concatenation, or of outer dims whose strides
 * do not merge, is refused with the reason.
 */
public final class BlockTensor {
    /**
     * A strided run of rows: its origin in the whole, its dims, where its first row's first block
     * is, the byte stride of each outer dim, and how many values of that first block come before
     * the part's first value (0 unless the innermost dim was sliced inside a block).
     */
    private record Part(MemoryBuffer buffer, long[] origin, long[] dims, long byteOffset, long[] outerStrides, long skip) {
        Part(MemoryBuffer buffer, long[] origin, long[] dims, long byteOffset, long[] outerStrides) {
            this(buffer, origin, dims, byteOffset, outerStrides, 0);
        }

        Part with(long[] origin, long[] dims, long byteOffset, long[] outerStrides) {
            return new Part(buffer, origin, dims, byteOffset, outerStrides, skip);
        }
    }

    private final BlockType type;
    private final long[] dims;
    private final List<Part> parts;

    private BlockTensor(BlockType type, long[] dims, List<Part> parts) {
        this.type = type;
        this.dims = dims;
        this.parts = List.copyOf(parts);
    }

    /**
     * {@return the tensor of these dims stored row-major from the start of {@code buffer}, as GGUF
     * holds it}
     *
     * @throws IllegalArgumentException if there are no dims, the innermost is not a whole number
     *     of blocks, the size overflows, or the buffer is smaller than the tensor
     */
    public static BlockTensor of(MemoryBuffer buffer, BlockType type, long... dims) {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(type, "type");
        String what = type + Arrays.toString(dims);
        if (dims.length == 0) {
            throw new IllegalArgumentException(what + ": a block-quantized tensor has at least one dim, the one cut into blocks");
        }
        long count = Extents.elementCount(what, dims);
        long inner = dims[dims.length - 1];
        if (inner % type.blockValues() != 0) {
            throw new IllegalArgumentException(what + ": the innermost dim " + inner + " is not a whole number of "
                    + type.blockValues() + "-value blocks");
        }
        long bytes = type.byteSize(count);
        if (bytes > buffer.byteSize()) {
            throw new IllegalArgumentException(what + " needs " + bytes + " bytes, the buffer has " + buffer.byteSize());
        }
        long[] strides = new long[dims.length - 1];
        long stride = type.byteSize(inner);
        for (int d = dims.length - 2; d >= 0; d--) {
            strides[d] = stride;
            stride = d == 0 ? stride : Math.multiplyExact(stride, dims[d]);
        }
        return new BlockTensor(type, dims.clone(), List.of(new Part(buffer, new long[dims.length], dims.clone(), 0, strides)));
    }

    /** {@return the block type} */
    public BlockType type() {
        return type;
    }

    /** {@return the logical dims, outermost first} */
    public List<Long> dims() {
        return Arrays.stream(dims).boxed().toList();
    }

    /** {@return the rank} */
    public int rank() {
        return dims.length;
    }

    /** {@return how many strided parts hold the rows: 1 unless concatenated} */
    public int partCount() {
        return parts.size();
    }

    private String describe() {
        return type + Arrays.toString(dims);
    }

    private void checkDim(int dim, String op) {
        if (dim < 0 || dim >= dims.length) {
            throw new IndexOutOfBoundsException(op + " dim " + dim + " of " + describe() + ": dims are 0 to " + (dims.length - 1));
        }
    }

    /**
     * {@return the values {@code [start, end)} of dim {@code dim}} A slice of the innermost dim
     * may start and end inside blocks: it is read through the blocks it covers.
     *
     * @throws IndexOutOfBoundsException if the dim or the range is out of bounds
     */
    public BlockTensor slice(int dim, long start, long end) {
        checkDim(dim, "slice");
        if (start < 0 || end < start || end > dims[dim]) {
            throw new IndexOutOfBoundsException("slice [" + start + ", " + end + ") of dim " + dim + " of " + describe()
                    + ": expected 0 <= start <= end <= " + dims[dim]);
        }
        boolean inner = dim == dims.length - 1;
        List<Part> out = new ArrayList<>();
        for (Part p : parts) {
            long lo = Math.max(start, p.origin()[dim]);
            long hi = Math.min(end, p.origin()[dim] + p.dims()[dim]);
            if (lo >= hi && !(start == end && out.isEmpty() && parts.getFirst() == p)) {
                continue;
            }
            hi = Math.max(lo, hi);
            long local = lo - p.origin()[dim];
            long[] origin = p.origin().clone();
            origin[dim] = lo - start;
            long[] pd = p.dims().clone();
            pd[dim] = hi - lo;
            if (inner) {
                // The new first value, counted from the part's first block: its block and its place there.
                long at = p.skip() + local;
                long firstBlock = at / type.blockValues();
                out.add(new Part(p.buffer(), origin, pd, p.byteOffset() + firstBlock * type.blockBytes(), p.outerStrides(),
                        at - firstBlock * type.blockValues()));
            } else {
                out.add(p.with(origin, pd, p.byteOffset() + local * p.outerStrides()[dim], p.outerStrides()));
            }
        }
        long[] nd = dims.clone();
        nd[dim] = end - start;
        return new BlockTensor(type, nd, out);
    }

    /**
     * {@return index {@code index} of outer dim {@code dim}, that dim dropped}: one expert of a
     * stacked tensor
     *
     * @throws IllegalArgumentException for the innermost dim, which holds blocks
     * @throws IndexOutOfBoundsException if the dim or index is out of bounds
     */
    public BlockTensor select(int dim, long index) {
        checkDim(dim, "select");
        if (dim == dims.length - 1) {
            throw new IllegalArgumentException("select of the innermost dim of " + describe() + ": it holds the blocks;"
                    + " select an outer dim");
        }
        if (index < 0 || index >= dims[dim]) {
            throw new IndexOutOfBoundsException("index " + index + " out of bounds [0, " + dims[dim] + ") for dim " + dim
                    + " of " + describe());
        }
        BlockTensor one = slice(dim, index, index + 1);
        List<Part> out = new ArrayList<>();
        for (Part p : one.parts) {
            out.add(p.with(drop(p.origin(), dim), drop(p.dims(), dim), p.byteOffset(), drop(p.outerStrides(), dim)));
        }
        return new BlockTensor(type, drop(dims, dim), out);
    }

    private static long[] drop(long[] a, int i) {
        long[] out = new long[a.length - 1];
        System.arraycopy(a, 0, out, 0, i);
        System.arraycopy(a, i + 1, out, i, a.length - 1 - i);
        return out;
    }

    /**
     * {@return the dims in another order: output dim {@code i} is input dim {@code permutation[i]}}
     * The innermost dim stays innermost.
     *
     * @throws IllegalArgumentException if {@code permutation} is not one of the dims, or moves the innermost dim
     */
    public BlockTensor transpose(int... permutation) {
        int r = dims.length;
        boolean[] seen = new boolean[r];
        if (permutation.length != r) {
            throw new IllegalArgumentException("permutation " + Arrays.toString(permutation) + " of " + describe()
                    + " has " + permutation.length + " entries, expected " + r);
        }
        for (int p : permutation) {
            if (p < 0 || p >= r || seen[p]) {
                throw new IllegalArgumentException("permutation " + Arrays.toString(permutation) + " of " + describe()
                        + " is not a permutation of 0 to " + (r - 1));
            }
            seen[p] = true;
        }
        if (permutation[r - 1] != r - 1) {
            throw new IllegalArgumentException("permutation " + Arrays.toString(permutation) + " of " + describe()
                    + " moves the innermost dim, which holds the blocks: dequantize into a transposed view instead");
        }
        List<Part> out = new ArrayList<>();
        for (Part p : parts) {
            long[] origin = new long[r];
            long[] pd = new long[r];
            long[] strides = new long[r - 1];
            for (int i = 0; i < r; i++) {
                origin[i] = p.origin()[permutation[i]];
                pd[i] = p.dims()[permutation[i]];
                if (i < r - 1) {
                    strides[i] = p.outerStrides()[permutation[i]];
                }
            }
            out.add(p.with(origin, pd, p.byteOffset(), strides));
        }
        long[] nd = new long[r];
        for (int i = 0; i < r; i++) {
            nd[i] = dims[permutation[i]];
        }
        return new BlockTensor(type, nd, out);
    }

    /**
     * {@return the same values under new outer dims} The innermost dim stays as it is, and the outer
     * dims must be dense in row-major order (as a file holds them, or after slicing dim 0), so that
     * the new dims have strides.
     *
     * @throws IllegalArgumentException if the innermost dim or the element count changes, the
     *     tensor is a concatenation or a slice inside blocks, or its outer dims are not dense row-major
     */
    public BlockTensor reshape(long... newDims) {
        String what = "reshape of " + describe() + " to " + Arrays.toString(newDims);
        if (newDims.length == 0 || newDims[newDims.length - 1] != dims[dims.length - 1]) {
            throw new IllegalArgumentException(what + ": the innermost dim, which holds the blocks, must stay "
                    + dims[dims.length - 1]);
        }
        if (Extents.elementCount(what, newDims) != Extents.elementCount(what, dims)) {
            throw new IllegalArgumentException(what + ": the element counts differ");
        }
        if (parts.size() != 1) {
            throw new IllegalArgumentException(what + ": it is a concatenation of " + parts.size() + " parts; reshape the"
                    + " parts before concatenating them");
        }
        Part p = parts.getFirst();
        if (p.skip() != 0 || dims[dims.length - 1] % type.blockValues() != 0) {
            throw new IllegalArgumentException(what + ": its rows are slices inside " + type.blockValues()
                    + "-value blocks, so the outer dims have no dense strides; reshape before slicing the innermost dim");
        }
        long row = type.byteSize(dims[dims.length - 1]);
        long expected = row;
        for (int d = dims.length - 2; d >= 0; d--) {
            if (dims[d] > 1 && p.outerStrides()[d] != expected) {
                throw new IllegalArgumentException(what + ": outer dim " + d + " has byte stride " + p.outerStrides()[d]
                        + ", not the dense " + expected + " a reshape needs");
            }
            expected = Math.multiplyExact(expected, dims[d]);
        }
        long[] strides = new long[newDims.length - 1];
        long stride = row;
        for (int d = newDims.length - 2; d >= 0; d--) {
            strides[d] = stride;
            stride = Math.multiplyExact(stride, newDims[d]);
        }
        return new BlockTensor(type, newDims.clone(), List.of(new Part(p.buffer(), new long[newDims.length], newDims.clone(),
                p.byteOffset(), strides)));
    }

    /**
     * {@return the tensors one after another along outer dim {@code dim}}
     *
     * @throws IllegalArgumentException if there are none, their types or ranks differ, their other
     *     dims differ, or {@code dim} is the innermost
     */
    public static BlockTensor concatenate(int dim, List<BlockTensor> tensors) {
        if (tensors.isEmpty()) {
            throw new IllegalArgumentException("concatenate of no tensors");
        }
        BlockTensor first = tensors.getFirst();
        first.checkDim(dim, "concatenate");
        if (dim == first.rank() - 1) {
            throw new IllegalArgumentException("concatenate along the innermost dim of " + first.describe()
                    + ": it holds the blocks; concatenate along an outer dim");
        }
        long[] nd = first.dims.clone();
        nd[dim] = 0;
        List<Part> out = new ArrayList<>();
        for (BlockTensor t : tensors) {
            boolean same = t.type == first.type && t.rank() == first.rank();
            for (int d = 0; same && d < t.rank(); d++) {
                same = d == dim || t.dims[d] == first.dims[d];
            }
            if (!same) {
                throw new IllegalArgumentException("concatenate along dim " + dim + " of " + first.describe() + " and "
                        + t.describe() + ": types, ranks or other dims differ");
            }
            for (Part p : t.parts) {
                long[] origin = p.origin().clone();
                origin[dim] = Math.addExact(origin[dim], nd[dim]);
                out.add(p.with(origin, p.dims(), p.byteOffset(), p.outerStrides()));
            }
            nd[dim] = Math.addExact(nd[dim], t.dims[dim]);
        }
        return new BlockTensor(first.type, nd, out);
    }

    /**
     * Quantizes the values of {@code src} (any element type and layout the copy engine reads) into
     * this tensor's blocks, by ggml's reference rounding: bytes equal to gguf-py's
     * {@code gguf.quants.quantize}. The values go through f32, as gguf-py's do.
     * {@snippet :
     * BlockTensor q = BlockTensor.of(arena.allocate(BlockType.Q8_0.byteSize(64)), BlockType.Q8_0, 2, 32);
     * q.quantize(TensorView.of(weights, "bf16[2,32]"));   // two Q8_0 blocks, 68 bytes
     * }
     *
     * @throws IllegalArgumentException if the dims differ, the type is not one tensorbuf quantizes
     *     to (Q8_0, Q4_0), or this tensor is not whole rows laid out as {@link #of} lays them out
     *     (a slice, selection, permutation or concatenation)
     */
    public void quantize(TensorView src) {
        if (!src.dims().equals(dims())) {
            throw new IllegalArgumentException("quantize " + src + " into " + describe() + ": the dims differ");
        }
        if (!BlockKernels.canQuantize(type)) {
            throw new IllegalArgumentException("cannot quantize to " + type + ": tensorbuf quantizes to Q8_0 and Q4_0");
        }
        Part p = parts.getFirst();
        BlockTensor whole = parts.size() == 1 && p.skip() == 0 ? of(p.buffer(), type, dims) : null;
        if (whole == null || !Arrays.equals(whole.parts.getFirst().outerStrides(), p.outerStrides())
                || !Arrays.equals(p.origin(), new long[dims.length])) {
            throw new IllegalArgumentException("quantize into " + describe()
                    + ": only a whole tensor laid out row-major from its first block is written; quantize into one"
                    + " made by BlockTensor.of and take views of it after");
        }
        long count = Extents.elementCount("dims", dims);
        if (count == 0) {
            return;
        }
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer f32 = arena.allocate(Math.multiplyExact(count, 4L), 64);
            CopyEngine.defaults().copy(src, TensorView.of(f32, ArrayShape.of(DType.F32, dims)));
            BlockKernels.defaults().quantize(type, f32.segment(), 0, p.buffer().segment(), p.byteOffset(),
                    count / type.blockValues());
        }
    }

    /** Writes the dequantized values into {@code dst}, with the default copy engine; see {@link #dequantize(TensorView, CopyEngine)}. */
    public void dequantize(TensorView dst) {
        dequantize(dst, CopyEngine.defaults());
    }

    /**
     * Writes the dequantized values into {@code dst}: any element type the copy engine converts f32
     * into (f32, f16, bf16, ...), any layout it writes (row-major, transposed, tiled). Each value is
     * gguf-py's f32, then converted as the engine converts f32. The blocks are a side the copy
     * planner knows: each part of the tensor is one plan ({@link #explain(TensorView, CopyEngine)}
     * shows it) whose steps read runs of whole blocks on the engine's threads and write the values
     * straight into an f32, bf16 or f16 destination whose rows are contiguous, or through a small
     * per-thread tile of f32 rows where the destination's layout needs its kernels (a transpose, tiles).
     * A destination with no loop form of its own (over several buffers, packed sub-byte storage, a
     * reshape of a transpose) takes a chunk of rows at a time through a small scratch of f32 rows:
     * the planner's dequantize steps fill it, and the engine copies it into the chunk's box by the
     * route it takes for any f32 view.
     *
     * @throws IllegalArgumentException if the dims differ, the type has no reference
     *     dequantization, or the destination is read-only or writes one slot twice
     * @throws IndexOutOfBoundsException if the destination's layout reaches past its buffer
     */
    public void dequantize(TensorView dst, CopyEngine engine) {
        checkInto(dst, "dequantize");
        if (Extents.elementCount("dims", dims) == 0) {
            return;
        }
        ScopedValue.where(ViewAdapter.CALLED_DESTINATION, dst).run(() -> {
            if (parts.size() > 1) {
                // Each part writes its box; the tiles' padding belongs to the whole.
                ViewAdapter.zeroTileSlots(dst);
            }
            for (Part p : parts) {
                if (Extents.elementCount("dims", p.dims()) == 0) {
                    continue;
                }
                TensorView into = box(dst, p);
                Optional<Access> to = ViewAdapter.destination(into);
                List<Step> steps = to.isPresent() ? Planner.planBlocks(source(p), to.get()) : null;
                if (steps == null) {
                    ScratchRows.of(source(p), into).run(into, engine);
                } else {
                    engine.execute(AccessCopies.unchecked(source(p).virtual(), to.get(), Optional.empty(), steps));
                }
            }
        });
    }

    /** {@return what {@link #dequantize(TensorView)} does, with the default copy engine; see {@link #explain(TensorView, CopyEngine)}} */
    public CopyPlan.Explanation explain(TensorView dst) {
        return explain(dst, CopyEngine.defaults());
    }

    /**
     * {@return what {@link #dequantize(TensorView, CopyEngine)} does, without doing it: one planned
     * copy per part, its {@code dequantize} steps (straight into the destination or through a
     * per-thread tile, the kernel, the loops) and threads} Nothing is read or written.
     * {@snippet :
     * BlockTensor w = BlockTensor.of(buffer, BlockType.Q6_K, 4096, 4096);
     * System.out.print(w.explain(TensorView.of(out, "bf16[4096,4096]")));
     * // planned copy Q6_K[4096, 4096] -> bf16[4096,4096]...: 16777216 elements, ... bytes, 2 threads
     * //   dequantize Q6_K blocks straight into the destination: 16777216 elements, rows of 4096 values, ...
     * }
     *
     * @throws IllegalArgumentException as {@link #dequantize(TensorView, CopyEngine)} does before it writes
     */
    public CopyPlan.Explanation explain(TensorView dst, CopyEngine engine) {
        checkInto(dst, "explain the dequantization of");
        long count = Extents.elementCount("dims", dims);
        return ScopedValue.where(ViewAdapter.CALLED_DESTINATION, dst).call(() -> {
            List<CopyPlan.Explanation> explained = new ArrayList<>();
            List<CopyPlan.Explanation.Piece> pieces = new ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                Part p = parts.get(i);
                long n = Extents.elementCount("dims", p.dims());
                TensorView into = box(dst, p);
                Optional<Access> to = n == 0 ? Optional.empty() : ViewAdapter.destination(into);
                List<Step> steps = to.isPresent() ? Planner.planBlocks(source(p), to.get()) : null;
                String what = parts.size() == 1 ? describe() : type + p.dims().toString().replace(" ", "") + " (part " + i + ")";
                long bytes = n == 0 ? 0 : Math.addExact(type.byteSize(Math.ceilDiv(p.skip() + p.dims()[dims.length - 1],
                        type.blockValues()) * type.blockValues() * (n / p.dims()[dims.length - 1])),
                        Math.multiplyExact(n, dst.dtype().byteWidth()));
                if (n == 0) {
                    explained.add(new CopyPlan.Explanation(CopyPlan.Explanation.Route.PLANNED, what, into.toString(), 0, 0, 1,
                            Optional.empty(), List.of(), List.of(), 0, List.of(), List.of(), "nothing to copy"));
                } else if (steps != null) {
                    CopyPlan.Explanation e = engine.explain(
                            AccessCopies.unchecked(source(p).virtual(), to.get(), Optional.empty(), steps));
                    explained.add(new CopyPlan.Explanation(e.route(), what, e.destination(), n, bytes, e.threads(), e.plan(),
                            List.of(), List.of(), e.zeroedBytes(), List.of(), List.of(),
                            "the blocks are a side the planner knows: each step reads runs of whole blocks"));
                } else {
                    explained.add(ScratchRows.of(source(p), into).explain(into, engine, what, bytes));
                }
                pieces.add(new CopyPlan.Explanation.Piece(Arrays.stream(p.origin()).boxed().toList(),
                        java.util.Collections.nCopies(dims.length, 1L), Arrays.stream(p.dims()).boxed().toList(), i, 0, false));
            }
            if (explained.size() == 1) {
                return explained.getFirst();
            }
            long bytes = explained.stream().mapToLong(CopyPlan.Explanation::bytes).sum();
            int threads = explained.stream().mapToInt(CopyPlan.Explanation::threads).max().orElse(1);
            return new CopyPlan.Explanation(CopyPlan.Explanation.Route.PIECES, describe(), dst.toString(), count, bytes,
                    threads, Optional.empty(), List.of(), List.of(), 0, pieces, explained,
                    "a concatenation of " + parts.size() + " parts: one plan each");
        });
    }

    private void checkInto(TensorView dst, String what) {
        if (!dst.dims().equals(dims())) {
            throw new IllegalArgumentException(what + " " + describe() + " into " + dst + ": the dims differ");
        }
        if (!BlockKernels.canDequantize(type)) {
            // The kernels' own refusal names the types there are.
            BlockKernels.defaults().dequantize(type, MemorySegment.NULL, 0, MemorySegment.NULL, 0, 0);
        }
    }

    /** {@return the part's blocks as the planner's side} */
    private BlockSource source(Part p) {
        return BlockSource.of(type, p.buffer().segment(), p.byteOffset(), p.dims(), p.outerStrides(), p.skip());
    }

    /** {@return {@code dst} over the part's box: itself for a part that is the whole} */
    private TensorView box(TensorView dst, Part p) {
        if (parts.size() == 1) {
            return dst;
        }
        long[] hi = new long[dims.length];
        long[] ones = new long[dims.length];
        for (int d = 0; d < dims.length; d++) {
            hi[d] = p.origin()[d] + p.dims()[d];
            ones[d] = 1;
        }
        return Ops.slice(dst, p.origin(), hi, ones);
    }

    /**
     * {@return the value at {@code index}, dequantized to f32 through its block} Reads one block,
     * so a loop over many values is far slower than {@link #dequantize(TensorView)}.
     *
     * @throws IndexOutOfBoundsException naming the dim if the index is out of bounds or has the
     *     wrong rank
     * @throws IllegalArgumentException if the type has no reference dequantization
     */
    public float getFloat(long... index) {
        if (index.length != dims.length) {
            throw new IndexOutOfBoundsException("index " + Arrays.toString(index) + " of " + describe() + " has "
                    + index.length + " entries, expected " + dims.length);
        }
        for (int d = 0; d < dims.length; d++) {
            if (index[d] < 0 || index[d] >= dims[d]) {
                throw new IndexOutOfBoundsException("index " + index[d] + " out of bounds [0, " + dims[d] + ") for dim " + d
                        + " of " + describe());
            }
        }
        int r = dims.length;
        for (Part p : parts) {
            boolean inside = true;
            for (int d = 0; d < r && inside; d++) {
                inside = index[d] >= p.origin()[d] && index[d] < p.origin()[d] + p.dims()[d];
            }
            if (!inside) {
                continue;
            }
            long at = p.byteOffset();
            for (int d = 0; d < r - 1; d++) {
                at += (index[d] - p.origin()[d]) * p.outerStrides()[d];
            }
            long value = p.skip() + index[r - 1] - p.origin()[r - 1];
            long block = value / type.blockValues();
            float[] one = new float[type.blockValues()];
            // Scalar: one block is no work for vectors, and heap memory stays out of the vector kernels.
            BlockKernels.of(false).dequantize(type, p.buffer().segment(), at + block * type.blockBytes(),
                    MemorySegment.ofArray(one), 0, 1);
            return one[(int) (value - block * type.blockValues())];
        }
        throw new AssertionError("no part of " + this + " holds " + Arrays.toString(index));
    }

    @Override
    public String toString() {
        return describe() + (parts.size() == 1 ? "" : " (" + parts.size() + " parts)");
    }
}
