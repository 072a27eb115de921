package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.internal.Errors;
import java.util.Arrays;
import dev.tensorbuf.views.internal.Extents;

/**
 * An op's output-to-input map in a form that a strided view composes by arithmetic on its
 * strides, with no {@link IndexingMap} built ({@link TensorView#remap(Remap)}): {@link Affine}
 * (constant coefficients: transpose, slice, reverse, broadcast, dynamic-slice) and
 * {@link Reshape} (row-major relinearisation, which stays strided when each group of merged
 * or split dimensions is contiguous). Every form also lowers to its map, which any other view
 * composes into its own when its map is first asked for. A pad's partial map is a
 * {@link Pad}, taken by {@link TensorView#padded(Pad, TensorView)}.
 * {@snippet :
 * Remap r = Reshape.of(new long[] {2, 3}, new long[] {6});
 * r.toIndexingMap().toString(); // "(d0) -> (d0 / 3, d0 mod 3), domain: d0 in [0, 5]"
 * }
 */
public sealed interface Remap permits Remap.Affine, Remap.Reshape {
    /** {@return the output dimensions (a copy)} */
    long[] outputDims();

    /** {@return the same map as an {@link IndexingMap} over the output box, built once} */
    IndexingMap toIndexingMap();

    /**
     * An output-to-input map over a box that is affine with constant coefficients:
     * {@code in_j = offset_j + sum_i coefficient(j, i) * d_i} for {@code d_i in [0, outputDims_i)}.
     * It is what transpose, slice, reverse, broadcast and dynamic-slice hand to
     * {@link TensorView#remap(Remap)}: a strided view composes it by stride arithmetic, in
     * O(rank^2) with no {@link IndexingMap} built; any other view composes {@link #toIndexingMap()}.
     * The map is built on first need only.
     * {@snippet :
     * // transpose of a [2, 3] view: output (d0, d1) over [3, 2] reads input (d1, d0)
     * Affine t = Affine.of(new long[] {3, 2}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0});
     * t.toIndexingMap().toString(); // "(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]"
     * }
     */
    public static final class Affine implements Remap {
        private final long[] outputDims;
        /** Row-major: input j, output i at {@code j * outputRank + i}. */
        private final long[] coefficients;
        private final long[] offsets;
        private volatile IndexingMap map;

        private Affine(long[] outputDims, long[] coefficients, long[] offsets) {
            this.outputDims = outputDims;
            this.coefficients = coefficients;
            this.offsets = offsets;
        }

        /**
         * {@return the map {@code in_j = offsets[j] + sum_i coefficients[j][i] * d_i}}
         *
         * @param outputDims the output box
         * @param coefficients one row per input dimension, one entry per output dimension
         * @param offsets one per input dimension
         * @throws IllegalArgumentException for a negative size or rows of the wrong length
         */
        public static Affine of(long[] outputDims, long[][] coefficients, long[] offsets) {
            if (coefficients.length != offsets.length) {
                throw new IllegalArgumentException(coefficients.length + " coefficient rows but " + offsets.length + " offsets");
            }
            long[] flat = new long[coefficients.length * outputDims.length];
            for (int j = 0; j < coefficients.length; j++) {
                if (coefficients[j].length != outputDims.length) {
                    throw new IllegalArgumentException("coefficient row " + j + " " + Arrays.toString(coefficients[j])
                            + " needs one entry per output dimension " + Arrays.toString(outputDims));
                }
                System.arraycopy(coefficients[j], 0, flat, j * outputDims.length, outputDims.length);
            }
            return checked(outputDims.clone(), flat, offsets.clone());
        }

        /**
         * {@return the map where input {@code j} reads {@code offsets[j] + scales[j] * d_{outputDim[j]}},
         * or the constant {@code offsets[j]} where {@code outputDim[j] < 0}}: one term per input
         * dimension, the shape of every affine view op; the arrays are not kept
         */
        public static Affine ofTerms(long[] outputDims, int[] outputDim, long[] scales, long[] offsets) {
            int out = outputDims.length;
            long[] flat = new long[outputDim.length * out];
            for (int j = 0; j < outputDim.length; j++) {
                if (outputDim[j] >= out) {
                    throw new IllegalArgumentException("input " + j + " reads output dim " + outputDim[j] + " of rank " + out);
                }
                if (outputDim[j] >= 0) {
                    flat[j * out + outputDim[j]] = scales[j];
                }
            }
            return checked(outputDims.clone(), flat, offsets.clone());
        }

        private static Affine checked(long[] outputDims, long[] flat, long[] offsets) {
            for (int i = 0; i < outputDims.length; i++) {
                if (outputDims[i] < 0) {
                    throw Errors.negativeSize(outputDims[i], i, "output dims " + Arrays.toString(outputDims));
                }
            }
            return new Affine(outputDims, flat, offsets);
        }

