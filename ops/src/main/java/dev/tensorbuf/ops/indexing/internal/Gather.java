package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Gather in XLA's simplified form only (indices {@code [batch, k]}, {@code index_vector_dim=1},
 * no collapsed dims, {@code offset_dims={1..rank}}, {@code start_index_map} any k distinct
 * operand dimensions in any order); any other gather is {@code unknown indexing}, as in XLA,
 * which runs its gather simplifier first. Runtime variables follow the operand dimensions:
 * {@code rt_i} offsets the i-th indexed operand dimension and reads the index column that
 * {@code start_index_map} assigns to it.
 */
final class Gather {
    private Gather() {
    }

    static List<Set<OperandIndexing>> outputToInput(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape operand = ctx.operandShape(instr, 0);
        ArrayShape indices = ctx.operandShape(instr, 1);
        if (!isSimplified(instr, indices)) {
            return List.of(Maps.undefined(), Maps.undefined());
        }
        int k = (int) indices.dim(1);
        List<Long> startIndexMap = instr.ints("start_index_map");
        List<Long> sliceSizes = instr.ints("slice_sizes");
        List<Long> offsetDims = instr.ints("offset_dims");
        List<Variable> rts = new ArrayList<>();
        List<RuntimeVariable> bindings = new ArrayList<>();
        List<AffineExpr> res = new ArrayList<>();
        for (int j = 0; j < operand.rank(); j++) {
            AffineExpr e = Maps.d(offsetDims.get(j).intValue());
            int column = startIndexMap.indexOf((long) j);
            if (column >= 0) {
                bindings.add(new RuntimeVariable(ctx.operand(instr, 1),
                        Maps.map(out.dims(), List.of(), List.of(Maps.d(0), Maps.c(column)))));
                e = e.plus(Maps.rt(rts.size()));
                rts.add(Variable.of(0, operand.dim(j) - sliceSizes.get(j)));
            }
            res.add(e);
        }
        OperandIndexing first = new OperandIndexing(
                Maps.map(Maps.box(out.dims()), List.of(), rts, res, Map.of()), bindings, Optional.empty());
        OperandIndexing second = OperandIndexing.of(Maps.map(out.dims(), List.of((long) k),
                List.of(Maps.d(0), Maps.s(0))));
        return List.of(Maps.one(first), Maps.one(second));
    }

    /**
     * Input to output, the inverse of {@link #outputToInput}. An operand element {@code i} is read
     * by every batch row {@code b} (a range variable) whose start index {@code rt = indices[b, j]}
     * puts it inside the slice: output {@code (b, i - rt)}. The runtime variables are bound to the
     * indices at {@code (s0, j)}: their value depends on the batch row, a range variable of the map.
     * An index element {@code (b, j)} is read by every output element of batch row {@code b}.
     * XLA's {@code ComputeInputToOutputIndexing} returns undefined for gather; this is our model,
     * and like the output-to-input one it covers only the simplified form.
     */
    static List<Set<OperandIndexing>> inputToOutput(Ctx ctx, HloInstruction instr, int operandId) {
        ArrayShape out = instr.arrayShape();
        ArrayShape operand = ctx.operandShape(instr, 0);
        ArrayShape indices = ctx.operandShape(instr, 1);
        if (!isSimplified(instr, indices)) {
            return List.of(Maps.undefined());
        }
        long batch = out.dim(0);
        if (operandId == 1) {
            List<AffineExpr> res = new ArrayList<>(List.of(Maps.d(0)));
            for (int j = 1; j < out.rank(); j++) {
                res.add(Maps.s(j - 1));
            }
            return List.of(Maps.one(Maps.map(indices.dims(), out.dims().subList(1, out.rank()), res)));
        }
        List<Long> startIndexMap = instr.ints("start_index_map");
        List<Long> sliceSizes = instr.ints("slice_sizes");
        List<Variable> dims = new ArrayList<>();
        List<Variable> rts = new ArrayList<>();
        List<RuntimeVariable> bindings = new ArrayList<>();
        List<AffineExpr> res = new ArrayList<>(List.of(Maps.s(0)));
        Map<AffineExpr, Interval> cons = Maps.constraints();
        for (int j = 0; j < operand.rank(); j++) {
            long slice = sliceSizes.get(j);
            int column = startIndexMap.indexOf((long) j);
            if (column >= 0) {
                dims.add(Variable.of(0, operand.dim(j) - 1));
                bindings.add(new RuntimeVariable(ctx.operand(instr, 1),
                        Maps.map(operand.dims(), List.of(batch), List.of(Maps.s(0), Maps.c(column)))));
                AffineExpr e = Maps.d(j).minus(Maps.rt(rts.size()));
                rts.add(Variable.of(0, operand.dim(j) - slice));
                res.add(e);
                cons.put(e, new Interval(0, slice - 1));
            } else {
                // An unindexed dimension is read from 0 only up to the slice size.
                dims.add(Variable.of(0, Math.min(operand.dim(j), slice) - 1));
                res.add(Maps.d(j));
            }
        }
        IndexingMap map = Maps.map(dims, Maps.box(List.of(batch)), rts, res, cons);
        return List.of(Maps.one(new OperandIndexing(map, bindings, Optional.empty())));
    }

    private static boolean isSimplified(HloInstruction g, ArrayShape indices) {
        if (indices.rank() != 2 || g.intValue("index_vector_dim", -1) != 1) {
            return false;
        }
        if (!g.intsOrEmpty("collapsed_slice_dims").isEmpty() || !g.intsOrEmpty("operand_batching_dims").isEmpty()) {
            return false;
        }
        // ShapeChecks.gather has checked start_index_map (one distinct operand dimension per index
        // column), slice_sizes (one per operand dimension) and the output's rank: with nothing
        // collapsed or batched that leaves one offset dimension per operand dimension.
        List<Long> offsets = g.intsOrEmpty("offset_dims");
        for (int i = 0; i < offsets.size(); i++) {
            if (offsets.get(i) != i + 1) {
                return false;
            }
        }
        return true;
    }
}
