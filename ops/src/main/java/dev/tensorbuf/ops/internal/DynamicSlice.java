package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * XLA's {@code dynamic-slice}. Its map is written once, {@link #outputToInput(long[], long[])}:
 * {@code d_i -> d_i + rt_i}, each offset a runtime variable whose range {@code [0, dim - size]}
 * is XLA's clamp. HLO indexing binds the variables to the offset operands; the view op binds them
 * to offsets known when the view is made ({@link #bind}), each clamped into its variable's range,
 * and is then a unit-stride {@link Slice}.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[8]{0}");
 * DynamicSlice.outputToInput(new long[] {8}, new long[] {4}).toString();
 * // "(d0)[rt0] -> (d0 + rt0), domain: d0 in [0, 3], rt0 in [0, 4]"
 * DynamicSlice.apply(v, new long[] {6}, new long[] {4}).indexingMap().toString();
 * // "(d0) -> (d0 + 4), domain: d0 in [0, 3]": start 6 clamped to 4
 * }
 */
public final class DynamicSlice {
    private DynamicSlice() {
    }

    /**
     * {@return the output-to-input map with the offsets unknown: {@code d_i -> d_i + rt_i} over
     * {@code d_i in [0, size_i - 1]}, {@code rt_i in [0, dim_i - size_i]}} The one writing of the
     * map, for HLO indexing (which binds {@code rt_i} to the offset operands) and the view op.
     *
     * @param inputDims the operand's dims
     * @param sizes the slice sizes, each in {@code [0, dim]}
     */
    public static IndexingMap outputToInput(long[] inputDims, long[] sizes) {
        List<Variable> dims = new ArrayList<>(sizes.length);
        List<Variable> offsets = new ArrayList<>(sizes.length);
        List<AffineExpr> results = new ArrayList<>(sizes.length);
        for (int i = 0; i < sizes.length; i++) {
            dims.add(Variable.of(0, sizes[i] - 1));
            offsets.add(Variable.of(0, inputDims[i] - sizes[i]));
            results.add(AffineExpr.dim(i).plus(AffineExpr.rt(i)));
        }
        return IndexingMap.of(dims, List.of(), offsets, results, Map.of());
    }

    /**
     * {@return {@code map} with its runtime variables bound to {@code offsets}, each clamped into
     * its variable's range as XLA clamps a dynamic offset, as an affine remap}: the map's terms
     * read at the bound point (its value at index 0, and its step along each dimension)
     *
     * @param map a map of {@link #outputToInput(long[], long[])}'s form
     * @param offsets one offset per runtime variable
     */
    public static Remap.Affine bind(IndexingMap map, long[] offsets) {
        long[] bound = clamped(map, offsets);
        int rank = map.dims().size();
        long[] outputDims = new long[rank];
        for (int d = 0; d < rank; d++) {
            outputDims[d] = map.dimBounds().get(d).hi() + 1;
        }
        if (map.isKnownEmpty()) {
            // A size-0 slice: a known-empty map keeps no results to read. The view reads
            // nothing; it keeps the clamped starts as its offsets, unit steps, as a slice does.
            long[][] unit = new long[rank][rank];
            for (int d = 0; d < rank; d++) {
                unit[d][d] = 1;
            }
            return Remap.Affine.of(outputDims, unit, bound);
        }
        long[] zero = new long[rank];
        long[] at0 = map.evaluate(zero, new long[0], bound);
        long[][] coefficients = new long[map.results().size()][rank];
        for (int d = 0; d < rank; d++) {
            long[] unit = new long[rank];
            unit[d] = 1;
            long[] at1 = map.evaluate(unit, new long[0], bound);
            for (int r = 0; r < at1.length; r++) {
                coefficients[r][d] = at1[r] - at0[r];
            }
        }
        return Remap.Affine.of(outputDims, coefficients, at0);
    }

    /** {@return the starts XLA uses: each offset clamped into {@code [0, dim - size]}, the map's runtime ranges} */
    public static long[] clampedStarts(long[] dims, long[] offsets, long[] sizes) {
        return clamped(outputToInput(dims, sizes), offsets);
    }

    private static long[] clamped(IndexingMap map, long[] offsets) {
        List<Interval> ranges = map.runtimeVarBounds();
        long[] start = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
            start[i] = Math.min(Math.max(offsets[i], ranges.get(i).lo()), ranges.get(i).hi());
        }
        return start;
    }

    /**
     * {@return the slice of {@code sizes} at the clamped offsets}
     *
     * @throws IllegalArgumentException if a size is negative or larger than its dimension
     */
    public static TensorView apply(TensorView view, long[] offsets, long[] sizes) {
        OpChecks.checkRank("dynamic-slice", view, offsets.length, "offsets");
        OpChecks.checkRank("dynamic-slice", view, sizes.length, "sizes");
        long[] dims = Extents.toArray(view.dims());
        for (int i = 0; i < dims.length; i++) {
            if (sizes[i] < 0 || sizes[i] > dims[i]) {
                throw new IllegalArgumentException("dynamic-slice of " + view.shape() + ": size " + sizes[i] + " of dim "
                        + i + " is outside [0, " + dims[i] + "] (sizes " + Arrays.toString(sizes) + ")");
            }
        }
        return view.remap(bind(outputToInput(dims, sizes), offsets));
    }
}
