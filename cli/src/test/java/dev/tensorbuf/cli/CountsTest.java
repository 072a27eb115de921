package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class CountsTest {
    @Test
    void decimalWritesWhatFormatWritesInEnglish() {
        assertEquals("1 byte", Counts.of(1, "byte"));
        assertEquals("24 element slots", Counts.of(24, "element slot"));
        assertEquals("0.07", Counts.decimal(0.0734, 2));
        assertEquals("0.00", Counts.decimal(0, 2));
        assertEquals("1.05", Counts.decimal(1.049999, 2));
        assertEquals("12.50", Counts.decimal(12.5, 2));
        assertEquals("3.0", Counts.decimal(2.96, 1));
        assertEquals("-0.25", Counts.decimal(-0.25, 2));
        assertEquals("-0.00", String.format(Locale.ROOT, "%.2f", -0.001)); // Formatter keeps the sign of a zero...
        assertEquals("0.00", Counts.decimal(-0.001, 2)); // ...which a duration never has
        assertEquals("7", Counts.decimal(7.4, 0));
        double[] values = {0.0049, 0.015, 0.994, 0.995, 1.005, 2.675, 123.456, 999.999, 0.5, 86399.123};
        for (double v : values) {
            for (int places = 1; places <= 3; places++) {
                String ours = Counts.decimal(v, places);
                String format = String.format(Locale.ROOT, "%." + places + "f", v);
                // Formatter rounds the double's exact decimal value, this its product with 10^places:
                // they part only on ties that the binary value misses by less than an ulp.
                assertTrue(ours.equals(format) || Math.abs(Double.parseDouble(ours) - Double.parseDouble(format))
                        <= Math.pow(10, -places) + 1e-12, v + " to " + places + ": " + ours + " vs " + format);
            }
        }
    }

    @Test
    void decimalRefusesWhatItCannotWrite() {
        assertThrows(IllegalArgumentException.class, () -> Counts.decimal(Double.NaN, 2));
        assertThrows(IllegalArgumentException.class, () -> Counts.decimal(Double.POSITIVE_INFINITY, 2));
        assertThrows(IllegalArgumentException.class, () -> Counts.decimal(1, -1));
        assertThrows(IllegalArgumentException.class, () -> Counts.decimal(1e18, 2));
    }
}
