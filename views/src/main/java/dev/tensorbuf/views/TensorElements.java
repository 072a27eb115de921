package dev.tensorbuf.views;

import java.util.Objects;
import java.util.PrimitiveIterator;
import java.util.function.Consumer;

/**
 * Typed element access to a {@link TensorView}: get and set by logical index, bulk transfer to
 * and from Java arrays in logical (row-major) order, and iteration. A {@code TensorView} says what
 * a view is (buffers, type, dimensions, map); this type reads and writes its elements, converting
 * as its {@link ElementAccess} does (rounding to nearest even, range-checked integers).
 *
 * <p>Element access needs host-accessible memory: a view over device buffers refuses it at the
 * first access, naming the memory space. A strided view reads through
 * {@code offset + sum(stride_i * i_i)}; any other through its map compiled once. Neither
 * allocates per element, and making this object costs one small allocation that a loop can
 * keep. It holds nothing but the view, so it is as thread-safe as the bytes are.
 * {@snippet :
 * try (Allocator arena = Allocators.confined()) {
 *     TensorView v = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
 *     TensorElements e = TensorElements.of(v);
 *     e.setFloat(7f, 2, 3);
 *     v.buffer().segment().getAtIndex(ValueLayout.JAVA_FLOAT, 17); // 7.0: Figure 1's slot of (2, 3)
 *     e.getFloat(2, 5);   // IndexOutOfBoundsException: "index 5 out of bounds [0, 5) for dim 1 of f32[3,5]{1,0:T(2,2)}"
 *     e.toFloatArray();   // 15 floats in row-major order, 7.0 at 13
 * }
 * }
 */
public final class TensorElements {
    private final TensorView view;
    private final ElementAccess access;

    private TensorElements(TensorView view) {
        this.view = view;
        this.access = view.access();
    }

    /** {@return typed access to the elements of {@code view}} Nothing is checked until an element is reached. */
    public static TensorElements of(TensorView view) {
        return new TensorElements(Objects.requireNonNull(view, "view"));
    }

    /** {@return the view whose elements this reads and writes} */
    public TensorView view() {
        return view;
    }

    /** {@return the element at {@code index} as a float} @throws IndexOutOfBoundsException naming the dim and bounds */
    public float getFloat(long... index) {
        long at = ElementLocator.locate(view, index, false);
        return access.getFloat(ElementLocator.segment(view, index), at);
    }

    /** {@return the element at {@code index} as a double} @throws IndexOutOfBoundsException naming the dim and bounds */
    public double getDouble(long... index) {
        long at = ElementLocator.locate(view, index, false);
        return access.getDouble(ElementLocator.segment(view, index), at);
    }

    /** {@return the integer or pred element at {@code index}} @see ElementAccess#getLong */
    public long getLong(long... index) {
        long at = ElementLocator.locate(view, index, false);
        return access.getLong(ElementLocator.segment(view, index), at);
    }

    /** {@return the raw bits of the element at {@code index}} @see ElementAccess#getBits */
    public long getBits(long... index) {
        long at = ElementLocator.locate(view, index, false);
        return access.getBits(ElementLocator.segment(view, index), at);
    }

    /**
     * {@return the real part of the complex element at {@code index}}
     * {@snippet :
     * TensorElements z = TensorElements.of(TensorView.of(buffer, "c64[2]{0}"));
     * z.setComplex(1.5, -2, 1);
     * z.getReal(1);   // 1.5
     * z.getImag(1);   // -2.0
     * }
     *
     * @throws IllegalArgumentException if the type is not c64 or c128
     */
    public double getReal(long... index) {
        long at = ElementLocator.locate(view, index, false);
        return access.getReal(ElementLocator.segment(view, index), at);
    }

    /** {@return the imaginary part of the complex element at {@code index}} @see #getReal */
    public double getImag(long... index) {
        long at = ElementLocator.locate(view, index, false);
        return access.getImag(ElementLocator.segment(view, index), at);
    }

    /** Writes a complex element, as {@link ElementAccess#setComplex} (c64 rounds each part to float). */
    public void setComplex(double real, double imag, long... index) {
        long at = ElementLocator.locate(view, index, true);
        access.setComplex(ElementLocator.segment(view, index), at, real, imag);
    }

    /** Writes a complex element from float parts, as {@link ElementAccess#setComplexFloat} (c64 keeps their bits). */
    public void setComplexFloat(float real, float imag, long... index) {
        long at = ElementLocator.locate(view, index, true);
        access.setComplexFloat(ElementLocator.segment(view, index), at, real, imag);
    }

    /** Writes a float, rounded as {@link ElementAccess#setFloat}. @throws IndexOutOfBoundsException naming the dim and bounds */
    public void setFloat(float value, long... index) {
        long at = ElementLocator.locate(view, index, true);
        access.setFloat(ElementLocator.segment(view, index), at, value);
    }

    /** Writes a double, rounded as {@link ElementAccess#setDouble}. */
    public void setDouble(double value, long... index) {
        long at = ElementLocator.locate(view, index, true);
        access.setDouble(ElementLocator.segment(view, index), at, value);
    }

    /** Writes an integer or pred, range-checked as {@link ElementAccess#setLong}. */
    public void setLong(long value, long... index) {
        long at = ElementLocator.locate(view, index, true);
        access.setLong(ElementLocator.segment(view, index), at, value);
    }

    /** Writes raw bits, as {@link ElementAccess#setBits}. */
    public void setBits(long bits, long... index) {
        long at = ElementLocator.locate(view, index, true);
        access.setBits(ElementLocator.segment(view, index), at, bits);
    }

    /** {@return every element as a float, in logical (row-major) order} @throws IllegalArgumentException past 2^31 - 1 elements */
    public float[] toFloatArray() {
        return ViewTransfer.toFloatArray(view);
    }

    /** {@return every element as a double, in logical order} */
    public double[] toDoubleArray() {
        return ViewTransfer.toDoubleArray(view);
    }

    /** {@return every integer or pred element, in logical order} */
    public long[] toLongArray() {
        return ViewTransfer.toLongArray(view);
    }

    /** {@return every integer or pred element as an int, in logical order} @throws IllegalArgumentException for a value past int */
    public int[] toIntArray() {
        return ViewTransfer.toIntArray(view);
    }

    /**
     * Writes every element from {@code values}, in logical order.
     *
     * @throws IllegalArgumentException if the length differs, or the view reads several indices
     *     from one slot (a broadcast), where all but one value would be lost
     */
    public void copyFrom(float[] values) {
        ViewTransfer.copyFrom(view, values);
    }

    /** Writes every element from {@code values}, in logical order. */
    public void copyFrom(double[] values) {
        ViewTransfer.copyFrom(view, values);
    }

    /** Writes every integer or pred element from {@code values}, in logical order. */
    public void copyFrom(long[] values) {
        ViewTransfer.copyFrom(view, values);
    }

    /** Writes every integer or pred element from {@code values}, in logical order. */
    public void copyFrom(int[] values) {
        ViewTransfer.copyFrom(view, values);
    }

    /**
     * Visits every logical index in row-major order. The array passed is reused between calls:
     * copy it to keep it.
     */
    public void forEachIndex(Consumer<long[]> action) {
        ViewTransfer.forEachIndex(view.dimsArray(), action);
    }

    /** {@return the elements as doubles, in logical order} */
    public PrimitiveIterator.OfDouble doubles() {
        return ViewTransfer.doubles(view);
    }

    /** {@return {@code "elements of "} and the view's text} */
    @Override
    public String toString() {
        return "elements of " + view;
    }
}