        @Override
        public long[] outputDims() {
            return outputDims.clone();
        }

        /** {@return the number of output dimensions} */
        public int outputRank() {
            return outputDims.length;
        }

        /** {@return the number of input dimensions (results)} */
        public int inputRank() {
            return offsets.length;
        }

        /** {@return the coefficient of output dimension {@code output} in input {@code input}} */
        public long coefficient(int input, int output) {
            return coefficients[input * outputDims.length + output];
        }

        /** {@return the constant term of input {@code input}} */
        public long offset(int input) {
            return offsets[input];
        }

        /** {@return whether some output dimension has size 0} */
        public boolean isEmpty() {
            for (long d : outputDims) {
                if (d == 0) {
                    return true;
                }
            }
            return false;
        }

        long[] outputDimsArray() {
            return outputDims;
        }

        @Override
        public IndexingMap toIndexingMap() {
            IndexingMap m = map;
            if (m == null) {
                m = build();
                map = m;
            }
            return m;
        }

        private IndexingMap build() {
            IndexingMap.Builder b = IndexingMap.builder();
            for (long d : outputDims) {
                b.dim(0, d - 1);
            }
            AffineExpr[] results = new AffineExpr[offsets.length];
            for (int j = 0; j < results.length; j++) {
                AffineExpr e = null;
                for (int i = 0; i < outputDims.length; i++) {
                    long c = coefficient(j, i);
                    if (c != 0) {
                        AffineExpr term = c == 1 ? AffineExpr.dim(i) : AffineExpr.dim(i).times(c);
                        e = e == null ? term : e.plus(term);
                    }
                }
                results[j] = e == null ? AffineExpr.constant(offsets[j]) : offsets[j] == 0 ? e : e.plus(offsets[j]);
            }
            return b.result(results).build();
        }

        /**
         * {@return whether {@code o} is an affine remap over the same output box with the same
         * coefficients and offsets}, hence the same map
         */
        @Override
        public boolean equals(Object o) {
            return o instanceof Affine a && Arrays.equals(outputDims, a.outputDims)
                    && Arrays.equals(coefficients, a.coefficients) && Arrays.equals(offsets, a.offsets);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(new int[] {Arrays.hashCode(outputDims), Arrays.hashCode(coefficients),
                    Arrays.hashCode(offsets)});
        }

        @Override
        public String toString() {
            return toIndexingMap().toString();
        }
    }

    /**
     * XLA's reshape as a map: output index {@code d} has row-major position
     * {@code L = sum d_i * P_i} and reads input index {@code (L / Q_j) mod n_j}. A strided view
     * stays strided when every group of input dimensions merged into, or split from, output
     * dimensions is contiguous in it; {@link TensorView#remap(Remap)} then computes the new
     * strides directly.
     * {@snippet :
     * Reshape.of(new long[] {2, 3}, new long[] {6}).toIndexingMap().toString();
     * // "(d0) -> (d0 / 3, d0 mod 3), domain: d0 in [0, 5]"
     * }
     */
    public static final class Reshape implements Remap {
        private final long[] inputDims;
        private final long[] outputDims;
        private volatile IndexingMap map;

        private Reshape(long[] inputDims, long[] outputDims) {
            this.inputDims = inputDims;
            this.outputDims = outputDims;
        }

        /**
         * {@return the reshape from {@code inputDims} to {@code outputDims}}
         *
         * @throws IllegalArgumentException for a negative size or element counts that differ
         */
        public static Reshape of(long[] inputDims, long[] outputDims) {
            long from = Extents.elementCount("reshape input", inputDims);
            long to = Extents.elementCount("reshape output", outputDims);
            if (from != to) {
                throw new IllegalArgumentException("reshape of " + Arrays.toString(inputDims) + " (" + from + " elements) to "
                        + Arrays.toString(outputDims) + " (" + to + " elements): element counts differ");
            }
            return new Reshape(inputDims.clone(), outputDims.clone());
        }

        @Override
        public long[] outputDims() {
            return outputDims.clone();
        }

        long[] outputDimsArray() {
            return outputDims;
        }

        /** {@return the input dimensions (a copy)} */
        public long[] inputDims() {
            return inputDims.clone();
        }

        long[] inputDimsArray() {
            return inputDims;
        }

        @Override
        public IndexingMap toIndexingMap() {
            IndexingMap m = map;
            if (m == null) {
                m = build();
                map = m;
            }
            return m;
        }

