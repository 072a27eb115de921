package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaLayout;

import java.util.ArrayList;
import java.util.List;

/**
 * A tiled XLA layout as a strided layout over "digits": each logical dimension {@code i} is
 * written in a mixed radix, {@code index_i = sum(digit * factor)}, and each digit has its own
 * stride in the tiled buffer. {@code f32[R,C]{1,0:T(8,128)}} has digits
 * {@code r/8, c/128, r%8, c%128} with strides {@code 128*ceil(C/128)*8, 1024, 128, 1}.
 *
 * <p>Padding only ever sits above a logical dimension's bound, so {@link #validPieces} and
 * {@link #padPieces} split each dimension's digit space into boxes that are entirely data or
 * entirely padding. Layouts whose padding would fall inside a lower digit (a nested tile that
 * does not divide the one it tiles), combined dimensions ({@code *}), split configs and packed
 * sub-byte elements have no such form: {@link #of} returns a reason instead.
 *
 * @param digits physical order, most major first
 * @param sizes per logical dimension (pseudo dimensions of size 1 added by a tile of higher
 *     rank than the shape come after the real ones)
 * @param slots physical element slots, padding included
 */
public record TiledDigits(List<Digit> digits, long[] sizes, long slots) {

    /**
     * One digit.
     *
     * @param dim logical dimension ({@code >= rank} for a pseudo dimension)
     * @param radix number of values
     * @param factor weight in the logical index
     * @param stride element stride in the tiled buffer
     */
    public record Digit(int dim, long radix, long factor, long stride) {
    }

    /** A digit range within one box: {@code digit} takes {@code count} values from {@code lo}. */
    public record Range(int digit, long lo, long count) {
    }

    /** {@return the digit form of a tiled shape, or a String saying why it has none} */
    public static Object of(ArrayShape shape) {
        XlaLayout layout = shape.requireLayout();
        if (!layout.splitConfigs().isEmpty()) {
            return "split configs";
        }
        long e = layout.elementSizeInBits();
        if (e != 0 && e != 8L * shape.dtype().byteWidth()) {
            return "packed E(" + e + ") elements";
        }
        int rank = shape.rank();
        // {dim, radix, factor, top}: top is 1 for the digit holding a dimension's highest part,
        // the only one whose padding sits above the dimension's bound.
        List<long[]> cur = new ArrayList<>();
        for (int j = 0; j < rank; j++) {
            int d = layout.majorDimension(j);
            cur.add(new long[] {d, shape.dim(d), 1, 1});
        }
        int pseudo = rank;
        for (Tile tile : layout.tiles()) {
            if (tile.hasCombined()) {
                return "combined dimensions in tile " + tile;
            }
            int r = tile.rank();
            while (cur.size() < r) {
                cur.addFirst(new long[] {pseudo++, 1, 1, 1});
            }
            int prefix = cur.size() - r;
            List<long[]> outers = new ArrayList<>();
            List<long[]> inners = new ArrayList<>();
            for (int k = 0; k < r; k++) {
                long[] g = cur.get(prefix + k);
                long t = tile.dim(k);
                // Told by the flag, not by comparing factors: a digit of radix 1 (a tile entry of
                // 1, or one equal to what it tiles) shares its factor with another digit.
                if (g[3] == 0 && g[1] % t != 0) {
                    return "tile " + tile + " does not divide the inner tile dimension of size " + g[1];
                }
                outers.add(new long[] {g[0], Math.ceilDiv(g[1], t), Math.multiplyExact(g[2], t), g[3]});
                inners.add(new long[] {g[0], t, g[2], 0});
            }
            List<long[]> next = new ArrayList<>(cur.subList(0, prefix));
            next.addAll(outers);
            next.addAll(inners);
            cur = next;
        }
        long[] sizes = new long[pseudo];
        for (int i = 0; i < pseudo; i++) {
            sizes[i] = i < rank ? shape.dim(i) : 1;
        }
        long[] strides = new long[cur.size()];
        long n = 1;
        for (int j = cur.size() - 1; j >= 0; j--) {
            strides[j] = n;
            n = Math.multiplyExact(n, cur.get(j)[1]);
        }
        List<Digit> digits = new ArrayList<>();
        for (int j = 0; j < cur.size(); j++) {
            long[] g = cur.get(j);
            // A digit of radix 1 is always 0: kept, it would tie in factor with its neighbour
            // and break the mixed radix the boxes are cut by.
            if (g[1] != 1) {
                digits.add(new Digit((int) g[0], g[1], g[2], strides[j]));
            }
        }
        return new TiledDigits(List.copyOf(digits), sizes, n);
    }

    /** {@return the digit indices of logical dimension {@code dim}, largest factor first} */
    public int[] digitsOf(int dim) {
        return java.util.stream.IntStream.range(0, digits.size()).filter(j -> digits.get(j).dim() == dim).boxed()
                .sorted((a, b) -> Long.compare(digits.get(b).factor(), digits.get(a).factor()))
                .mapToInt(Integer::intValue).toArray();
    }

    /** {@return boxes of dimension {@code dim} that hold data: each a list of ranges of its digits} */
    public List<List<Range>> validPieces(int dim) {
        List<List<Range>> out = new ArrayList<>();
        pieces(digitsOf(dim), 0, sizes[dim], new ArrayList<>(), out, null);
        return out;
    }

    /** {@return boxes of dimension {@code dim} that are padding} */
    public List<List<Range>> padPieces(int dim) {
        List<List<Range>> pad = new ArrayList<>();
        pieces(digitsOf(dim), 0, sizes[dim], new ArrayList<>(), new ArrayList<>(), pad);
        return pad;
    }

    /** Splits {@code [0, m)} over digits {@code order[k..]} (prefix fixed) into data boxes and padding boxes. */
    private void pieces(int[] order, int k, long m, List<Range> prefix, List<List<Range>> valid,
                        List<List<Range>> pad) {
        if (order.length == 0) {
            // Every digit had radix 1: the dimension has size 1 (or 0) and one slot.
            if (m > 0) {
                valid.add(List.of());
            }
            return;
        }
        Digit d = digits.get(order[k]);
        assert k + 1 == order.length || d.factor() == digits.get(order[k + 1]).factor() * digits.get(order[k + 1]).radix()
                : "digits are not a proper mixed radix";
        long a = m / d.factor();
        long b = m % d.factor();
        if (a > 0) {
            valid.add(full(order, k, prefix, 0, a));
        }
        if (b > 0) {
            List<Range> p = new ArrayList<>(prefix);
            p.add(new Range(order[k], a, 1));
            pieces(order, k + 1, b, p, valid, pad);
        }
        long padFrom = b > 0 ? a + 1 : a;
        if (pad != null && padFrom < d.radix()) {
            pad.add(full(order, k, prefix, padFrom, d.radix() - padFrom));
        }
    }

    private List<Range> full(int[] order, int k, List<Range> prefix, long lo, long count) {
        List<Range> box = new ArrayList<>(prefix);
        box.add(new Range(order[k], lo, count));
        for (int q = k + 1; q < order.length; q++) {
            box.add(new Range(order[q], 0, digits.get(order[q]).radix()));
        }
        return box;
    }
}
