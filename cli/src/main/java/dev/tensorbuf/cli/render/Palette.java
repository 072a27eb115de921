package dev.tensorbuf.cli.render;

import java.util.List;

/**
 * The fill colours of a picture: Paul Tol's "light" scheme, made to stay apart for the common
 * forms of colour blindness and to carry black text. Seven colours, a prime, so that tiles
 * {@code n} apart in memory get the same colour only when {@code n} is a multiple of 7; a row of
 * 2, 4 or 8 tiles never puts one colour above itself.
 * {@snippet :
 * Palette.fill(0);   // "#77AADD" light blue
 * Palette.fill(7);   // "#77AADD" again
 * }
 */
public final class Palette {
    private static final List<String> FILLS = List.of(
            "#77AADD", // light blue
            "#EE8866", // orange
            "#EEDD88", // light yellow
            "#FFAABB", // pink
            "#99DDFF", // light cyan
            "#44BB99", // mint
            "#BBCC33"); // pear

    /** Cells that carry no colour key: white, with the hatch when they are padding. */
    public static final String NEUTRAL = "#FFFFFF";
    /** Outer tile outlines and text. */
    public static final String INK = "#1A1A1A";
    /** Inner tile outlines. */
    public static final String INNER = "#5A2A82";
    /** Secondary text: slot numbers, axis indices. */
    public static final String MUTED = "#666666";

    private Palette() {}

    /** {@return the number of distinct fills} */
    public static int size() {
        return FILLS.size();
    }

    /** {@return the fill for a colour key; negative keys are {@link #NEUTRAL}} */
    public static String fill(long key) {
        return key < 0 ? NEUTRAL : FILLS.get((int) Math.floorMod(key, (long) FILLS.size()));
    }
}
