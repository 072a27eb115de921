package dev.tensorbuf.ops.internal;

import java.util.function.Supplier;

/**
 * Exact size arithmetic for the copy engine, its API and its planner; an overflow is told through
 * {@link Errors}, as everywhere in ops.
 * {@snippet :
 * Sizes.multiply(3, 4, "bytes read");            // 12
 * Sizes.multiply(1L << 62, 4, "bytes read");    // IllegalArgumentException naming "bytes read" and the product
 * }
 */
public final class Sizes {
    private Sizes() {
    }

    public static long multiply(long a, long b, String what) {
        return multiply(a, b, () -> what);
    }

    /** As {@link #multiply(long, long, String)}, the message built only on overflow: plans call this per dimension. */
    public static long multiply(long a, long b, Supplier<String> what) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw Errors.overflows(what.get(), a + " * " + b, e);
        }
    }

    /** {@return {@code a + b}} @throws IllegalArgumentException naming {@code what} on overflow */
    public static long add(long a, long b, String what) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw Errors.overflows(what, a + " + " + b, e);
        }
    }
}
