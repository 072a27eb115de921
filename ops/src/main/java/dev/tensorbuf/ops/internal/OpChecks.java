package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.TensorView;
import java.util.Arrays;

/** What the op files share: argument checks with uniform messages. */
final class OpChecks {
    private OpChecks() {
    }

    static void checkRank(String op, TensorView view, int length, String what) {
        if (length != view.rank()) {
            throw new IllegalArgumentException(op + " of " + view.shape() + ": " + length + " " + what
                    + " for rank " + view.rank());
        }
    }

    static int[] checkPermutation(String op, TensorView view, int[] permutation) {
        if (permutation.length != view.rank()) { // the message built only when it is thrown: transposes are made per call
            checkRank(op, view, permutation.length, "permutation entries " + Arrays.toString(permutation));
        }
        boolean[] seen = new boolean[permutation.length];
        for (int p : permutation) {
            if (p < 0 || p >= permutation.length || seen[p]) {
                throw Errors.notAPermutation(op + " of " + view.shape(), Arrays.toString(permutation), permutation.length);
            }
            seen[p] = true;
        }
        return permutation.clone();
    }
}
