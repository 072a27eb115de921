package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.IndexingMapBuilder;
import java.util.Arrays;

/**
 * XLA's reshape as a map: output index {@code d} has row-major position
 * {@code L = sum d_i * P_i} and reads input index {@code (L / Q_j) mod n_j}. A strided view
 * stays strided when every group of input dimensions merged into, or split from, output
 * dimensions is contiguous in it; {@link TensorView#remap(Remap)} then computes the new
 * strides directly.
 * {@snippet :
 * ReshapeRemap.of(new long[] {2, 3}, new long[] {6}).toIndexingMap().toString();
 * // "(d0) -> (d0 / 3, d0 mod 3), domain: d0 in [0, 5]"
 * }
 */
public final class ReshapeRemap implements Remap {
    private final long[] inputDims;
    private final long[] outputDims;
    private volatile IndexingMap map;

    private ReshapeRemap(long[] inputDims, long[] outputDims) {
        this.inputDims = inputDims;
        this.outputDims = outputDims;
    }

    /**
     * {@return the reshape from {@code inputDims} to {@code outputDims}}
     *
     * @throws IllegalArgumentException for a negative size or element counts that differ
     */
    public static ReshapeRemap of(long[] inputDims, long[] outputDims) {
        long from = Extents.elementCount("reshape input", inputDims);
        long to = Extents.elementCount("reshape output", outputDims);
        if (from != to) {
            throw new IllegalArgumentException("reshape of " + Arrays.toString(inputDims) + " (" + from + " elements) to "
                    + Arrays.toString(outputDims) + " (" + to + " elements): element counts differ");
        }
        return new ReshapeRemap(inputDims.clone(), outputDims.clone());
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
        IndexingMapBuilder b = IndexingMap.builder();
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
        return o instanceof ReshapeRemap r && Arrays.equals(inputDims, r.inputDims) && Arrays.equals(outputDims, r.outputDims);
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
