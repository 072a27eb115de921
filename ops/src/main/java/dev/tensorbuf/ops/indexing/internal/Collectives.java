package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.AffineExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** All-gather (with its replica-id map) and scan. */
final class Collectives {
    private Collectives() {
    }

    /** Output element {@code d} of the gathered dimension is element {@code d mod n} of replica {@code d / n}. */
    static List<Set<OperandIndexing>> allGather(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape in = ctx.operandShape(instr, 0);
        int dim = instr.oneDimension("dimensions");
        List<AffineExpr> res = new ArrayList<>();
        for (int i = 0; i < out.rank(); i++) {
            res.add(i == dim ? Maps.d(i).mod(in.dim(dim)) : Maps.d(i));
        }
        var replica = Maps.map(out.dims(), List.of(), List.of(Maps.d(dim).floorDiv(in.dim(dim))));
        return List.of(Maps.one(new OperandIndexing(Maps.map(out.dims(), List.of(), res), List.of(),
                Optional.of(replica))));
    }

    /**
     * Scan with {@code num_carries} trailing carry operands and outputs, as XLA's
     * {@code ComputeOutputToInputScanOpIndexing}: every output, a carry of several elements
     * included, reads each scanned input by the identity over the output's indices and each
     * carry as a scalar. XLA tells a scalar output apart and reads every operand of it as a
     * scalar; over no indices the identity is that scalar map, so one rule covers both.
     */
    static List<Set<OperandIndexing>> scan(HloInstruction instr, int outputId) {
        long carries = instr.intValue("num_carries", 0);
        ArrayShape out = instr.outputShape(outputId);
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int k = 0; k < instr.operands().size(); k++) {
            boolean carryOperand = k >= instr.operands().size() - carries;
            result.add(Maps.one(carryOperand ? Maps.toScalar(out) : Maps.identity(out)));
        }
        return result;
    }
}
