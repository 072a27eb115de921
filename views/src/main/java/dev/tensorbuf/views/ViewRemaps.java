package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.internal.Errors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The arithmetic behind making views: checking an op's map against a view, composing a remap
 * into a strided view's strides, an untiled layout's strides and a concatenation's dimensions,
 * all without building a map.
 */
final class ViewRemaps {
    private ViewRemaps() {}

    /**
     * {@return whether every result of {@code r} stays in its dimension of {@code dims}}, by
     * arithmetic on the remap: exact for an affine remap (each result's extremes are reached
     * independently), and for a reshape from exactly these dimensions. False sends the caller
     * to the general check, which names the result that leaves.
     */
    static boolean staysWithin(long[] dims, Remap r) {
        return switch (r) {
            case Remap.Affine a -> affineStaysWithin(dims, a);
            case Remap.Reshape s -> Arrays.equals(s.inputDimsArray(), dims);
        };
    }

    private static boolean affineStaysWithin(long[] dims, Remap.Affine a) {
        if (a.inputRank() != dims.length) {
            return false;
        }
        long[] out = a.outputDimsArray();
        try {
            for (int j = 0; j < dims.length; j++) {
                long lo = a.offset(j);
                long hi = lo;
                for (int i = 0; i < out.length; i++) {
                    long reach = Math.multiplyExact(a.coefficient(j, i), out[i] - 1);
                    lo = Math.addExact(lo, Math.min(reach, 0));
                    hi = Math.addExact(hi, Math.max(reach, 0));
                }
                if (lo < 0 || hi >= dims[j]) {
                    return false;
                }
            }
        } catch (ArithmeticException overflow) {
            return false;
        }
        return true;
    }

