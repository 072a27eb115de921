package dev.tensorbuf.ops.copy;

/** Error factories and exact size arithmetic for the copy API, so messages stay uniform. */
final class Sizes {
    private Sizes() {
    }

    static long multiply(long a, long b, String what) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " overflows a long: " + a + " * " + b, e);
        }
    }
}
