package dev.tensorbuf.ops;

import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.IndexingMapBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * XLA's {@code concatenate} as a view over several sources: part {@code k}, starting at
 * {@code s_k} along {@code dimension}, is read through {@code d -> d - s_k} on its slab
 * {@code d_dimension in [s_k, s_k + n_k - 1]} ({@link ViewMap.Concatenated}).
 * {@snippet :
 * TensorView a = ...; // f32[2] [1, 2]
 * TensorView b = ...; // f32[3] [3, 4, 5]
 * Concatenate.apply(0, a, b).toFloatArray(); // [1, 2, 3, 4, 5]
 * Concatenate.outputToPart(new long[] {5}, 0, 2, 3).toString();
 * // "(d0) -> (d0 - 2), domain: d0 in [2, 4]"
 * }
 */
public final class Concatenate {
    private Concatenate() {
    }

    /** {@return the concatenation} @see #apply(int, List) */
    public static TensorView apply(int dimension, TensorView... parts) {
        return apply(dimension, List.of(parts));
    }

    /**
     * {@return the parts joined along {@code dimension}, no element moved}
     *
     * @throws IllegalArgumentException if there are no parts, or they differ in type, storage,
     *     rank or any other dimension
     */
    public static TensorView apply(int dimension, List<TensorView> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("concatenate needs at least one part");
        }
        TensorView first = parts.getFirst();
        if (dimension < 0 || dimension >= first.rank()) {
            throw new IllegalArgumentException("concatenate along dimension " + dimension + " of rank " + first.rank());
        }
        long[] out = OpMaps.dims(first);
        out[dimension] = 0;
        for (TensorView p : parts) {
            long[] d = OpMaps.dims(p);
            boolean same = p.dtype() == first.dtype() && p.access().storageBits() == first.access().storageBits()
                    && d.length == out.length;
            for (int i = 0; same && i < d.length; i++) {
                same = i == dimension || d[i] == out[i];
            }
            if (!same) {
                throw new IllegalArgumentException("concatenate along dimension " + dimension + ": " + p.shape() + " ("
                        + p.access() + ") does not match " + first.shape() + " (" + first.access() + ")");
            }
            out[dimension] = Math.addExact(out[dimension], d[dimension]);
        }
        List<ViewMap> pieces = new ArrayList<>();
        long start = 0;
        for (TensorView p : parts) {
            long n = p.dims().get(dimension);
            if (n > 0) {
                pieces.add(p.map().remap(outputToPart(out, dimension, start, n)));
            }
            start += n;
        }
        if (pieces.isEmpty()) {
            return first.remap(OpMaps.onBox(out, identity(out.length)), out);
        }
        return TensorView.over(new ViewMap.Concatenated(pieces), first.access(), out);
    }

    private static AffineExpr[] identity(int rank) {
        AffineExpr[] r = new AffineExpr[rank];
        for (int i = 0; i < rank; i++) {
            r[i] = AffineExpr.dim(i);
        }
        return r;
    }

    /** {@return the map from the output to the part at {@code start} of size {@code size}, on its slab} */
    public static IndexingMap outputToPart(long[] outputDims, int dimension, long start, long size) {
        IndexingMapBuilder b = IndexingMap.builder();
        AffineExpr[] results = identity(outputDims.length);
        for (int i = 0; i < outputDims.length; i++) {
            if (i == dimension) {
                b.dim(start, start + size - 1);
            } else {
                b.dim(0, outputDims[i] - 1);
            }
        }
        results[dimension] = AffineExpr.dim(dimension).minus(start);
        return b.result(results).build();
    }
}
