package dev.tensorbuf.interop.internal;

import dev.tensorbuf.views.DType;
import java.util.List;

/** Size arithmetic of file formats: exact, with overflow reported as a bad value naming the numbers. */
public final class Sizes {
    private Sizes() {
    }

    /**
     * {@return the product of the dims}
     *
     * @throws IllegalArgumentException if a dim is negative or the product overflows a long
     */
    public static long elementCount(List<Long> dims, String context) {
        long count = 1;
        for (int i = 0; i < dims.size(); i++) {
            long d = dims.get(i);
            if (d < 0) {
                throw new IllegalArgumentException(context + ": dim " + i + " is negative (" + d + ") in shape " + dims);
            }
            try {
                count = Math.multiplyExact(count, d);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(context + ": element count of shape " + dims + " overflows a long");
            }
        }
        // A zero dim makes every other dim irrelevant to the size, but a later overflow is still
        // a lie worth reporting, so the loop does not stop early.
        return count;
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
                    + " (" + dtype.bitWidth() + " bits each) overflow a long byte size");
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
