package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.Extents;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A block-quantized side ({@link BlockSource}) into a destination with no loop form of its own:
 * a view over several buffers (cut inside a block, say), packed sub-byte storage, a map no strides
 * give (a reshape of a transpose). Each chunk of rows is two planned stages through one scratch of
 * f32 rows: the planner's {@link Step.Dequantize} steps, straight into the dense scratch, then the
 * engine's own copy of that f32 view into the chunk's box of the destination, by the route it takes
 * for any f32 source (pieces, staging of packed slots, a split map; both sides flat where only that
 * splits the destination's map into strided digits). A chunk holds at most
 * {@link #CHUNK_VALUES} values: whole rows, or a run of blocks of one long row, so the scratch stays
 * in cache and no whole-tensor temporary is made. The values are the dequantize steps' f32, converted
 * by the engine as it converts f32, so the bytes are those of the planned routes.
 * {@snippet :
 * // Q4_0[6, 96] into s4[6,96]{1,0:E(4)}: one chunk of 6 rows
 * ScratchRows.of(source, packed).chunkCount();   // 1
 * }
 */
public final class ScratchRows {
    /** Values of f32 in the scratch: 256 KiB, within a core's second-level cache. */
    static final long CHUNK_VALUES = 1 << 16;

    /** One chunk: its blocks as the planner's side, and its box of the destination, {@code [lo, hi)}. */
    private record Chunk(BlockSource blocks, long[] lo, long[] hi) {
        long[] dims() {
            return blocks.dims();
        }
    }

    private final BlockSource source;
    private final List<Chunk> chunks;
    private final long scratchValues;

    private ScratchRows(BlockSource source, List<Chunk> chunks, long scratchValues) {
        this.source = source;
        this.chunks = chunks;
        this.scratchValues = scratchValues;
    }

    /**
     * {@return the chunks of {@code source} into {@code into} (of the source's dims), each a run of
     * rows (or of blocks of one row) of at most {@link #CHUNK_VALUES} values} Into a map that only
     * splits into strided digits flat (a reshape of a transpose), each chunk's rows are a multiple
     * of those that keep its flat box on whole digits, so that every chunk splits as the whole does.
     */
    public static ScratchRows of(BlockSource source, TensorView into) {
        long[] dims = source.dims();
        int r = dims.length;
        long bv = source.type().blockValues();
        long innerChunk = Math.max(bv, CHUNK_VALUES / bv * bv);
        long rows = r == 1 ? 1 : dims[r - 2];
        long skip = source.skip();
        long n = dims[r - 1];
        long cover = source.cover();
        long rowsPerChunk = cover >= CHUNK_VALUES ? 1 : Math.max(1, CHUNK_VALUES / cover);
        if (r <= 2 && skip == 0 && cover == n && cover < CHUNK_VALUES) {
            long step = flatRowStep(into, n);
            rowsPerChunk = Math.max(step, rowsPerChunk / step * step);
        }
        long rowStride = r == 1 ? 0 : source.outerStrides()[r - 2];
        List<Chunk> chunks = new ArrayList<>();
        long most = 0;
        long[] prefix = new long[Math.max(0, r - 2)];
        do {
            long base = source.byteOffset();
            for (int d = 0; d < prefix.length; d++) {
                base += prefix[d] * source.outerStrides()[d];
            }
            for (long row = 0; row < rows; row += rowsPerChunk) {
                long nRows = Math.min(rowsPerChunk, rows - row);
                // Columns counted over the blocks each row covers: [skip, skip + n) are the row's own.
                for (long col = 0; col < cover; col += innerChunk) {
                    long from = Math.max(col, skip);
                    long to = Math.min(col + innerChunk, skip + n);
                    long[] lo = new long[r];
                    long[] hi = new long[r];
                    long[] outer = new long[r - 1];
                    for (int d = 0; d < prefix.length; d++) {
                        lo[d] = prefix[d];
                        hi[d] = prefix[d] + 1;
                    }
                    if (r >= 2) {
                        lo[r - 2] = row;
                        hi[r - 2] = row + nRows;
                        outer[r - 2] = rowStride;
                    }
                    lo[r - 1] = from - skip;
                    hi[r - 1] = to - skip;
                    long[] cd = new long[r];
                    for (int d = 0; d < r; d++) {
                        cd[d] = hi[d] - lo[d];
                    }
                    most = Math.max(most, nRows * (to - from));
                    chunks.add(new Chunk(BlockSource.of(source.type(), source.segment(),
                            base + row * rowStride + source.type().byteSize(col), cd, outer, from - col), lo, hi));
                }
            }
        } while (next(prefix, dims));
        return new ScratchRows(source, List.copyOf(chunks), most);
    }

    /**
     * {@return the rows a chunk must be a multiple of for its flat box to split into strided digits
     * as the whole of {@code into} (rows of {@code n} values) does flat; 1 when its own dims
     * suffice, or flat does not help either} A flat map split into digits stays so over a range
     * that starts and ends on multiples of the outermost digit's factor.
     */
    private static long flatRowStep(TensorView into, long n) {
        long total = into.elementCount();
        if (total == 0 || !gathers(Access.strided(MemorySegment.NULL, DType.F32, StridedLayout.packed(Extents.toArray(into.dims()))),
                into)) {
            return 1;
        }
        Optional<Access> flat = ViewAdapter.destination(Ops.reshape(into, total));
        if (flat.isEmpty() || !(flat.get().addressing() instanceof Access.Mapped(var map))) {
            return 1;
        }
        long period = SplitDims.of(map, total).map(sp -> sp.digits().stream().mapToLong(TiledDigits.Digit::factor).max()
                .orElse(1)).orElse(1L);
        long step = period / gcd(period, n);
        // A period past a few chunks would make the scratch large: such a chunk gathers instead.
        return step * n > 16 * CHUNK_VALUES ? 1 : step;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** {@return how many chunks the rows are cut into} */
    public int chunkCount() {
        return chunks.size();
    }

    /**
     * Writes every value of the source into {@code into} (the source's dims), chunk by chunk: the
     * chunk's dequantize steps into the scratch, run by {@code engine}, then {@code engine}'s copy
     * of the scratch into the chunk's box of {@code into}.
     */
    public void run(TensorView into, CopyEngine engine) {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer scratch = arena.allocate(4 * Math.max(1, scratchValues), 64);
            for (Chunk c : chunks) {
                Stages s = stages(c, scratch, into);
                engine.execute(s.dequantize());
                engine.copy(s.rows(), s.box());
            }
        }
    }

    /** A chunk's two stages: its dequantize plan into the scratch, and the scratch's f32 view and the box it goes to. */
    private record Stages(CopyPlan dequantize, TensorView rows, TensorView box) {
    }

    private Stages stages(Chunk c, MemoryBuffer scratch, TensorView into) {
        long[] dims = c.dims();
        Access rows = Access.strided(scratch.segment(), DType.F32, StridedLayout.packed(dims));
        List<Step> steps = Planner.planBlocks(c.blocks(), rows);
        long[] ones = new long[dims.length];
        Arrays.fill(ones, 1);
        TensorView box = Ops.slice(into, c.lo(), c.hi(), ones);
        TensorView from = TensorView.of(scratch, ArrayShape.of(DType.F32, dims));
        if (gathers(rows, box)) {
            // The scratch is dense row-major, so both sides may be regrouped alike: flat, a map such
            // as a reshape of a transpose splits into strided digits that its own dims cut across.
            long n = Arrays.stream(dims).reduce(1, Math::multiplyExact);
            TensorView flat = Ops.reshape(box, n);
            Access flatRows = Access.strided(scratch.segment(), DType.F32, StridedLayout.packed(n));
            if (!gathers(flatRows, flat)) {
                box = flat;
                from = TensorView.of(scratch, ArrayShape.of(DType.F32, n));
            }
        }
        return new Stages(AccessCopies.unchecked(c.blocks().virtual(), rows, Optional.empty(), steps), from, box);
    }

    /** {@return whether the planner copies {@code rows} into {@code box}, a view of one piece, element by element} */
    private static boolean gathers(Access rows, TensorView box) {
        Optional<Access> to = ViewAdapter.destination(box);
        return to.isPresent() && Planner.plan(rows, to.get(), null).stream().anyMatch(Step.Gather.class::isInstance);
    }

    /**
     * {@return what {@link #run} does, without doing it: the scratch, and the first chunk's two
     * stages as parts (its dequantize steps, then the engine's route into the destination's box)}
     * Nothing is read or written; the scratch is allocated, as the engine's route is decided on it.
     *
     * @param what the source, as the explanation names it
     * @param bytes the blocks read plus the destination's bytes written
     */
    public CopyPlan.Explanation explain(TensorView into, CopyEngine engine, String what, long bytes) {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer scratch = arena.allocate(4 * Math.max(1, scratchValues), 64);
            Chunk first = chunks.getFirst();
            Stages s = stages(first, scratch, into);
            CopyPlan.Explanation d = engine.explain(s.dequantize());
            String rows = "scratch f32" + Arrays.toString(first.dims()).replace(" ", "");
            CopyPlan.Explanation dequantize = new CopyPlan.Explanation(d.route(), first.blocks().toString(), rows,
                    d.elements(), d.bytes(), d.threads(), d.plan(), List.of(), List.of(), 0, List.of(), List.of(),
                    "chunk 1 of " + chunks.size() + ": the planner's dequantize steps into the scratch");
            CopyPlan.Explanation copy = engine.explain(s.rows(), s.box());
            long elements = Arrays.stream(source.dims()).reduce(1, Math::multiplyExact);
            int threads = Math.max(d.threads(), copy.threads());
            // The scratch is written once and read once more per value.
            long moved = Math.addExact(bytes, Math.multiplyExact(8L, elements));
            return new CopyPlan.Explanation(CopyPlan.Explanation.Route.THROUGH_TEMPORARY, what, into.toString(), elements,
                    moved, threads, Optional.empty(), List.of(new CopyPlan.Explanation.Temporary("rows of one chunk, "
                    + "dequantized by the planner's steps, then copied by the engine; " + chunks.size()
                    + (chunks.size() == 1 ? " chunk" : " chunks"), DType.F32, List.of(scratchValues), 4 * scratchValues)),
                    List.of(), 0, List.of(), List.of(dequantize, copy),
                    "the destination has no loop form (over several pieces, packed, or a map no strides give): each"
                            + " chunk of rows is dequantized by the planner's steps into a scratch of f32 rows, which the"
                            + " engine then copies into the chunk's box by its own route");
        }
    }

    /** Steps the odometer over the outer dims but the last; false once every index was visited. */
    private static boolean next(long[] prefix, long[] dims) {
        for (int d = prefix.length - 1; d >= 0; d--) {
            if (++prefix[d] < dims[d]) {
                return true;
            }
            prefix[d] = 0;
        }
        return false;
    }
}
