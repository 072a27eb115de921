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
     * else. A view whose map simplifies to strides ({@code bf16[3,5]{1,0:T(1,128)}}, row stride
     * 128) is a strided view: its map cannot tell its gaps from the columns of a wider array it
     * is a slice of, so they are not its to write.
     */
    public static Optional<Access> destination(TensorView view) {
        if (view.access().storageBits() >= 8 && view.stridedLayout().isEmpty()
                && view.map() instanceof ViewMap.Single single && view.form() instanceof MapForm.Tiled t) {
            Optional<ArrayShape> tiles = tiledLayout(view);
            return Optional.of(tiles.isPresent() ? Access.tiled(single.buffer().segment(), tiles.get())
                    : Access.mapped(single.buffer().segment(), view.dtype(), t.map()));
        }
        return access(view);
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
        if (!(view.map() instanceof ViewMap.Single single) || !single.wholeLayout() || view.stridedLayout().isPresent()
                || !(view.form() instanceof MapForm.Tiled t)) {
            return Optional.empty();
        }
        long bytes = view.buffer().byteSize();
        return wholeLayout(view, t).filter(s -> !s.requireLayout().tiles().isEmpty()
                && bytes >= s.physicalByteSize() && bytes <= Math.max(s.physicalByteSize(), s.arraySize()));
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

    /** {@return the bytes {@link #zeroTileSlots} zeroes in {@code dst}: 0 unless it is tiled and writable} */
    public static long tileSlotBytes(TensorView dst) {
        Optional<ArrayShape> tiles = tiledLayout(dst);
        if (tiles.isEmpty() || dst.buffer().segment().isReadOnly()) {
            return 0;
        }
        long bytes = Math.max(tiles.get().physicalByteSize(), tiles.get().arraySize());
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
