package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.IndexingMapBuilder;
import dev.tensorbuf.views.internal.Errors;
import java.util.Arrays;

/**
 * An output-to-input map over a box that is affine with constant coefficients:
 * {@code in_j = offset_j + sum_i coefficient(j, i) * d_i} for {@code d_i in [0, outputDims_i)}.
 * It is what transpose, slice, reverse, broadcast and dynamic-slice hand to
 * {@link TensorView#remap(Remap)}: a strided view composes it by stride arithmetic, in
 * O(rank^2) with no {@link IndexingMap} built; any other view composes {@link #toIndexingMap()}.
 * The map is built on first need only.
 * {@snippet :
 * // transpose of a [2, 3] view: output (d0, d1) over [3, 2] reads input (d1, d0)
 * AffineRemap t = AffineRemap.of(new long[] {3, 2}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0});
 * t.toIndexingMap().toString(); // "(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]"
 * }
 */
public final class AffineRemap implements Remap {
    private final long[] outputDims;
    /** Row-major: input j, output i at {@code j * outputRank + i}. */
    private final long[] coefficients;
    private final long[] offsets;
    private volatile IndexingMap map;

    private AffineRemap(long[] outputDims, long[] coefficients, long[] offsets) {
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
    public static AffineRemap of(long[] outputDims, long[][] coefficients, long[] offsets) {
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
    public static AffineRemap ofTerms(long[] outputDims, int[] outputDim, long[] scales, long[] offsets) {
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

    private static AffineRemap checked(long[] outputDims, long[] flat, long[] offsets) {
        for (int i = 0; i < outputDims.length; i++) {
            if (outputDims[i] < 0) {
                throw Errors.negativeSize(outputDims[i], i, "output dims " + Arrays.toString(outputDims));
            }
        }
        return new AffineRemap(outputDims, flat, offsets);
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
        IndexingMapBuilder b = IndexingMap.builder();
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
        return o instanceof AffineRemap a && Arrays.equals(outputDims, a.outputDims)
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
