package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.OperandIndexing;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.AffineExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reduce (variadic) and dot: the reduced (contracted) dimensions become range variables in the
 * output-to-input direction, and the dimensions the input lacks become range variables in the
 * input-to-output direction.
 */
final class Reductions {
    private Reductions() {
    }

    static List<Set<OperandIndexing>> reduce(Ctx ctx, HloInstruction instr, int outputId) {
        int n = instr.operands().size() / 2;
        ArrayShape out = instr.outputShape(outputId);
        List<Long> reduced = instr.ints("dimensions");
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int k = 0; k < instr.operands().size(); k++) {
            if (k >= n) {
                result.add(Maps.one(Maps.toScalar(out)));
                continue;
            }
            ArrayShape in = ctx.operandShape(instr, k);
            List<AffineExpr> res = new ArrayList<>();
            List<Long> ranges = new ArrayList<>();
            int kept = 0;
            for (int j = 0; j < in.rank(); j++) {
                if (reduced.contains((long) j)) {
                    res.add(Maps.s(ranges.size()));
                    ranges.add(in.dim(j));
                } else {
                    res.add(Maps.d(kept++));
                }
            }
            result.add(Maps.one(Maps.map(out.dims(), ranges, res)));
        }
        return result;
    }

    /** One map per output: an input reaches every output at its kept dimensions; an init every element. */
    static List<Set<OperandIndexing>> reduceInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        int n = instr.operands().size() / 2;
        List<Long> reduced = instr.ints("dimensions");
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int o = 0; o < instr.outputCount(); o++) {
            ArrayShape out = instr.outputShape(o);
            if (operand >= n) {
                result.add(Maps.one(Maps.fromScalar(out)));
                continue;
            }
            ArrayShape in = ctx.operandShape(instr, operand);
            List<AffineExpr> res = new ArrayList<>();
            for (int j = 0; j < in.rank(); j++) {
                if (!reduced.contains((long) j)) {
                    res.add(Maps.d(j));
                }
            }
            result.add(Maps.one(Maps.map(in.dims(), List.of(), res)));
        }
        return result;
    }

    /** Dot: output is [batch..., lhs free..., rhs free...]; contracting dims are s0, s1, ... in lhs order. */
    static List<Set<OperandIndexing>> dot(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape lhs = ctx.operandShape(instr, 0);
        ArrayShape rhs = ctx.operandShape(instr, 1);
        List<Long> lb = instr.intsOrEmpty("lhs_batch_dims");
        List<Long> rb = instr.intsOrEmpty("rhs_batch_dims");
        List<Long> lc = instr.intsOrEmpty("lhs_contracting_dims");
        List<Long> rc = instr.intsOrEmpty("rhs_contracting_dims");
        List<Long> ranges = new ArrayList<>();
        for (long dim : lc) {
            ranges.add(lhs.dim((int) dim));
        }
        int lhsFree = lhs.rank() - lb.size() - lc.size();
        List<AffineExpr> lres = side(lhs, lb, lc, lb.size());
        List<AffineExpr> rres = side(rhs, rb, rc, lb.size() + lhsFree);
        return List.of(Maps.one(Maps.map(out.dims(), ranges, lres)), Maps.one(Maps.map(out.dims(), ranges, rres)));
    }

    private static List<AffineExpr> side(ArrayShape shape, List<Long> batch, List<Long> contracting, int firstFree) {
        List<AffineExpr> res = new ArrayList<>();
        int free = firstFree;
        for (int j = 0; j < shape.rank(); j++) {
            int b = batch.indexOf((long) j);
            int c = contracting.indexOf((long) j);
            res.add(b >= 0 ? Maps.d(b) : c >= 0 ? Maps.s(c) : Maps.d(free++));
        }
        return res;
    }

    /** Dot, input to output: the other side's free dimensions become range variables. */
    static List<Set<OperandIndexing>> dotInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        ArrayShape out = instr.arrayShape();
        ArrayShape lhs = ctx.operandShape(instr, 0);
        ArrayShape rhs = ctx.operandShape(instr, 1);
        List<Long> lb = instr.intsOrEmpty("lhs_batch_dims");
        List<Long> rb = instr.intsOrEmpty("rhs_batch_dims");
        List<Long> lc = instr.intsOrEmpty("lhs_contracting_dims");
        List<Long> rc = instr.intsOrEmpty("rhs_contracting_dims");
        List<Long> myBatch = operand == 0 ? lb : rb;
        ArrayShape mine = operand == 0 ? lhs : rhs;
        List<AffineExpr> batchRes = new ArrayList<>();
        for (long b : myBatch) {
            batchRes.add(Maps.d((int) b));
        }
        List<AffineExpr> lhsFree = new ArrayList<>();
        List<AffineExpr> rhsFree = new ArrayList<>();
        List<Long> ranges = new ArrayList<>();
        for (int side = 0; side < 2; side++) {
            ArrayShape shape = side == 0 ? lhs : rhs;
            List<Long> batch = side == 0 ? lb : rb;
            List<Long> contracting = side == 0 ? lc : rc;
            List<AffineExpr> target = side == 0 ? lhsFree : rhsFree;
            for (int j = 0; j < shape.rank(); j++) {
                if (batch.contains((long) j) || contracting.contains((long) j)) {
                    continue;
                }
                if (side == operand) {
                    target.add(Maps.d(j));
                } else {
                    target.add(Maps.s(ranges.size()));
                    ranges.add(shape.dim(j));
                }
            }
        }
        List<AffineExpr> res = new ArrayList<>(batchRes);
        res.addAll(lhsFree);
        res.addAll(rhsFree);
        assert res.size() == out.rank();
        return List.of(Maps.one(Maps.map(mine.dims(), ranges, res)));
    }
}
