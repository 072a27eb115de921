package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.IndexingMap;

/**
 * XLA's {@code pad}: per dimension {@code low} and {@code high} edge padding (negative crops)
 * and {@code interior} padding between elements. Output size
 * {@code low + high + n + (n - 1) * interior}. The output-to-input map is partial: output
 * {@code d} reads input {@code (d - low) / (interior + 1)} where {@code (d - low) mod
 * (interior + 1) == 0} and the quotient is in range; everywhere else reads the fill value,
 * and writes there throw. The view is made from the pad's windows ({@link Remap.Pad}) in O(rank).
 * A pad that only crops (no positive edge, no interior) is the slice it amounts to, strided
 * where its source is.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[2]{0}");          // [1, 2]
 * Pad.apply(v, new long[] {1}, new long[] {2}, new long[] {1}, 0).toFloatArray();
 * // [0, 1, 0, 2, 0, 0]
 * Pad.outputToInput(new long[] {2}, new long[] {1}, new long[] {2}, new long[] {1}).toString();
 * // "(d0) -> ((d0 - 1) / 2), domain: d0 in [1, 3], (d0 - 1) mod 2 in [0, 0]"
 * }
 */
public final class Pad {
    private Pad() {
    }

    /** {@return the padded view, the fill a scalar of the view's type} @see #apply(TensorView, long[], long[], long[], TensorView) */
    public static TensorView apply(TensorView view, long[] low, long[] high, long[] interior, double fill) {
        return apply(view, low, high, interior, TensorView.scalar(view.dtype(), fill));
    }

    /**
     * {@return the padded view, the fill an integer: exact for 64-bit types ({@code INT64_MAX} as
     * a sentinel)} @see #apply(TensorView, long[], long[], long[], TensorView)
     */
    public static TensorView apply(TensorView view, long[] low, long[] high, long[] interior, long fill) {
        return apply(view, low, high, interior, TensorView.scalar(view.dtype(), fill));
    }

    /**
     * {@return the padded view, made in O(rank): the map is composed when first asked for}
     *
     * @param fill a rank-0 view of the same type
     * @throws IllegalArgumentException if {@code interior} is negative or an output size is negative
     */
    public static TensorView apply(TensorView view, long[] low, long[] high, long[] interior, TensorView fill) {
        OpChecks.checkRank("pad", view, low.length, "low paddings");
        OpChecks.checkRank("pad", view, high.length, "high paddings");
        OpChecks.checkRank("pad", view, interior.length, "interior paddings");
        long[] in = Extents.toArray(view.dims());
        checkSizes(view, in, low, high, interior);
        if (cropsOnly(low, high, interior)) {
            // No index reads the fill: XLA uses such pads as slices, and the result stays strided.
            long[] start = new long[in.length];
            long[] limit = new long[in.length];
            long[] stride = new long[in.length];
            for (int i = 0; i < in.length; i++) {
                start[i] = -low[i];
                limit[i] = in[i] + high[i]; // checkSizes has made sure start <= limit
                stride[i] = 1;
            }
            if (fill.rank() != 0 || fill.dtype() != view.dtype()) {
                throw new IllegalArgumentException("fill of " + view + " must be a rank-0 " + view.dtype() + " view, not "
                        + fill);
            }
            return Slice.apply(view, start, limit, stride);
        }
        return view.padded(Remap.Pad.of(in, low, high, interior), fill);
    }

    /** {@return whether no padding is added anywhere: no positive edge, no interior} */
    private static boolean cropsOnly(long[] low, long[] high, long[] interior) {
        for (int i = 0; i < low.length; i++) {
            if (low[i] > 0 || high[i] > 0 || interior[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static void checkSizes(TensorView view, long[] in, long[] low, long[] high, long[] interior) {
        for (int i = 0; i < in.length; i++) {
            if (interior[i] < 0) {
                throw new IllegalArgumentException(where(view, i, low, high, interior) + ": interior must be >= 0");
            }
            long size;
            try {
                size = Remap.Pad.outputSize(in[i], low[i], high[i], interior[i]);
            } catch (ArithmeticException e) {
                throw Errors.overflows(where(view, i, low, high, interior) + ": size " + low[i] + " + " + high[i] + " + "
                        + in[i] + " + " + Math.max(in[i] - 1, 0) + " * " + interior[i], e);
            }
            if (size < 0) {
                throw new IllegalArgumentException(where(view, i, low, high, interior) + " gives size " + size
                        + "; interior must be >= 0 and the size >= 0");
            }
        }
    }

    /** Built only on the failure path: the shape's text costs more than making the view. */
    private static String where(TensorView view, int i, long[] low, long[] high, long[] interior) {
        return "pad of " + view.shape() + ": dim " + i + " with low " + low[i] + ", high " + high[i] + ", interior " + interior[i];
    }

    /** {@return the partial output-to-input map, its domain where the input is read} @see Remap.Pad#toIndexingMap() */
    public static IndexingMap outputToInput(long[] inputDims, long[] low, long[] high, long[] interior) {
        return Remap.Pad.of(inputDims, low, high, interior).toIndexingMap();
    }
}
