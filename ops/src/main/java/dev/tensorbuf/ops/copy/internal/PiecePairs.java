package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;
import dev.tensorbuf.views.internal.DistinctSlots;
import dev.tensorbuf.views.internal.DomainBoxes;
import dev.tensorbuf.views.internal.DomainBoxes.Box;
import dev.tensorbuf.views.internal.Linear;
import dev.tensorbuf.views.internal.ViewReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Pairs the pieces of a copy's two views by domain: each side's index space is cut into disjoint
 * boxes, each with its one piece ({@link DomainBoxes}: a piece holds its domain minus those of the
 * pieces before it), and every non-empty intersection of a source box with a destination box is
 * one pair: the two one-piece views of that box (the piece's buffer through its map restricted to
 * the box), which the engine plans as it plans any two one-piece views. A pad's fill is a piece
 * like the others (a constant map: a broadcast); a concatenation is pieces with disjoint domains;
 * a transpose, reverse, strided slice, broadcast or reshape over them is already in their maps.
 * Nothing asks which op made a view, and nothing recurses: the pairs are a flat list, run in
 * order (row-major by their first index). A cut past {@link DomainBoxes#CEILING} boxes is made a
 * band at a time into a {@link BoxTable} of primitive arrays, kept as the cuts are ({@link #table}).
 *
 * <p>A destination box held by a pad's fill, or by read-only memory, is refused before anything
 * is written, with the element path's words at the first such index in logical order; pieces of
 * the destination that share a buffer are checked slot by slot ({@link DistinctSlots}), as the
 * element path checks them, so one slot written from two indices is refused in its words.
 * {@snippet :
 * // two f32[2,3] joined along 0, reshaped to [3,4]: the part boundary is a staircase
 * PiecePairs.of(Ops.reshape(joined, 3, 4), dst).stream().map(p -> p.box().toString()).toList();
 * // [[0:1, 0:4], [1:2, 0:2], [1:2, 2:4], [2:3, 0:4]]
 * }
 */
public final class PiecePairs {
    private PiecePairs() {
    }

    /**
     * One box of the copy and the one-piece views that copy it, made when first asked: a box whose
     * two sides are strided over whole bytes is copied through {@link #sourceStrides()} and
     * {@link #destinationStrides()} alone ({@link BoxRuns}), and a staircase's thousands of boxes
     * made a view each (a map built, a layout printed) in several times the time of their copy.
     */
    public static final class Pair {
        private final Box box;
        private final int sourcePiece;
        private final int destinationPiece;
        private final boolean sourceFill;
        private final Strides sourceStrides;
        private final Strides destinationStrides;
        private final java.util.function.Supplier<TensorView> makeSrc;
        private final java.util.function.Supplier<TensorView> makeDst;
        private TensorView src;
        private TensorView dst;

        Pair(Box box, int sourcePiece, int destinationPiece, boolean sourceFill, Strides sourceStrides,
             Strides destinationStrides, java.util.function.Supplier<TensorView> makeSrc,
             java.util.function.Supplier<TensorView> makeDst) {
            this.box = box;
            this.sourcePiece = sourcePiece;
            this.destinationPiece = destinationPiece;
            this.sourceFill = sourceFill;
            this.sourceStrides = sourceStrides;
            this.destinationStrides = destinationStrides;
            this.makeSrc = makeSrc;
            this.makeDst = makeDst;
        }

        /** {@return the logical indices} */
        public Box box() {
            return box;
        }

        /** {@return the source's piece holding the box, in lookup order} */
        public int sourcePiece() {
            return sourcePiece;
        }

        /** {@return the destination's piece holding it} */
        public int destinationPiece() {
            return destinationPiece;
        }

        /** {@return whether the source's piece is a pad's fill} */
        public boolean sourceFill() {
            return sourceFill;
        }

        /** {@return the source over the box as strides, or null when it is not strided over whole bytes} */
        public Strides sourceStrides() {
            return sourceStrides;
        }

        /**
         * {@return the destination over the box as strides, or null when it is not strided over
         * whole bytes, or is the whole called destination (whose gaps its plan zeroes)}
         */
        public Strides destinationStrides() {
            return destinationStrides;
        }

        /** {@return the source restricted to the box, one piece} */
        public TensorView src() {
            if (src == null) {
                src = makeSrc.get();
            }
            return src;
        }

        /** {@return the destination restricted to the box, one piece} */
        public TensorView dst() {
            if (dst == null) {
                dst = makeDst.get();
            }
            return dst;
        }
    }

    /**
     * One side of a box strided over whole bytes of one buffer, as its one-piece view would read:
     * element {@code offset + strides . k} for the box's counters {@code k}.
     *
     * @param buffer the piece's buffer
     * @param strides per dimension of the box, in elements
     * @param offset the element of the box's first index
     */
    public record Strides(MemoryBuffer buffer, long[] strides, long offset) {
    }

    /**
     * The pairs of a copy, and the dims their boxes index.
     *
     * @param dims the dims the boxes are in: the views' own, or the same elements regrouped in
     *     row-major order where the pieces are fewer boxes ({@link DomainBoxes#regroupings})
     * @param regrouping how the views' elements were regrouped into {@code dims}, or null for their own dims
     * @param pairs the pairs, sorted by their first index in row-major order
     */
    public record Cut(long[] dims, DomainBoxes.Regrouping regrouping, List<Pair> pairs) {
    }

    /** One side cut into boxes: each box's piece, and the maps (simplified) the boxes came from (null for one piece). */
    private record Side(TensorView view, List<DomainBoxes.Placed> boxes, List<IndexingMap> maps) {
    }

    /** Both sides cut, over {@code dims}, regrouped by {@code regrouping} (null: the views' own dims). */
    private record Sides(Side from, Side to, long[] dims, DomainBoxes.Regrouping regrouping) {
        int boxes() {
            return from.boxes().size() + to.boxes().size();
        }
    }

    /**
     * A box of a cut and each side's map of it (null for a side of one piece, which is sliced):
     * {@link InBox.Strides} where the piece's map is affine over the box (a staircase's row
     * segment), else the map itself. Maps only: no buffer, so a kept cut keeps no memory alive.
     */
    record Part(Box box, int sourcePiece, int destinationPiece, InBox sourceMap, InBox destinationMap) {
    }

    /** A piece's map over a box, dims the box's counts. */
    sealed interface InBox {
        /** {@return the map} */
        IndexingMap map();

        /** Affine over the box: {@code strides . k + offset}, no map built unless asked (a sub-byte side). */
        record Strides(long[] sizes, long[] strides, long offset) implements InBox {
            @Override
            public IndexingMap map() {
                return Linear.toMap(sizes, strides, offset);
            }
        }

        /** Any other map. */
        record General(IndexingMap map) implements InBox {
        }
    }

    /** Where both sides' pieces meet: the dims the boxes are in, the pairs' boxes and maps, the destination's boxes. */
    private record Geometry(long[] dims, DomainBoxes.Regrouping regrouping, List<Part> parts,
                            List<DomainBoxes.Placed> destinationBoxes) {
    }

    /** What a cut depends on: each side's pieces' maps (none for a side of one piece) and the dims. */
    private record Key(List<IndexingMap> source, List<IndexingMap> destination, List<Long> dims) {
    }

    /** Cuts made before. Simplifying a reshape's maps costs about a millisecond, many times a copy of a few MiB. */
    private static final ConcurrentHashMap<Key, Geometry> CUTS = new ConcurrentHashMap<>();

    /** The pieces' maps simplified, both sides (null for one piece), of copies cut a band at a time. */
    private static final ConcurrentHashMap<Key, List<List<IndexingMap>>> SIMPLIFIED = new ConcurrentHashMap<>();

    /** Cuts refused for more boxes than allowed, as {@link #CUTS}. */
    private static final ConcurrentHashMap<Key, DomainBoxes.TooManyBoxes> REFUSED = new ConcurrentHashMap<>();

    /** Forgets every cut found. For tests. */
    static void clear() {
        CUTS.clear();
        REFUSED.clear();
        SIMPLIFIED.clear();
        TABLES.clear();
        TOO_LARGE.clear();
        TABLED.set(0);
    }
    /** Cuts kept before starting over, as {@code PlanCache} bounds its plans. */
    private static final int CAPACITY = 256;

    /**
     * {@return the pairs copying {@code src} into {@code dst} (same dims, at least one element),
     * sorted by their first index in row-major order} Reads and writes no element.
     *
     * @throws IllegalArgumentException for a destination index on a pad's fill or read-only
     *     memory, or two destination indices on one slot, or an index that no piece holds
     * @throws ArithmeticException when an index computation overflows a long
     * @throws DomainBoxes.TooManyBoxes when the sides cut into more than {@link DomainBoxes#CEILING} boxes
     */
    public static List<Pair> of(TensorView src, TensorView dst) {
        return cut(src, dst).pairs();
    }

    /**
     * {@return the pairs copying {@code src} into {@code dst}, as {@link #of}, in the dims where
     * the sides cut into the fewest boxes} A reshape over pieces cuts its view's dims in a
     * staircase, a box per row segment; the same elements regrouped as the pieces' own rows are a
     * box a piece, so both sides are regrouped the same way (a row-major reshape keeps which
     * element goes where) when that cuts fewer boxes. The boxes and their maps depend on the
     * pieces' maps alone and are kept; buffers, fills and read-only memory are read each call.
     *
     * @throws IllegalArgumentException as {@link #of}
     * @throws ArithmeticException as {@link #of}
     * @throws DomainBoxes.TooManyBoxes as {@link #of}
     */
    public static Cut cut(TensorView src, TensorView dst) {
        long[] dims = Extents.toArray(src.dims());
        Key key = new Key(pieceMaps(src), pieceMaps(dst), Arrays.stream(dims).boxed().toList());
        Geometry geometry = CUTS.get(key);
        if (geometry == null) {
            DomainBoxes.TooManyBoxes refused = REFUSED.get(key);
            if (refused != null) {
                throw refused;
            }
            try {
                geometry = geometry(src, dst, dims);
            } catch (DomainBoxes.TooManyBoxes many) {
                // Cutting up to the boxes a large copy is allowed costs about what its element
                // pass does: a copy of that shape again is not cut again.
                if (REFUSED.size() >= CAPACITY) {
                    REFUSED.clear();
                }
                REFUSED.put(key, many);
                throw many;
            }
            if (CUTS.size() >= CAPACITY) {
                CUTS.clear();
            }
            CUTS.put(key, geometry);
        }
        long[] at = geometry.dims();
        DomainBoxes.Regrouping regrouping = geometry.regrouping();
        boolean[] fromFills = fills(src);
        refuseUnwritable(geometry.destinationBoxes(), dst, regrouping, dims);
        TensorView from = regrouping != null && src.map() instanceof ViewMap.Single ? regrouped(src, regrouping) : src;
        TensorView to = regrouping != null && dst.map() instanceof ViewMap.Single ? regrouped(dst, regrouping) : dst;
        StridedSide fromSide = StridedSide.of(from);
        StridedSide toSide = StridedSide.of(to);
        List<Pair> pairs = new ArrayList<>(geometry.parts().size());
        for (Part part : geometry.parts()) {
            Box box = part.box();
            // The whole of a one-piece destination is the called view, whose layout's gaps its own plan zeroes.
            Strides toStrides = part.destinationMap() == null && box.isWhole(at) ? null
                    : toSide.strides(part.destinationPiece(), part.destinationMap(), box);
            pairs.add(new Pair(box, part.sourcePiece(), part.destinationPiece(), fromFills[part.sourcePiece()],
                    fromSide.strides(part.sourcePiece(), part.sourceMap(), box), toStrides,
                    () -> restrict(from, part.sourcePiece(), part.sourceMap(), box, at),
                    () -> restrict(to, part.destinationPiece(), part.destinationMap(), box, at)));
        }
        refuseSharedSlots(dst);
        return new Cut(at, regrouping, List.copyOf(pairs));
    }

    /** Bands of rows a banded cut starts in; a band refused is halved, one of few boxes doubled. */
    private static final int FIRST_BANDS = 4;

    /** Tables of cuts past the ceiling ({@link #table}), as {@link #CUTS}. */
    private static final ConcurrentHashMap<Key, BoxTable> TABLES = new ConcurrentHashMap<>();

    /** Cuts whose table would pass {@link BoxTable#MAX_BYTES}: not tried again. */
    private static final ConcurrentHashMap<Key, Boolean> TOO_LARGE = new ConcurrentHashMap<>();

    /** The most bytes {@link #TABLES} holds together before starting over. */
    private static final long TABLES_BYTES = 4 * BoxTable.MAX_BYTES;

    /** Bytes of the tables in {@link #TABLES}, about (a race may count one twice: it only clears sooner). */
    private static final java.util.concurrent.atomic.AtomicLong TABLED = new java.util.concurrent.atomic.AtomicLong();

    /** {@return what a cut of {@code src} into {@code dst} depends on} */
    private static Key key(TensorView src, TensorView dst, long[] dims) {
        return new Key(pieceMaps(src), pieceMaps(dst), Arrays.stream(dims).boxed().toList());
    }

    /**
     * {@return the table of the copy of {@code src} into {@code dst} (a cut past
     * {@link DomainBoxes#CEILING}) kept from an earlier copy or explanation of views with the same
     * pieces' maps and dims, or null when none is kept}
     */
    public static BoxTable keptTable(TensorView src, TensorView dst) {
        return TABLES.get(key(src, dst, Extents.toArray(src.dims())));
    }

    /**
     * {@return the boxes copying {@code src} into {@code dst} as a table kept between copies, in
     * the views' own dims, or null when it would hold more than {@link BoxTable#MAX_BYTES} (then
     * {@link #forEachBand} cuts it a band at a time each copy)} A copy whose cut passes
     * {@link DomainBoxes#CEILING} boxes is cut a band of rows at a time (a row that alone passes
     * it, a band of its next dimension at a time, and so on inward), each band's boxes put into
     * the table's arrays and dropped before the next band is cut. The table depends on the pieces'
     * maps and the dims alone and is kept ({@link #keptTable}); buffers, fills and read-only memory
     * are read each copy ({@link BoxTable#pass}). Reads and writes no element.
     *
     * @throws IllegalArgumentException for an index that no piece holds
     * @throws ArithmeticException when an index computation overflows a long
     */
    public static BoxTable table(TensorView src, TensorView dst) {
        long[] dims = Extents.toArray(src.dims());
        Key key = key(src, dst, dims);
        BoxTable table = TABLES.get(key);
        if (table != null || TOO_LARGE.containsKey(key)) {
            return table;
        }
        BoxTable.Builder builder = new BoxTable.Builder(dims, BoxTable.maxBytes());
        List<List<IndexingMap>> maps = simplifiedMaps(key, src, dst);
        try {
            bands(dims, within -> {
                List<Part> parts = bandParts(src, dst, dims, maps, within);
                builder.addAll(parts);
                return parts.size();
            });
        } catch (BoxTable.TooLarge large) {
            if (TOO_LARGE.size() >= CAPACITY) {
                TOO_LARGE.clear();
            }
            TOO_LARGE.put(key, Boolean.TRUE);
            return null;
        }
        table = builder.build();
        if (TABLES.size() >= CAPACITY || TABLED.addAndGet(table.bytes()) > TABLES_BYTES) {
            TABLES.clear();
            TABLED.set(table.bytes());
        }
        TABLES.put(key, table);
        return table;
    }

    /**
     * Cuts the copy of {@code src} into {@code dst} a band at a time, as {@link #table} does, and
     * gives each band's boxes to {@code each} as a table of their own, dropped before the next band
     * is cut: a cut whose table would pass {@link BoxTable#MAX_BYTES} is so copied, nothing kept.
     * The destination's refusals are the caller's to check first: {@link #refuseUnwritable(TensorView, TensorView)}.
     *
     * @throws IllegalArgumentException for an index that no piece holds
     * @throws ArithmeticException when an index computation overflows a long
     */
    public static void forEachBand(TensorView src, TensorView dst, java.util.function.Consumer<BoxTable> each) {
        long[] dims = Extents.toArray(src.dims());
        List<List<IndexingMap>> maps = simplifiedMaps(key(src, dst, dims), src, dst);
        bands(dims, within -> {
            List<Part> parts = bandParts(src, dst, dims, maps, within);
            BoxTable.Builder builder = new BoxTable.Builder(dims, Long.MAX_VALUE);
            builder.addAll(parts);
            each.accept(builder.build());
            return parts.size();
        });
    }

    /**
     * Refuses a destination that may not be written where {@code src} is copied into it: pieces
     * that write one slot from two indices, and the first index (in row-major order) on a pad's
     * fill or on read-only memory, in the element path's words, found a band of the destination's
     * own boxes at a time. For a copy cut a band at a time with no table ({@link #forEachBand}):
     * refusals are found before anything is written.
     *
     * @throws IllegalArgumentException for a refused destination index
     */
    public static void refuseUnwritable(TensorView src, TensorView dst) {
        refuseSharedSlots(dst);
        boolean[] refused = refusedPieces(dst);
        if (refused == null) {
            return;
        }
        long[] dims = Extents.toArray(src.dims());
        List<IndexingMap> maps = simplifiedMaps(key(src, dst, dims), src, dst).get(1);
        bands(dims, within -> {
            Side side = side(dst, dims, DomainBoxes.CEILING, within, maps);
            DomainBoxes.Placed first = firstOn(side.boxes(), refused);
            if (first != null) {
                throw refusal(dst, first.piece(), first.box().start());
            }
            return side.boxes().size();
        });
    }

    /**
     * {@return per piece of {@code dst} whether a write there is refused (a pad's fill or read-only
     * memory), or null when no piece refuses}
     */
    static boolean[] refusedPieces(TensorView dst) {
        List<ViewMap.Single> pieces = dst.map().pieces();
        boolean[] fills = fills(dst);
        boolean[] refused = new boolean[pieces.size()];
        boolean any = false;
        for (int p = 0; p < refused.length; p++) {
            refused[p] = fills[p] || pieces.get(p).buffer().isReadOnly();
            any |= refused[p];
        }
        return any ? refused : null;
    }

    /** {@return the box of {@code boxes} starting first in row-major order on a refused piece, or null} */
    private static DomainBoxes.Placed firstOn(List<DomainBoxes.Placed> boxes, boolean[] refused) {
        DomainBoxes.Placed first = null;
        for (DomainBoxes.Placed b : boxes) {
            if (refused[b.piece()] && (first == null || Arrays.compare(b.box().start(), first.box().start()) < 0)) {
                first = b;
            }
        }
        return first;
    }

    /** {@return the element path's refusal of a write at {@code index} of {@code dst}, on its piece {@code piece}} */
    static IllegalArgumentException refusal(TensorView dst, int piece, long[] index) {
        IllegalArgumentException refusal = ViewReader.of(dst.map()).writeRefusal(piece, index.clone(), dst);
        return refusal != null ? refusal : ViewReader.readOnly(index.clone(), dst);
    }

    /** {@return the pieces' maps simplified, both sides (null for one piece), kept by {@code key}} */
    private static List<List<IndexingMap>> simplifiedMaps(Key key, TensorView src, TensorView dst) {
        List<List<IndexingMap>> maps = SIMPLIFIED.get(key);
        if (maps == null) {
            // Simplifying a piece's map costs about a millisecond: not again for every band and copy.
            maps = java.util.Arrays.asList(simplified(src), simplified(dst));
            if (SIMPLIFIED.size() >= CAPACITY) {
                SIMPLIFIED.clear();
            }
            SIMPLIFIED.put(key, maps);
        }
        return maps;
    }

    /** {@return the parts of the copy inside {@code within}, sorted by their first index} */
    private static List<Part> bandParts(TensorView src, TensorView dst, long[] dims, List<List<IndexingMap>> maps,
                                        Box within) {
        Side in = side(src, dims, DomainBoxes.CEILING, within, maps.get(0));
        Sides sides = new Sides(in, side(dst, dims, DomainBoxes.CEILING - in.boxes().size(), within, maps.get(1)), dims,
                null);
        return pairUp(src, dst, sides, within.elementCount()).parts();
    }

    /** Cuts a band: {@return the boxes cut} @throws DomainBoxes.TooManyBoxes past the ceiling */
    @FunctionalInterface
    private interface BandCut {
        int cut(Box within);
    }

    /**
     * Gives {@code cut} the view's indices a band at a time, in row-major order: ranges of rows of
     * the first dimension, a band refused halved and one of few boxes doubled for the next; a
     * single row refused is given a range of its next dimension at a time the same way (and so on
     * inward, at most the rank deep: a single index is at most a box a piece).
     */
    private static void bands(long[] dims, BandCut cut) {
        bands(dims, new long[0], cut);
    }

    private static void bands(long[] dims, long[] prefix, BandCut cut) {
        int k = prefix.length;
        long rows = dims[k];
        long step = Math.max(1, rows / FIRST_BANDS);
        long[] ones = new long[dims.length];
        Arrays.fill(ones, 1);
        long from = 0;
        while (from < rows) {
            long to = Math.min(rows, from + step);
            long[] start = new long[dims.length];
            long[] count = dims.clone();
            for (int d = 0; d < k; d++) {
                start[d] = prefix[d];
                count[d] = 1;
            }
            start[k] = from;
            count[k] = to - from;
            int boxes;
            try {
                boxes = cut.cut(new Box(start, ones, count));
            } catch (DomainBoxes.TooManyBoxes many) {
                if (to - from > 1) {
                    step = Math.max(1, (to - from) / 2);
                    continue;
                }
                if (k + 1 == dims.length) {
                    throw many;
                }
                long[] inner = Arrays.copyOf(prefix, k + 1);
                inner[k] = from;
                bands(dims, inner, cut);
                from = to;
                continue;
            }
            if (boxes < DomainBoxes.CEILING / 8) {
                step = Math.min(rows, 2 * step);
            }
            from = to;
        }
    }

    /**
     * {@return box {@code box} of a copy as a pair: the one-piece views made when first asked, each
     * side's strides where it is strided over whole bytes} For a box of a {@link BoxTable} planned
     * as a copy of its own.
     */
    static Pair pair(TensorView src, StridedSide from, TensorView dst, StridedSide to, Box box, int sourcePiece,
                     int destinationPiece, boolean sourceFill, InBox sourceMap, InBox destinationMap, long[] dims) {
        return new Pair(box, sourcePiece, destinationPiece, sourceFill,
                from.strides(sourcePiece, sourceMap, box),
                to.strides(destinationPiece, destinationMap, box),
                () -> restrict(src, sourcePiece, sourceMap, box, dims),
                () -> restrict(dst, destinationPiece, destinationMap, box, dims));
    }

    /**
     * A side of the copy as far as its boxes' strides need: its pieces' buffers (listed once: a
     * concatenation lists them anew each time it is asked) and, for a view of one piece, its
     * strided layout; null fields where the side is not strided over whole bytes.
     */
    record StridedSide(List<ViewMap.Single> pieces, StridedLayout layout, MemoryBuffer buffer) {
        static StridedSide of(TensorView view) {
            if (view.access().storageBits() < 8) {
                return new StridedSide(null, null, null);
            }
            if (view.map() instanceof ViewMap.Single) {
                return new StridedSide(null, view.stridedLayout().orElse(null), view.buffer());
            }
            return new StridedSide(view.map().pieces(), null, null);
        }

        /** {@return piece {@code p} over {@code box} as strides, or null when it is not strided (or packed)} */
        Strides strides(int p, InBox map, Box box) {
            if (map != null) {
                return pieces != null && map instanceof InBox.Strides(long[] sizes, long[] strides, long offset)
                        ? new Strides(pieces.get(p).buffer(), strides, offset) : null;
            }
            if (layout == null) {
                return null;
            }
            long[] strides = new long[box.rank()];
            long offset = boxed(layout, box, strides);
            return new Strides(buffer, strides, offset);
        }
    }

    /** {@return {@code view}'s elements regrouped: its dims taken in the regrouping's order, reshaped to its dims} */
    private static TensorView regrouped(TensorView view, DomainBoxes.Regrouping regrouping) {
        TensorView ordered = regrouping.keepsOrder() ? view : Ops.transpose(view, regrouping.order());
        return Ops.reshape(ordered, regrouping.dims());
    }

    /** {@return the raw maps of {@code view}'s pieces, or an empty list for a view of one piece} */
    private static List<IndexingMap> pieceMaps(TensorView view) {
        if (view.map() instanceof ViewMap.Single) {
            return List.of();
        }
        List<ViewMap.Single> pieces = view.map().pieces();
        List<IndexingMap> maps = new ArrayList<>(pieces.size());
        for (ViewMap.Single p : pieces) {
            maps.add(p.map());
        }
        return maps;
    }

    /** {@return the boxes both sides meet in, and each side's map of each} */
    private static Geometry geometry(TensorView src, TensorView dst, long[] dims) {
        // A reshape's constraints read the same before simplification: candidates need no simplified map.
        List<IndexingMap> all = new ArrayList<>(pieceMaps(src));
        all.addAll(pieceMaps(dst));
        int limit = DomainBoxes.CEILING;
        Sides best = null;
        for (DomainBoxes.Regrouping r : DomainBoxes.regroupings(all, dims)) {
            try {
                Sides c = sides(regrouped(src, r), regrouped(dst, r), r.dims(), r,
                        best == null ? limit : best.boxes() - 1);
                if (best == null || c.boxes() < best.boxes()) {
                    best = c;
                }
            } catch (DomainBoxes.TooManyBoxes | ArithmeticException notBetter) {
                // this regrouping cuts no fewer boxes (or cannot be cut): the others are tried
            }
        }
        Sides chosen = best;
        // Fewer boxes than a box a piece cannot be: then the view's own dims are not cut at all.
        if (best == null || best.boxes() > src.map().pieces().size() + dst.map().pieces().size()) {
            try {
                Sides own = sides(src, dst, dims, null, best == null ? limit : best.boxes());
                if (best == null || own.boxes() <= best.boxes()) {
                    chosen = own;
                }
            } catch (DomainBoxes.TooManyBoxes many) {
                if (best == null) {
                    throw many;
                }
            }
        }
        return pairUp(src, dst, chosen, src.elementCount());
    }

    /** {@return the geometry of both sides' boxes {@code chosen}, which hold {@code n} indices together} */
    private static Geometry pairUp(TensorView src, TensorView dst, Sides chosen, long n) {
        Side from = chosen.from();
        Side to = chosen.to();
        long[] at = chosen.dims();
        List<Part> parts = new ArrayList<>(Math.max(from.boxes().size(), to.boxes().size()));
        long covered = 0;
        // A side of one piece is one box, the whole of what is cut, holding each of the other side's boxes.
        boolean fromWhole = from.maps() == null;
        boolean toWhole = to.maps() == null;
        for (DomainBoxes.Placed s : from.boxes()) {
            for (DomainBoxes.Placed d : to.boxes()) {
                Box box = toWhole ? s.box() : fromWhole ? d.box() : s.box().intersect(d.box());
                if (box != null) {
                    covered = Math.addExact(covered, box.elementCount());
                    parts.add(new Part(box, s.piece(), d.piece(), inBox(from, s.piece(), box),
                            inBox(to, d.piece(), box)));
                }
            }
        }
        if (covered != n) {
            throw new IllegalArgumentException("the pieces of " + src + " and " + dst + " hold " + covered + " of their "
                    + n + " indices together: a view whose pieces do not cover it cannot be copied");
        }
        return new Geometry(at, chosen.regrouping(), rowMajor(parts, at), to.boxes());
    }

    private static int rowMajor(Part a, Part b) {
        return Arrays.compare(a.box().start(), b.box().start());
    }

    /**
     * {@return {@code parts} sorted by their first index in row-major order} Disjoint boxes start
     * at distinct indices, so each is sorted by its start's row-major position, packed with its
     * place in the list into one long where both fit (a primitive sort: tens of thousands of
     * boxes compared by their starts' arrays took longer than cutting them).
     */
    private static List<Part> rowMajor(List<Part> parts, long[] dims) {
        int n = parts.size();
        int bits = 32 - Integer.numberOfLeadingZeros(n);
        double elements = 1;
        for (long d : dims) {
            elements *= d;
        }
        if (n < 2 || elements >= 0x1p62 / (1L << bits)) {
            List<Part> sorted = new ArrayList<>(parts);
            sorted.sort(PiecePairs::rowMajor);
            return List.copyOf(sorted);
        }
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            long[] start = parts.get(i).box().start();
            long at = 0;
            for (int d = 0; d < dims.length; d++) {
                at = at * dims[d] + start[d];
            }
            keys[i] = at << bits | i;
        }
        Arrays.sort(keys);
        Part[] sorted = new Part[n];
        long mask = (1L << bits) - 1;
        for (int i = 0; i < n; i++) {
            sorted[i] = parts.get((int) (keys[i] & mask));
        }
        return List.of(sorted);
    }

    private static Sides sides(TensorView src, TensorView dst, long[] dims, DomainBoxes.Regrouping regrouping, int limit) {
        return sides(src, dst, dims, regrouping, limit, Box.whole(dims));
    }

    /** {@return both sides cut inside {@code within}} */
    private static Sides sides(TensorView src, TensorView dst, long[] dims, DomainBoxes.Regrouping regrouping, int limit,
                               Box within) {
        Side in = side(src, dims, limit, within, null);
        return new Sides(in, side(dst, dims, limit - in.boxes().size(), within, null), dims, regrouping);
    }

    /** {@return {@code view}'s pieces' maps simplified, or null for a view of one piece} */
    private static List<IndexingMap> simplified(TensorView view) {
        if (view.map() instanceof ViewMap.Single) {
            return null;
        }
        List<ViewMap.Single> pieces = view.map().pieces();
        List<IndexingMap> maps = new ArrayList<>(pieces.size());
        for (ViewMap.Single p : pieces) {
            maps.add(p.map().simplify());
        }
        return maps;
    }

    /**
     * @param within the indices to cut (a box of step 1: the whole view, or a band of it)
     * @param simplified the view's pieces' maps simplified, or null to simplify them here
     */
    private static Side side(TensorView view, long[] dims, int limit, Box within, List<IndexingMap> simplified) {
        if (view.map() instanceof ViewMap.Single) {
            // Its map holds every index: no map is simplified, and its box is the view (or the band).
            return new Side(view, List.of(new DomainBoxes.Placed(within, 0)), null);
        }
        List<IndexingMap> maps = simplified != null ? simplified : simplified(view);
        return new Side(view, DomainBoxes.of(maps, dims, limit, within), maps);
    }

    /** {@return which of {@code view}'s pieces are a pad's fill, in lookup order} */
    static boolean[] fills(TensorView view) {
        List<ViewMap.Single> pieces = view.map().pieces();
        boolean[] fills = new boolean[pieces.size()];
        markFills(view.map(), pieces, fills);
        return fills;
    }

    /** Marks the pieces of {@code map} that are a pad's fill, by identity: {@link ViewMap#pieces()} lists the same parts. */
    private static void markFills(ViewMap map, List<ViewMap.Single> pieces, boolean[] fills) {
        switch (map) {
            case ViewMap.Single s -> {
            }
            case ViewMap.Padded p -> {
                markFills(p.data(), pieces, fills);
                for (int i = 0; i < pieces.size(); i++) {
                    fills[i] |= pieces.get(i) == p.fill();
                }
            }
            case ViewMap.Concatenated c -> c.parts().forEach(part -> markFills(part, pieces, fills));
        }
    }

    /**
     * {@return piece {@code p}'s map over {@code box}, dims the box's counts: its map with the
     * box's start and step put in for each dimension, its constraints dropped (the box is inside
     * its domain); null for a side of one piece, which is sliced instead}
     */
    private static InBox inBox(Side side, int p, Box box) {
        if (side.maps() == null) {
            return null;
        }
        IndexingMap map = side.maps().get(p);
        int rank = box.rank();
        if (map.results().size() == 1 && map.rangeVars().isEmpty() && map.runtimeVars().isEmpty()) {
            long[] linear = DomainBoxes.linearInBox(map.results().getFirst(), box);
            if (linear != null) {
                // Strides over the box (a staircase's row segment, inside one row of a part):
                // read off by interval arithmetic, without composing and simplifying the map,
                // which costs tens of microseconds a box for a staircase's thousands of rows; kept
                // as strides, since a view of them is what the box is copied through.
                return new InBox.Strides(box.count(), Arrays.copyOf(linear, rank), linear[rank]);
            }
        }
        List<Variable> vars = new ArrayList<>(rank);
        List<AffineExpr> at = new ArrayList<>(rank);
        for (int d = 0; d < rank; d++) {
            vars.add(Variable.of(0, box.count()[d] - 1));
            at.add(AffineExpr.dim(d).times(box.step()[d]).plus(box.start()[d]));
        }
        IndexingMap shift = IndexingMap.of(vars, List.of(), at);
        IndexingMap composed = IndexingMap.compose(map, shift);
        return new InBox.General(IndexingMap.of(composed.dims(), List.of(), composed.results()).simplify());
    }

    /**
     * {@return piece {@code p} of {@code view} over {@code box}: one piece, dims the box's counts}
     * A view of one piece (regrouped to {@code dims} already) is sliced, by stride arithmetic when
     * strided; a piece of several is its buffer through {@code map}.
     */
    private static TensorView restrict(TensorView view, int p, InBox map, Box box, long[] dims) {
        if (map == null) {
            if (box.isWhole(dims)) {
                return view;
            }
            TensorView strided = stridedSlice(view, box);
            if (strided != null) {
                return strided;
            }
            long[] limit = new long[dims.length];
            for (int d = 0; d < dims.length; d++) {
                limit[d] = Math.addExact(box.last(d), 1);
            }
            return Ops.slice(view, box.start(), limit, box.step());
        }
        MemoryBuffer buffer = view.map().pieces().get(p).buffer();
        if (view.access().storageBits() >= 8 && map instanceof InBox.Strides(long[] sizes, long[] strides, long offset)) {
            // Strides already: the view is made by them, and its copy side read off them.
            return TensorView.strided(buffer, view.access(), StridedLayout.of(sizes, strides, offset));
        }
        long[] strides = new long[dims.length];
        long[] offset = new long[1];
        IndexingMap m = map.map();
        if (view.access().storageBits() >= 8 && Linear.extract(m.results().getFirst(), strides, offset)) {
            return TensorView.strided(buffer, view.access(), StridedLayout.of(box.count(), strides, offset[0]));
        }
        return TensorView.over(new ViewMap.Single(buffer, m), view.access(), box.count());
    }

    /**
     * {@return {@code view} over {@code box} by stride arithmetic, as {@link Ops#slice} makes it,
     * or null unless {@code view} is strided with non-negative strides over whole bytes} A slice
     * composes its map and checks it, which for thousands of boxes costs more than the cut.
     */
    private static TensorView stridedSlice(TensorView view, Box box) {
        if (view.access().storageBits() < 8) {
            return null;
        }
        StridedLayout layout = view.stridedLayout().orElse(null);
        if (layout == null || layout.hasNegativeStrides()) {
            return null;
        }
        long[] strides = new long[box.rank()];
        long offset = boxed(layout, box, strides);
        return TensorView.strided(view.buffer(), view.access(), StridedLayout.of(box.count(), strides, offset));
    }

    /**
     * {@return the element offset of {@code box}'s first index under {@code layout}} Fills
     * {@code strides} with the layout's stride times the box's step in each dim (overflow-checked).
     */
    private static long boxed(StridedLayout layout, Box box, long[] strides) {
        long offset = layout.offset();
        for (int d = 0; d < strides.length; d++) {
            long stride = layout.strides().get(d);
            offset = Math.addExact(offset, Math.multiplyExact(stride, box.start()[d]));
            strides[d] = Math.multiplyExact(stride, box.step()[d]);
        }
        return offset;
    }

    /**
     * Refuses a destination box on a pad's fill or on read-only memory, at the first such index in
     * logical order, in the words of the element path ({@link ViewReader#writeRefusal}).
     */
    private static void refuseUnwritable(List<DomainBoxes.Placed> boxes, TensorView dst,
                                         DomainBoxes.Regrouping regrouping, long[] dims) {
        if (dst.map() instanceof ViewMap.Single) {
            return; // one piece: its plan refuses read-only memory in the words of every one-piece copy
        }
        boolean[] refused = refusedPieces(dst);
        if (refused == null) {
            return;
        }
        DomainBoxes.Placed placed = firstOn(boxes, refused);
        if (placed != null) {
            long[] first = placed.box().start();
            int piece = placed.piece();
            ViewReader reader = ViewReader.of(dst.map());
            long[] index;
            if (regrouping == null || regrouping.keepsOrder()) {
                // A reshape keeps row-major order: the first index in the regrouped dims is the first in the view's.
                index = regrouping == null ? first : regrouping.viewIndex(first, dims);
            } else {
                // A transpose does not: the failure path looks for the first in the view's order.
                index = firstUnwritable(reader, dims);
                piece = reader.pieceOf(index);
            }
            throw refusal(dst, piece, index);
        }
    }

    /** {@return the first index in row-major order on a pad's fill or read-only memory; one is known to exist} */
    private static long[] firstUnwritable(ViewReader reader, long[] dims) {
        long[] index = new long[dims.length];
        while (true) {
            int p = reader.pieceOf(index);
            if (p >= 0 && (reader.isFill(p) || reader.buffer(p).isReadOnly())) {
                return index;
            }
            int d = dims.length - 1;
            while (d >= 0 && ++index[d] == dims[d]) {
                index[d--] = 0;
            }
            if (d < 0) {
                throw new IllegalStateException("a refused box holds no refused index");
            }
        }
    }

    /**
     * Refuses a destination whose pieces share a buffer and write one slot from two indices (a
     * concatenation of a view with itself), visiting every index as the element path does; pieces
     * over one buffer that write different slots (two halves of it) pass.
     */
    static void refuseSharedSlots(TensorView dst) {
        List<ViewMap.Single> pieces = dst.map().pieces();
        boolean shared = false;
        for (int i = 0; i < pieces.size() && !shared; i++) {
            for (int j = 0; j < i && !shared; j++) {
                shared = pieces.get(i).buffer().segment().asOverlappingSlice(pieces.get(j).buffer().segment()).isPresent();
            }
        }
        if (shared) {
            DistinctSlots.Repeat repeat = DistinctSlots.firstRepeat(dst);
            if (repeat != null) {
                throw Errors.overlapsItself("destination " + dst + " writes " + repeat + " to one slot");
            }
        }
    }
}
