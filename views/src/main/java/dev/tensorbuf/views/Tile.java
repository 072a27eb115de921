package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One level of an XLA tiling: the tile's bounds over the most minor physical dimensions, most
 * major first. An entry may be {@link #COMBINE} (printed {@code *}): that dimension is merged
 * into the next more-minor one before this level is applied.
 *
 * <p>A tile may have more entries than the shape has dimensions; the shape is then padded with
 * leading size-1 dimensions.
 * {@snippet :
 * Tile t = Tile.of(8, 128);
 * t.toString();                                   // "(8,128)"
 * Tile.of(2, Tile.COMBINE, 128).toString();       // "(2,*,128)"
 * Tile.of(8, 128).elementCount();                 // 1024
 * }
 *
 * @param dims the tile bounds, each {@code > 0} or {@link #COMBINE}; at least one
 */
public record Tile(List<Long> dims) {
    /**
     * The marker for a combined dimension ({@code *} in text). It is XLA's
     * {@code Tile::kCombineDimension}, the smallest {@code long}; no other negative entry is valid.
     */
    public static final long COMBINE = Long.MIN_VALUE;

    /**
     * @throws IllegalArgumentException if the tile is empty or an entry is {@code <= 0} and not
     *     {@link #COMBINE}
     */
    public Tile {
        dims = List.copyOf(dims);
        if (dims.isEmpty()) {
            throw new IllegalArgumentException("layout has invalid tiles: a tile needs at least one dimension, got ()");
        }
        for (int i = 0; i < dims.size(); i++) {
            long d = dims.get(i);
            if (d <= 0 && d != COMBINE) {
                throw new IllegalArgumentException("layout has invalid tiles: entry " + d + " at position " + i
                        + " of tile " + describe(dims) + " must be > 0 or '*'");
            }
        }
    }

    /** {@return a tile with these bounds, most major first} */
    public static Tile of(long... dims) {
        List<Long> list = new ArrayList<>(dims.length);
        for (long d : dims) {
            list.add(d);
        }
        return new Tile(list);
    }

    /** {@return the number of entries} */
    public int rank() {
        return dims.size();
    }

    /** {@return the entry at {@code i}, possibly {@link #COMBINE}} */
    public long dim(int i) {
        return dims.get(i);
    }

    /** {@return whether entry {@code i} is the combine marker {@code *}} */
    public boolean isCombined(int i) {
        return dims.get(i) == COMBINE;
    }

    /** {@return whether any entry is the combine marker {@code *}} */
    public boolean hasCombined() {
        return dims.contains(COMBINE);
    }

    /**
     * {@return the product of the non-combined entries: the elements in one tile}
     *
     * @throws IllegalArgumentException if the product overflows a {@code long}
     */
    public long elementCount() {
        long n = 1;
        for (long d : dims) {
            if (d != COMBINE) {
                try {
                    n = Math.multiplyExact(n, d);
                } catch (ArithmeticException e) {
                    throw Errors.overflows("element count of tile " + this, e);
                }
            }
        }
        return n;
    }

    /** {@return the tile as XLA prints it, e.g. {@code "(2,*,128)"}} */
    @Override
    public String toString() {
        return describe(dims);
    }

    private static String describe(List<Long> dims) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < dims.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            long d = Objects.requireNonNull(dims.get(i));
            sb.append(d == COMBINE ? "*" : Long.toString(d));
        }
        return sb.append(')').toString();
    }
}
