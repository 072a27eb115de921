package dev.tensorbuf.interop.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.ops.copy.Access;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import java.lang.foreign.MemorySegment;

/**
 * Copies any host view into a new dense row-major buffer, for exporters that need strides. Whole
 * byte elements of one-buffer views go through the copy engine; packed sub-byte elements and
 * padded or concatenated views go element by element, which is slow but those are rare and small.
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
    public record Dense(Buffer buffer, ElementAccess access, StridedLayout layout) {
    }

    /**
     * {@return a dense row-major copy of {@code view} in memory from {@code allocator}}
     *
     * @param packSubByte whether 1-, 2- and 4-bit types are packed into bytes (6-bit types never are)
     * @throws IllegalArgumentException if the view is not host-accessible, or is a padded or
     *     concatenated view of {@code c128}
     */
    public static Dense dense(TensorView view, boolean packSubByte, Allocator allocator) {
        if (!view.isHostAccessible()) {
            throw new IllegalArgumentException("cannot copy " + view + " on the host: its memory is not host-accessible");
        }
        DType type = view.dtype();
        boolean pack = packSubByte && type.isSubByte() && 8 % type.bitWidth() == 0;
        ElementAccess target = pack ? ElementAccess.packed(type) : ElementAccess.of(type);
        long[] dims = view.dims().stream().mapToLong(Long::longValue).toArray();
        StridedLayout layout = StridedLayout.packed(dims);
        long bytes = target.byteSize(view.elementCount());
        Buffer buffer = allocator.allocate(Math.max(1, bytes));
        if (isWholeBytes(view) && isOneBuffer(view)) {
            CopyEngine.defaults().copy(source(view), Access.strided(buffer.segment(), type, layout));
        } else {
            copyElements(view, target, buffer.segment());
        }
        return new Dense(buffer, target, layout);
    }

    /**
     * Copies every element of {@code src} into {@code dst} (same type and dims, any layouts): by
     * the copy engine for whole-byte one-buffer views, element by element otherwise.
     *
     * @throws IllegalArgumentException if the types or dims differ
     */
    public static void copy(TensorView src, TensorView dst) {
        if (src.dtype() != dst.dtype() || !src.dims().equals(dst.dims())) {
            throw new IllegalArgumentException("copy of " + src + " into " + dst + ": types or dims differ");
        }
        if (isWholeBytes(src) && isWholeBytes(dst) && isOneBuffer(src) && isOneBuffer(dst)) {
            CopyEngine.defaults().copy(source(src), source(dst));
            return;
        }
        if (src.dtype() == DType.C128) {
            throw new IllegalArgumentException("cannot copy " + src + " element by element: c128 elements do not fit"
                    + " the 64-bit element path");
        }
        src.forEachIndex(index -> dst.setBits(src.getBits(index), index));
    }

    private static boolean isWholeBytes(TensorView view) {
        return view.access().storageBits() == 8 * view.dtype().byteWidth() && !view.dtype().isSubByte();
    }

    private static boolean isOneBuffer(TensorView view) {
        return view.map() instanceof ViewMap.Single;
    }

    private static Access source(TensorView view) {
        MemorySegment segment = view.buffer().segment();
        return switch (view.form()) {
            case MapForm.Strided s -> Access.strided(segment, view.dtype(), s.layout());
            case MapForm.Tiled t when t.xlaShape().isPresent() -> Access.tiled(segment, t.xlaShape().get());
            case MapForm.Tiled t -> Access.mapped(segment, view.dtype(), t.map());
            case MapForm.General g -> Access.mapped(segment, view.dtype(), g.map());
        };
    }

    private static void copyElements(TensorView view, ElementAccess target, MemorySegment out) {
        if (view.dtype() == DType.C128) {
            throw new IllegalArgumentException("cannot copy " + view + " element by element: c128 elements do not fit"
                    + " the 64-bit element path");
        }
        long[] next = {0};
        view.forEachIndex(index -> target.setBits(out, next[0]++, view.getBits(index)));
    }
}
