package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;

/** Where the executor moves bytes: through the copy engine, into new buffers of a given layout. */
public final class Materialize {
    private Materialize() {
    }

    /**
     * {@return a copy of {@code src} in a new buffer laid out as {@code shape}}
     *
     * @throws IllegalArgumentException if the dims or types differ
     */
    public static TensorView materialize(TensorView src, ArrayShape shape, Allocator allocator) {
        if (!src.dims().equals(shape.dims()) || src.dtype() != shape.dtype()) {
            throw new IllegalArgumentException("cannot copy " + src + " into " + shape + ": types or dims differ");
        }
        return CopyEngine.defaults().materialize(src, shape, allocator);
    }

    /**
     * Copies {@code src} into the caller's {@code dst}, whatever its layout.
     *
     * @throws IllegalArgumentException if the dims or types differ
     */
    public static void copy(TensorView src, TensorView dst) {
        if (!src.dims().equals(dst.dims()) || src.dtype() != dst.dtype()) {
            throw new IllegalArgumentException("cannot copy " + src + " into " + dst + ": types or dims differ");
        }
        CopyEngine.defaults().copy(src, dst);
    }

    /**
     * {@return a new buffer viewed as {@code shape}, for a writer that sets every element: not
     * zeroed again when the layout has no padding (the allocator's own memory is returned as it
     * comes, which a pooled allocator may not have zeroed)}
     */
    static TensorView allocateForOverwrite(ArrayShape shape, Allocator allocator) {
        long dense = Math.multiplyExact(shape.elementCount(), Math.max(1, shape.dtype().bitWidth() / 8));
        if (shape.dtype().bitWidth() % 8 != 0 || shape.arraySize() != dense) {
            return allocate(shape, allocator);
        }
        return TensorView.of(allocator.allocate(Math.max(1, shape.arraySize())), shape);
    }

    /** {@return a new, zeroed buffer viewed as {@code shape}} */
    public static TensorView allocate(ArrayShape shape, Allocator allocator) {
        var buffer = allocator.allocate(Math.max(1, shape.arraySize()));
        buffer.segment().fill((byte) 0);
        return TensorView.of(buffer, shape);
    }
}
