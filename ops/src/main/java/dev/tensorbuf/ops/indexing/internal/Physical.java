package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code use_physical_layout}: maps between physical (major-to-minor) indices, made by composing
 * the physical-to-logical permutation of the source with the logical map and the
 * logical-to-physical permutation of the target.
 */
public final class Physical {
    private Physical() {
    }

    public static List<Set<OperandIndexing>> outputToInput(Ctx ctx, HloInstruction instr, int outputId,
                                                           List<Set<OperandIndexing>> logical) {
        ArrayShape out = instr.outputShape(outputId);
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int k = 0; k < logical.size(); k++) {
            result.add(wrap(logical.get(k), Reshapes.physicalToLogical(out), Reshapes.logicalToPhysical(ctx.operandShape(instr, k))));
        }
        return result;
    }

    public static List<Set<OperandIndexing>> inputToOutput(Ctx ctx, HloInstruction instr, int operand,
                                                           List<Set<OperandIndexing>> logical) {
        ArrayShape in = ctx.operandShape(instr, operand);
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int o = 0; o < logical.size(); o++) {
            result.add(wrap(logical.get(o), Reshapes.physicalToLogical(in), Reshapes.logicalToPhysical(instr.outputShape(o))));
        }
        return result;
    }

    private static Set<OperandIndexing> wrap(Set<OperandIndexing> maps, IndexingMap before, IndexingMap after) {
        Set<OperandIndexing> out = new LinkedHashSet<>();
        for (OperandIndexing o : maps) {
            OperandIndexing first = Composition.compose(OperandIndexing.of(before), o);
            out.add(Composition.compose(first, OperandIndexing.of(after)));
        }
        return out;
    }
}
