package dev.tensorbuf.interop.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.util.List;

/**
 * Moves a host view to or from a packed row-major buffer elsewhere with as few transfers as the
 * layout allows: one plain copy when the view is packed row-major, one 2-D copy when it is
 * row-pitched (rows of contiguous elements a fixed pitch apart), else one plain copy through a
 * packed host staging buffer, with the layout conversion done here by the copy engine.
 */
public final class HostCopies {
    private HostCopies() {
    }

    /** A plain copy between buffers ({@code cudaMemcpy}). */
    @FunctionalInterface
    public interface Copy {
        void copy(MemoryBuffer dst, long dstOffset, MemoryBuffer src, long srcOffset, long bytes);
    }

    /** A pitched copy between buffers ({@code cudaMemcpy2D}). */
    @FunctionalInterface
    public interface Copy2D {
        void copy(MemoryBuffer dst, long dstOffset, long dstPitch, MemoryBuffer src, long srcOffset, long srcPitch, long widthBytes, long rows);
    }

    /** {@return packed storage for 1-, 2- and 4-bit types, a byte or more per element otherwise} */
    public static ElementAccess packedAccess(TensorView view) {
        int bits = view.dtype().bitWidth();
        return view.dtype().isSubByte() && 8 % bits == 0 ? ElementAccess.packed(view.dtype()) : ElementAccess.of(view.dtype());
    }

    /** {@return the packed row-major layout of the view's dims} */
    public static StridedLayout rowMajor(TensorView view) {
        return StridedLayout.packed(Extents.toArray(view.dims()));
    }

    /**
     * Copies between a host view and {@code packed}, a buffer holding the same elements packed
     * row-major, in the direction {@code toPacked} says.
     */
    public static void transfer(TensorView host, MemoryBuffer packed, boolean toPacked, Copy copy, Copy2D copy2D) {
        ElementAccess access = packedAccess(host);
        long bytes = access.byteSize(host.elementCount());
        if (bytes == 0) {
            return;
        }
        StridedLayout layout = host.stridedLayout().orElse(null);
        if (layout != null && host.access().equals(access)) {
            long bitOffset = layout.offset() * access.storageBits();
            if (isRowMajor(layout) && bitOffset % 8 == 0) {
                if (toPacked) {
                    copy.copy(packed, 0, host.buffer(), bitOffset / 8, bytes);
                } else {
                    copy.copy(host.buffer(), bitOffset / 8, packed, 0, bytes);
                }
                return;
            }
            long pitch = rowPitch(layout, access);
            if (pitch > 0) {
                long elementBytes = access.storageBits() / 8;
                long width = layout.sizes().getLast() * elementBytes;
                long rows = layout.elementCount() / layout.sizes().getLast();
                long offset = layout.offset() * elementBytes;
                if (toPacked) {
                    copy2D.copy(packed, 0, width, host.buffer(), offset, pitch * elementBytes, width, rows);
                } else {
                    copy2D.copy(host.buffer(), offset, pitch * elementBytes, packed, 0, width, width, rows);
                }
                return;
            }
        }
        try (Allocator staging = Allocators.confined()) {
            if (toPacked) {
                Materializer.Dense dense = Materializer.dense(host, true, staging);
                copy.copy(packed, 0, dense.buffer(), 0, bytes);
            } else {
                MemoryBuffer buffer = staging.allocate(bytes);
                copy.copy(buffer, 0, packed, 0, bytes);
                Materializer.copy(TensorView.strided(buffer, access, rowMajor(host)), host);
            }
        }
    }

    /**
     * {@return whether the strides are the packed row-major ones} A dim of size 1 is never stepped
     * over, so its stride does not count: views give it 0, {@link StridedLayout#packed} the product.
     */
    public static boolean isRowMajor(StridedLayout layout) {
        List<Long> packed = StridedLayout.packed(Extents.toArray(layout.sizes())).strides();
        for (int d = 0; d < layout.rank(); d++) {
            if (layout.sizes().get(d) > 1 && !layout.strides().get(d).equals(packed.get(d))) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return whether {@link #transfer} moves the view in one plain or one 2-D copy, with no host
     * staging buffer in between}
     */
    public static boolean isDirect(TensorView host) {
        ElementAccess access = packedAccess(host);
        if (access.byteSize(host.elementCount()) == 0) {
            return true;
        }
        StridedLayout layout = host.stridedLayout().orElse(null);
        if (layout == null || !host.access().equals(access)) {
            return false;
        }
        boolean packed = isRowMajor(layout) && layout.offset() * access.storageBits() % 8 == 0;
        return packed || rowPitch(layout, access) > 0;
    }

    /**
     * {@return the row pitch in elements when the layout is rows of contiguous whole-byte elements
     * a fixed pitch apart (rank at least 2, last stride 1, the outer dims nested exactly), else 0}
     */
    static long rowPitch(StridedLayout layout, ElementAccess access) {
        int rank = layout.rank();
        if (rank < 2 || access.storageBits() < 8) {
            return 0;
        }
        List<Long> sizes = layout.sizes();
        List<Long> strides = layout.strides();
        long pitch = strides.get(rank - 2);
        if (strides.get(rank - 1) != 1 || pitch < sizes.get(rank - 1)) {
            return 0;
        }
        for (int d = rank - 3; d >= 0; d--) {
            if (strides.get(d) != strides.get(d + 1) * sizes.get(d + 1)) {
                return 0;
            }
        }
        return pitch;
    }
}
