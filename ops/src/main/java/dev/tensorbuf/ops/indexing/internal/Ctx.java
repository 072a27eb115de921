package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.ArrayShape;

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

    public Ctx enter(String computationName) {
        return new Ctx(module, module.computation(computationName));
    }
}
