package dev.tensorbuf.ops;

import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.IndexingMapBuilder;
import java.util.Arrays;
import java.util.List;

/** What the op files share: building maps over an output box, and argument checks with uniform messages. */
final class OpMaps {
    private OpMaps() {
    }

    /** {@return {@code (d0, ..., dn) -> (results)} with {@code d_i in [0, outputDims_i - 1]}} */
    static IndexingMap onBox(long[] outputDims, AffineExpr[] results) {
        IndexingMapBuilder b = IndexingMap.builder();
        for (long d : outputDims) {
            b.dim(0, d - 1);
        }
        return b.result(results).build();
    }

    static long[] dims(TensorView view) {
        List<Long> dims = view.dims();
        long[] a = new long[dims.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = dims.get(i);
        }
        return a;
    }

    static void checkRank(String op, TensorView view, int length, String what) {
        if (length != view.rank()) {
            throw new IllegalArgumentException(op + " of " + view.shape() + ": " + length + " " + what
                    + " for rank " + view.rank());
        }
    }

    static int[] checkPermutation(String op, TensorView view, int[] permutation) {
        checkRank(op, view, permutation.length, "permutation entries " + Arrays.toString(permutation));
        boolean[] seen = new boolean[permutation.length];
        for (int p : permutation) {
            if (p < 0 || p >= permutation.length || seen[p]) {
                throw new IllegalArgumentException(op + " of " + view.shape() + ": " + Arrays.toString(permutation)
                        + " is not a permutation of [0, " + permutation.length + ")");
            }
            seen[p] = true;
        }
        return permutation.clone();
    }

    static long product(List<Long> dims, String context) {
        long n = 1;
        for (long d : dims) {
            try {
                n = Math.multiplyExact(n, d);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("element count of " + dims + " overflows a long (" + context + ")", e);
            }
        }
        return n;
    }
}
