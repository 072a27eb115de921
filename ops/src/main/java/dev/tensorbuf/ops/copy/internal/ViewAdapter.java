package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.internal.DistinctSlots;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Optional;

/**
 * Turns a {@link TensorView} into the engine's {@link Access}, choosing the addressing from the
 * view's map form: strided, tiled (an XLA layout the engine knows), or a mapped fallback.
 */
public final class ViewAdapter {
    private ViewAdapter() {}

    /**
     * {@return the view as one engine access, or empty when the view spans several buffers (pad,
     * concatenate) or stores sub-byte elements packed: those are copied box by box of one piece
     * ({@link PiecePairs}) or staged ({@link SubByteStaging})}
     * A view made by stride arithmetic (a transpose, slice or reshape of a strided view) reads its
     * layout off its strides: no map is composed or simplified, which for a view made per call
     * costs several times the copy of a small tensor.
     */
    public static Optional<Access> access(TensorView view) {
        if (view.access().storageBits() < 8) {
            return Optional.empty();
        }
        DType dtype = view.dtype();
        Optional<StridedLayout> strided = view.stridedLayout();
        if (strided.isPresent()) {
            return Optional.of(Access.strided(view.buffer().segment(), dtype, strided.get()));
        }
        if (!(view.map() instanceof ViewMap.Single single)) {
            return Optional.empty();
        }
        var segment = single.buffer().segment();
        return Optional.of(switch (view.form()) {
            case MapForm.Strided s -> Access.strided(segment, dtype, s.layout());
            case MapForm.Tiled t when wholeLayout(view, t).filter(s -> readable(s, segment)).isPresent()
                    -> Access.tiled(segment, wholeLayout(view, t).get());
            case MapForm.Tiled t -> Access.mapped(segment, dtype, t.map());
            case MapForm.General g -> Access.mapped(segment, dtype, g.map());
        });
    }

    /**
     * The destination a copy was called with, while the copy (or its explanation) runs. Tile
     * padding is the called destination's own: a part the engine cuts from it (a box of a tiled
     * view, one piece of a pad) can read exactly like a smaller whole layout (rows {@code [0, 5)}
     * of {@code f32[6,5]{1,0:T(2,2)}} read like {@code f32[5,5]{1,0:T(2,2)}}, whose padding row is
     * the bigger array's row 5), and zeroing its "padding" would erase elements of other parts.
     * Unbound, the view asked about is taken to be the called destination.
     */
    public static final ScopedValue<TensorView> CALLED_DESTINATION = ScopedValue.newInstance();

    /**
     * {@return the view as the destination of a copy, or empty as {@link #access}} A view that is
     * a whole tiled XLA layout ({@link #tiledLayout}) owns its tiles' padding, and the copy
     * writes it as zero: {@code f32[3,5]{1,0:T(2,2)}}, a transpose of it, or the same map made
     * any other way. Another tiled map is written through its map, its elements and nothing
     * else. A view whose map simplifies to strides with a gap after each row
     * ({@code bf16[3,5]{1,0:T(1,128)}}, row stride 128) owns the gaps when its map is its buffer's
     * whole layout ({@link ViewMap.Single#wholeLayout()}), and is written as {@code T(1,128)};
     * a slice of a wider array has the same strides, and its gaps are the other columns, not its
     * to write.
     */
    public static Optional<Access> destination(TensorView view) {
        Optional<StridedLayout> strided = view.stridedLayout();
        if (strided.isPresent() && view.access().storageBits() >= 8 && gapsBetweenRows(strided.get())) {
            Optional<ArrayShape> rows = tiledLayout(view);
            if (rows.isPresent()) {
                return Optional.of(owned(view, Access.tiled(view.buffer().segment(), rows.get())));
            }
        }
        if (view.access().storageBits() >= 8 && view.stridedLayout().isEmpty()
                && view.map() instanceof ViewMap.Single single && view.form() instanceof MapForm.Tiled t) {
            Optional<ArrayShape> tiles = tiledLayout(view);
            return Optional.of(tiles.isPresent() ? owned(view, Access.tiled(single.buffer().segment(), tiles.get()))
                    : Access.mapped(single.buffer().segment(), view.dtype(), t.map()));
        }
        return access(view).map(a -> a.addressing() instanceof Access.Strided ? owned(view, a) : a);
    }

