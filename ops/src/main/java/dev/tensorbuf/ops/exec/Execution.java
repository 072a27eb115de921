package dev.tensorbuf.ops.exec;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.exec.ExecutedInstruction;
import dev.tensorbuf.ops.exec.internal.Interpreter;
import dev.tensorbuf.ops.exec.internal.Materialize;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.util.List;
import java.util.Objects;

/**
 * The outcome of {@link HloExecutor#execute}: the root's value and what each instruction became
 * ({@link ExecutedInstruction}). It owns the memory of every copy, constant and the result;
 * closing it frees them (arguments stay the caller's, and so does the memory a ROOT was written
 * into by {@link HloExecutor#execute(dev.tensorbuf.ops.hlo.HloModule, String, java.util.Map, TensorView)}:
 * {@link #result()} is then that memory, in its own layout). A {@code tuple} ROOT has one output per
 * element ({@link #outputCount()}, {@link #result(int)}); the methods without an index are for an
 * array ROOT and refuse a tuple, whose elements must not be mistaken for one result.
 *
 * <p>A ROOT that is a view ({@link #rootCopied()}) is copied when it is first asked for, once,
 * straight into the layout asked for: {@link #result()} into the ROOT's own layout,
 * {@link #rowMajor()} into C order, which is all a {@code .npy} or safetensors file holds. So the
 * arguments' memory must stay open until then.
 * {@snippet :
 * try (Execution x = HloExecutor.execute(text, Map.of("p0", p0))) {   // p0: f32[2,3] 0..5
 *     x.resultShape();                  // f32[3,2]{0,1}
 *     TensorElements.of(x.rowMajor()).toFloatArray();      // [0, 3, 1, 4, 2, 5]: the logical array, C order, one copy
 *     x.steps().get(1).kind();          // VIEW
 * }
 * }
 */
public final class Execution implements AutoCloseable {
    private final List<Interpreter.Output> outputs;
    private final boolean tuple;
    private final List<ExecutedInstruction> steps;
    private final Allocator allocator;
    /** Per output, made on first need and kept: the value in its own layout, and in C order. */
    private final TensorView[] inOwnLayout;
    private final TensorView[] inRowMajor;
    /** Per output, the copies made of it: what the "copy once" promise is checked by. */
    private final int[] copies;
    /** The caller's memory the ROOT was written into, or null: not closed here. */
    private final TensorView into;

    Execution(List<Interpreter.Output> outputs, boolean tuple, List<ExecutedInstruction> steps, Allocator allocator) {
        this(outputs, tuple, steps, allocator, null);
    }

    Execution(List<Interpreter.Output> outputs, boolean tuple, List<ExecutedInstruction> steps, Allocator allocator,
            TensorView into) {
        this.into = into;
        this.outputs = List.copyOf(outputs);
        this.tuple = tuple;
        this.steps = List.copyOf(steps);
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.inOwnLayout = new TensorView[outputs.size()];
        this.inRowMajor = new TensorView[outputs.size()];
        this.copies = new int[outputs.size()];
        for (int k = 0; k < outputs.size(); k++) {
            if (outputs.get(k).inOwnLayout()) {
                inOwnLayout[k] = outputs.get(k).value();
            }
        }
    }

    /** {@return whether the ROOT is a {@code tuple}; its elements are outputs 0 to {@link #outputCount()} - 1} */
    public boolean isTuple() {
        return tuple;
    }

    /** {@return the number of arrays the ROOT returns: 1, or a tuple's element count} */
    public int outputCount() {
        return outputs.size();
    }

    /**
     * {@return the root's value, in memory laid out by {@link #resultShape()}: copied there on the
     * first call when the ROOT is a view}
     *
     * @throws IllegalStateException for a tuple ROOT, or if the execution is closed
     */
    public TensorView result() {
        return resultOf(single());
    }

    /** {@return output {@code k}'s value, in memory laid out by {@link #resultShape(int)}} @throws IndexOutOfBoundsException for no such output */
    public TensorView result(int k) {
        return resultOf(index(k));
    }

