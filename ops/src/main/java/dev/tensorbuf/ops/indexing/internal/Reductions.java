package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reduce (variadic), dot and scaled-dot: the reduced (contracted) dimensions become range
 * variables in the output-to-input direction, and the dimensions the input lacks become range
 * variables in the input-to-output direction.
 */
final class Reductions {
    private Reductions() {
    }

    static List<Set<OperandIndexing>> reduce(Ctx ctx, HloInstruction instr, int outputId) {
        ArrayShape out = instr.outputShape(outputId);
        List<Long> reduced = instr.ints("dimensions");
        List<Set<OperandIndexing>> result = new ArrayList<>();
        // An init value is a scalar (ShapeChecks): the loop below gives it (d...) -> (), read for every element.
        for (int k = 0; k < instr.operands().size(); k++) {
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
        checkDot(instr, out, lhs, rhs, lb, rb, lc, rc);
        List<Long> ranges = new ArrayList<>();
        for (long dim : lc) {
            ranges.add(lhs.dim((int) dim));
        }
        int lhsFree = lhs.rank() - lb.size() - lc.size();
        List<AffineExpr> lres = side(lhs, lb, lc, lb.size());
        List<AffineExpr> rres = side(rhs, rb, rc, lb.size() + lhsFree);
        return List.of(Maps.one(Maps.map(out.dims(), ranges, lres)), Maps.one(Maps.map(out.dims(), ranges, rres)));
    }

    /**
     * Scaled-dot {@code (lhs, rhs, lhs_scale, rhs_scale)}: lhs and rhs as for dot; a scale has its
     * operand's rank and each of its dimensions divides the operand's, so one scale element covers
     * a block of {@code operand / scale} elements along each dimension. Its map is its operand's
     * with each result divided (floor) by that ratio, as XLA's {@code RescaleIndexingMap}.
     */
    static List<Set<OperandIndexing>> scaledDot(Ctx ctx, HloInstruction instr) {
        checkScaledDot(ctx, instr);
        List<Set<OperandIndexing>> maps = dot(ctx, instr);
        List<Set<OperandIndexing>> out = new ArrayList<>(maps);
        for (int side = 0; side < 2; side++) {
            IndexingMap m = maps.get(side).iterator().next().map();
            long[] ratio = scaleRatios(ctx, instr, side);
            List<AffineExpr> res = new ArrayList<>();
            for (int j = 0; j < ratio.length; j++) {
                AffineExpr e = m.results().get(j);
                res.add(ratio[j] == 1 ? e : e.floorDiv(ratio[j]));
            }
            out.add(Maps.one(IndexingMap.of(m.dims(), m.rangeVars(), m.runtimeVars(), res, m.constraints())));
        }
        return out;
    }

    /**
     * Scaled-dot, input to output. For lhs and rhs as for dot; a scale element {@code (i...)}
     * stands for its operand's block {@code (i * ratio + s...)}, whose elements dot maps on.
     */
    static List<Set<OperandIndexing>> scaledDotInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        checkScaledDot(ctx, instr);
        if (operand < 2) {
            return dotInputToOutput(ctx, instr, operand);
        }
        int side = operand - 2;
        IndexingMap fromOperand = dotInputToOutput(ctx, instr, side).getFirst().iterator().next().map();
        ArrayShape scale = ctx.operandShape(instr, operand);
        long[] ratio = scaleRatios(ctx, instr, side);
        List<Long> ranges = new ArrayList<>();
        List<AffineExpr> block = new ArrayList<>();
        for (int j = 0; j < ratio.length; j++) {
            if (ratio[j] == 1) {
                block.add(Maps.d(j));
            } else {
                block.add(Maps.d(j).times(ratio[j]).plus(Maps.s(ranges.size())));
                ranges.add(ratio[j]);
            }
        }
        IndexingMap toOperand = Maps.map(scale.dims(), ranges, block);
        return List.of(Maps.one(IndexingMap.compose(fromOperand, toOperand).simplify().removeUnusedSymbols()));
    }

    /** Both scales are checked whichever operand is asked for: the instruction is refused as a whole. */
    private static void checkScaledDot(Ctx ctx, HloInstruction instr) {
        if (instr.operands().size() != 4) {
            throw new IllegalArgumentException("scaled-dot " + instr.name() + " has " + instr.operands().size()
                    + " operands; expected 4 (lhs, rhs, lhs_scale, rhs_scale)");
        }
        scaleRatios(ctx, instr, 0);
        scaleRatios(ctx, instr, 1);
    }