    /**
     * {@return {@code to}, the destination access of {@code view}, owning the view's layout bytes
     * when the view is its buffer's whole layout and the destination the copy was called with}
     * The planner then zeroes what of them no element is written to ({@code Planner.ownedPadding}),
     * in every plan made into this access: a copy's, a staged copy's, a dequantization's.
     */
    private static Access owned(TensorView view, Access to) {
        if (view.elementCount() == 0 || !(view.map() instanceof ViewMap.Single single) || !single.wholeLayout()
                || CALLED_DESTINATION.isBound() && CALLED_DESTINATION.get() != view) {
            return to;
        }
        return to.owning(Math.min(single.layoutBytes(), to.segment().byteSize()));
    }

    /**
     * {@return the tiled XLA shape whose slots, padding included, are {@code view}'s, if it has
     * one} The shape is recovered from the view's map form ({@link MapForm.Tiled#layout()}),
     * never from the op that made the view: the map must read the whole layout from element 0
     * (a transpose of a tiled view is the permuted layout, as XLA's transposes that are
     * bitcasts), the layout must have tiles, the view's buffer must hold the layout's slots and
     * end within them, the map must be its buffer's whole layout ({@link ViewMap.Single#wholeLayout()}:
     * a slice of a bigger array's leading rows reads like a smaller whole layout, and must not
     * claim the rows after it), and the view must be the destination the copy was called with
     * ({@link #CALLED_DESTINATION}).
     */
    public static Optional<ArrayShape> tiledLayout(TensorView view) {
        if (CALLED_DESTINATION.isBound() && CALLED_DESTINATION.get() != view) {
            return Optional.empty();
        }
        Optional<StridedLayout> strided = view.stridedLayout();
        if (strided.isPresent() && !gapsBetweenRows(strided.get())) {
            return Optional.empty(); // dense or sliced: no padding of its own (and no map built to ask)
        }
        if (!(view.map() instanceof ViewMap.Single single) || !single.wholeLayout()) {
            return Optional.empty();
        }
        long bytes = single.layoutBytes();
        Optional<ArrayShape> layout;
        if (strided.isPresent()) {
            layout = view.access().storageBits() < 8 ? Optional.empty() : paddedRows(view.dtype(), strided.get());
        } else if (view.form() instanceof MapForm.Tiled t) {
            layout = wholeLayout(view, t);
        } else {
            return Optional.empty();
        }
        // The layout read off the map may end before the view's own ({@code T(4,128)(2,1)} for the
        // three rows of a {@code T(8,128)(2,1)} view): the rest up to layoutBytes is the view's
        // padding too, and the planner zeroes it ({@link #destination} gives the access its bytes).
        return layout.filter(s -> !s.requireLayout().tiles().isEmpty() && bytes >= s.physicalByteSize());
    }

