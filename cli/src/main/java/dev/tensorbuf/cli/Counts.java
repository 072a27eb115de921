package dev.tensorbuf.cli;

/**
 * A count and its noun, singular for one: a 1-byte tensor is common enough (a u8 scalar) that
 * "1 bytes" showed up in reports.
 *
 * {@snippet :
 * Counts.of(1, "byte");           // "1 byte"
 * Counts.of(24, "element slot");  // "24 element slots"
 * Counts.decimal(0.0734, 2);      // "0.07"
 * }
 */
final class Counts {
    private Counts() {}

    /** {@return {@code n} and {@code noun}, with an "s" unless {@code n} is 1} */
    static String of(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /**
     * {@return {@code value} with {@code places} decimals, rounded half up, as
     * {@code String.format("%.2f", value)} writes it in an English locale} Not String.format: its
     * first call loads the Formatter and the locale data, 10-60 ms of a start-up that a small
     * convert spends on nothing else (bench/RESULTS.md, "Start-up").
     */
    static String decimal(double value, int places) {
        long scale = 1;
        for (int i = 0; i < places && i < 10; i++) {
            scale *= 10;
        }
        if (!Double.isFinite(value) || places < 0 || places > 9 || Math.abs(value) * scale >= 0x1p62) {
            throw new IllegalArgumentException("decimal(" + value + ", " + places + "): needs a finite value, 0 to 9"
                    + " places, and fewer than 2^62 units of the last place");
        }
        long scaled = Math.round(Math.abs(value) * scale);
        StringBuilder sb = new StringBuilder();
        if (value < 0 && scaled != 0) {
            sb.append('-');
        }
        sb.append(scaled / scale);
        if (places > 0) {
            String fraction = Long.toString(scaled % scale);
            sb.append('.').append("0".repeat(places - fraction.length())).append(fraction);
        }
        return sb.toString();
    }
}
