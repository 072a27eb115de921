package dev.tensorbuf.cli;

/**
 * A count and its noun, singular for one: a 1-byte tensor is common enough (a u8 scalar) that
 * "1 bytes" showed up in reports.
 *
 * {@snippet :
 * Counts.of(1, "byte");           // "1 byte"
 * Counts.of(24, "element slot");  // "24 element slots"
 * }
 */
final class Counts {
    private Counts() {}

    /** {@return {@code n} and {@code noun}, with an "s" unless {@code n} is 1} */
    static String of(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
