package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import java.util.Arrays;

/**
 * XLA's {@code dynamic-slice} with its offsets bound when the view is made: each start is
 * clamped into {@code [0, dim - size]} as XLA clamps it, then the view is a unit-stride
 * {@link Slice}.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[8]{0}");
 * DynamicSlice.apply(v, new long[] {6}, new long[] {4}).indexingMap().toString();
 * // "(d0) -> (d0 + 4), domain: d0 in [0, 3]": start 6 clamped to 4
 * }
 */
public final class DynamicSlice {
    private DynamicSlice() {
    }

    /** {@return the starts XLA uses: each offset clamped into {@code [0, dim - size]}} */
    public static long[] clampedStarts(long[] dims, long[] offsets, long[] sizes) {
        long[] start = new long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            start[i] = Math.min(Math.max(offsets[i], 0), dims[i] - sizes[i]);
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
        long[] start = clampedStarts(dims, offsets, sizes);
        long[] ones = new long[dims.length];
        Arrays.fill(ones, 1);
        return view.remap(Slice.affine(sizes, start, ones));
    }
}