    /** {@return the root instruction's shape, its layout included (XLA's default where none was written)} @throws IllegalStateException for a tuple ROOT */
    public ArrayShape resultShape() {
        return outputs.get(single()).shape();
    }

    /** {@return output {@code k}'s shape, its layout included} @throws IndexOutOfBoundsException for no such output */
    public ArrayShape resultShape(int k) {
        return outputs.get(index(k)).shape();
    }

    /**
     * {@return whether the root is copied to be written: true when its instruction is a view, false
     * when it already made memory in its layout (a {@code copy}, a {@code convert})}
     *
     * @throws IllegalStateException for a tuple ROOT
     */
    public boolean rootCopied() {
        return !outputs.get(single()).inOwnLayout();
    }

    /** {@return whether output {@code k} is copied to be written} @throws IndexOutOfBoundsException for no such output */
    public boolean rootCopied(int k) {
        return !outputs.get(index(k)).inOwnLayout();
    }

    /** {@return each instruction evaluated (those the root depends on), in the module's order} */
    public List<ExecutedInstruction> steps() {
        return steps;
    }

    /**
     * {@return the result as a dense C-order (row-major) view, what {@code .npy} and safetensors
     * files hold} That is the memory the ROOT's instruction made when it is already in that
     * layout, else one copy: from that memory, or, for a ROOT that is a view, straight from the
     * view (not through {@link #result()}'s layout). Sub-byte types come packed, first element
     * in the low bits, as safetensors' {@code F4} holds them.
     *
     * @throws IllegalStateException for a tuple ROOT, or if the execution is closed
     */
    public TensorView rowMajor() {
        return rowMajorOf(single());
    }

    /** {@return output {@code k} as {@link #rowMajor()} gives an array ROOT} @throws IndexOutOfBoundsException for no such output */
    public TensorView rowMajor(int k) {
        return rowMajorOf(index(k));
    }

    /** {@return the copies made of output {@code k} so far: at most one for each layout asked for} */
    int copiesOf(int k) {
        return copies[index(k)];
    }

    private synchronized TensorView resultOf(int k) {
        requireOpen();
        if (inOwnLayout[k] == null) {
            Interpreter.Output o = outputs.get(k);
            inOwnLayout[k] = copy(k, inRowMajor[k] != null ? inRowMajor[k] : o.value(), o.shape());
        }
        return inOwnLayout[k];
    }

    private synchronized TensorView rowMajorOf(int k) {
        requireOpen();
        if (inRowMajor[k] == null) {
            ArrayShape shape = outputs.get(k).shape();
            XlaLayout dense = XlaLayout.packedDescending(shape.dtype(), shape.rank());
            boolean intoIsDense = into != null && into.stridedLayout()
                    .filter(l -> l.equals(StridedLayout.packed(dev.tensorbuf.views.internal.Extents.toArray(shape.dims())))).isPresent();
            if (into != null ? intoIsDense : shape.requireLayout().equals(dense)) {
                inRowMajor[k] = resultOf(k);
            } else {
                TensorView from = inOwnLayout[k] != null ? inOwnLayout[k] : outputs.get(k).value();
                inRowMajor[k] = copy(k, from, shape.withLayout(dense));
            }
        }
        return inRowMajor[k];
    }

    private TensorView copy(int k, TensorView from, ArrayShape into) {
        TensorView made = Materialize.materialize(from, into, allocator);
        copies[k]++;
        return made;
    }

    private void requireOpen() {
        if (!allocator.isOpen()) {
            throw new IllegalStateException("execution is closed");
        }
    }

    private int single() {
        if (tuple) {
            throw new IllegalStateException("the ROOT is a tuple of " + outputs.size() + " arrays: ask for result(k),"
                    + " resultShape(k) or rowMajor(k), k in [0, " + outputs.size() + ")");
        }
        return 0;
    }

    private int index(int k) {
        if (k < 0 || k >= outputs.size()) {
            throw dev.tensorbuf.ops.internal.Errors.outOfBounds("output", k, outputs.size(), "the ROOT's outputs");
        }
        return k;
    }

    /** Frees the memory of every copy, constant and the result; a result written into the caller's memory stays open. */
    @Override
    public void close() {
        allocator.close();
    }
}
