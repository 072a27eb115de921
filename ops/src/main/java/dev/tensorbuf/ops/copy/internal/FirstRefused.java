package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * Where a conversion failed: the first element of the source, in logical row-major order, that
 * {@link ValueMover} refuses to convert. The kernels convert by byte offsets, in chunks, on
 * several threads, so the value that stopped a copy may lie anywhere past the first; this walks
 * the source again, on the failure path only, and moves each element into a scratch slot by
 * the same {@link ValueMover#move}, so it refuses exactly the values the kernels refuse.
 */
public final class FirstRefused {
    private FirstRefused() {
    }

    /**
     * The first refused element.
     *
     * @param index its logical index
     * @param refusal the refusal of its value
     */
    public record Found(long[] index, RefusedValue refusal) {
    }

    /** {@return the first element of {@code src} that type {@code to} cannot hold, if any} */
    public static Optional<Found> in(Access src, DType to) {
        ElementAccess sa = elementAccess(src);
        MemorySegment s = src.segment();
        return search(Extents.toArray(src.dims()), to, (index, da, scratch) ->
                ValueMover.move(s, offset(src, index), sa, scratch, 0, da));
    }

    /**
     * {@return the first element of {@code src} that type {@code to} cannot hold, if any} A view
     * the kernels address as one {@link Access} is searched through it; any other (several
     * pieces, packed sub-byte elements) is read element by element, as
     * {@link ViewAdapter#copyElements} converts it.
     */
    public static Optional<Found> in(TensorView src, DType to) {
        Optional<Access> access = ViewAdapter.access(src);
        if (access.isPresent()) {
            return in(access.get(), to);
        }
        DType from = src.dtype();
        ElementAccess sa = ElementAccess.of(from);
        MemorySegment element = Arena.ofAuto().allocate(16);
        return search(Extents.toArray(src.dims()), to, (index, da, scratch) -> {
            if (from.kind() == DType.Kind.COMPLEX) {
                sa.setComplex(element, 0, TensorElements.of(src).getReal(index), TensorElements.of(src).getImag(index));
            } else {
                sa.setBits(element, 0, TensorElements.of(src).getBits(index));
            }
            ValueMover.move(element, 0, sa, scratch, 0, da);
        });
    }

    private interface Mover {
        /** Moves the element at {@code index} into element 0 of {@code scratch}, of type {@code da}. */
        void move(long[] index, ElementAccess da, MemorySegment scratch);
    }

    private static Optional<Found> search(long[] dims, DType to, Mover mover) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        ElementAccess da = ElementAccess.of(to);
        MemorySegment scratch = Arena.ofAuto().allocate(16);
        long[] index = new long[dims.length];
        for (long k = 0; k < n; k++) {
            try {
                mover.move(index, da, scratch);
            } catch (RefusedValue refusal) {
                return Optional.of(new Found(index.clone(), refusal));
            }
            for (int d = dims.length - 1; d >= 0; d--) {
                if (++index[d] < dims[d]) {
                    break;
                }
                index[d] = 0;
            }
        }
        return Optional.empty();
    }

    private static long offset(Access a, long[] index) {
        return switch (a.addressing()) {
            case Access.Strided(StridedLayout layout) -> layout.offsetOf(index);
            case Access.Tiled(ArrayShape shape) -> shape.linearIndex(index);
            case Access.Mapped(var map) -> map.evaluate(index)[0];
        };
    }

    /** {@return how the kernels read {@code a}'s elements: packed where its tiled shape says {@code E(n)}} */
    private static ElementAccess elementAccess(Access a) {
        return a.addressing() instanceof Access.Tiled(ArrayShape shape) ? ElementAccess.of(shape)
                : ElementAccess.of(a.dtype());
    }
}
