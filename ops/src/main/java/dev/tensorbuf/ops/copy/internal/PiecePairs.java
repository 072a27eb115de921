package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;
import dev.tensorbuf.views.internal.DistinctSlots;
import dev.tensorbuf.views.internal.DomainBoxes;
import dev.tensorbuf.views.internal.DomainBoxes.Box;
import dev.tensorbuf.views.internal.ViewReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Pairs the pieces of a copy's two views by domain: each side's index space is cut into disjoint
 * boxes, each with its one piece ({@link DomainBoxes}: a piece holds its domain minus those of the
 * pieces before it), and every non-empty intersection of a source box with a destination box is
 * one pair: the two one-piece views of that box (the piece's buffer through its map restricted to
 * the box), which the engine plans as it plans any two one-piece views. A pad's fill is a piece
 * like the others (a constant map: a broadcast); a concatenation is pieces with disjoint domains;
 * a transpose, reverse, strided slice, broadcast or reshape over them is already in their maps.
 * Nothing asks which op made a view, and nothing recurses: the pairs are a flat list, run in
 * order (row-major by their first index).
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
     * One box of the copy and the one-piece views that copy it.
     *
     * @param box the logical indices
     * @param sourcePiece the source's piece holding the box, in lookup order
     * @param destinationPiece the destination's piece holding it
     * @param sourceFill whether the source's piece is a pad's fill
     * @param src the source restricted to the box, one piece
     * @param dst the destination restricted to the box, one piece
     */
    public record Pair(Box box, int sourcePiece, int destinationPiece, boolean sourceFill, TensorView src,
                       TensorView dst) {
    }

    /** One side cut into boxes: each box's piece, and the maps (simplified) the boxes came from. */
    private record Side(TensorView view, List<DomainBoxes.Placed> boxes, List<ViewMap.Single> pieces,
                        List<IndexingMap> maps, boolean[] fills) {
    }

    /**
     * {@return the pairs copying {@code src} into {@code dst} (same dims, at least one element),
     * sorted by their first index in row-major order} Reads and writes no element.
     *
     * @throws IllegalArgumentException for a destination index on a pad's fill or read-only
     *     memory, or two destination indices on one slot, or an index that no piece holds
     * @throws ArithmeticException when an index computation overflows a long
     */
    public static List<Pair> of(TensorView src, TensorView dst) {
        long[] dims = Extents.toArray(src.dims());
        Side from = side(src, dims);
        Side to = side(dst, dims);
        refuseUnwritable(to);
        List<Pair> pairs = new ArrayList<>();
        long covered = 0;
        for (DomainBoxes.Placed s : from.boxes()) {
            for (DomainBoxes.Placed d : to.boxes()) {
                Box box = s.box().intersect(d.box());
                if (box != null) {
                    covered = Math.addExact(covered, box.elementCount());
                    pairs.add(new Pair(box, s.piece(), d.piece(), from.fills()[s.piece()],
                            restrict(from, s.piece(), box, dims), restrict(to, d.piece(), box, dims)));
                }
            }
        }
        long n = src.elementCount();
        if (covered != n) {
            throw new IllegalArgumentException("the pieces of " + src + " and " + dst + " hold " + covered + " of their "
                    + n + " indices together: a view whose pieces do not cover it cannot be copied");
        }
        pairs.sort(PiecePairs::rowMajor);
        refuseSharedSlots(to);
        return List.copyOf(pairs);
    }

    private static int rowMajor(Pair a, Pair b) {
        return Arrays.compare(a.box().start(), b.box().start());
    }

    private static Side side(TensorView view, long[] dims) {
        ViewMap map = view.map();
        List<ViewMap.Single> pieces = map.pieces();
        boolean[] fills = new boolean[pieces.size()];
        if (map instanceof ViewMap.Single) {
            // Its map holds every index: no map is simplified, and its box is the view.
            return new Side(view, List.of(new DomainBoxes.Placed(Box.whole(dims), 0)), pieces, null, fills);
        }
        markFills(map, pieces, fills);
        List<IndexingMap> maps = new ArrayList<>(pieces.size());
        for (ViewMap.Single p : pieces) {
            maps.add(p.map().simplify());
        }
        return new Side(view, DomainBoxes.of(maps, dims), pieces, maps, fills);
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
     * {@return piece {@code p} of {@code side}'s view over {@code box}: one piece, dims the box's
     * counts} A one-piece view is sliced (stride arithmetic for a strided one); a piece of several
     * is its map with the box's start and step put in for each dimension, its constraints dropped
     * (the box is inside its domain).
     */
    private static TensorView restrict(Side side, int p, Box box, long[] dims) {
        TensorView view = side.view();
        if (side.maps() == null) {
            if (box.isWhole(dims)) {
                return view;
            }
            long[] limit = new long[dims.length];
            for (int d = 0; d < dims.length; d++) {
                limit[d] = Math.addExact(box.last(d), 1);
            }
            return Ops.slice(view, box.start(), limit, box.step());
        }
        IndexingMap map = side.maps().get(p);
        List<Variable> vars = new ArrayList<>(dims.length);
        List<AffineExpr> at = new ArrayList<>(dims.length);
        for (int d = 0; d < dims.length; d++) {
            vars.add(Variable.of(0, box.count()[d] - 1));
            at.add(AffineExpr.dim(d).times(box.step()[d]).plus(box.start()[d]));
        }
        IndexingMap shift = IndexingMap.of(vars, List.of(), at);
        IndexingMap composed = IndexingMap.compose(map, shift);
        IndexingMap inBox = IndexingMap.of(composed.dims(), List.of(), composed.results()).simplify();
        return TensorView.over(new ViewMap.Single(side.pieces().get(p).buffer(), inBox), view.access(), box.count());
    }

    /**
     * Refuses a destination box on a pad's fill or on read-only memory, at the first such index in
     * logical order, in the words of the element path ({@link ViewReader#writeRefusal}).
     */
    private static void refuseUnwritable(Side to) {
        if (to.maps() == null) {
            return; // one piece: its plan refuses read-only memory in the words of every one-piece copy
        }
        long[] first = null;
        int piece = -1;
        for (DomainBoxes.Placed b : to.boxes()) {
            boolean refused = to.fills()[b.piece()] || to.pieces().get(b.piece()).buffer().isReadOnly();
            if (refused && (first == null || Arrays.compare(b.box().start(), first) < 0)) {
                first = b.box().start();
                piece = b.piece();
            }
        }
        if (first != null) {
            IllegalArgumentException refusal = ViewReader.of(to.view().map()).writeRefusal(piece, first.clone(), to.view());
            throw refusal != null ? refusal : ViewReader.readOnly(first.clone(), to.view());
        }
    }

    /**
     * Refuses a destination whose pieces share a buffer and write one slot from two indices (a
     * concatenation of a view with itself), visiting every index as the element path does; pieces
     * over one buffer that write different slots (two halves of it) pass.
     */
    private static void refuseSharedSlots(Side to) {
        List<ViewMap.Single> pieces = to.pieces();
        boolean shared = false;
        for (int i = 0; i < pieces.size() && !shared; i++) {
            for (int j = 0; j < i && !shared; j++) {
                shared = pieces.get(i).buffer().segment().asOverlappingSlice(pieces.get(j).buffer().segment()).isPresent();
            }
        }
        if (shared) {
            DistinctSlots.Repeat repeat = DistinctSlots.firstRepeat(to.view());
            if (repeat != null) {
                throw Errors.overlapsItself("destination " + to.view() + " writes " + repeat + " to one slot");
            }
        }
    }
}
