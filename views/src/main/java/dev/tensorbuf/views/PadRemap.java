package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.IndexingMapBuilder;
import dev.tensorbuf.views.internal.Errors;
import java.util.Arrays;

/**
 * XLA's pad as a partial output-to-input map, held as per-dimension windows: {@code low} and
 * {@code high} edge padding (negative crops) and {@code interior} padding between elements.
 * Output {@code d} reads input {@code (d - low) / (interior + 1)} where
 * {@code (d - low) mod (interior + 1) == 0} and the quotient is in range; the rest of the
 * output box is outside the map's domain. Every result lies in its input dimension by
 * construction, so {@link TensorView#padded(PadRemap, TensorView)} and
 * {@link TensorView#concatenated} make views in O(rank) and build {@link #toIndexingMap()} only
 * when the view's map is first asked for. A part of a concatenation is the same map with no
 * interior padding: the part shifted to its place along one dimension.
 * {@snippet :
 * PadRemap p = PadRemap.of(new long[] {2}, new long[] {1}, new long[] {2}, new long[] {1});
 * p.outputDims();              // [6]
 * p.toIndexingMap().toString(); // "(d0) -> ((d0 - 1) / 2), domain: d0 in [1, 3], (d0 - 1) mod 2 in [0, 0]"
 * }
 */
public final class PadRemap {
    private final long[] inputDims;
    private final long[] low;
    private final long[] high;
    private final long[] interior;
    private final long[] outputDims;
    private volatile IndexingMap map;

    private PadRemap(long[] inputDims, long[] low, long[] high, long[] interior, long[] outputDims) {
        this.inputDims = inputDims;
        this.low = low;
        this.high = high;
        this.interior = interior;
        this.outputDims = outputDims;
    }

    /**
     * {@return the pad of {@code inputDims}; the arrays are copied}
     *
     * @throws IllegalArgumentException if the arrays differ in length, an input size or an
     *     interior padding is negative, or an output size is negative or overflows a long
     */
    public static PadRemap of(long[] inputDims, long[] low, long[] high, long[] interior) {
        int rank = inputDims.length;
        if (low.length != rank || high.length != rank || interior.length != rank) {
            throw new IllegalArgumentException("pad of " + Arrays.toString(inputDims) + ": " + low.length + " low, "
                    + high.length + " high and " + interior.length + " interior paddings for rank " + rank);
        }
        long[] out = new long[rank];
        for (int i = 0; i < rank; i++) {
            if (inputDims[i] < 0 || interior[i] < 0) {
                throw new IllegalArgumentException(where(inputDims, low, high, interior, i)
                        + ": the input size and interior must be >= 0");
            }
            try {
                out[i] = outputSize(inputDims[i], low[i], high[i], interior[i]);
            } catch (ArithmeticException e) {
                throw Errors.overflows(where(inputDims, low, high, interior, i) + ": the size", e);
            }
            if (out[i] < 0) {
                throw new IllegalArgumentException(where(inputDims, low, high, interior, i) + " gives size " + out[i]);
            }
            // The map reads input (d - low) / (interior + 1): -low, and d - low for every output d, must fit.
            // Only a negative low can overflow it; MAX_VALUE + low is then exact (-1 for MIN_VALUE, refusing it).
            if (low[i] < 0 && Math.max(out[i] - 1, 0) > Long.MAX_VALUE + low[i]) {
                throw new IllegalArgumentException(where(inputDims, low, high, interior, i) + ": output index "
                        + Math.max(out[i] - 1, 0) + " minus low " + low[i] + " overflows a long");
            }
        }
        return new PadRemap(inputDims.clone(), low.clone(), high.clone(), interior.clone(), out);
    }

    private static String where(long[] in, long[] low, long[] high, long[] interior, int i) {
        return "pad of " + Arrays.toString(in) + ": dim " + i + " with low " + low[i] + ", high " + high[i]
                + ", interior " + interior[i];
    }

    /**
     * {@return XLA's padded size {@code low + high + n + (n - 1) * interior}}
     *
     * @throws ArithmeticException if it overflows a long
     */
    public static long outputSize(long n, long low, long high, long interior) {
        return Math.addExact(Math.addExact(Math.addExact(low, high), n), Math.multiplyExact(Math.max(n - 1, 0), interior));
    }

    /** {@return the output dimensions (a copy)} */
    public long[] outputDims() {
        return outputDims.clone();
    }

    /** {@return the input dimensions (a copy)} */
    public long[] inputDims() {
        return inputDims.clone();
    }

    /** {@return the low edge padding per dimension, negative where it crops (a copy)} */
    public long[] low() {
        return low.clone();
    }

    /** {@return the high edge padding per dimension, negative where it crops (a copy)} */
    public long[] high() {
        return high.clone();
    }

    /** {@return the interior padding per dimension, between neighbouring elements (a copy)} */
    public long[] interior() {
        return interior.clone();
    }

    long[] outputDimsArray() {
        return outputDims;
    }

    long[] inputDimsArray() {
        return inputDims;
    }

    /** {@return the partial map over the output box, its domain where the input is read, built once} */
    public IndexingMap toIndexingMap() {
        IndexingMap m = map;
        if (m == null) {
            m = build();
            map = m;
        }
        return m;
    }

    private IndexingMap build() {
        IndexingMapBuilder b = IndexingMap.builder();
        AffineExpr[] results = new AffineExpr[inputDims.length];
        for (int i = 0; i < inputDims.length; i++) {
            long step = interior[i] + 1;
            long first = Math.max(0, low[i]);
            // low + (n - 1) * step, the last input element's place, is outputDims - 1 - high: no product to overflow.
            long last = outputDims[i] - 1 - Math.max(high[i], 0);
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

    /** {@return whether {@code o} is a pad of the same input dims by the same paddings} */
    @Override
    public boolean equals(Object o) {
        return o instanceof PadRemap p && Arrays.equals(inputDims, p.inputDims) && Arrays.equals(low, p.low)
                && Arrays.equals(high, p.high) && Arrays.equals(interior, p.interior);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(new int[] {Arrays.hashCode(inputDims), Arrays.hashCode(low), Arrays.hashCode(high),
                Arrays.hashCode(interior)});
    }

    @Override
    public String toString() {
        return "pad " + Arrays.toString(inputDims) + " low " + Arrays.toString(low) + " high " + Arrays.toString(high)
                + " interior " + Arrays.toString(interior) + " -> " + Arrays.toString(outputDims);
    }
}
