package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.Access;
import dev.tensorbuf.views.AffineRemap;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.Extents;
import dev.tensorbuf.views.PadRemap;
import dev.tensorbuf.views.ReshapeRemap;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.ViewOrigin;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Copies a view over several pieces (a pad, a concatenation, or a transpose, reverse, slice or
 * reshape of one) as planned copies of its parts, instead of element by element: each part of a
 * concatenated source into the slice of the destination it lands on; a pad's fill into the
 * destination's padding (a broadcast of the fill) and its source's surviving window into the
 * slice of the destination it lands on (strided by the interior padding); the matching slice of
 * the source into each part of a concatenated destination. A bijective op over such a view moves
 * to the other side as its inverse: {@code copy(transpose(S, p), D) == copy(S, transpose(D, p^-1))}.
 * Planning only: {@link #parts} says which part goes where, and the engine copies each part as
 * it copies any two views (so a part made of pieces splits again), and shows them in its
 * {@code explain}.
 *
 * <p>The result is the element path's ({@link ViewAdapter#copyElements}), refusals included: the
 * copy splits only when the element path would write without refusing the destination (one slot
 * per index, writable, no pad fill written), so its other refusals keep their words; a value the
 * destination type cannot hold stops a part's copy, and the engine names the first refused
 * element of the whole source afresh ({@link FirstRefused}). A tiled destination has its slots
 * zeroed first ({@link ViewAdapter#zeroTileSlots}), as the element path zeroes them. What cannot be split
 * this way (a broadcast or strided slice of a concatenation, a padded destination, sub-byte
 * storage, overflowing arithmetic) is left to the element path: {@link #parts} is empty.
 * {@snippet :
 * // u8[2^28] as two halves swapped: two parts of 2^27 bytes each, each a planned copy
 * PieceCopies.parts(Ops.concatenate(0, List.of(high, low)), dst, 0).orElseThrow().size(); // 2
 * }
 */
public final class PieceCopies {
    /**
     * Splits one inside the other past which the element path copies. A split moves an op to the
     * other side, and two moves can undo each other: a reshape moved from a source that does not
     * split (a strided slice of a concatenation) onto a destination that is a reshape of a
     * concatenation comes back as the same copy. Views nested that deep are not made by hand, and
     * the element path gives the same result.
     */
    public static final int MAX_NESTING = 64;

    private PieceCopies() {
    }

    /**
     * A part's copy: {@code src} into {@code dst}, same dims.
     *
     * @param src the part of the source
     * @param dst where it lands in the destination
     */
    public record Part(TensorView src, TensorView dst) {
    }

    /**
     * {@return the parts copying {@code src} into {@code dst}, in the order they must run (a pad's
     * fill before the window over it), when either is made of pieces; empty when they do not
     * split, or {@code nesting} splits enclose this one already: the element path copies them}
     * Reads and writes nothing.
     *
     * @param nesting the splits this copy is a part of
     */
    public static Optional<List<Part>> parts(TensorView src, TensorView dst, int nesting) {
        if (nesting >= MAX_NESTING || src.elementCount() == 0 || src.access().storageBits() < 8
                || dst.access().storageBits() < 8
                || src.dtype().kind() == DType.Kind.COMPLEX && dst.dtype().kind() != DType.Kind.COMPLEX) {
            return Optional.empty();
        }
        List<Part> parts;
        try {
            parts = split(src, dst);
        } catch (ArithmeticException overflow) {
            return Optional.empty();
        }
        if (parts == null || !writesEachSlotOnce(dst)) {
            return Optional.empty();
        }
        return Optional.of(List.copyOf(parts));
    }

    /** {@return the parts' copies, or null when neither side splits} */
    private static List<Part> split(TensorView src, TensorView dst) {
        Optional<ViewOrigin> from = pieces(src);
        if (from.isPresent()) {
            List<Part> parts = switch (from.get()) {
                case ViewOrigin.Joined(List<TensorView> ins, List<PadRemap> places) -> {
                    List<Part> out = new ArrayList<>(ins.size());
                    for (int k = 0; k < ins.size(); k++) {
                        out.add(new Part(ins.get(k), restrict(dst, places.get(k).low(), places.get(k).inputDims())));
                    }
                    yield out;
                }
                case ViewOrigin.Padded(TensorView source, PadRemap pad, TensorView fill) -> padParts(source, pad, fill, dst);
                case ViewOrigin.Remapped(TensorView source, AffineRemap a) -> {
                    SignedPermutation p = SignedPermutation.of(a, Extents.toArray(source.dims()));
                    TensorView box = p == null ? null : restrict(source, p.start(), p.size());
                    yield box == null || slicesOf(box, source) ? null : List.of(new Part(box, p.undo(dst)));
                }
                case ViewOrigin.Remapped(TensorView source, ReshapeRemap r) ->
                        List.of(new Part(source, Ops.reshape(dst, Extents.toArray(source.dims()))));
            };
            if (parts != null) {
                return parts;
            }
        }
        Optional<ViewOrigin> to = pieces(dst);
        if (to.isEmpty()) {
            return null;
        }
        return switch (to.get()) {
            case ViewOrigin.Joined(List<TensorView> outs, List<PadRemap> places) -> {
                List<Part> out = new ArrayList<>(outs.size());
                for (int k = 0; k < outs.size(); k++) {
                    out.add(new Part(restrict(src, places.get(k).low(), places.get(k).inputDims()), outs.get(k)));
                }
                yield out;
            }
            case ViewOrigin.Padded p -> null; // the element path refuses the write to the fill
            case ViewOrigin.Remapped(TensorView target, AffineRemap a) -> {
                SignedPermutation p = SignedPermutation.of(a, Extents.toArray(target.dims()));
                TensorView box = p == null ? null : restrict(target, p.start(), p.size());
                yield box == null || slicesOf(box, target) ? null : List.of(new Part(p.undo(src), box));
            }
            case ViewOrigin.Remapped(TensorView target, ReshapeRemap r) ->
                    List.of(new Part(Ops.reshape(src, Extents.toArray(target.dims())), target));
        };
    }

    /**
     * {@return whether {@code box} is {@link #restrict}'s slice of {@code view} itself} That is
     * where restrict cannot see through {@code view}'s op (a reshape over pieces): moving such a
     * box's op to the other side would give a copy of the same form, split again without end.
     */
    private static boolean slicesOf(TensorView box, TensorView view) {
        return box != view && ViewOrigin.of(box).orElse(null) instanceof ViewOrigin.Remapped(TensorView s, var op)
                && s == view;
    }

    /**
     * {@return the op {@code view} was made by when it is made of pieces: a pad, a concatenation,
     * or an op over such a view} Empty for a view over one buffer, however it was made.
     */
    private static Optional<ViewOrigin> pieces(TensorView view) {
        Optional<ViewOrigin> origin = ViewOrigin.of(view);
        if (origin.isPresent() && origin.get() instanceof ViewOrigin.Remapped(TensorView source, var op)
                && pieces(source).isEmpty()) {
            return Optional.empty();
        }
        return origin;
    }

    /**
     * The parts of a padded source's copy: the fill into the destination's padding, the source's
     * surviving window into the slice of the destination it lands on. Without interior padding the
     * padding is 2 * rank boxes around the window; with it, the fill is written everywhere first.
     */
    private static List<Part> padParts(TensorView source, PadRemap pad, TensorView fill, TensorView dst) {
        long[] n = pad.inputDims();
        long[] out = pad.outputDims();
        Window w = Window.of(n, pad.low(), pad.interior(), new long[n.length], out);
        List<Part> parts = new ArrayList<>();
        int rank = n.length;
        boolean interior = false;
        for (long i : pad.interior()) {
            interior |= i != 0;
        }
        if (w.empty() || interior) {
            parts.add(new Part(Ops.broadcast(fill, out), dst));
        } else {
            for (int d = 0; d < rank; d++) {
                long[] start = new long[rank];
                long[] size = out.clone();
                for (int e = 0; e < d; e++) {
                    start[e] = w.at()[e];
                    size[e] = w.count()[e];
                }
                long end = Math.addExact(w.at()[d], w.count()[d]);
                start[d] = 0;
                size[d] = w.at()[d];
                addFill(parts, fill, dst, start, size);
                start[d] = end;
                size[d] = out[d] - end;
                addFill(parts, fill, dst, start.clone(), size.clone());
            }
        }
        if (!w.empty()) {
            TensorView window = restrict(source, w.first(), w.count());
            if (interior) {
                long[] limit = new long[rank];
                long[] stride = new long[rank];
                for (int d = 0; d < rank; d++) {
                    stride[d] = Math.addExact(pad.interior()[d], 1);
                    limit[d] = Math.addExact(w.at()[d], Math.addExact(Math.multiplyExact(w.count()[d] - 1, stride[d]), 1));
                }
                parts.add(new Part(window, Ops.slice(dst, w.at(), limit, stride)));
            } else {
                parts.add(new Part(window, restrict(dst, w.at(), w.count())));
            }
        }
        return parts;
    }

    private static void addFill(List<Part> parts, TensorView fill, TensorView dst, long[] start, long[] size) {
        if (Extents.elementCount("fill box", size) > 0) {
            parts.add(new Part(Ops.broadcast(fill, size), restrict(dst, start, size)));
        }
    }

    /**
     * The elements of a pad's source that land in a box of its output, per dimension: source
     * elements {@code [first, first + count)}, the first at output index {@code at} (relative to
     * the box), the rest every {@code interior + 1}.
     */
    private record Window(long[] first, long[] count, long[] at, boolean empty) {
        /** {@return the window of a source of dims {@code n} padded by {@code low, interior} in the box {@code [start, start + size)}} */
        static Window of(long[] n, long[] low, long[] interior, long[] start, long[] size) {
            int rank = n.length;
            long[] first = new long[rank];
            long[] count = new long[rank];
            long[] at = new long[rank];
            boolean empty = false;
            for (int d = 0; d < rank; d++) {
                long step = Math.addExact(interior[d], 1);
                // Source j lands on output low + j * step; the box holds outputs [start, start + size - 1].
                long lo = Math.max(0, Math.ceilDiv(Math.subtractExact(start[d], low[d]), step));
                long hi = Math.min(n[d] - 1,
                        Math.floorDiv(Math.subtractExact(Math.addExact(start[d], size[d] - 1), low[d]), step));
                if (size[d] == 0 || hi < lo) {
                    empty = true;
                    continue;
                }
                first[d] = lo;
                count[d] = hi - lo + 1;
                at[d] = Math.subtractExact(Math.addExact(low[d], Math.multiplyExact(lo, step)), start[d]);
            }
            return new Window(first, count, at, empty);
        }
    }

    /**
     * {@return the box {@code [start, start + size)} of {@code view}, as {@code Ops.slice} gives it
     * but keeping the pieces: a concatenation's box is the concatenation of its parts' boxes, a
     * pad's box a pad of its source's window, an op's box the op over its source's box} So a
     * part's copy into (or from) a box of a view of pieces splits again.
     */
    static TensorView restrict(TensorView view, long[] start, long[] size) {
        long[] dims = Extents.toArray(view.dims());
        if (Arrays.equals(size, dims)) {
            return view;
        }
        long[] limit = new long[dims.length];
        long[] ones = new long[dims.length];
        boolean empty = false;
        for (int d = 0; d < dims.length; d++) {
            limit[d] = Math.addExact(start[d], size[d]);
            ones[d] = 1;
            empty |= size[d] == 0;
        }
        Optional<ViewOrigin> origin = empty ? Optional.empty() : pieces(view);
        if (origin.isEmpty()) {
            return Ops.slice(view, start, limit, ones);
        }
        return switch (origin.get()) {
            case ViewOrigin.Joined(List<TensorView> parts, List<PadRemap> places) -> {
                List<TensorView> inside = new ArrayList<>();
                int joined = 0;
                for (int k = 0; k < parts.size(); k++) {
                    long[] low = places.get(k).low();
                    long[] high = places.get(k).high();
                    long[] n = places.get(k).inputDims();
                    long[] from = new long[n.length];
                    long[] count = new long[n.length];
                    boolean meets = true;
                    for (int d = 0; d < n.length; d++) {
                        if (low[d] != 0 || high[d] != 0) {
                            joined = d;
                        }
                        long lo = Math.max(start[d], low[d]);
                        long hi = Math.min(limit[d], Math.addExact(low[d], n[d]));
                        meets &= lo < hi;
                        from[d] = lo - low[d];
                        count[d] = hi - lo;
                    }
                    if (meets) {
                        inside.add(restrict(parts.get(k), from, count));
                    }
                }
                yield inside.size() == 1 ? inside.getFirst() : TensorView.concatenated(joined, inside);
            }
            case ViewOrigin.Padded(TensorView source, PadRemap pad, TensorView fill) -> {
                Window w = Window.of(pad.inputDims(), pad.low(), pad.interior(), start, size);
                if (w.empty()) {
                    yield Ops.broadcast(fill, size);
                }
                long[] interior = pad.interior();
                long[] low = new long[size.length];
                long[] high = new long[size.length];
                boolean padded = false;
                for (int d = 0; d < size.length; d++) {
                    low[d] = w.at()[d];
                    // The last element lands at at + (count - 1) * step; the box ends at size - 1.
                    long last = Math.addExact(w.at()[d], Math.multiplyExact(w.count()[d] - 1, Math.addExact(interior[d], 1)));
                    high[d] = size[d] - 1 - last;
                    padded |= low[d] != 0 || high[d] != 0 || w.count()[d] > 1 && interior[d] != 0;
                }
                TensorView window = restrict(source, w.first(), w.count());
                yield padded ? window.padded(PadRemap.of(w.count(), low, high, interior), fill) : window;
            }
            case ViewOrigin.Remapped(TensorView source, AffineRemap a) -> {
                SignedPermutation p = SignedPermutation.of(a, Extents.toArray(source.dims()));
                if (p == null) {
                    yield Ops.slice(view, start, limit, ones);
                }
                long[][] box = p.sourceBox(start, size);
                yield p.redo(restrict(source, box[0], box[1]), size);
            }
            case ViewOrigin.Remapped r -> Ops.slice(view, start, limit, ones);
        };
    }

    /**
     * An affine remap that is a slice (unit steps), a transpose and a reverse in one: output
     * {@code o} reads source dimension {@code perm[o]} forwards or backwards ({@code reversed[o]}).
     * Such an op is one-to-one from its output onto a box of its source, so a copy may apply its
     * inverse to the other side instead.
     *
     * @param perm the source dimension each output dimension reads
     * @param reversed whether it reads it backwards
     * @param start the source box read, per source dimension
     * @param size its sizes, per source dimension
     * @param outDims the output dims
     */
    private record SignedPermutation(int[] perm, boolean[] reversed, long[] start, long[] size, long[] outDims) {
        /** {@return {@code a} over source dims {@code n} as a signed permutation, or null when it is none} */
        static SignedPermutation of(AffineRemap a, long[] n) {
            int rank = n.length;
            if (a.inputRank() != rank || a.outputRank() != rank) {
                return null;
            }
            long[] outDims = a.outputDims();
            int[] perm = new int[rank];
            Arrays.fill(perm, -1);
            boolean[] reversed = new boolean[rank];
            long[] start = new long[rank];
            long[] size = new long[rank];
            for (int in = 0; in < rank; in++) {
                int reads = -1;
                for (int o = 0; o < rank; o++) {
                    long c = a.coefficient(in, o);
                    if (c != 0) {
                        if (reads >= 0 || c != 1 && c != -1) {
                            return null;
                        }
                        reads = o;
                    }
                }
                if (reads < 0 || perm[reads] >= 0) {
                    return null;
                }
                perm[reads] = in;
                reversed[reads] = a.coefficient(in, reads) == -1;
                size[in] = outDims[reads];
                // Forwards, output 0 reads the offset; backwards, output size - 1 reads the lowest.
                start[in] = reversed[reads] ? Math.subtractExact(a.offset(in), outDims[reads] - 1) : a.offset(in);
            }
            return new SignedPermutation(perm, reversed, start, size, outDims);
        }

        /** {@return the box of the source the output box {@code [from, from + count)} reads: starts, then sizes} */
        long[][] sourceBox(long[] from, long[] count) {
            int rank = perm.length;
            long[] s = new long[rank];
            long[] n = new long[rank];
            for (int o = 0; o < rank; o++) {
                int in = perm[o];
                n[in] = count[o];
                s[in] = reversed[o]
                        ? Math.addExact(start[in], size[in] - Math.addExact(from[o], count[o]))
                        : Math.addExact(start[in], from[o]);
            }
            return new long[][] {s, n};
        }

        /** {@return this op over {@code box}, a view of the source box, giving output dims {@code dims}} */
        TensorView redo(TensorView box, long[] dims) {
            int rank = perm.length;
            int[] reads = new int[rank];
            long[] scales = new long[rank];
            long[] offsets = new long[rank];
            boolean identity = true;
            for (int o = 0; o < rank; o++) {
                reads[perm[o]] = o;
                scales[perm[o]] = reversed[o] ? -1 : 1;
                offsets[perm[o]] = reversed[o] ? dims[o] - 1 : 0;
                identity &= perm[o] == o && !reversed[o];
            }
            return identity ? box : box.remap(AffineRemap.ofTerms(dims, reads, scales, offsets));
        }

        /**
         * {@return the other side of a copy, {@code other} (of the output dims), read through this
         * op's inverse: of the source box's dims} Copying the source box into (or from) it copies
         * what the op's view would.
         */
        TensorView undo(TensorView other) {
            int rank = perm.length;
            long[] scales = new long[rank];
            long[] offsets = new long[rank];
            boolean identity = true;
            for (int o = 0; o < rank; o++) {
                scales[o] = reversed[o] ? -1 : 1;
                offsets[o] = reversed[o] ? outDims[o] - 1 : 0;
                identity &= perm[o] == o && !reversed[o];
            }
            return identity ? other : other.remap(AffineRemap.ofTerms(size, perm, scales, offsets));
        }
    }

    /**
     * {@return whether the element path would write every index of {@code dst} to a slot of its
     * own without refusing it} Each piece it writes (a concatenation's parts, through ops) is
     * writable, one slot per index, and no two reach the same bytes; a pad's fill is never
     * written. Checked as the planned copies check, so conservative: a false sends the copy to
     * the element path, which names what it refuses in its own words.
     */
    private static boolean writesEachSlotOnce(TensorView dst) {
        List<Access> pieces = new ArrayList<>();
        if (!writtenPieces(dst, pieces)) {
            return false;
        }
        for (int i = 0; i < pieces.size(); i++) {
            Access a = pieces.get(i);
            if (a.segment().isReadOnly()) {
                return false;
            }
            try {
                SelfOverlap.check(a);
            } catch (IllegalArgumentException overlaps) {
                return false;
            }
            for (int j = 0; j < i; j++) {
                if (Reach.overlap(a, pieces.get(j))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean writtenPieces(TensorView dst, List<Access> into) {
        Optional<ViewOrigin> origin = pieces(dst);
        if (origin.isEmpty()) {
            Optional<Access> access = ViewAdapter.destination(dst);
            access.ifPresent(into::add);
            return access.isPresent();
        }
        return switch (origin.get()) {
            case ViewOrigin.Joined(List<TensorView> parts, var places) -> {
                for (TensorView p : parts) {
                    if (!writtenPieces(p, into)) {
                        yield false;
                    }
                }
                yield true;
            }
            case ViewOrigin.Padded p -> false;
            case ViewOrigin.Remapped(TensorView source, AffineRemap a) ->
                    SignedPermutation.of(a, Extents.toArray(source.dims())) != null && writtenPieces(source, into);
            case ViewOrigin.Remapped(TensorView source, ReshapeRemap r) -> writtenPieces(source, into);
        };
    }
}