        private IndexingMap build() {
            AffineExpr linear = AffineExpr.constant(0);
            for (int i = 0; i < outputDims.length; i++) {
                linear = linear.times(outputDims[i]).plus(AffineExpr.dim(i));
            }
            AffineExpr[] results = new AffineExpr[inputDims.length];
            long q = 1;
            for (int j = inputDims.length - 1; j >= 0; j--) {
                AffineExpr e = q == 1 ? linear : linear.floorDiv(q);
                results[j] = j == 0 ? e : e.mod(inputDims[j]);
                q = Math.multiplyExact(q, Math.max(inputDims[j], 1));
            }
            IndexingMap.Builder b = IndexingMap.builder();
            for (long d : outputDims) {
                b.dim(0, d - 1);
            }
            return b.result(results).build();
        }

        /**
         * {@return the strides of the output over a view of {@code inputStrides}, or null when some
         * merged group is not contiguous}: NumPy's no-copy reshape rule. Groups are the shortest
         * runs of input and output dimensions with equal products, size-1 dimensions aside; inside a
         * group each input stride must be the next one times its size.
         */
        long[] strides(long[] inputStrides) {
            int inRank = inputDims.length;
            int outRank = outputDims.length;
            long[] out = new long[outRank];
            int i = 0;
            int o = 0;
            while (true) {
                while (i < inRank && inputDims[i] == 1) {
                    i++;
                }
                while (o < outRank && outputDims[o] == 1) {
                    o++;
                }
                if (i == inRank || o == outRank) {
                    return i == inRank && o == outRank ? out : null;
                }
                int iEnd = i + 1;
                int oEnd = o + 1;
                long inProduct = inputDims[i];
                long outProduct = outputDims[o];
                while (inProduct != outProduct) {
                    if (inProduct < outProduct) {
                        inProduct = Math.multiplyExact(inProduct, inputDims[iEnd++]);
                    } else {
                        outProduct = Math.multiplyExact(outProduct, outputDims[oEnd++]);
                    }
                }
                // Contiguity within the input group, size-1 dimensions skipped.
                long expected = 0;
                boolean first = true;
                for (int k = iEnd - 1; k >= i; k--) {
                    if (inputDims[k] == 1) {
                        continue;
                    }
                    if (!first && inputStrides[k] != expected) {
                        return null;
                    }
                    first = false;
                    expected = Math.multiplyExact(inputStrides[k], inputDims[k]);
                }
                long stride = inputStrides[lastNonUnit(i, iEnd)];
                for (int k = oEnd - 1; k >= o; k--) {
                    out[k] = stride;
                    stride = Math.multiplyExact(stride, outputDims[k]);
                }
                i = iEnd;
                o = oEnd;
            }
        }

        private int lastNonUnit(int from, int to) {
            for (int k = to - 1; k > from; k--) {
                if (inputDims[k] != 1) {
                    return k;
                }
            }
            return from;
        }

        /** {@return whether {@code o} reshapes the same input dims to the same output dims} */
        @Override
        public boolean equals(Object o) {
            return o instanceof Reshape r && Arrays.equals(inputDims, r.inputDims) && Arrays.equals(outputDims, r.outputDims);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(inputDims) + Arrays.hashCode(outputDims);
        }

        @Override
        public String toString() {
            return "reshape " + Arrays.toString(inputDims) + " -> " + Arrays.toString(outputDims);
        }
    }

    /**
     * XLA's pad as a partial output-to-input map, held as per-dimension windows: {@code low} and
     * {@code high} edge padding (negative crops) and {@code interior} padding between elements.
     * Output {@code d} reads input {@code (d - low) / (interior + 1)} where
     * {@code (d - low) mod (interior + 1) == 0} and the quotient is in range; the rest of the
     * output box is outside the map's domain. Every result lies in its input dimension by
     * construction, so {@link TensorView#padded(Pad, TensorView)} and
     * {@link TensorView#concatenated} make views in O(rank) and build {@link #toIndexingMap()} only
     * when the view's map is first asked for. A part of a concatenation is the same map with no
     * interior padding: the part shifted to its place along one dimension.
     * {@snippet :
     * Pad p = Pad.of(new long[] {2}, new long[] {1}, new long[] {2}, new long[] {1});
     * p.outputDims();              // [6]
     * p.toIndexingMap().toString(); // "(d0) -> ((d0 - 1) / 2), domain: d0 in [1, 3], (d0 - 1) mod 2 in [0, 0]"
     * }
     */
    public static final class Pad {
        private final long[] inputDims;
        private final long[] low;
        private final long[] high;
        private final long[] interior;
        private final long[] outputDims;
        private volatile IndexingMap map;

        private Pad(long[] inputDims, long[] low, long[] high, long[] interior, long[] outputDims) {
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
        public static Pad of(long[] inputDims, long[] low, long[] high, long[] interior) {
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
            return new Pad(inputDims.clone(), low.clone(), high.clone(), interior.clone(), out);
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
            IndexingMap.Builder b = IndexingMap.builder();
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
            return o instanceof Pad p && Arrays.equals(inputDims, p.inputDims) && Arrays.equals(low, p.low)
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
}
