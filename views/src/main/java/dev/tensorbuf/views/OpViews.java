package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.Arrays;
import java.util.List;

/**
 * The views {@link TensorView}'s ops return ({@code remap}, {@code padded}). An op given as a
 * {@link Remap} or {@link Remap.Pad} makes its view in O(rank): new strides when the source has them and the op allows, else the op kept as a
 * {@link PendingMap} and composed on first need; an op given as an {@link IndexingMap} composes
 * it at once. Either way the view reads the same elements.
 */
final class OpViews {
    private OpViews() {
    }

    /** {@return the view of {@link TensorView#remap(IndexingMap, long...)}} */
    static TensorView remap(TensorView source, IndexingMap outputToInput, long[] outputDims) {
        ViewRemaps.check(source, source.dimsArray(), outputToInput, outputDims, true);
        return ViewFactory.fromMap(ViewFactory.logicalShape(source.dtype(), outputDims), source.map().remap(outputToInput),
                source.access());
    }

    /** {@return the view of {@link TensorView#remap(Remap)}} */
    static TensorView remap(TensorView source, Remap outputToInput) {
        long[] dims = source.dimsArray();
        long[] out = outputDims(outputToInput);
        if (ViewRemaps.hasZeroDim(out) || !ViewRemaps.staysWithin(dims, outputToInput)) {
            // The general path names the result that leaves its dimension.
            return source.remap(outputToInput.toIndexingMap(), out);
        }
        ArrayShape logical = ViewFactory.logicalShape(source.dtype(), out);
        long[] strides = source.stridesArray();
        if (strides != null) {
            try {
                long[] composed = ViewRemaps.strides(dims, strides, outputToInput);
                if (composed != null) {
                    long newBase = ViewRemaps.base(strides, source.base(), outputToInput);
                    // Strides cannot say whether they read their buffer's whole layout (rows [0, 5)
                    // of an s4[6,5] read like a whole s4[5,5]); the source knows, and a transpose or
                    // reverse of it reads all of it again, so it still owns the rest of the last byte.
                    TensorView whole = source.wholeLayoutOf();
                    if (whole != null && !ViewRemaps.readsEveryIndexOnce(dims, outputToInput)) {
                        whole = null;
                    }
                    return new TensorView(logical, out.clone(), source.access(), source.isHostAccessible(),
                            source.bufferOrNull(), composed, newBase, null,
                            whole == null ? PendingMap.Strided.PART : new PendingMap.Strided(whole));
                }
            } catch (ArithmeticException overflow) {
                return source.remap(outputToInput.toIndexingMap(), out);
            }
        }
        return new TensorView(logical, out.clone(), source.access(), source.isHostAccessible(), source.bufferOrNull(),
                null, 0, null, new PendingMap.Remapped(source, outputToInput));
    }

    /**
     * {@return the view of {@link dev.tensorbuf.views.internal.RemapChains#remap}}: the view each step in turn would make,
     * made once while the source's strides take the steps (the same arithmetic as one remap);
     * from the first step they do not take, the view so far takes the rest one at a time
     */
    static TensorView remap(TensorView source, List<Remap> steps) {
        long[] dims = source.dimsArray();
        long[] strides = source.stridesArray();
        long base = source.base();
        TensorView whole = strides == null ? null : source.wholeLayoutOf();
        int done = 0;
        try {
            for (; done < steps.size() && strides != null; done++) {
                Remap step = steps.get(done);
                long[] out = outputDims(step);
                if (ViewRemaps.hasZeroDim(out) || !ViewRemaps.staysWithin(dims, step)) {
                    break;
                }
                long[] composed = ViewRemaps.strides(dims, strides, step);
                if (composed == null) {
                    break;
                }
                base = ViewRemaps.base(strides, base, step);
                strides = composed;
                if (whole != null && !ViewRemaps.readsEveryIndexOnce(dims, step)) {
                    whole = null;
                }
                dims = out;
            }
        } catch (ArithmeticException overflow) {
            // That step takes the general path below, from the view before it.
        }
        TensorView view = done == 0 ? source
                : new TensorView(ViewFactory.logicalShape(source.dtype(), dims), dims.clone(), source.access(),
                        source.isHostAccessible(), source.bufferOrNull(), strides, base, null,
                        whole == null ? PendingMap.Strided.PART : new PendingMap.Strided(whole));
        for (int k = done; k < steps.size(); k++) {
            view = remap(view, steps.get(k));
        }
        return view;
    }

    private static long[] outputDims(Remap step) {
        return switch (step) {
            case Remap.Affine a -> a.outputDimsArray();
            case Remap.Reshape r -> r.outputDimsArray();
        };
    }

    /** {@return the view of {@link TensorView#padded(IndexingMap, long[], TensorView)}} */
    static TensorView padded(TensorView source, IndexingMap outputToInput, long[] outputDims, TensorView fill) {
        ViewRemaps.checkFill(source, fill);
        ViewRemaps.check(source, source.dimsArray(), outputToInput, outputDims, false);
        IndexingMap toScalar = PendingMap.Padded.toScalar(outputDims);
        ViewMap.Padded padded = new ViewMap.Padded(source.map().remap(outputToInput), ((ViewMap.Single) fill.map()).remap(toScalar));
        return ViewFactory.fromMap(ViewFactory.logicalShape(source.dtype(), outputDims), padded, source.access());
    }

    /** {@return the view of {@link TensorView#padded(Remap.Pad, TensorView)}} */
    static TensorView padded(TensorView source, Remap.Pad pad, TensorView fill) {
        ViewRemaps.checkFill(source, fill);
        long[] dims = source.dimsArray();
        if (!Arrays.equals(pad.inputDimsArray(), dims)) {
            throw new IllegalArgumentException(pad + " does not pad " + source + " of dims " + Arrays.toString(dims));
        }
        long[] out = pad.outputDimsArray();
        return new TensorView(ViewFactory.logicalShape(source.dtype(), out), out.clone(), source.access(),
                source.isHostAccessible() && fill.isHostAccessible(), null, null, 0, null,
                new PendingMap.Padded(source, pad, fill));
    }

}
