package dev.tensorbuf.interop.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;

/**
 * Copies any host view into a new dense row-major buffer, for exporters that need strides, through
 * {@link CopyEngine#copy(TensorView, TensorView)}: planned kernels for one-buffer views, element
 * by element for packed sub-byte elements and padded or concatenated views (slow, but those are
 * rare and small).
 */
public final class Materializer {
    private Materializer() {
    }

    /**
     * A dense copy: the buffer, how its elements are stored, and its packed row-major layout.
     *
     * @param buffer the new memory, owned by the caller
     * @param access packed for 1-, 2- and 4-bit types when asked, else whole bytes
     * @param layout packed row-major, offset 0
     */
    public record Dense(MemoryBuffer buffer, ElementAccess access, StridedLayout layout) {
    }

    /**
     * {@return a dense row-major copy of {@code view} in memory from {@code allocator}}
     *
     * @param packSubByte whether 1-, 2- and 4-bit types are packed into bytes (6-bit types never are)
     * @throws IllegalArgumentException if the view is not host-accessible
     */
    public static Dense dense(TensorView view, boolean packSubByte, Allocator allocator) {
        if (!view.isHostAccessible()) {
            throw Errors.notHostAccessible("cannot copy " + view + " on the host");
        }
        DType type = view.dtype();
        boolean pack = packSubByte && type.isSubByte() && 8 % type.bitWidth() == 0;
        ElementAccess target = pack ? ElementAccess.packed(type) : ElementAccess.of(type);
        long[] dims = Extents.toArray(view.dims());
        StridedLayout layout = StridedLayout.packed(dims);
        long bytes = target.byteSize(view.elementCount());
        MemoryBuffer buffer = allocator.allocate(Math.max(1, bytes));
        try {
            if (pack && bytes > 0) {
                // An odd count of 4-bit elements (s4[3]) leaves the last byte's high bits unwritten;
                // XLA and the files want them zero, and a pool's memory may hold anything.
                buffer.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, bytes - 1, (byte) 0);
            }
            CopyEngine.defaults().copy(view, TensorView.strided(buffer, target, layout));
        } catch (RuntimeException e) {
            buffer.close();
            throw e;
        }
        return new Dense(buffer, target, layout);
    }

    /**
     * Copies every element of {@code src} into {@code dst} (same type and dims, any layouts), as
     * {@link CopyEngine#copy(TensorView, TensorView)} does.
     *
     * @throws IllegalArgumentException if the types or dims differ
     */
    public static void copy(TensorView src, TensorView dst) {
        if (src.dtype() != dst.dtype() || !src.dims().equals(dst.dims())) {
            throw Errors.typesOrDimsDiffer("copy", src, dst);
        }
        CopyEngine.defaults().copy(src, dst);
    }
}