    /**
     * {@return the dims of size above 1 minor first when {@code layout} from offset 0 leaves gaps
     * below {@code end} elements, each stride at least the one below times its size (so the gaps
     * are disjoint from every element); else null}
     */
    static int[] stridedGaps(StridedLayout layout, long end) {
        int rank = layout.sizes().size();
        if (layout.offset() != 0 || rank == 0) {
            return null;
        }
        java.util.List<Integer> dims = new java.util.ArrayList<>();
        for (int d = 0; d < rank; d++) {
            if (layout.sizes().get(d) > 1) {
                if (layout.strides().get(d) <= 0) {
                    return null;
                }
                dims.add(d);
            }
        }
        // A lambda of ours, not Comparator.comparing's inside the JDK, spun at run time in every process.
        dims.sort((a, b) -> Long.compare(layout.strides().get(a), layout.strides().get(b)));
        long covered = 1;
        boolean gap = false;
        for (int d : dims) {
            long stride = layout.strides().get(d);
            if (stride < covered) {
                return null;
            }
            gap |= stride > covered;
            try {
                covered = Math.multiplyExact(stride, layout.sizes().get(d));
            } catch (ArithmeticException past) {
                return null;
            }
        }
        if (covered > end || !gap && covered == end) {
            return null;
        }
        return dims.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * A copy with both sides reversed along the same dims: the same elements to the same slots.
     *
     * @param src the source, reversed
     * @param dst the destination, reversed back to its layout
     */
    public record Turned(TensorView src, TensorView dst) {
    }

    /**
     * {@return the copy of {@code src} into {@code dst} turned so that the destination reads as its
     * tiled layout, when {@code dst} is a reverse of a whole tiled layout; else null} A reverse
     * reads every slot of the layout once, so it owns the layout's padding, but a reversed map is
     * no layout from element 0 ({@link #tiledLayout} finds none). Reversing both sides along the
     * reversed dims (told by the map: the far end of a reversed dim is at a lower offset than
     * index 0) copies the same elements to the same slots, into the layout itself.
     */
    public static Turned unreversed(TensorView src, TensorView dst) {
        if (dst.stridedLayout().isPresent() || src.elementCount() == 0
                || CALLED_DESTINATION.isBound() && CALLED_DESTINATION.get() != dst
                || !(dst.map() instanceof ViewMap.Single single) || !single.wholeLayout()
                || !(dst.form() instanceof MapForm.Tiled)) {
            return null;
        }
        var offset = single.map().results().getFirst();
        long[] none = new long[0];
        int rank = dst.rank();
        long[] index = new long[rank];
        long base = offset.evaluate(index, none, none);
        if (base == 0 || tiledLayout(dst).isPresent()) {
            return null; // index 0 at slot 0: nothing reversed
        }
        int[] reversed = new int[rank];
        int n = 0;
        for (int d = 0; d < rank; d++) {
            long size = dst.dims().get(d);
            if (size > 1) {
                index[d] = size - 1;
                if (offset.evaluate(index, none, none) < base) {
                    reversed[n++] = d;
                }
                index[d] = 0;
            }
        }
        if (n == 0) {
            return null;
        }
        int[] dims = Arrays.copyOf(reversed, n);
        TensorView back = dev.tensorbuf.ops.Ops.reverse(dst, dims);
        boolean layout = ScopedValue.where(CALLED_DESTINATION, back).call(() -> tiledLayout(back).isPresent());
        return layout ? new Turned(dev.tensorbuf.ops.Ops.reverse(src, dims), back) : null;
    }

    /**
     * {@return whether {@code layout} is rows with a gap after each: the minor dimension (stride 1)
     * shorter than the next stride, every other stride the one below it times that dimension's
     * size} A whole layout of that form is XLA's {@code T(1,P)} tiling (rows padded to {@code P});
     * a slice of a wider array has the same strides, and only {@link ViewMap.Single#wholeLayout()}
     * tells them apart.
     */
    private static boolean gapsBetweenRows(StridedLayout layout) {
        return paddedRowOrder(layout) != null;
    }

    /** {@return the dimensions minor first when {@link #gapsBetweenRows}, sizes of 1 last; else null} */
    private static int[] paddedRowOrder(StridedLayout layout) {
        int rank = layout.sizes().size();
        if (rank < 2 || layout.offset() != 0) {
            return null;
        }
        Integer[] order = new Integer[rank];
        for (int d = 0; d < rank; d++) {
            order[d] = d;
        }
        // Sizes of 1 read no stride: they go last (major), in order.
        Arrays.sort(order, (x, y) -> {
            boolean ox = layout.sizes().get(x) == 1;
            boolean oy = layout.sizes().get(y) == 1;
            return ox != oy ? Boolean.compare(ox, oy) : ox ? Integer.compare(x, y)
                    : Long.compare(layout.strides().get(x), layout.strides().get(y));
        });
        if (layout.sizes().get(order[0]) == 1 || layout.sizes().get(order[1]) == 1
                || layout.strides().get(order[0]) != 1) {
            return null;
        }
        // Each stride a multiple of the one below and at least that times its size: the array
        // padded in those dims (s8[3,2,5]{0,2,1:T(2,4)}: strides 1, 4, 24 for sizes 3, 5, 2).
        boolean gap = false;
        for (int i = 1; i < rank && layout.sizes().get(order[i]) > 1; i++) {
            long below = layout.strides().get(order[i - 1]);
            long stride = layout.strides().get(order[i]);
            long dense;
            try {
                dense = Math.multiplyExact(below, layout.sizes().get(order[i - 1]));
            } catch (ArithmeticException past) {
                return null;
            }
            if (stride < dense || stride % below != 0) {
                return null;
            }
            gap |= stride > dense;
        }
        if (!gap) {
            return null;
        }
        int[] out = new int[rank];
        for (int i = 0; i < rank; i++) {
            out[i] = order[i];
        }
        return out;
    }

    /** {@return the XLA shape {@code T(1,P)} whose slots are {@code layout}'s rows and their gaps} */
    private static Optional<ArrayShape> paddedRows(DType dtype, StridedLayout layout) {
        int[] order = paddedRowOrder(layout);
        if (order == null) {
            return Optional.empty();
        }
        StringBuilder text = new StringBuilder(dtype.xlaName()).append('[');
        for (int d = 0; d < order.length; d++) {
            text.append(d == 0 ? "" : ",").append(layout.sizes().get(d));
        }
        text.append("]{");
        for (int i = 0; i < order.length; i++) {
            text.append(i == 0 ? "" : ",").append(order[i]);
        }
        // The padded dims are the tile's: one entry each, its stride ratio (T(1,P) for rows alone).
        int padded = 0;
        for (int i = 1; i < order.length && layout.sizes().get(order[i]) > 1; i++) {
            if (layout.strides().get(order[i]) > layout.strides().get(order[i - 1]) * layout.sizes().get(order[i - 1])) {
                padded = i;
            }
        }
        if (padded == 1) {
            text.append(":T(1,").append(layout.strides().get(order[1])).append(")}");
        } else {
            text.append(":T(");
            for (int i = padded - 1; i >= 0; i--) {
                text.append(layout.strides().get(order[i + 1]) / layout.strides().get(order[i])).append(i == 0 ? ")}" : ",");
            }
        }
        try {
            return Optional.of(ArrayShape.parse(text.toString()));
        } catch (IllegalArgumentException notAShape) {
            return Optional.empty();
        }
    }

    /**
     * {@return the whole XLA layout a tiled form reads, as a shape of the view's type and element
     * storage ({@code E(n)} for packed sub-byte elements)}
     */
    private static Optional<ArrayShape> wholeLayout(TensorView view, MapForm.Tiled form) {
        return form.xlaShape(view.dtype()).map(s -> {
            int bits = view.access().storageBits();
            return bits == 8 * view.dtype().byteWidth() ? s : s.withLayout(s.requireLayout().withElementSizeInBits(bits));
        }).filter(s -> s.dims().equals(view.dims()));
    }

    /**
     * {@return whether a source reads {@code shape}'s tiles: the planner addresses them as digits
     * and the segment holds every slot (a map can read like a layout whose last tiles reach past
     * its buffer); else it reads through its map}
     */
    private static boolean readable(ArrayShape shape, MemorySegment segment) {
        return TiledDigits.of(shape) instanceof TiledDigits && segment.byteSize() >= shape.physicalByteSize();
    }

    /**
     * Copies element by element in logical order, for views the kernels cannot address: raw bits
     * (or real and imaginary parts) when the types match, else converted by {@link ValueMover},
     * as the planned kernels convert.
     */
    public static void copyElements(TensorView src, TensorView dst) {
        if (src.elementCount() == 0) {
            return;
        }
        checkDisjoint(src, dst);
        checkOneSlotEach(dst);
        // Sub-byte tiled storage comes this way: zero every slot, then write the elements.
        zeroTileSlots(dst);
        DType s = src.dtype();
        DType d = dst.dtype();
        if (s.kind() == DType.Kind.COMPLEX && d.kind() != DType.Kind.COMPLEX) {
            throw Errors.imaginaryPartsLost(s, d);
        }
        if (s == d) {
            TensorElements.of(dst).forEachIndex(index -> {
                if (s.kind() == DType.Kind.COMPLEX) {
                    TensorElements.of(dst).setComplex(TensorElements.of(src).getReal(index), TensorElements.of(src).getImag(index), index); // c128's 128 bits do not fit getBits
                } else {
                    TensorElements.of(dst).setBits(TensorElements.of(src).getBits(index), index);
                }
            });
            return;
        }
        // Each value passes through one-element scratch segments, so ValueMover converts it: the
        // element path keeps the planned kernels' rules by running them, not by restating them.
        ElementAccess sa = ElementAccess.of(s);
        ElementAccess da = ElementAccess.of(d);
        MemorySegment from = Arena.ofAuto().allocate(16);
        MemorySegment to = Arena.ofAuto().allocate(16);
        TensorElements.of(dst).forEachIndex(index -> {
            if (s.kind() == DType.Kind.COMPLEX) {
                sa.setComplex(from, 0, TensorElements.of(src).getReal(index), TensorElements.of(src).getImag(index));
            } else {
                sa.setBits(from, 0, TensorElements.of(src).getBits(index));
            }
            ValueMover.move(from, 0, sa, to, 0, da);
            if (d.kind() == DType.Kind.COMPLEX) {
                TensorElements.of(dst).setComplex(da.getReal(to, 0), da.getImag(to, 0), index);
            } else {
                TensorElements.of(dst).setBits(da.getBits(to, 0), index);
            }
        });
    }

    /**
     * Zeroes every slot of {@code dst}'s tiles, padding and tail padding included, when it is
     * laid out by a tiled XLA shape and writable: what a copy that writes its elements one by one,
     * or box by box ({@link PiecePairs}), does first, so that the padding reads as zero; a
     * staged packed destination ({@link SubByteStaging}) does it before packing its slots back.
     */
    public static void zeroTileSlots(TensorView dst) {
        long bytes = tileSlotBytes(dst);
        if (bytes > 0) {
            dst.buffer().segment().asSlice(0, bytes).fill((byte) 0);
        }
    }

    /**
     * {@return the bytes of a packed sub-byte destination's whole layout when its strides leave gaps
     * between slots (a staged copy zeroes them first), else 0}
     */
    public static long packedGapBytes(TensorView dst) {
        if (dst.access().storageBits() >= 8 || !(dst.map() instanceof ViewMap.Single single) || !single.wholeLayout()
                || dst.buffer().segment().isReadOnly() || dst.stridedLayout().isEmpty()
                || CALLED_DESTINATION.isBound() && CALLED_DESTINATION.get() != dst) {
            return 0;
        }
        long bytes = Math.min(single.layoutBytes(), dst.buffer().segment().byteSize());
        int bits = dst.access().storageBits();
        StridedLayout layout = dst.stridedLayout().get();
        if (dst.elementCount() == 0 || layout.minOffset() < 0 || layout.isOverlapping()) {
            return 0;
        }
        // A whole layout reads each of its slots once, so fewer elements than slots up to its
        // last are gaps between them (in a reverse of it too, whose strides are negative); or a
        // tail the layout declares past the elements' last byte (T(8) on 11 slots). The rest of
        // that last byte alone is packedTailSlots', zeroed without zeroing the whole layout.
        long span = layout.maxOffset() + 1;
        boolean interior = dst.elementCount() < span;
        return interior || Math.ceilDiv(span * bits, 8) < bytes ? bytes : 0;
    }

    /**
     * {@return the slots of a packed sub-byte destination's whole strided layout past its last
     * element, to the end of the byte holding that element; 0 when there are none} That byte is
     * the layout's ({@link ViewMap.Single#layoutBytes()} counts whole bytes), and so is the rest of
     * it: the slots its tiling pads ({@code u2[11]{0:T(4)E(2)}}: the twelfth slot, two bits of
     * the third byte) and the bits rounding up to the byte leaves ({@code s4[3]{0:E(4)}}: the
     * second byte's high nibble). A copy writes them as zero, as XLA packs a sub-byte array.
     */
    public static long packedTailSlots(TensorView dst) {
        if (dst.access().storageBits() >= 8 || dst.elementCount() == 0 || dst.stridedLayout().isEmpty()
                || !(dst.map() instanceof ViewMap.Single single) || !single.wholeLayout()
                || dst.buffer().segment().isReadOnly() || CALLED_DESTINATION.isBound() && CALLED_DESTINATION.get() != dst) {
            return 0;
        }
        int bits = dst.access().storageBits();
        int perByte = 8 / bits;
        StridedLayout layout = dst.stridedLayout().get();
        long end = layout.maxOffset() + 1;
        long bytes = Math.min(single.layoutBytes(), dst.buffer().segment().byteSize());
        if (layout.minOffset() < 0 || end % perByte == 0 || Math.ceilDiv(end, perByte) > bytes) {
            return 0;
        }
        return perByte - end % perByte;
    }

    /** {@return the bytes {@link #zeroTileSlots} zeroes in {@code dst}: 0 unless it is tiled or has gaps, and writable} */
    public static long tileSlotBytes(TensorView dst) {
        Optional<ArrayShape> tiles = tiledLayout(dst);
        if (tiles.isEmpty() && dst.map() instanceof ViewMap.Single single && single.wholeLayout()
                && !dst.buffer().segment().isReadOnly() && dst.access().storageBits() >= 8 && dst.stridedLayout().isPresent()
                && (!CALLED_DESTINATION.isBound() || CALLED_DESTINATION.get() == dst)
                && stridedGaps(dst.stridedLayout().get(), single.layoutBytes() / dst.dtype().byteWidth()) != null) {
            return single.layoutBytes(); // gaps between strided elements no tiled shape here names: all of the layout
        }
        if (tiles.isEmpty() && dst.access().storageBits() < 8) {
            // Packed slots with gaps or a tail between them and the layout's end, or the rest of the last byte.
            long gaps = packedGapBytes(dst);
            return gaps > 0 || packedTailSlots(dst) == 0 ? gaps : Math.min(((ViewMap.Single) dst.map()).layoutBytes(),
                    dst.buffer().segment().byteSize());
        }
        if (tiles.isEmpty() || dst.buffer().segment().isReadOnly()) {
            return 0;
        }
        long bytes = Math.max(tiles.get().physicalByteSize(), ((ViewMap.Single) dst.map()).layoutBytes());
        return Math.min(bytes, dst.buffer().segment().byteSize());
    }

    /**
     * Refuses a destination that writes one slot from two indices (a zero stride, a
     * concatenation of one buffer with itself, a remap that is not one-to-one), or that has an
     * index on a pad's fill or on read-only memory, before any element is written. Strided views
     * are decided by their strides ({@link SelfOverlap}); others by the bit address of every
     * element ({@link DistinctSlots}).
     */
    private static void checkOneSlotEach(TensorView dst) {
        if (dst.stridedLayout().isPresent()) {
            SelfOverlap.check(Access.strided(dst.buffer().segment(), dst.dtype(), dst.stridedLayout().get()));
            return;
        }
        DistinctSlots.Repeat repeat = DistinctSlots.firstRepeat(dst);
        if (repeat != null) {
            throw Errors.overlapsItself("destination " + dst + " writes " + repeat + " to one slot");
        }
    }

    /** {@return whether some buffer of {@code src} overlaps some buffer of {@code dst} (views over several pieces)} */
    public static boolean shareBuffers(TensorView src, TensorView dst) {
        for (ViewMap.Single out : dst.map().pieces()) {
            for (ViewMap.Single in : src.map().pieces()) {
                if (out.buffer().segment().asOverlappingSlice(in.buffer().segment()).isPresent()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Element by element there is no temporary: a source sharing memory with the destination would read what it wrote. */
    private static void checkDisjoint(TensorView src, TensorView dst) {
        if (shareBuffers(src, dst)) {
            throw new IllegalArgumentException("source " + src + " and destination " + dst
                    + " share memory: copy through a temporary");
        }
    }
}
