package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.RuntimeVariable;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Gather in XLA's simplified form only (indices {@code [batch, k]}, {@code index_vector_dim=1},
 * {@code start_index_map={0..k-1}}, no collapsed dims, {@code offset_dims={1..rank}}); any other
 * gather is {@code unknown indexing}, as in XLA, which runs its gather simplifier first.
 */
final class Gather {
    private Gather() {
    }

    static List<Set<OperandIndexing>> outputToInput(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape operand = ctx.operandShape(instr, 0);
        ArrayShape indices = ctx.operandShape(instr, 1);
        if (!isSimplified(instr, operand, indices, out)) {
            return List.of(Maps.undefined(), Maps.undefined());
        }
        int k = (int) indices.dim(1);
        List<Long> sliceSizes = instr.ints("slice_sizes");
        List<Long> offsetDims = instr.ints("offset_dims");
        List<Variable> rts = new ArrayList<>();
        List<RuntimeVariable> bindings = new ArrayList<>();
        List<AffineExpr> res = new ArrayList<>();
        for (int j = 0; j < operand.rank(); j++) {
            AffineExpr e = Maps.d(offsetDims.get(j).intValue());
            if (j < k) {
                rts.add(Variable.of(0, operand.dim(j) - sliceSizes.get(j)));
                bindings.add(new RuntimeVariable(ctx.operand(instr, 1),
                        Maps.map(out.dims(), List.of(), List.of(Maps.d(0), Maps.c(j)))));
                e = e.plus(Maps.rt(j));
            }
            res.add(e);
        }
        OperandIndexing first = new OperandIndexing(
                Maps.map(Maps.box(out.dims()), List.of(), rts, res, Map.of()), bindings, Optional.empty());
        OperandIndexing second = OperandIndexing.of(Maps.map(out.dims(), List.of((long) k),
                List.of(Maps.d(0), Maps.s(0))));
        return List.of(Maps.one(first), Maps.one(second));
    }

    private static boolean isSimplified(HloInstruction g, ArrayShape operand, ArrayShape indices, ArrayShape out) {
        if (indices.rank() != 2 || g.intValue("index_vector_dim", -1) != 1) {
            return false;
        }
        if (!g.intsOrEmpty("collapsed_slice_dims").isEmpty() || !g.intsOrEmpty("operand_batching_dims").isEmpty()) {
            return false;
        }
        List<Long> map = g.intsOrEmpty("start_index_map");
        if (map.size() != indices.dim(1)) {
            return false;
        }
        for (int i = 0; i < map.size(); i++) {
            if (map.get(i) != i) {
                return false;
            }
        }
        List<Long> offsets = g.intsOrEmpty("offset_dims");
        if (offsets.size() != operand.rank() || out.rank() != operand.rank() + 1
                || g.intsOrEmpty("slice_sizes").size() != operand.rank()) {
            return false;
        }
        for (int i = 0; i < offsets.size(); i++) {
            if (offsets.get(i) != i + 1) {
                return false;
            }
        }
        return true;
    }
}
