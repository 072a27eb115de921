package dev.tensorbuf.views.internal;

import java.util.List;

/**
 * Arithmetic on lists of dimension sizes, written once so every module answers "how many
 * elements?" the same way, and the one conversion of a {@code List<Long>} (dims, sizes, strides)
 * to the {@code long[]} that the array-taking factories want.
 *
 * <p>The rule of {@link #elementCount(String, List)}: every dim must be at least 0. A shape with a
 * dim of 0 is empty, whatever the other dims are and wherever the 0 sits, so its count is 0 and
 * nothing else is multiplied. Otherwise the product of the dims must fit in a long. This is XLA's
 * view of an array ({@code f32[9223372036854775807,0]} holds nothing, and neither does
 * {@code f32[0,9223372036854775807]}), and {@link ArrayShape}, {@link StridedLayout},
 * {@link TensorView}, the ops and the file readers all use it. The answer does not depend on the
 * order of the dims.
 *
 * <p>The rule is about the count alone. A format that derives strides from the dims, counting a
 * 0 as 1 as NumPy does, also needs the product of the <em>non-zero</em> dims to fit, even when the
 * array is empty. Such a format checks that itself: {@code .npy} headers do, as {@code np.load}
 * does.
 * {@snippet :
 * Extents.elementCount("shape", List.of(2L, 3L));                    // 6
 * Extents.elementCount("shape", List.of(0L, 1L << 62, 4L));          // 0: a dim of 0 empties it
 * Extents.elementCount("shape", List.of(1L << 62, 4L));              // IllegalArgumentException:
 * // "element count of shape [4611686018427387904, 4] overflows a long"
 * Extents.toArray(List.of(2L, 3L));                                   // [2, 3]
 * }
 */
public final class Extents {
    private Extents() {
    }

    /**
     * {@return the number of elements of an array with these dims: 0 when any dim is 0, else the
     * product}
     *
     * @param what names the dims in a message, e.g. {@code "shape"} or {@code "sizes"}; may be empty
     * @param dims the sizes
     * @throws IllegalArgumentException if a dim is negative, or no dim is 0 and the product
     *     overflows a long; the message names the dims, and an overflow carries its
     *     {@link ArithmeticException} as the cause
     */
    public static long elementCount(String what, List<Long> dims) {
        boolean empty = false;
        for (int i = 0; i < dims.size(); i++) {
            long d = dims.get(i);
            if (d < 0) {
                throw Errors.negativeSize(d, i, named(what, dims));
            }
            empty |= d == 0;
        }
        if (empty) {
            return 0;
        }
        long n = 1;
        for (long d : dims) {
            try {
                n = Math.multiplyExact(n, d);
            } catch (ArithmeticException e) {
                throw Errors.overflows("element count of " + named(what, dims), e);
            }
        }
        return n;
    }

    /** {@return as {@link #elementCount(String, List)}, for an array of dims} */
    public static long elementCount(String what, long... dims) {
        // Unboxed: a reshape's remap counts both sides on every view it makes. Bad dims take the
        // list's path, for its message.
        boolean empty = false;
        for (long d : dims) {
            if (d < 0) {
                return elementCount(what, boxed(dims));
            }
            empty |= d == 0;
        }
        if (empty) {
            return 0;
        }
        long n = 1;
        try {
            for (long d : dims) {
                n = Math.multiplyExact(n, d);
            }
        } catch (ArithmeticException overflow) {
            return elementCount(what, boxed(dims));
        }
        return n;
    }

    /** {@return the values as a new array}, e.g. a view's {@code dims()} for {@code Remap.Reshape.of} */
    public static long[] toArray(List<Long> values) {
        long[] a = new long[values.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = values.get(i);
        }
        return a;
    }

    /** {@return {@code dims} as an unmodifiable list, the inverse of {@link #toArray}} */
    public static List<Long> boxed(long[] dims) {
        Long[] boxed = new Long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            boxed[i] = dims[i];
        }
        return List.of(boxed);
    }

    private static String named(String what, List<Long> dims) {
        return what.isEmpty() ? dims.toString() : what + " " + dims;
    }
}