    /**
     * {@return whether {@code r} reads every index of {@code dims} once by a signed permutation of
     * the dims (each input {@code d_j} or {@code n - 1 - d_j}): a transpose, a reverse, a slice of
     * all of it} The same test as {@link ViewMap.Single#remap}'s, by arithmetic on the remap, so a
     * view made by stride arithmetic keeps the whole-layout mark exactly when a composed one does.
     */
    static boolean readsEveryIndexOnce(long[] dims, Remap r) {
        if (r instanceof Remap.Reshape s) {
            // Only a reshape to the same dims can be one (as the map says it; its text decides).
            return Arrays.equals(s.inputDimsArray(), s.outputDimsArray()) && Arrays.equals(s.inputDimsArray(), dims)
                    && ViewMap.Single.readsEveryIndexOnce(s.toIndexingMap(), s.toIndexingMap().dimBounds());
        }
        Remap.Affine a = (Remap.Affine) r;
        if (a.inputRank() != dims.length || a.outputRank() != dims.length) {
            return false;
        }
        long[] out = a.outputDimsArray();
        for (int j = 0; j < dims.length; j++) {
            int dim = -1;
            for (int i = 0; i < out.length; i++) {
                long c = a.coefficient(j, i);
                if (c != 0) {
                    if (dim >= 0 || Math.abs(c) != 1) {
                        return false;
                    }
                    dim = i;
                }
            }
            if (dim < 0) {
                return false;
            }
            // Each earlier input reads one output dim: this one's is taken when one of them reads it.
            for (int k = 0; k < j; k++) {
                if (a.coefficient(k, dim) != 0) {
                    return false;
                }
            }
            long c = a.coefficient(j, dim);
            long lo = c > 0 ? a.offset(j) : a.offset(j) - (out[dim] - 1);
            long hi = c > 0 ? a.offset(j) + (out[dim] - 1) : a.offset(j);
            if (lo != 0 || hi != dims[j] - 1) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return the strides of a view of {@code dims} and {@code strides} read through {@code r},
     * which stays within it; null for a reshape that merges or splits a group that is not contiguous}
     *
     * @throws ArithmeticException if a stride overflows a long
     */
    static long[] strides(long[] dims, long[] strides, Remap r) {
        return switch (r) {
            case Remap.Affine a -> {
                long[] s = new long[a.outputRank()];
                for (int j = 0; j < dims.length; j++) {
                    for (int i = 0; i < s.length; i++) {
                        long c = a.coefficient(j, i);
                        if (c != 0) {
                            s[i] = Math.addExact(s[i], Math.multiplyExact(strides[j], c));
                        }
                    }
                }
                yield s;
            }
            case Remap.Reshape reshape -> reshape.strides(strides);
        };
    }

    /**
     * {@return the offset of the new view's origin: the source offset of the remap's constant terms}
     *
     * @throws ArithmeticException on overflow
     */
    static long base(long[] strides, long base, Remap r) {
        long b = base;
        if (r instanceof Remap.Affine a) {
            for (int j = 0; j < strides.length; j++) {
                b = Math.addExact(b, Math.multiplyExact(strides[j], a.offset(j)));
            }
        }
        return b;
    }

    /**
     * {@return the strides of an untiled XLA layout over {@code dims} (each the product of the
     * more minor sizes, a size of 0 counted as 1), or null when the layout is tiled or split, or
     * its elements do not all fit in {@code capacity}}: then the view is made from the layout's map, whose
     * bounds check names the first index beyond the buffer
     */
    static long[] packedStrides(long[] dims, XlaLayout layout, long capacity) {
        if (!layout.tiles().isEmpty() || !layout.splitConfigs().isEmpty()) {
            return null;
        }
        boolean empty = hasZeroDim(dims);
        long[] s = new long[dims.length];
        long step = 1;
        for (int d : layout.minorToMajor()) {
            s[d] = step;
            try {
                // A size of 0 counts as 1, as NumPy strides an empty array; the element count, which
                // ArrayShape has checked fits a long, bounds the others.
                step = Math.multiplyExact(step, Math.max(dims[d], 1));
            } catch (ArithmeticException overflow) {
                return null;
            }
        }
        return empty || step <= capacity ? s : null;
    }

    /**
     * {@return the layout {@link TensorView#form()} finds for the map {@code base + sum(strides_i
     * * d_i)} over {@code [0, dims_i)}, or null when it is not strided}: such a map simplifies to
     * itself less the terms of size-1 dimensions, whose index is always 0
     */
    static StridedLayout simplifiedLayout(long[] dims, long[] strides, long base) {
        long[] s = strides.clone();
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == 1) {
                s[i] = 0;
            }
        }
        try {
            return StridedLayout.of(dims, s, base);
        } catch (IllegalArgumentException negativeReach) {
            return null;
        }
    }

    /** Throws unless {@code fill} is a one-buffer rank-0 view of the type of {@code view}. */
    static void checkFill(TensorView view, TensorView fill) {
        if (fill.rank() != 0 || fill.dtype() != view.dtype() || fill.bufferOrNull() == null) {
            throw new IllegalArgumentException("fill of " + view + " must be a one-buffer rank-0 " + view.dtype()
                    + " view, not " + fill);
        }
    }

    /** {@return the identity remap over {@code dims}} */
    static Remap.Affine identity(long[] dims) {
        int[] reads = new int[dims.length];
        long[] ones = new long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            reads[i] = i;
            ones[i] = 1;
        }
        return Remap.Affine.ofTerms(dims, reads, ones, new long[dims.length]);
    }

    /** {@return the parts side by side along {@code dimension}, each placed by a pad with no interior padding} */
    static TensorView concatenated(int dimension, List<TensorView> parts) {
        long[] out = concatenatedDims(dimension, parts);
        List<TensorView> read = new ArrayList<>(parts.size());
        List<Remap.Pad> places = new ArrayList<>(parts.size());
        long[] none = new long[out.length];
        boolean host = true;
        long start = 0;
        for (TensorView p : parts) {
            long n = p.dimsArray()[dimension];
            if (n > 0) {
                long[] low = none.clone();
                long[] high = none.clone();
                low[dimension] = start;
                high[dimension] = out[dimension] - start - n;
                read.add(p);
                places.add(Remap.Pad.of(p.dimsArray(), low, high, none));
                host &= p.isHostAccessible();
            }
            start += n;
        }
        TensorView first = parts.getFirst();
        if (read.isEmpty()) {
            return first.remap(identity(out));
        }
        return new TensorView(ViewFactory.logicalShape(first.dtype(), out), out, first.access(), host, null, null, 0, null,
                new PendingMap.Joined(List.copyOf(read), List.copyOf(places)));
    }

    /**
     * {@return the dimensions of the parts joined along {@code dimension}}
     *
     * @throws IllegalArgumentException if there are no parts, the dimension is not one of theirs,
     *     they differ in type, storage, rank or another dimension, or the joined size overflows
     */
    static long[] concatenatedDims(int dimension, List<TensorView> parts) {
        if (parts.isEmpty()) {
            throw Errors.noParts();
        }
        TensorView first = parts.getFirst();
        if (dimension < 0 || dimension >= first.rank()) {
            throw new IllegalArgumentException("concatenate along dimension " + dimension + " of rank " + first.rank());
        }
        long[] out = first.dimsArray().clone();
        out[dimension] = 0;
        for (int k = 0; k < parts.size(); k++) {
            TensorView p = parts.get(k);
            long[] d = p.dimsArray();
            boolean sameAccess = p.access().equals(first.access());
            boolean same = sameAccess && d.length == out.length;
            for (int i = 0; same && i < d.length; i++) {
                same = i == dimension || d[i] == out[i];
            }
            if (!same) {
                // Name what differs: the element type and storage, else the dims; the shapes alone
                // can look equal (an s4 stored a byte each prints as a packed one does).
                String why = !sameAccess
                        ? "its elements are " + p.dtype() + " in " + p.access().storageBits() + " bits each, the first part's "
                                + first.dtype() + " in " + first.access().storageBits()
                        : d.length != out.length ? "its rank is " + d.length + ", the first part's " + out.length
                        : "its dims " + p.dims() + " differ from the first part's " + first.dims() + " outside dimension "
                                + dimension;
                throw new IllegalArgumentException("concatenate along dimension " + dimension + ": part " + k + ", "
                        + p.shape() + ", does not match the first part, " + first.shape() + ": " + why);
            }
            try {
                out[dimension] = Math.addExact(out[dimension], d[dimension]);
            } catch (ArithmeticException e) {
                throw Errors.overflows("concatenate along dimension " + dimension + ": size " + out[dimension] + " + "
                        + d[dimension], e);
            }
        }
        return out;
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
