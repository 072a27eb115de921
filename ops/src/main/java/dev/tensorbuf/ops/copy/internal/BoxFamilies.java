package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.internal.DomainBoxes;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.internal.ViewReader;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The boxes of a copy over pieces whose one side is a view of one piece laid out in tiles (an
 * XLA {@code {1,0:T(8,128)}} layout, not strided) and whose other side is strided, run by families
 * instead of planned one by one: the boxes of a {@link BoxTable} (a cut past the ceiling) and the
 * pairs of a cut under it ({@link #pairs}) alike. Such a box has no loop nest of its form
 * ({@link BoxRuns} needs strides on both sides), so each went through {@code CopyPlan.of} on a
 * slice of the tiled view, a map composed, simplified and split per box (some 40 to 50 us a box,
 * 3.4 s for 71,000).
 *
 * <p>A tiled layout's element offset is linear in whole tiles: moving an index by a multiple of
 * the first tile's dims in every dimension moves the offset by a constant (inner tiles stay inside
 * the first one). It is moreover a sum of one function per dimension (each tiling splits each
 * index into its tile's and its place in it, and the offset is linear in those). So boxes of one
 * shape (counts, steps and the strided side's strides) address the tiled side by one pattern,
 * shifted, when along each dimension where they have several indices their starts leave the same
 * remainder by the first tile's extent; none is needed where the box has one index or its step is
 * a multiple of the tile's. Along a dimension no later tile cuts (the columns of {@code T(8,128)}
 * and of {@code T(8,128)(2,1)}) the offset is {@code a * i + b * floor(i / t)}, so the boxes need
 * only cross tile boundaries at the same places (a row segment of 16 columns: whether and after
 * which column it crosses into the next tile). Their strided side is one pattern too (the shape
 * holds its strides), shifted, in the box's piece's buffer. A family is those boxes. Where it
 * crosses tiles only along dimensions no later tile cuts, its first box is cut at the crossings
 * into sub-boxes strided on both sides, each run by its form's loop nest ({@link BoxRuns});
 * otherwise its first box is planned as before, and its plan is the family's when it is runs of
 * loops only (no gather, no zero padding, a channel of none) below the executor's threshold for
 * threads. Every later box runs those loops at its own offsets ({@link CopyExecutor#runLoops}),
 * each run's span on both segments checked first in a few additions. A family whose plan is
 * anything else keeps planning each box.
 * {@snippet :
 * BoxFamilies families = BoxFamilies.of(pass, src, dst, executor.thresholdBytes()); // null: no tiled side
 * BoxFamilies.Member m = families.member(i);   // or families.run(i, executor)
 * if (m == null) {
 *     // plan box i on its own, then families.learn(i, plan)
 * } else {
 *     m.run(executor);
 * }
 * }
 */
public final class BoxFamilies {
    /**
     * The boxes families are found among, in the dims of the views they were cut from: a
     * {@link BoxTable.Pass}, or a cut's pairs ({@link #pairs}).
     */
    public interface Boxes {
        /** {@return box {@code i}} */
        DomainBoxes.Box box(int i);

        /** {@return box {@code i}'s source as strides, or null where it is not strided} */
        PiecePairs.Strides sourceStrides(int i);

        /** {@return box {@code i}'s destination as strides, or null where it is not strided} */
        PiecePairs.Strides destinationStrides(int i);
    }

    /** {@return the boxes of {@code pairs} (a cut's, not regrouped: in its views' own dims)} */
    public static Boxes pairs(List<PiecePairs.Pair> pairs) {
        return new Boxes() {
            @Override
            public DomainBoxes.Box box(int i) {
                return pairs.get(i).box();
            }

            @Override
            public PiecePairs.Strides sourceStrides(int i) {
                return pairs.get(i).sourceStrides();
            }

            @Override
            public PiecePairs.Strides destinationStrides(int i) {
                return pairs.get(i).destinationStrides();
            }
        };
    }

    private final Boxes boxes;
    /** Whether the tiled side is the source (else the destination). */
    private final boolean tiledSource;
    private final MemoryBuffer tiledBuffer;
    private final MemorySegment tiledSegment;
    /** Per dimension, the tiled side's offset change from index 0 to 1 (inside the first tile) and to the period. */
    private final long[] unit;
    private final long[] cell;
    /** The loop nests of the sub-boxes of boxes that cross tiles, one per form. */
    private final BoxRuns forms;
    private final ViewReader tiledOffsets;
    /** Per dimension, the first tile's extent in it (1 where no tile reaches). */
    private final long[] period;
    /** Per dimension, whether no later tile cuts it: the offset linear in it inside a first tile. */
    private final boolean[] linear;
    private final DType from;
    private final DType to;
    private final long thresholdBytes;
    /**
     * By a shape and where a box meets the tiles: {@code numbers} the counts, steps and strided
     * side's strides, then per dimension a start's remainder by the period or its crossings.
     */
    private final Map<BoxRuns.Key, Family> families = new HashMap<>();
    /** The families boxes were made members of ({@link #member}), for an explanation. */
    private int used;

    /**
     * A family's runs, offsets relative to its first box's, or {@link #OWN}.
     *
     * @param runs the first box's runs
     * @param stridedBase the strided side's element offset at the first box
     * @param tiledBase the tiled side's element offset of the first box's start
     * @param spans per run, the lowest and highest element each side reaches relative to its offsets:
     *     {source lo, source hi, destination lo, destination hi}
     * @param met one flag, set when a box is first made a member of it: the families counted once
     */
    private record Family(List<Step.Run> runs, long stridedBase, long tiledBase, long[][] spans, boolean[] met) {
        Family(List<Step.Run> runs, long stridedBase, long tiledBase, long[][] spans) {
            this(runs, stridedBase, tiledBase, spans, new boolean[1]);
        }
    }

    private static final Family OWN = new Family(List.of(), 0, 0, new long[0][]);

    private BoxFamilies(Boxes boxes, boolean tiledSource, MemoryBuffer tiledBuffer,
                        ViewReader tiledOffsets, long[] dims, long[] period, boolean[] linear, DType from, DType to,
                        long thresholdBytes) {
        this.boxes = boxes;
        this.tiledSource = tiledSource;
        this.tiledBuffer = tiledBuffer;
        this.tiledSegment = tiledBuffer.segment();
        this.forms = new BoxRuns(thresholdBytes);
        int rank = dims.length;
        unit = new long[rank];
        cell = new long[rank];
        long[] index = new long[rank];
        long origin = rank == 0 ? 0 : tiledOffsets.offset(0, index);
        for (int d = 0; d < rank; d++) {
            if (dims[d] > 1) {
                index[d] = 1;
                unit[d] = tiledOffsets.offset(0, index) - origin;
            }
            if (period[d] < dims[d]) {
                index[d] = period[d];
                cell[d] = tiledOffsets.offset(0, index) - origin;
            }
            index[d] = 0;
        }
        this.tiledOffsets = tiledOffsets;
        this.period = period;
        this.linear = linear;
        this.from = from;
        this.to = to;
        this.thresholdBytes = thresholdBytes;
    }

    /** {@return whether a copy of {@code src} into {@code dst} over pieces runs its boxes by families} */
    public static boolean applies(TensorView src, TensorView dst) {
        return tiledSide(src, true) != null || tiledSide(dst, false) != null;
    }

    /** {@return the first tile's extent per dimension of {@code side}, one piece in tiles, or null when it is not} */
    private static long[] tiledSide(TensorView side, boolean source) {
        if (!(side.map() instanceof ViewMap.Single) || side.access().storageBits() < 8) {
            return null;
        }
        Optional<Access> access = source ? ViewAdapter.access(side) : ViewAdapter.destination(side);
        if (access.isEmpty() || !(access.get().addressing() instanceof Access.Tiled(ArrayShape shape))) {
            return null;
        }
        return period(shape.requireLayout(), side.dims().size());
    }

    /**
     * {@return the families of {@code boxes} (for one copy: their strides are read from its
     * buffers), or null when neither side is a view of one piece whose access is a tiled layout
     * of whole-byte elements (one tiling, its later tiles no wider than its first, no combined
     * dimension)} {@code src} and {@code dst} are the views the boxes index.
     */
    public static BoxFamilies of(Boxes boxes, TensorView src, TensorView dst, long thresholdBytes) {
        for (boolean source : new boolean[] {true, false}) {
            TensorView side = source ? src : dst;
            long[] period = tiledSide(side, source);
            if (period == null) {
                continue;
            }
            ArrayShape shape = ((Access.Tiled) (source ? ViewAdapter.access(side) : ViewAdapter.destination(side))
                    .orElseThrow().addressing()).shape();
            return new BoxFamilies(boxes, source, ((ViewMap.Single) side.map()).buffer(), ViewReader.of(side.map()),
                    Extents.toArray(side.dims()), period, linear(shape.requireLayout(), period.length), src.dtype(),
                    dst.dtype(), thresholdBytes);
        }
        return null;
    }

    /**
     * {@return per logical dimension, the first tile's extent in it, or null when the layout is not
     * one the offset is linear in by whole first tiles}
     */
    static long[] period(XlaLayout layout, int rank) {
        List<XlaLayout.Tile> tiles = layout.tiles();
        if (tiles.isEmpty() || layout.elementSizeInBits() != 0 && layout.elementSizeInBits() % 8 != 0) {
            return null;
        }
        XlaLayout.Tile first = tiles.getFirst();
        for (XlaLayout.Tile t : tiles) {
            // A later tile wider than the first would cross whole first tiles.
            if (t.hasCombined() || t.rank() > first.rank()) {
                return null;
            }
        }
        long[] period = new long[rank];
        Arrays.fill(period, 1);
        List<Integer> minorToMajor = layout.minorToMajor();
        for (int m = 0; m < Math.min(first.rank(), rank); m++) {
            // The tile's last entry is the most minor physical dimension's.
            period[minorToMajor.get(m)] = first.dim(first.rank() - 1 - m);
        }
        return period;
    }

    /**
     * {@return per logical dimension, whether no tile after the first cuts it (its extent there 1,
     * or it reaches no such dimension): the offset linear in it inside a first tile} The later
     * tiles tile the first tile's dimensions, the same ones from the minor end.
     */
    static boolean[] linear(XlaLayout layout, int rank) {
        boolean[] linear = new boolean[rank];
        Arrays.fill(linear, true);
        List<XlaLayout.Tile> tiles = layout.tiles();
        List<Integer> minorToMajor = layout.minorToMajor();
        for (XlaLayout.Tile t : tiles.subList(1, tiles.size())) {
            for (int m = 0; m < Math.min(t.rank(), rank); m++) {
                if (t.dim(t.rank() - 1 - m) != 1) {
                    linear[minorToMajor.get(m)] = false;
                }
            }
        }
        return linear;
    }

    /**
     * Runs box {@code i} by its family's runs when its family has them ({@link #member}).
     *
     * @return false when box {@code i} is to be planned on its own, as {@link #member} returns null
     * @throws IndexOutOfBoundsException if a run at the box's offsets passes a segment
     */
    public boolean run(int i, CopyExecutor executor) {
        Member m = member(i);
        if (m == null) {
            return false;
        }
        m.run(executor);
        return true;
    }

    /**
     * {@return box {@code i} as a member of its family: the family's runs at its offsets, or null
     * when it is to be planned on its own: its family is not known yet (then {@link #learn} it) or
     * plans each box, or the box has no strided side or no shape} A family under one tiling is
     * found from the box alone, the first time one of it is met.
     */
    public Member member(int i) {
        PiecePairs.Strides strided = stridedSide(i);
        DomainBoxes.Box box = boxes.box(i);
        BoxRuns.Key key = key(box, strided);
        Family f = key == null ? null : families.get(key);
        if (f == null && key != null) {
            f = split(box, strided);
            if (f != null) {
                families.put(key, f);
            }
        }
        if (f == null || f == OWN) {
            return null;
        }
        long ds = Math.subtractExact(strided.offset(), f.stridedBase());
        long dt = Math.subtractExact(tiledOffsets.offset(0, box.start()), f.tiledBase());
        MemorySegment a = tiledSource ? tiledSegment : strided.buffer().segment();
        MemorySegment b = tiledSource ? strided.buffer().segment() : tiledSegment;
        if (!f.met()[0]) {
            f.met()[0] = true;
            used++;
        }
        return new Member(f, a, tiledSource ? dt : ds, b, tiledSource ? ds : dt, from, to);
    }

    /** {@return the families the boxes made members so far ({@link #member}) belong to} */
    public int families() {
        return used;
    }

    /**
     * A box of a family: the family's runs moved by {@code da} elements in the source's segment
     * {@code a} and {@code db} in the destination's {@code b}.
     */
    public static final class Member {
        private final Family family;
        private final MemorySegment a;
        private final long da;
        private final MemorySegment b;
        private final long db;
        private final DType from;
        private final DType to;

        private Member(Family family, MemorySegment a, long da, MemorySegment b, long db, DType from, DType to) {
            this.family = family;
            this.a = a;
            this.da = da;
            this.b = b;
            this.db = db;
            this.from = from;
            this.to = to;
        }

        /** {@return the runs the box runs, at its offsets in the two segments} */
        public List<Step> steps() {
            Step[] steps = new Step[family.runs().size()];
            for (int k = 0; k < steps.length; k++) {
                Step.Run r = family.runs().get(k);
                steps[k] = new Step.Run(r.kernel(), r.srcOffset() + da, r.dstOffset() + db, r.loops(), -1);
            }
            return List.of(steps);
        }

        /**
         * Runs the box on the calling thread, every run's span on both segments checked first.
         *
         * @throws IndexOutOfBoundsException if a run at the box's offsets passes a segment
         */
        public void run(CopyExecutor executor) {
            List<Step.Run> runs = family.runs();
            for (int k = 0; k < runs.size(); k++) {
                Step.Run r = runs.get(k);
                long[] span = family.spans()[k];
                check(a, from, r.srcOffset() + da, span[0], span[1]);
                check(b, to, r.dstOffset() + db, span[2], span[3]);
            }
            for (Step.Run r : runs) {
                executor.runLoops(new Step.Run(r.kernel(), r.srcOffset() + da, r.dstOffset() + db, r.loops(), -1), a,
                        from, b, to);
            }
        }
    }

    /**
     * Takes box {@code i}'s own plan, made because {@link #member} returned null, as its family's
     * when the family is new; null {@code plan} (the box was staged or went element by element)
     * makes the family plan each box.
     */
    public void learn(int i, CopyPlan plan) {
        BoxRuns.Key key = key(boxes.box(i), stridedSide(i));
        if (key == null || families.containsKey(key)) {
            return;
        }
        families.put(key, plan == null ? OWN : family(i, plan));
    }

    /**
     * {@return the family of {@code box}, its runs those of its sub-boxes cut where its indices
     * cross tiles, each strided on the tiled side too (inside one tile along a dimension no later
     * tile cuts, or stepping whole tiles) and run by its form's loop nest ({@link BoxRuns}); null
     * when it is cut into too many, or crosses tiles along a dimension a later tile cuts (its
     * family then learned from its first box's plan); {@link #OWN} when a sub-box's form is not one loop nest}
     */
    private Family split(DomainBoxes.Box box, PiecePairs.Strides strided) {
        int rank = box.rank();
        long[] start = box.start();
        long[] step = box.step();
        long[] count = box.count();
        // Per dimension, the counters where the indices enter another tile: the sub-boxes' bounds.
        long[][] cuts = new long[rank][];
        long[] tiledStrides = new long[rank];
        long pieces = 1;
        for (int d = 0; d < rank; d++) {
            long t = period[d];
            if (t == 1 || count[d] == 1 || step[d] % t == 0) {
                cuts[d] = new long[] {0, count[d]};
                tiledStrides[d] = t == 1 || count[d] == 1 ? Math.multiplyExact(unit[d], step[d])
                        : Math.multiplyExact(cell[d], step[d] / t);
                continue;
            }
            if (!linear[d] || count[d] > MAX_CROSSINGS) {
                return null; // its family is learned from its first box's plan
            }
            long[] c = new long[(int) count[d] + 1];
            int n = 0;
            c[n++] = 0;
            for (long k = 1; k < count[d]; k++) {
                if (Math.floorDiv(start[d] + k * step[d], t) != Math.floorDiv(start[d] + (k - 1) * step[d], t)) {
                    c[n++] = k;
                }
            }
            c[n++] = count[d];
            cuts[d] = Arrays.copyOf(c, n);
            tiledStrides[d] = Math.multiplyExact(unit[d], step[d]);
            pieces = Math.multiplyExact(pieces, n - 1);
        }
        if (pieces > MAX_SUB_BOXES) {
            return null;
        }
        Step.Run[] runs = new Step.Run[(int) pieces];
        long[][] spans = new long[runs.length][];
        int[] at = new int[rank];
        long[] subStart = new long[rank];
        long[] subCount = new long[rank];
        for (int k = 0; k < runs.length; k++) {
            long stridedOffset = strided.offset();
            for (int d = 0; d < rank; d++) {
                long first = cuts[d][at[d]];
                subCount[d] = cuts[d][at[d] + 1] - first;
                subStart[d] = start[d] + first * step[d];
                stridedOffset = Math.addExact(stridedOffset, Math.multiplyExact(first, strided.strides()[d]));
            }
            PiecePairs.Strides near = new PiecePairs.Strides(strided.buffer(), strided.strides(), stridedOffset);
            PiecePairs.Strides tiled = new PiecePairs.Strides(tiledBuffer, tiledStrides,
                    tiledOffsets.offset(0, subStart));
            BoxRuns.Resolved r = tiledSource ? forms.resolve(subCount, tiled, from, near, to)
                    : forms.resolve(subCount, near, from, tiled, to);
            if (r == null) {
                return OWN;
            }
            runs[k] = r.run();
            spans[k] = new long[] {r.srcBelow(), r.srcAbove(), r.dstBelow(), r.dstAbove()};
            for (int d = rank - 1; d >= 0 && ++at[d] == cuts[d].length - 1; d--) {
                at[d] = 0;
            }
        }
        return new Family(List.of(runs), strided.offset(), tiledOffsets.offset(0, start), spans);
    }

    /** Sub-boxes past which a box crossing tiles is planned on its own. */
    private static final long MAX_SUB_BOXES = 64;

    private Family family(int i, CopyPlan plan) {
        PiecePairs.Strides strided = stridedSide(i);
        MemorySegment stridedSegment = strided.buffer().segment();
        // The plan's offsets are in the segments this family moves between, not slices of them.
        if (!same(AccessCopies.src(plan).segment(), tiledSource ? tiledSegment : stridedSegment)
                || !same(AccessCopies.dst(plan).segment(), tiledSource ? stridedSegment : tiledSegment)
                || plan.affine().isPresent()) {
            return OWN;
        }
        List<Step> steps = AccessCopies.steps(plan);
        Step.Run[] runs = new Step.Run[steps.size()];
        long[][] spans = new long[steps.size()][];
        long bytes = 0;
        for (int k = 0; k < runs.length; k++) {
            if (!(steps.get(k) instanceof Step.Run r) || r.channelLoop() != -1) {
                return OWN;
            }
            runs[k] = r;
            long[] span = new long[4];
            for (Loop l : r.loops()) {
                long s = Math.multiplyExact(l.count() - 1, l.srcStride());
                long d = Math.multiplyExact(l.count() - 1, l.dstStride());
                span[s < 0 ? 0 : 1] += s;
                span[d < 0 ? 2 : 3] += d;
            }
            spans[k] = span;
            bytes += r.elementCount() * Math.max(from.byteWidth(), to.byteWidth());
        }
        if (bytes >= thresholdBytes) {
            return OWN; // a plan of its own may split it across threads
        }
        return new Family(List.of(runs), strided.offset(), tiledOffsets.offset(0, boxes.box(i).start()), spans);
    }

    private static boolean same(MemorySegment a, MemorySegment b) {
        return a.address() == b.address() && a.byteSize() == b.byteSize() && a.isReadOnly() == b.isReadOnly();
    }

    /** {@return {@code box}'s family key, or null when it has no strided side} */
    private BoxRuns.Key key(DomainBoxes.Box box, PiecePairs.Strides strided) {
        if (strided == null) {
            return null;
        }
        long[] start = box.start();
        long[] count = box.count();
        long[] step = box.step();
        int rank = start.length;
        long[] numbers = new long[3 * rank + 8];
        int n = 0;
        for (int d = 0; d < rank; d++) {
            // The shape: a dimension of one index moves nothing, its step and stride no part of it.
            boolean one = count[d] == 1;
            numbers[n] = count[d];
            numbers[n + rank] = one ? 1 : step[d];
            numbers[n + 2 * rank] = one ? 0 : strided.strides()[d];
            n++;
        }
        n = 3 * rank;
        for (int d = 0; d < start.length; d++) {
            long t = period[d];
            if (t == 1 || count[d] == 1 || step[d] % t == 0) {
                continue; // every start moves the offset along this dimension by one pattern
            }
            if (!linear[d] || count[d] > MAX_CROSSINGS) {
                numbers = grow(numbers, n + 2);
                numbers[n++] = d;
                numbers[n++] = Math.floorMod(start[d], t);
                continue;
            }
            // No later tile: the offset along d is a * i + b * floor(i / t), so the boxes whose indices
            // cross tile boundaries at the same places share the pattern, wherever they start.
            numbers = grow(numbers, n + 2);
            numbers[n++] = -1 - d;
            int at = n++;
            long cell = Math.floorDiv(start[d], t);
            for (long k = 1; k < count[d]; k++) {
                long next = Math.floorDiv(start[d] + k * step[d], t);
                if (next != cell) {
                    numbers = grow(numbers, n + 2);
                    numbers[n++] = k;
                    numbers[n++] = next - cell;
                    cell = next;
                }
            }
            numbers[at] = n - at - 1;
        }
        return new BoxRuns.Key(Arrays.copyOf(numbers, n));
    }

    /**
     * Boxes longer than this along a dimension are keyed by their start's remainder there, not by
     * where they cross tiles.
     */
    private static final long MAX_CROSSINGS = 256;

    private static long[] grow(long[] a, int size) {
        return size <= a.length ? a : Arrays.copyOf(a, Math.max(size, 2 * a.length));
    }

    private PiecePairs.Strides stridedSide(int i) {
        return tiledSource ? boxes.destinationStrides(i) : boxes.sourceStrides(i);
    }

    /** Checks elements {@code [offset + lo, offset + hi]} of {@code type} lie in {@code segment}. */
    private static void check(MemorySegment segment, DType type, long offset, long lo, long hi) {
        long first = Math.addExact(offset, lo);
        long last = Math.addExact(offset, hi);
        if (first < 0 || Math.multiplyExact(Math.addExact(last, 1), (long) type.byteWidth()) > segment.byteSize()) {
            throw new IndexOutOfBoundsException("a box's elements [" + first + ", " + last + "] of " + type
                    + " pass a segment of " + segment.byteSize() + " bytes");
        }
    }
}
