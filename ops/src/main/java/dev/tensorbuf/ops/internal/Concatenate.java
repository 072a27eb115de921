package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.List;

/**
 * XLA's {@code concatenate} as a view over several sources: part {@code k}, starting at
 * {@code s_k} along {@code dimension}, is read through {@code d -> d - s_k} on its slab
 * {@code d_dimension in [s_k, s_k + n_k - 1]} ({@link ViewMap.Concatenated}).
 * {@snippet :
 * TensorView a = ...; // f32[2] [1, 2]
 * TensorView b = ...; // f32[3] [3, 4, 5]
 * TensorElements.of(Concatenate.apply(0, a, b)).toFloatArray(); // [1, 2, 3, 4, 5]
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
     * {@return the parts joined along {@code dimension}, no element moved}: made in
     * O(parts * rank) by {@link TensorView#concatenated}, which places each part with
     * {@link #outputToPart}'s map and composes it when first asked for
     *
     * @throws IllegalArgumentException if there are no parts, or they differ in type, storage,
     *     rank or any other dimension
     */
    public static TensorView apply(int dimension, List<TensorView> parts) {
        TensorView joined = TensorView.concatenated(dimension, parts);
        // One part is that part: its own form (strided, say) rather than a view of one piece.
        return parts.size() == 1 ? parts.getFirst() : joined;
    }

    /**
     * {@return the map from the output to the part at {@code start} of size {@code size}, on its
     * slab}: a pad of the part by {@code start} before and the rest of the output after it
     */
    public static IndexingMap outputToPart(long[] outputDims, int dimension, long start, long size) {
        long[] part = outputDims.clone();
        part[dimension] = size;
        long[] low = new long[outputDims.length];
        long[] high = new long[outputDims.length];
        low[dimension] = start;
        high[dimension] = outputDims[dimension] - start - size;
        return Remap.Pad.of(part, low, high, new long[outputDims.length]).toIndexingMap();
    }
}
