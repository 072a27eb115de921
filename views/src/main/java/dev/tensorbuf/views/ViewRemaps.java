package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;

/**
 * The arithmetic behind {@link TensorView#remap}: checking an op's map against a view, and
 * composing an affine remap into a strided view's strides without building a map.
 */
final class ViewRemaps {
    private ViewRemaps() {}

    /** {@return the strides of {@code a} read through a view of {@code dims} and {@code strides}, or null if a result leaves its dimension} */
    static long[] affineStrides(long[] dims, long[] strides, AffineRemap a) {
        if (a.inputRank() != dims.length) {
            return null;
        }
        int outRank = a.outputRank();
        long[] out = a.outputDimsArray();
        long[] s = new long[outRank];
        for (int j = 0; j < dims.length; j++) {
            long lo = a.offset(j);
            long hi = lo;
            for (int i = 0; i < outRank; i++) {
                long c = a.coefficient(j, i);
                if (c != 0) {
                    long reach = Math.multiplyExact(c, out[i] - 1);
                    lo = Math.addExact(lo, Math.min(reach, 0));
                    hi = Math.addExact(hi, Math.max(reach, 0));
                    s[i] = Math.addExact(s[i], Math.multiplyExact(strides[j], c));
                }
            }
            if (lo < 0 || hi >= dims[j]) {
                // The general path names the result and its range.
                return null;
            }
        }
        return s;
    }

    static boolean hasZeroDim(long[] dims) {
        for (long d : dims) {
            if (d == 0) {
                return true;
            }
        }
        return false;
    }

    static void check(TensorView view, long[] dims, IndexingMap outputToInput, long[] outputDims, boolean total) {
        if (outputToInput.dims().size() != outputDims.length || outputToInput.results().size() != view.rank()
                || !outputToInput.rangeVars().isEmpty() || !outputToInput.runtimeVars().isEmpty()) {
            throw new IllegalArgumentException("map " + outputToInput + " must take " + outputDims.length
                    + " dimension(s), no range or runtime variables, and give " + view.rank() + " result(s) for " + view);
        }
        for (int i = 0; i < outputDims.length; i++) {
            Interval b = outputToInput.dims().get(i).bounds();
            Interval box = new Interval(0, outputDims[i] - 1);
            if (total ? !b.equals(box) : !box.contains(b)) {
                throw new IllegalArgumentException("map " + outputToInput + " has d" + i + " in " + b
                        + (total ? " but the new view's dim " + i + " is " : " outside the new view's dim " + i + " ") + box);
            }
        }
        if (total && !outputToInput.constraints().isEmpty()) {
            throw new IllegalArgumentException("map " + outputToInput + " has constraints: a view reads every index;"
                    + " use padded(...) for a partial map");
        }
        for (int i = 0; i < view.rank(); i++) {
            Interval r = outputToInput.range(outputToInput.results().get(i));
            if (!outputToInput.isKnownEmpty() && (r.lo() < 0 || r.hi() >= dims[i])) {
                throw new IllegalArgumentException("result " + i + " of map " + outputToInput + " ranges over " + r
                        + ", outside dim " + i + " [0, " + dims[i] + ") of " + view);
            }
        }
    }
}
