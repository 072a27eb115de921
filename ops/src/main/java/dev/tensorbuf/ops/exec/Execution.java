package dev.tensorbuf.ops.exec;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.exec.internal.Interpreter;
import dev.tensorbuf.ops.exec.internal.Materialize;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.util.List;
import java.util.Objects;

/**
 * The outcome of {@link HloExecutor#execute}: the root's value in memory laid out by the root's
 * shape, and what each instruction became ({@link ExecutedInstruction}). It owns the memory of every copy,
 * constant and the result; closing it frees them (arguments stay the caller's). A {@code tuple}
 * ROOT has one output per element ({@link #outputCount()}, {@link #result(int)}); the methods
 * without an index are for an array ROOT and refuse a tuple, whose elements must not be mistaken
 * for one result.
 * {@snippet :
 * try (Execution x = HloExecutor.execute(text, Map.of("p0", p0))) {   // p0: f32[2,3] 0..5
 *     x.resultShape();                  // f32[3,2]{0,1}
 *     x.rowMajor().toFloatArray();      // [0, 3, 1, 4, 2, 5]: the logical array, C order
 *     x.steps().get(1).kind();          // VIEW
 * }
 * }
 */
public final class Execution implements AutoCloseable {
    private final List<Interpreter.Output> outputs;
    private final boolean tuple;
    private final List<ExecutedInstruction> steps;
    private final Allocator allocator;

    Execution(List<Interpreter.Output> outputs, boolean tuple, List<ExecutedInstruction> steps, Allocator allocator) {
        this.outputs = List.copyOf(outputs);
        this.tuple = tuple;
        this.steps = List.copyOf(steps);
        this.allocator = Objects.requireNonNull(allocator, "allocator");
    }

    /** {@return whether the ROOT is a {@code tuple}; its elements are outputs 0 to {@link #outputCount()} - 1} */
    public boolean isTuple() {
        return tuple;
    }

    /** {@return the number of arrays the ROOT returns: 1, or a tuple's element count} */
    public int outputCount() {
        return outputs.size();
    }

    /** {@return the root's value, in memory laid out by {@link #resultShape()}} @throws IllegalStateException for a tuple ROOT */
    public TensorView result() {
        return single().result();
    }

    /** {@return output {@code k}'s value, in memory laid out by {@link #resultShape(int)}} @throws IndexOutOfBoundsException for no such output */
    public TensorView result(int k) {
        return output(k).result();
    }

    /** {@return the root instruction's shape, its layout included (XLA's default where none was written)} @throws IllegalStateException for a tuple ROOT */
    public ArrayShape resultShape() {
        return single().shape();
    }

    /** {@return output {@code k}'s shape, its layout included} @throws IndexOutOfBoundsException for no such output */
    public ArrayShape resultShape(int k) {
        return output(k).shape();
    }

    /** {@return whether the root was copied into its layout; false when the root instruction already made that memory} @throws IllegalStateException for a tuple ROOT */
    public boolean rootCopied() {
        return single().copied();
    }

    /** {@return whether output {@code k} was copied into its layout} @throws IndexOutOfBoundsException for no such output */
    public boolean rootCopied(int k) {
        return output(k).copied();
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
        return rowMajor(single());
    }

    /** {@return output {@code k} as {@link #rowMajor()} gives an array ROOT} @throws IndexOutOfBoundsException for no such output */
    public TensorView rowMajor(int k) {
        return rowMajor(output(k));
    }

    private TensorView rowMajor(Interpreter.Output o) {
        if (!allocator.isOpen()) {
            throw new IllegalStateException("execution is closed");
        }
        ArrayShape shape = o.shape();
        XlaLayout dense = XlaLayout.packedDescending(shape.dtype(), shape.rank());
        if (shape.requireLayout().equals(dense)) {
            return o.result();
        }
        return Materialize.materialize(o.result(), shape.withLayout(dense), allocator);
    }

    private Interpreter.Output single() {
        if (tuple) {
            throw new IllegalStateException("the ROOT is a tuple of " + outputs.size() + " arrays: ask for result(k),"
                    + " resultShape(k) or rowMajor(k), k in [0, " + outputs.size() + ")");
        }
        return outputs.getFirst();
    }

    private Interpreter.Output output(int k) {
        if (k < 0 || k >= outputs.size()) {
            throw dev.tensorbuf.ops.internal.Errors.outOfBounds("output", k, outputs.size(), "the ROOT's outputs");
        }
        return outputs.get(k);
    }

    /** Frees the memory of every copy, constant and the result. */
    @Override
    public void close() {
        allocator.close();
    }
}
