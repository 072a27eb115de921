package dev.tensorbuf.interop.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

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
     * {@return the bytes of {@code count} elements as safetensors stores them: whole bytes each,
     * or packed bits for sub-byte types, which must fill whole bytes} The reference reader
     * refuses a sub-byte tensor that does not end on a byte ({@code F4 [3]}), so this does too.
     *
     * @throws IllegalArgumentException if the size overflows or packed bits do not fill whole bytes
     */
    public static long byteSize(DType dtype, long count, String context) {
        try {
            if (dtype.isSubByte()) {
                Optional<String> partByte = partByte(dtype, count);
                if (partByte.isPresent()) {
                    throw new IllegalArgumentException(context + ": " + partByte.get());
                }
                return Math.multiplyExact(count, (long) dtype.bitWidth()) / 8;
            }
            return Math.multiplyExact(count, (long) dtype.byteWidth());
        } catch (ArithmeticException e) {
            throw overflow(dtype, count, context, e);
        }
    }

    /**
     * {@return why safetensors cannot hold {@code count} packed elements of {@code dtype}, or empty
     * when their bits fill whole bytes}
     *
     * @throws ArithmeticException if the bit count overflows
     */
    public static Optional<String> partByte(DType dtype, long count) {
        long bits = Math.multiplyExact(count, (long) dtype.bitWidth());
        return bits % 8 == 0 ? Optional.empty() : Optional.of(count + " elements of " + dtype + " are " + bits
                + " bits, not a whole number of bytes, which safetensors requires (its reference reader refuses a"
                + " sub-byte tensor that does not end on a byte)");
    }

    /**
     * {@return the bytes of {@code count} elements stored densely in C order, as a
     * {@code DenseTensor} holds them: whole bytes each, or 1-, 2- and 4-bit elements packed,
     * {@code ceil(count * bits / 8)}, the last byte partly used when they do not fill it (XLA's
     * packing: {@code s4[3]} takes 2 bytes)} 6-bit types, whose packing takes four elements to
     * three bytes, must fill whole bytes, as {@link #byteSize} says.
     *
     * @throws IllegalArgumentException if the size overflows, or 6-bit elements do not fill whole bytes
     */
    public static long packedByteSize(DType dtype, long count, String context) {
        if (!dtype.isSubByte() || 8 % dtype.bitWidth() != 0) {
            return byteSize(dtype, count, context);
        }
        try {
            return Math.ceilDiv(Math.multiplyExact(count, (long) dtype.bitWidth()), 8L);
        } catch (ArithmeticException e) {
            throw overflow(dtype, count, context, e);
        }
    }

    private static IllegalArgumentException overflow(DType dtype, long count, String context, ArithmeticException e) {
        return new IllegalArgumentException(context + ": " + count + " elements of " + dtype
                + " (" + dtype.bitWidth() + " bits each) overflow a long byte size", e);
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
