package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.internal.Errors;
import java.util.function.Supplier;

/** Exact size arithmetic for the copy API; an overflow is told through {@link Errors}, as everywhere in ops. */
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
            throw Errors.overflows(what.get(), a + " * " + b, e);
        }
    }
}
