package dev.tensorbuf.ops.exec;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.exec.internal.Materialize;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.util.List;
import java.util.Objects;

/**
 * The outcome of {@link HloExecutor#execute}: the root's value in memory laid out by the root's
 * shape, and what each instruction became ({@link ExecutedInstruction}). It owns the memory of every copy,
 * constant and the result; closing it frees them (arguments stay the caller's).
 * {@snippet :
 * try (Execution x = HloExecutor.execute(text, Map.of("p0", p0))) {   // p0: f32[2,3] 0..5
 *     x.resultShape();                  // f32[3,2]{0,1}
 *     x.rowMajor().toFloatArray();      // [0, 3, 1, 4, 2, 5]: the logical array, C order
 *     x.steps().get(1).kind();          // VIEW
 * }
 * }
 */
public final class Execution implements AutoCloseable {
    private final TensorView result;
    private final ArrayShape resultShape;
    private final boolean rootCopied;
    private final List<ExecutedInstruction> steps;
    private final Allocator allocator;

    Execution(TensorView result, ArrayShape resultShape, boolean rootCopied, List<ExecutedInstruction> steps, Allocator allocator) {
        this.result = Objects.requireNonNull(result, "result");
        this.resultShape = resultShape;
        this.rootCopied = rootCopied;
        this.steps = List.copyOf(steps);
        this.allocator = allocator;
    }

    /** {@return the root's value, in memory laid out by {@link #resultShape()}} */
    public TensorView result() {
        return result;
    }

    /** {@return the root instruction's shape, its layout included (XLA's default where none was written)} */
    public ArrayShape resultShape() {
        return resultShape;
    }

    /** {@return whether the root was copied into its layout; false when the root instruction already made that memory} */
    public boolean rootCopied() {
        return rootCopied;
    }

    /** {@return each instruction evaluated (those the root depends on), in the module's order} */
    public List<ExecutedInstruction> steps() {
        return steps;
    }

    /**
     * {@return the result as a dense C-order (row-major) view, what {@code .npy} and safetensors
     * files hold: the result itself when its layout is already that one, else a copy} Sub-byte
     * types come packed, first element in the low bits, as safetensors' {@code F4} holds them.
     *
     * @throws IllegalStateException if the execution is closed
     */
    public TensorView rowMajor() {
        if (!allocator.isOpen()) {
            throw new IllegalStateException("execution is closed");
        }
        XlaLayout dense = XlaLayout.packedDescending(resultShape.dtype(), resultShape.rank());
        if (resultShape.requireLayout().equals(dense)) {
            return result;
        }
        return Materialize.materialize(result, resultShape.withLayout(dense), allocator);
    }

    /** Frees the memory of every copy, constant and the result. */
    @Override
    public void close() {
        allocator.close();
    }
}
