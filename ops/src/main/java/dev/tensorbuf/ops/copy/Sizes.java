package dev.tensorbuf.ops.copy;

import java.util.function.Supplier;

/** Error factories and exact size arithmetic for the copy API, so messages stay uniform. */
final class Sizes {
    private Sizes() {
    }

    static long multiply(long a, long b, String what) {
        return multiply(a, b, () -> what);
    }

    /** As {@link #multiply(long, long, String)}, the message built only on overflow: plans call this per dimension. */
    static long multiply(long a, long b, Supplier<String> what) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what.get() + " overflows a long: " + a + " * " + b, e);
        }
    }
}
