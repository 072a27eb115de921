package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.views.TensorView;
import java.util.List;

/** Vector kernels for the common forms of a fused elementwise copy. */
final class FusedKernels {
    private FusedKernels() {
    }

    /** {@return whether a kernel wrote {@code dst}; false leaves it to the block evaluator} */
    static boolean run(Pointwise.Expr e, List<TensorView> leaves, TensorView dst) {
        return false;
    }
}
