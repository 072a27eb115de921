package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.OperandIndexing;
import dev.tensorbuf.views.ArrayShape;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Element-wise ops (unary, binary, ternary, select, clamp, compare, convert, map, copy): the
 * identity, except that a scalar operand of a non-scalar result is read for every element.
 */
final class Elementwise {
    private Elementwise() {
    }

    static List<Set<OperandIndexing>> outputToInput(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int k = 0; k < instr.operands().size(); k++) {
            ArrayShape in = ctx.operandShape(instr, k);
            result.add(Maps.one(in.rank() == 0 && out.rank() > 0 ? Maps.toScalar(out) : Maps.identity(out)));
        }
        return result;
    }

    static List<Set<OperandIndexing>> inputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        ArrayShape out = instr.arrayShape();
        ArrayShape in = ctx.operandShape(instr, operand);
        return List.of(Maps.one(in.rank() == 0 && out.rank() > 0 ? Maps.fromScalar(out) : Maps.identity(out)));
    }
}
