package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One pass that evaluates a {@link Pointwise} expression into a destination view: the logical
 * space is cut into blocks of rows that stay in cache; per block each operand view is copied by
 * the engine running the pass (its planned kernels: transposes, broadcasts as fills, strided runs) into a
 * dense scratch of its own type, the expression runs over the scratches, and the result is
 * copied into the destination's block. Each byte of memory is read and written once; the
 * scratches are reused block after block. An expression over one 8-bit operand and per-channel
 * constants ({@link PointwiseTable}) copies only that operand's block and looks each result up;
 * one computed in f32 over f32, bf16 or f16 operands and per-channel constants
 * ({@link PointwiseLanes}) copies only the varying operands' blocks and runs vector sweeps over
 * them. Both store straight into the destination where the block is one run of its memory. Over
 * u8 pixels of 3 interleaved channels into planes (NHWC into NCHW), the lanes' ops run fused with
 * the de-interleaving ({@link PixelPlanes}), where that kernel gives the table's every value.
 *
 * <p>A pass is a step of a copy plan ({@link Step.Epilogue}, made by {@link #plan}): the
 * {@link CopyExecutor} runs its blocks on its own threads, which take them in turn, and
 * {@code CopyEngine.explain} shows it with the expression as the plan's epilogue.
 * {@snippet :
 * // u8 NHWC pixels into f32 NCHW, normalised per channel: one 8-bit operand and two constants
 * CopyPlan p = PointwiseCopy.plan(expr, List.of(pixels, mean, std), nchw, allocator);
 * AccessCopies.steps(p);              // [Epilogue[pass=PointwiseCopy[TABLE ... 1 blocks]]]
 * CopyEngine.defaults().execute(p);
 * }
 */
public final class PointwiseCopy {
    /** Elements per block: every operand's scratch and the result's fit in a core's L2 together. */
    static final int BLOCK = 16 * 1024;
    /**
     * Elements per block of a {@link PointwiseTable} pass: only the 8-bit operand and the result
     * are in cache, and the copy engine's per-block planning is a visible share of 16 Ki.
     */
    static final int TABLE_BLOCK = 64 * 1024;
    /** The most channels interleaved in an operand that a block spans whole: the engine's de-interleaving kernels' limit. */
    static final int MAX_INTERLEAVED = 4;
    /**
     * Copies while planning (a per-channel constant's line), for explanations, and for an
     * executor made without an engine; a pass run by an engine copies its blocks through it.
     * Made at first use, so that a malformed {@code tensorbuf.copy.*} property is an
     * {@code IllegalArgumentException} there, not a class of this package failing to load.
     */
    static CopyEngine engine() {
        CopyEngine e = oneThread;
        if (e == null) {
            e = CopyEngine.of(1);   // two racing first calls make two equal engines: harmless
            oneThread = e;
        }
        return e;
    }

    private static volatile CopyEngine oneThread;

    /** What evaluates a pass's expression, in order of preference. */
    public enum Evaluator {
        /** One 8-bit operand and per-channel constants: each value looked up ({@link PointwiseTable}). */
        TABLE,
        /** Computed in f32 over f32, bf16 or f16 operands and per-channel constants: vector sweeps ({@link PointwiseLanes}). */
        LANES,
        /** Anything else: {@link Pointwise#eval} over each operand's block copied dense. */
        BLOCKS
    }

    private final Pointwise.Expr expr;
    private final List<TensorView> leaves;
    private final TensorView dst;
    private final Allocator allocator;
    private final PointwiseTable table;
    private final PointwiseLanes lanes;
    private final long[] dims;
    /** The dim blocks cut: a block spans the dims after it whole and {@code step} indices of it; -1 when one block is all. */
    private final int split;
    private final long step;
    private final long perRow;
    private final long blocks;
    /** {@code dst}'s element offset when a block is one run of its memory (stored straight), else -1. */
    private final long dstBase;
    /** The dims before {@code split}, as bits, that a block spans whole (interleaved channels); the others it takes one index of. */
    private final long whole;

    /**
     * What a pass decides before it runs, from its expression, its operands' types and addressing
     * and its per-channel constants' values, and nothing else: the evaluator (the table or the
     * lanes, plain arrays) and the cut into blocks. It holds no memory, so {@link PlanCache} keeps
     * it for the next pass of the same shape.
     *
     * @param table the lookup table, or null
     * @param lanes the vector lowering, or null
     * @param split the dim blocks cut; -1 when one block is all
     * @param step indices of {@code split} a block spans
     * @param perRow blocks along {@code split}
     * @param blocks the blocks
     * @param dstBase the destination's element offset when a block (a run per index of {@code whole}) is one run of its memory, else -1
     * @param whole the dim before {@code split}, as a bit, that blocks span whole (interleaved channels), else 0
     * @param planes the fused kernel for u8 pixels of 3 interleaved channels, or null
     */
    record Shape(PointwiseTable table, PointwiseLanes lanes, int split, long step, long perRow, long blocks, long dstBase,
                 long whole, PixelPlanes planes) {
        static Shape of(Pointwise.Expr expr, List<TensorView> leaves, TensorView dst, Allocator allocator) {
            long[] dims = Extents.toArray(dst.dims());
            if (dst.elementCount() == 0) {
                return new Shape(null, null, -1, 1, 1, 0, -1, 0, null);
            }
            PointwiseTable table = PointwiseTable.of(expr, leaves, dst, allocator);
            PointwiseLanes lanes = dst.dtype() == expr.type() ? PointwiseLanes.of(expr, leaves, allocator) : null;
            if (lanes != null && lanes.widens(leaves)) {
                // Lanes over an 8-bit operand: only as the fused pixel kernel, checked against the table.
                Shape fused = table == null ? null : cut(table, lanes, leaves, dst, dims);
                if (fused != null && fused.planes() != null) {
                    return fused;
                }
                lanes = null;
            }
            return table != null ? cut(table, null, leaves, dst, dims) : cut(null, lanes, leaves, dst, dims);
        }

        /**
         * {@return the pass with {@code lanes}, or else {@code table}, evaluating, cut into blocks}
         * With both given (one u8 operand, computed in f32), the lanes run only as
         * {@link PixelPlanes}' fused kernel, where it gives every value of the table: the shape's
         * {@code planes}; null {@code planes} means the table should run instead.
         */
        private static Shape cut(PointwiseTable table, PointwiseLanes lanes, List<TensorView> leaves, TensorView dst,
                                 long[] dims) {
            int size = lanes == null && table != null ? TABLE_BLOCK : BLOCK;
            long whole = lanes == null ? 0 : interleaved(lanes, leaves, dims);
            int s = dims.length - 1;
            long inner = 1;
            for (int d = 0; d < dims.length; d++) {
                inner *= (whole >>> d & 1) != 0 ? dims[d] : 1;
            }
            // A block takes one index of each dim before the interleaved one: each channel's part
            // of it is then one run of the planes' memory.
            int floor = whole == 0 ? -1 : Long.numberOfTrailingZeros(whole) + 1;
            while (s > floor && inner * dims[s] <= size) {
                inner *= dims[s];
                s--;
            }
            if (s < 0) {
                whole = 0; // one block spans everything
            }
            whole &= (1L << Math.max(s, 0)) - 1;
            long step = s < 0 ? 1 : Math.max(1, size / inner);
            long dstBase = table == null && lanes == null ? -1 : denseFrom(dst, Math.max(s, 0));
            PixelPlanes planes = null;
            if (lanes != null && table != null && s >= 0 && Long.bitCount(whole) == 1 && dstBase >= 0
                    && Math.min(step, dims[s]) * inner / dims[Long.numberOfTrailingZeros(whole)] >= PixelPlanes.B
                    && pixels(leaves.get(table.data()), Long.numberOfTrailingZeros(whole), s)
                    && lanes.agrees(table, leaves.get(table.data()).dtype())) {
                planes = lanes.pixelPlanes(Long.numberOfTrailingZeros(whole));
                planes = planes != null && planes.agrees(table) ? planes : null;
            }
            PointwiseTable evaluator = lanes != null ? null : table;
            if (s < 0) {
                return new Shape(evaluator, lanes, s, step, 1, 1, dstBase, 0, planes);
            }
            long outer = 1;
            for (int d = 0; d < s; d++) {
                outer = Math.multiplyExact(outer, (whole >>> d & 1) != 0 ? 1 : dims[d]);
            }
            long perRow = Math.ceilDiv(dims[s], step);
            return new Shape(evaluator, lanes, s, step, perRow, Math.multiplyExact(outer, perRow), dstBase, whole, planes);
        }

        /**
         * {@return whether {@code v} is u8 pixels of 3 channels along {@code channel}, interleaved
         * (stride 1 byte) and laid out densely pixel after pixel from dim {@code split} on: each
         * block's pixels are then one run of its memory, {@link PixelPlanes}' input}
         */
        private static boolean pixels(TensorView v, int channel, int split) {
            StridedLayout l = v.stridedLayout().orElse(null);
            if (v.dtype() != DType.U8 || l == null || l.sizes().get(channel) != 3 || l.strides().get(channel) != 1) {
                return false;
            }
            long packed = 3;
            for (int d = l.rank() - 1; d >= split; d--) {
                if (l.sizes().get(d) > 1 && l.strides().get(d) != packed) {
                    return false;
                }
                packed *= l.sizes().get(d);
            }
            return true;
        }

        /**
         * {@return the dim, as a bit, that blocks span whole wherever they fall: the innermost dim
         * (the smallest stride) of the varying operands the lanes copy through a scratch, where it
         * holds 2 to {@link #MAX_INTERLEAVED} indices and is the same for all (else 0)} Interleaved channels (u8 NHWC read as NCHW)
         * are then split into planes by one of the engine's de-interleaving kernels, a whole pixel
         * at a time, rather than gathered a channel at a time at a stride of a few bytes.
         */
        private static long interleaved(PointwiseLanes lanes, List<TensorView> leaves, long[] dims) {
            long whole = 0;
            for (int k = 0; k < leaves.size() && dims.length <= 63; k++) {
                StridedLayout l = leaves.get(k).stridedLayout().orElse(null);
                if (!lanes.copies(k) || l == null) {
                    continue;
                }
                int innermost = -1;
                for (int d = 0; d < l.rank(); d++) {
                    long stride = Math.abs(l.strides().get(d));
                    if (dims[d] > 1 && stride != 0
                            && (innermost < 0 || stride < Math.abs(l.strides().get(innermost)))) {
                        innermost = d;
                    }
                }
                if (innermost >= 0 && innermost < dims.length - 1 && dims[innermost] <= MAX_INTERLEAVED) {
                    if (whole != 0 && whole != 1L << innermost) {
                        return 0; // operands interleaved along different dims: no one cut suits both
                    }
                    whole = 1L << innermost;
                }
            }
            return whole;
        }
    }

    private final Shape shape;

    private PointwiseCopy(Pointwise.Expr expr, List<TensorView> leaves, TensorView dst, Allocator allocator, Shape shape) {
        this.expr = expr;
        this.leaves = List.copyOf(leaves);
        this.dst = dst;
        this.allocator = allocator;
        this.dims = Extents.toArray(dst.dims());
        this.shape = shape;
        this.table = shape.table();
        this.lanes = shape.lanes();
        this.split = shape.split();
        this.step = shape.step();
        this.perRow = shape.perRow();
        this.blocks = shape.blocks();
        this.dstBase = shape.dstBase();
        this.whole = shape.whole();
    }

    /** {@return what the pass decided before running: kept by {@link PlanCache} for passes of the same shape} */
    Shape shape() {
        return shape;
    }

    /**
     * {@return the plan of one pass writing the value of {@code e} over {@code leaves} into
     * {@code dst}: one {@link Step.Epilogue}, the pass's blocks and evaluator chosen} Its source is
     * operand %0 where that is one access, else the destination; the step holds every operand.
     *
     * @throws IllegalArgumentException if a leaf's dims differ from {@code dst}'s, or {@code dst}
     *     is not one access (several pieces, packed sub-byte elements)
     */
    public static CopyPlan plan(Pointwise.Expr e, List<TensorView> leaves, TensorView dst, Allocator allocator) {
        for (TensorView l : leaves) {
            if (!l.dims().equals(dst.dims())) {
                throw new IllegalArgumentException("operand " + l + " of an elementwise copy into " + dst.shape()
                        + " has other dims");
            }
        }
        Access to = ViewAdapter.access(dst).orElseThrow(() -> new IllegalArgumentException(
                "an elementwise copy writes a destination of one buffer and whole bytes, not " + dst));
        Access from = leaves.isEmpty() ? to : ViewAdapter.access(leaves.getFirst()).orElse(to);
        Shape shape = PlanCache.pointwise(e, leaves, dst, () -> Shape.of(e, leaves, dst, allocator));
        return AccessCopies.unchecked(from, to, Optional.empty(),
                List.of(new Step.Epilogue(new PointwiseCopy(e, leaves, dst, allocator, shape))));
    }

    /**
     * Writes the value of {@code e} over {@code leaves} into {@code dst}: {@link #plan} run by the
     * shared engine ({@link CopyEngine#defaults()}), its threads and helper threads.
     *
     * @return what ran, for the report: the expression and its kernel as the explanation's
     *     epilogue, and the engine's explanations of the first block's copies as its parts
     * @throws IllegalArgumentException as {@link #plan}
     */
    public static CopyPlan.Explanation run(Pointwise.Expr e, List<TensorView> leaves, TensorView dst, Allocator allocator) {
        CopyPlan plan = plan(e, leaves, dst, allocator);
        CopyEngine engine = CopyEngine.defaults();
        engine.execute(plan);
        return engine.explain(plan);
    }

    /** {@return the expression} */
    public Pointwise.Expr expression() {
        return expr;
    }

    /** {@return what evaluates the expression} */
    public Evaluator evaluator() {
        return table != null ? Evaluator.TABLE : lanes != null ? Evaluator.LANES : Evaluator.BLOCKS;
    }

    /** {@return the operands, numbered as the expression's leaves} */
    public List<TensorView> operands() {
        return leaves;
    }

    /** {@return the elements written} */
    public long elements() {
        return dst.elementCount();
    }

    /** {@return the blocks the pass is cut into} */
    public long blocks() {
        return blocks;
    }

    /** {@return the dims of the first (largest) block} */
    public List<Long> blockDims() {
        return Arrays.stream(firstBlock()).boxed().toList();
    }

    /** {@return whether each block's values are stored straight into the destination's memory} */
    public boolean direct() {
        return dstBase >= 0;
    }

    /** {@return the elements of the largest block} */
    private int blockSize() {
        return (int) Extents.elementCount("block", Arrays.stream(firstBlock()).boxed().toList());
    }

    private long[] firstBlock() {
        long[] first = dims.clone();
        if (split >= 0) {
            for (int d = 0; d < split; d++) {
                first[d] = spansWhole(d) ? dims[d] : 1;
            }
            first[split] = Math.min(dims[split], step);
        }
        return first;
    }

    private boolean spansWhole(int d) {
        return (whole >>> d & 1) != 0;
    }

    /**
     * {@return the threads {@code executor} runs the pass on: a share of the blocks each, as many
     * as it has threads; one when the blocks are one or a side's memory is confined to this thread}
     * Not its byte threshold: the evaluator costs far more per byte than a copy's kernels.
     */
    int threads(CopyExecutor executor) {
        if (blocks <= 1 || !shareable(dst)) {
            return 1;
        }
        for (TensorView l : leaves) {
            if (!shareable(l)) {
                return 1;
            }
        }
        return (int) Math.min(blocks, executor.parallelism());
    }

    private static boolean shareable(TensorView v) {
        return ViewAdapter.access(v).map(a -> CopyExecutor.shareable(a.segment())).orElse(true);
    }

    /**
     * Runs the pass: blocks are independent, so each thread takes blocks in turn, with scratches
     * of its own. One block (the whole space, {@code split} -1) is the same loop run once, on the
     * calling thread.
     */
    void run(CopyExecutor executor) {
        if (blocks == 0) {
            return;
        }
        int rank = dims.length;
        int threads = threads(executor);
        // Blocks are taken one at a time from a shared count, not as fixed shares: a helper that
        // starts late leaves its blocks to the caller instead of the caller waiting for them.
        java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong();
        CopyEngine engine = executor.owner();
        executor.forEach(threads, t -> {
            long k = next.getAndIncrement();
            if (k >= blocks) {
                return; // the others took every block: no scratches for this share
            }
            Map<List<Long>, TensorView[]> mine = new HashMap<>();
            BlockWriter tables = table != null ? new TableBlocks(table, leaves.get(table.data()), dst, dstBase, engine, allocator)
                    : lanes != null ? lanes.new Blocks(leaves, dst, dstBase, Math.max(split, 0), whole, blockSize(), shape.planes(), engine, allocator)
                    : null;
            long[] start = new long[rank];
            long[] limit = dims.clone();
            for (; k < blocks; k = next.getAndIncrement()) {
                if (split >= 0) {
                    long rest = k / perRow;
                    for (int d = split - 1; d >= 0; d--) {
                        if (spansWhole(d)) {
                            continue; // start 0, limit dims[d]
                        }
                        start[d] = rest % dims[d];
                        limit[d] = start[d] + 1;
                        rest /= dims[d];
                    }
                    long lo = (k % perRow) * step;
                    start[split] = lo;
                    limit[split] = Math.min(dims[split], lo + step);
                }
                if (tables != null) {
                    tables.block(start, limit);
                    continue;
                }
                block(expr, leaves, dst, Box.of(start, limit), mine, engine, allocator);
            }
        });
    }

    /**
     * {@return the explanation of the pass {@code plan} holds, run on {@code threads}: its first
     * block's copies explained by the engine as they run (operand blocks into dense scratches, the
     * result's block into the destination)}
     */
    public CopyPlan.Explanation explain(CopyPlan plan, int threads) {
        if (blocks == 0) {
            return new CopyPlan.Explanation(CopyPlan.Explanation.Route.BLOCKS, sources(leaves), dst.toString(), 0, 0, 1,
                    Optional.empty(), List.of(), List.of(), 0, List.of(), List.of(), "no elements",
                    Optional.of(new CopyPlan.Explanation.Epilogue(expr.toString(), "nothing: no elements")));
        }
        long[] first = firstBlock();
        Box firstBox = Box.of(new long[first.length], first);
        int at = Math.max(split, 0);
        boolean direct = dstBase >= 0;
        long n = dst.elementCount();
        long blockElements = Extents.elementCount("block", Arrays.stream(first).boxed().toList());
        List<Long> blockDims = Arrays.stream(first).boxed().toList();
        List<CopyPlan.Explanation> parts = new ArrayList<>();
        List<CopyPlan.Explanation.Temporary> temporaries = new ArrayList<>();
        long bytes = 0;
        for (int k = 0; k < leaves.size(); k++) {
            if ((table != null && k != table.data()) || (lanes != null && !lanes.copies(k))) {
                continue; // the per-channel constants are in the table or the lanes
            }
            TensorView leaf = leaves.get(k);
            if (lanes != null && (shape.planes() != null || (whole == 0 && denseFrom(leaf, at) >= 0))) {
                bytes = Math.addExact(bytes, Math.multiplyExact(n, leaf.dtype().byteWidth()));
                continue; // read straight from its memory, a run per block
            }
            DType into = lanes != null ? PointwiseLanes.scratchType(leaf.dtype()) : leaf.dtype();
            TensorView scratch = scratch(ArrayShape.of(into, first), allocator);
            parts.add(engine().explain(firstBox.part(leaf), scratch));
            long width = into.byteWidth();
            temporaries.add(new CopyPlan.Explanation.Temporary("operand %" + k + "'s block, one per thread", into,
                    blockDims, Math.multiplyExact(blockElements, width)));
            bytes = Math.addExact(bytes, Math.multiplyExact(n, leaf.dtype().byteWidth() + width));
        }
        long width = dst.dtype().byteWidth();
        if (direct) {
            bytes = Math.addExact(bytes, Math.multiplyExact(n, width));
        } else {
            TensorView out = scratch(ArrayShape.of(dst.dtype(), first), allocator);
            parts.add(engine().explain(out, firstBox.part(dst)));
            temporaries.add(new CopyPlan.Explanation.Temporary("the result's block, one per thread", dst.dtype(),
                    blockDims, Math.multiplyExact(blockElements, width)));
            bytes = Math.addExact(bytes, Math.multiplyExact(Math.multiplyExact(n, width), 2));
        }
        String stored = direct && whole != 0
                ? "stored straight into the destination (each channel's part of the block is one run of its memory)"
                : direct ? "stored straight into the destination (the block is one run of its memory)"
                : "copied into the destination's block";
        String reason = (table != null
                ? "the 8-bit operand %" + table.data() + " copied into a dense block of " + blockElements
                        + " elements at a time, each value looked up in its channel's table, the results "
                : lanes != null ? "each varying operand read as floats a block of " + blockElements
                        + " elements at a time (straight from its memory where the block is one run of it, else copied"
                        + " into a dense block first), the constants laid out per channel, the expression evaluated a"
                        + " vector at a time, the result "
                : "each operand copied into a dense block of " + blockElements
                        + " elements at a time, the expression evaluated over the blocks, the result ") + stored;
        return new CopyPlan.Explanation(CopyPlan.Explanation.Route.BLOCKS, sources(leaves), dst.toString(), n, bytes,
                threads, Optional.of(plan), temporaries, List.of(), 0, List.of(), parts, reason,
                Optional.of(new CopyPlan.Explanation.Epilogue(expr.toString(), kernel())));
    }

    /** {@return the operands as the expression numbers them: {@code %0 = view, %1 = view}} */
    private static String sources(List<TensorView> leaves) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < leaves.size(); k++) {
            sb.append(k == 0 ? "" : ", ").append('%').append(k).append(" = ").append(leaves.get(k));
        }
        return sb.toString();
    }

    private String kernel() {
        return table != null ? table.kernel() + " of operand %" + table.data()
                : lanes != null ? lanes.kernel() + (shape.planes() == null ? "" : ", fused: " + shape.planes().kernel())
                : "block evaluator, " + BLOCK + " elements at a time";
    }

    /** {@return a new, zeroed, dense buffer viewed as {@code shape}: a block's scratch} */
    static TensorView scratch(ArrayShape shape, Allocator allocator) {
        var buffer = allocator.allocate(Math.max(1, shape.arraySize()));
        buffer.segment().fill((byte) 0);
        return TensorView.of(buffer, shape);
    }

    /** {@return the evaluator, the expression, the destination's shape and the blocks, for failure messages} */
    @Override
    public String toString() {
        return "PointwiseCopy[" + evaluator() + " " + expr + " into " + dst.shape() + ", " + blocks + " blocks]";
    }

    /**
     * {@return the element offset of {@code dst}'s index 0 when its dims from {@code split} on are
     * laid out densely in C order (so a block spanning them whole is one run of memory), else -1}
     */
    static long denseFrom(TensorView dst, int split) {
        StridedLayout l = dst.stridedLayout().orElse(null);
        if (l == null) {
            return -1;
        }
        long packed = 1;
        for (int d = l.rank() - 1; d >= split; d--) {
            if (l.sizes().get(d) > 1 && l.strides().get(d) != packed) {
                return -1;
            }
            packed *= l.sizes().get(d);
        }
        return l.offset();
    }

    /**
     * A block's box {@code [start, limit)} of the destination's index space (every operand has the
     * same dims): its extents, the scratch caches' key, and an operand's part in it.
     */
    record Box(long[] start, long[] limit, long[] dims, List<Long> key) {
        static Box of(long[] start, long[] limit) {
            long[] dims = new long[start.length];
            for (int d = 0; d < dims.length; d++) {
                dims[d] = limit[d] - start[d];
            }
            return new Box(start, limit, dims, Arrays.stream(dims).boxed().toList());
        }

        int elements() {
            return (int) Extents.elementCount("block", key);
        }

        /** {@code view}'s part in the box: the view itself when the box covers it. */
        TensorView part(TensorView view) {
            if (Arrays.equals(dims, Extents.toArray(view.dims()))) {
                return view;
            }
            long[] unit = new long[dims.length];
            Arrays.fill(unit, 1);
            return Ops.slice(view, start, limit, unit);
        }

        /** The element offset of the box's first element in a strided view whose origin is at {@code base}. */
        long offset(long base, long[] strides) {
            long at = base;
            for (int d = 0; d < start.length; d++) {
                at += start[d] * strides[d];
            }
            return at;
        }
    }

    /** One thread's worker over blocks: writes the expression's values for the box {@code [start, limit)} into the destination. */
    interface BlockWriter {
        void block(long[] start, long[] limit);
    }

    /** One thread's scratches for {@link PointwiseTable} blocks: the 8-bit operand's block, read, looked up, stored. */
    private static final class TableBlocks implements BlockWriter {
        private final PointwiseTable table;
        private final TensorView data;
        private final TensorView dst;
        private final long dstBase;
        private final long[] dstStrides;
        private final CopyEngine engine;
        private final Allocator allocator;
        private final Map<List<Long>, TensorView[]> scratches = new HashMap<>();
        private final byte[] x = new byte[TABLE_BLOCK];
        private final Object out;

        TableBlocks(PointwiseTable table, TensorView data, TensorView dst, long dstBase, CopyEngine engine,
                    Allocator allocator) {
            this.engine = engine;
            this.table = table;
            this.data = data;
            this.dst = dst;
            this.dstBase = dstBase;
            this.dstStrides = dstBase < 0 ? null : Extents.toArray(dst.stridedLayout().orElseThrow().strides());
            this.allocator = allocator;
            this.out = table.newOut(TABLE_BLOCK);
        }

        @Override
        public void block(long[] start, long[] limit) {
            Box box = Box.of(start, limit);
            TensorView[] scratch = scratches.computeIfAbsent(box.key(), k -> new TensorView[] {
                    PointwiseCopy.scratch(ArrayShape.of(data.dtype(), box.dims()), allocator), null});
            int n = box.elements();
            engine.copy(box.part(data), scratch[0]);
            MemorySegment.copy(scratch[0].buffer().segment(), ValueLayout.JAVA_BYTE, 0, x, 0, n);
            table.apply(x, out, n, box.dims(), start);
            if (dstBase >= 0) {
                PointwiseTable.store(out, dst.buffer().segment(), box.offset(dstBase, dstStrides) * (dst.dtype().bitWidth() / 8), n);
                return;
            }
            if (scratch[1] == null) {
                scratch[1] = PointwiseCopy.scratch(ArrayShape.of(dst.dtype(), box.dims()), allocator);
            }
            PointwiseTable.store(out, scratch[1].buffer().segment(), 0, n);
            engine.copy(scratch[1], box.part(dst));
        }
    }

    /** Evaluates {@code e} over {@code box}: each operand's part copied into a dense scratch, the result copied out. */
    private static void block(Pointwise.Expr e, List<TensorView> leaves, TensorView dst, Box box,
                              Map<List<Long>, TensorView[]> scratches, CopyEngine engine, Allocator allocator) {
        TensorView[] scratch = scratches.computeIfAbsent(box.key(), d -> {
            TensorView[] t = new TensorView[leaves.size() + 1];
            long[] dd = Extents.toArray(d);
            for (int k = 0; k < leaves.size(); k++) {
                t[k] = PointwiseCopy.scratch(ArrayShape.of(leaves.get(k).dtype(), dd), allocator);
            }
            t[leaves.size()] = PointwiseCopy.scratch(ArrayShape.of(dst.dtype(), dd), allocator);
            return t;
        });
        int n = box.elements();
        Object[] columns = new Object[leaves.size()];
        for (int k = 0; k < leaves.size(); k++) {
            engine.copy(box.part(leaves.get(k)), scratch[k]);
            columns[k] = read(scratch[k], n);
        }
        Object result = Pointwise.eval(e, columns, n);
        TensorView out = scratch[leaves.size()];
        write(out, result, n);
        engine.copy(out, box.part(dst));
    }

    static Object read(TensorView dense, int n) {
        return read(dense.buffer().segment(), dense.dtype(), n);
    }

    /**
     * {@return the first {@code n} values of type {@code t} stored densely from the start of
     * {@code seg}, as {@link Pointwise#eval} takes them: a double[] for a float type, else a long[]}
     */
    public static Object read(MemorySegment seg, DType t, int n) {
        ElementAccess a = ElementAccess.of(t);
        switch (t) {
            case F32 -> {
                float[] f = new float[n];
                MemorySegment.copy(seg, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, f, 0, n);
                double[] v = new double[n];
                for (int i = 0; i < n; i++) {
                    v[i] = f[i];
                }
                return v;
            }
            case F64 -> {
                double[] v = new double[n];
                MemorySegment.copy(seg, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, v, 0, n);
                return v;
            }
            case U8, S8 -> {
                byte[] bytes = new byte[n];
                MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, 0, bytes, 0, n);
                long[] v = new long[n];
                for (int i = 0; i < n; i++) {
                    v[i] = t == DType.U8 ? bytes[i] & 0xff : bytes[i];
                }
                return v;
            }
            case S32 -> {
                int[] ints = new int[n];
                MemorySegment.copy(seg, ValueLayout.JAVA_INT_UNALIGNED, 0, ints, 0, n);
                long[] v = new long[n];
                for (int i = 0; i < n; i++) {
                    v[i] = ints[i];
                }
                return v;
            }
            default -> {
            }
        }
        if (Pointwise.isFloat(t)) {
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = a.getDouble(seg, i);
            }
            return v;
        }
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = a.getBits(seg, i);
        }
        if (t.kind() == DType.Kind.SIGNED) {
            for (int i = 0; i < n; i++) {
                v[i] = Pointwise.wrap(v[i], t);
            }
        }
        return v;
    }

    static void write(TensorView dense, Object values, int n) {
        write(dense.buffer().segment(), dense.dtype(), values, n);
    }

    /** Stores {@code n} values as {@link #read} gives them densely from the start of {@code seg}, in type {@code t}. */
    public static void write(MemorySegment seg, DType t, Object values, int n) {
        ElementAccess a = ElementAccess.of(t);
        if (values instanceof double[] v && t == DType.F32) {
            float[] f = new float[n];
            for (int i = 0; i < n; i++) {
                f[i] = (float) v[i];
            }
            MemorySegment.copy(f, 0, seg, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, n);
        } else if (values instanceof double[] v && t == DType.BF16) {
            short[] h = new short[n];
            for (int i = 0; i < n; i++) {
                h[i] = (short) dev.tensorbuf.views.internal.MiniFloat.BF16.encode(v[i]);
            }
            MemorySegment.copy(h, 0, seg, ValueLayout.JAVA_SHORT_UNALIGNED, 0, n);
        } else if (values instanceof double[] v) {
            for (int i = 0; i < n; i++) {
                a.setDouble(seg, i, v[i]);
            }
        } else {
            long[] v = (long[]) values;
            long mask = t.bitWidth() >= 64 ? -1L : (1L << t.bitWidth()) - 1;
            for (int i = 0; i < n; i++) {
                a.setBits(seg, i, v[i] & mask);
            }
        }
    }
}
