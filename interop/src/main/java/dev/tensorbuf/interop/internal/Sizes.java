package dev.tensorbuf.interop.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.Extents;
import java.util.Arrays;
import java.util.List;

/** Size arithmetic of file formats: exact, with overflow reported as a bad value naming the numbers. */
public final class Sizes {
    private Sizes() {
    }

    /**
     * {@return the number of elements, by {@link Extents}' one rule: 0 when any dim is 0, wherever
     * it sits, else the product} Safetensors' reference reader folds {@code checked_mul} left to
     * right, so it refuses {@code [2^62, 4, 0]} yet takes {@code [0, 2^62, 4]}; we take both, as
     * neither holds a byte. A format that needs more ({@code .npy}'s strides) checks that itself.
     *
     * @throws IllegalArgumentException if a dim is negative or, with no dim 0, the product
     *     overflows a long; the message starts with {@code context}
     */
    public static long elementCount(List<Long> dims, String context) {
        try {
            return Extents.elementCount("shape", dims);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(context + ": " + e.getMessage(), e);
        }
    }

    /** {@return as {@link #elementCount(List, String)}, for a shape read from a foreign struct} */
    public static long elementCount(long[] dims, String context) {
        return elementCount(Arrays.stream(dims).boxed().toList(), context);
    }

    /**
     * {@return the bytes of {@code count} elements stored densely: whole bytes each, or packed
     * bits for sub-byte types}
     *
     * @throws IllegalArgumentException if the size overflows or packed bits do not fill whole bytes
     */
    public static long byteSize(DType dtype, long count, String context) {
        try {
            if (dtype.isSubByte()) {
                long bits = Math.multiplyExact(count, (long) dtype.bitWidth());
                if (bits % 8 != 0) {
                    throw new IllegalArgumentException(context + ": " + count + " elements of " + dtype + " are "
                            + bits + " bits, not a whole number of bytes");
                }
                return bits / 8;
            }
            return Math.multiplyExact(count, (long) dtype.byteWidth());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(context + ": " + count + " elements of " + dtype
                    + " (" + dtype.bitWidth() + " bits each) overflow a long byte size", e);
        }
    }

    /**
     * {@return the bytes of {@code count} elements of one whole byte count each: sub-byte types
     * unpacked, one to a byte, as NumPy and ml_dtypes store them}
     *
     * @throws IllegalArgumentException if the size overflows
     */
    public static long unpackedByteSize(DType dtype, long count, String context) {
        return dtype.isSubByte() ? count : byteSize(dtype, count, context);
    }
}
