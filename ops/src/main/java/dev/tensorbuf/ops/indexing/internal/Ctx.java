package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.ArrayShape;

import java.util.List;

/**
 * Where an instruction lives: its module (for called computations) and computation (for its
 * operands, which are referenced by name).
 */
public record Ctx(HloModule module, HloComputation computation) {

    public HloInstruction operand(HloInstruction instruction, int k) {
        return computation.instruction(instruction.operands().get(k));
    }

    public ArrayShape operandShape(HloInstruction instruction, int k) {
        return operand(instruction, k).outputShape(0);
    }

    /**
     * {@return the one dimension an attribute names (concatenate's and all-gather's
     * {@code dimensions}), checked against the output rank}
     *
     * @throws IllegalArgumentException naming the instruction if the attribute lists no dimension,
     *     several, or one outside the output
     */
    public static int oneDimension(HloInstruction instr, String key) {
        List<Long> dims = instr.ints(key);
        int rank = instr.arrayShape().rank();
        if (dims.size() != 1 || dims.getFirst() < 0 || dims.getFirst() >= rank) {
            throw new IllegalArgumentException(instr.opcode() + " " + instr.name() + ": " + key + "=" + dims
                    + " must name one dimension of its rank-" + rank + " output");
        }
        return dims.getFirst().intValue();
    }

    public Ctx enter(String computationName) {
        return new Ctx(module, module.computation(computationName));
    }
}
