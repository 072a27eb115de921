package dev.tensorbuf.ops;

import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.IndexingMapBuilder;

/**
 * XLA's {@code pad}: per dimension {@code low} and {@code high} edge padding (negative crops)
 * and {@code interior} padding between elements. Output size
 * {@code low + high + n + (n - 1) * interior}. The output-to-input map is partial: output
 * {@code d} reads input {@code (d - low) / (interior + 1)} where {@code (d - low) mod
 * (interior + 1) == 0} and the quotient is in range; everywhere else reads the fill value,
 * and writes there throw.
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
     * {@return the padded view}
     *
     * @param fill a rank-0 view of the same type
     * @throws IllegalArgumentException if {@code interior} is negative or an output size is negative
     */
    public static TensorView apply(TensorView view, long[] low, long[] high, long[] interior, TensorView fill) {
        OpMaps.checkRank("pad", view, low.length, "low paddings");
        OpMaps.checkRank("pad", view, high.length, "high paddings");
        OpMaps.checkRank("pad", view, interior.length, "interior paddings");
        long[] in = OpMaps.dims(view);
        // Checked first: the map divides by interior + 1.
        long[] out = outputDims(view, in, low, high, interior);
        return view.padded(outputToInput(in, low, high, interior), out, fill);
    }

    private static long[] outputDims(TensorView view, long[] in, long[] low, long[] high, long[] interior) {
        long[] out = new long[in.length];
        for (int i = 0; i < in.length; i++) {
            String where = "pad of " + view.shape() + ": dim " + i + " with low " + low[i] + ", high " + high[i]
                    + ", interior " + interior[i];
            if (interior[i] < 0) {
                throw new IllegalArgumentException(where + ": interior must be >= 0");
            }
            try {
                out[i] = outputSize(in[i], low[i], high[i], interior[i]);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(where + ": size " + low[i] + " + " + high[i] + " + " + in[i] + " + "
                        + Math.max(in[i] - 1, 0) + " * " + interior[i] + " overflows a long", e);
            }
            if (out[i] < 0) {
                throw new IllegalArgumentException("pad of " + view.shape() + ": dim " + i + " with low " + low[i]
                        + ", high " + high[i] + ", interior " + interior[i] + " gives size " + out[i]
                        + "; interior must be >= 0 and the size >= 0");
            }
        }
        return out;
    }

    private static long outputSize(long n, long low, long high, long interior) {
        return Math.addExact(Math.addExact(Math.addExact(low, high), n), Math.multiplyExact(Math.max(n - 1, 0), interior));
    }

    /** {@return the partial output-to-input map, its domain where the input is read} */
    public static IndexingMap outputToInput(long[] inputDims, long[] low, long[] high, long[] interior) {
        IndexingMapBuilder b = IndexingMap.builder();
        AffineExpr[] results = new AffineExpr[inputDims.length];
        for (int i = 0; i < inputDims.length; i++) {
            long out = outputSize(inputDims[i], low[i], high[i], interior[i]);
            long step = interior[i] + 1;
            long first = Math.max(0, low[i]);
            long last = Math.min(out - 1, low[i] + (inputDims[i] - 1) * step);
            // The first output index at or after max(0, low) that lands on an input element.
            first += Math.floorMod(low[i] - first, step);
            b.dim(first, inputDims[i] == 0 ? first - 1 : last);
            AffineExpr shifted = AffineExpr.dim(i).minus(low[i]);
            results[i] = step == 1 ? shifted : shifted.floorDiv(step);
            if (step > 1) {
                b.constraint(shifted.mod(step), 0, 0);
            }
        }
        return b.result(results).build();
    }
}
