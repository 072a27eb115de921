package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;

/**
 * STAND-IN FOR THE COPY ENGINE: materialises a view by visiting every logical index and moving
 * its raw bits. It is correct for any pair of layouts but slow (one map evaluation per element);
 * once {@code dev.tensorbuf.ops.copy.CopyEngine} (branch {@code copy-engine}) is merged, replace
 * {@link #materialize} by {@code CopyEngine.defaults().materialize(...)} and delete this class.
 * Its only callers are {@link Interpreter} (copy, root) and the executor's row-major export.
 */
public final class ElementLoopCopy {
    private ElementLoopCopy() {
    }

    /**
     * {@return a new view of {@code shape} (its XLA layout, tiles and padding included) holding the
     * elements of {@code src}; padding bytes are zero}
     *
     * @throws IllegalArgumentException if the dims or types differ, or for complex types
     */
    public static TensorView materialize(TensorView src, ArrayShape shape, Allocator allocator) {
        if (!src.dims().equals(shape.dims()) || src.dtype() != shape.dtype()) {
            throw new IllegalArgumentException("cannot copy " + src + " into " + shape + ": types or dims differ");
        }
        if (src.dtype() == DType.C128) {
            throw new IllegalArgumentException("copies of c128 elements are not supported yet (" + src + ")");
        }
        TensorView dst = allocate(shape, allocator);
        src.forEachIndex(index -> dst.setBits(src.getBits(index), index));
        return dst;
    }

    /** {@return a zeroed view of {@code shape} in new memory} */
    public static TensorView allocate(ArrayShape shape, Allocator allocator) {
        return TensorView.of(allocator.allocate(Math.max(1, shape.arraySize())), shape);
    }
}
