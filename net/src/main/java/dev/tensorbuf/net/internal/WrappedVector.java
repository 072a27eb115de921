package dev.tensorbuf.net.internal;

import org.apache.arrow.memory.util.hash.ArrowBufHasher;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.FieldVector;

/**
 * A vector over another, of its field and allocator, answering for its values what
 * {@link ExtensionTypeVector} leaves to subclasses: {@link LentColumn} and its values.
 */
abstract class WrappedVector<T extends FieldVector> extends ExtensionTypeVector<T> {
    WrappedVector(T vector) {
        super(vector.getField(), vector.getAllocator(), vector);
    }

    @Override
    public Object getObject(int index) {
        return getUnderlyingVector().getObject(index);
    }

    @Override
    public int hashCode(int index) {
        return getUnderlyingVector().hashCode(index);
    }

    @Override
    public int hashCode(int index, ArrowBufHasher hasher) {
        return getUnderlyingVector().hashCode(index, hasher);
    }
}