    /** {@return per dimension of operand {@code side}, how many of its elements one scale element covers} */
    private static long[] scaleRatios(Ctx ctx, HloInstruction instr, int side) {
        ArrayShape operand = ctx.operandShape(instr, side);
        ArrayShape scale = ctx.operandShape(instr, side + 2);
        String which = side == 0 ? "lhs" : "rhs";
        if (scale.rank() != operand.rank()) {
            throw new IllegalArgumentException("scaled-dot " + instr.name() + ": " + which + " scale " + scale
                    + " must have the rank of " + which + " " + operand);
        }
        long[] ratio = new long[operand.rank()];
        for (int j = 0; j < ratio.length; j++) {
            long o = operand.dim(j);
            long c = scale.dim(j);
            if (c == 0 ? o != 0 : o % c != 0) {
                throw new IllegalArgumentException("scaled-dot " + instr.name() + ": " + which + " scale " + scale
                        + " dimension " + j + " (" + c + ") must divide " + which + " " + operand + " dimension " + j
                        + " (" + o + ")");
            }
            ratio[j] = c == 0 ? 1 : o / c;
        }
        return ratio;
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
        checkDot(instr, out, lhs, rhs, lb, rb, lc, rc);
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

    /**
     * The maps above index by these lists without further checks, so a dot whose dimension
     * numbers do not fit its shapes (a misspelled attribute, a contracting dim out of range) is
     * refused here rather than lowered to a map of the wrong rank.
     */
    private static void checkDot(HloInstruction instr, ArrayShape out, ArrayShape lhs, ArrayShape rhs,
                                 List<Long> lb, List<Long> rb, List<Long> lc, List<Long> rc) {
        String where = "dot " + instr.name() + " of " + lhs + " and " + rhs;
        if (lb.size() != rb.size() || lc.size() != rc.size()) {
            throw new IllegalArgumentException(where + ": lhs_batch_dims " + lb + " / rhs_batch_dims " + rb
                    + " and lhs_contracting_dims " + lc + " / rhs_contracting_dims " + rc + " must pair up");
        }
        checkDims(where, "lhs", lhs, lb, lc);
        checkDims(where, "rhs", rhs, rb, rc);
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < lb.size(); i++) {
            pairMatches(where, "batch", lhs, rhs, lb.get(i), rb.get(i));
            expected.add(lhs.dim(lb.get(i).intValue()));
        }
        for (int i = 0; i < lc.size(); i++) {
            pairMatches(where, "contracting", lhs, rhs, lc.get(i), rc.get(i));
        }
        for (ArrayShape side : List.of(lhs, rhs)) {
            List<Long> batch = side == lhs ? lb : rb;
            List<Long> contracting = side == lhs ? lc : rc;
            for (int j = 0; j < side.rank(); j++) {
                if (!batch.contains((long) j) && !contracting.contains((long) j)) {
                    expected.add(side.dim(j));
                }
            }
        }
        if (!expected.equals(out.dims())) {
            throw new IllegalArgumentException(where + ": result dims are " + out.dims() + ", but batch, lhs free and"
                    + " rhs free dims give " + expected);
        }
    }

    private static void checkDims(String where, String side, ArrayShape shape, List<Long> batch, List<Long> contracting) {
        List<Long> all = new ArrayList<>(batch);
        all.addAll(contracting);
        for (long d : all) {
            if (d < 0 || d >= shape.rank()) {
                throw new IllegalArgumentException(where + ": " + side + " dimension " + d + " out of bounds [0, "
                        + shape.rank() + ")");
            }
        }
        if (all.stream().distinct().count() != all.size()) {
            throw new IllegalArgumentException(where + ": " + side + " batch dims " + batch + " and contracting dims "
                    + contracting + " repeat a dimension");
        }
    }

    private static void pairMatches(String where, String kind, ArrayShape lhs, ArrayShape rhs, long l, long r) {
        if (lhs.dim((int) l) != rhs.dim((int) r)) {
            throw new IllegalArgumentException(where + ": " + kind + " dims lhs " + l + " (" + lhs.dim((int) l)
                    + ") and rhs " + r + " (" + rhs.dim((int) r) + ") differ in size");
        }
    }
}
