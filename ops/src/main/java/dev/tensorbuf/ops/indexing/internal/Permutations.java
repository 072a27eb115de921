package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.internal.Broadcast;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.ops.internal.Reverse;
import dev.tensorbuf.ops.internal.Transpose;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Ops that move whole dimensions: broadcast, transpose, reverse, get-tuple-element, tuple. */
final class Permutations {
    private Permutations() {
    }

    /** Broadcast: the view op's map ({@link Broadcast#outputToInput}). */
    static List<Set<OperandIndexing>> broadcast(HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        return List.of(Maps.one(Broadcast.outputToInput(Maps.longs(out.dims()), Maps.ints(instr.intsOrEmpty("dimensions")))));
    }

    static List<Set<OperandIndexing>> broadcastInputToOutput(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape in = ctx.operandShape(instr, 0);
        List<Long> bdims = instr.intsOrEmpty("dimensions");
        List<AffineExpr> res = new ArrayList<>();
        List<Long> ranges = new ArrayList<>();
        for (int j = 0; j < out.rank(); j++) {
            int at = bdims.indexOf((long) j);
            if (at >= 0) {
                res.add(Maps.d(at));
            } else {
                res.add(Maps.s(ranges.size()));
                ranges.add(out.dim(j));
            }
        }
        return List.of(Maps.one(Maps.map(in.dims(), ranges, res)));
    }

    /** Transpose: output dimension {@code i} is input dimension {@code perm[i]}, the view op's map ({@link Transpose#outputToInput}). */
    static List<Set<OperandIndexing>> transpose(HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        List<Long> perm = permutation(instr, out.rank());
        return List.of(Maps.one(Transpose.outputToInput(Maps.longs(out.dims()), Maps.ints(perm))));
    }

    static List<Set<OperandIndexing>> transposeInputToOutput(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        List<AffineExpr> res = new ArrayList<>();
        for (long p : permutation(instr, in.rank())) {
            res.add(Maps.d((int) p));
        }
        return List.of(Maps.one(Maps.map(in.dims(), List.of(), res)));
    }

    /** The maps index by the permutation, so one that is not a permutation of the rank is refused here. */
    private static List<Long> permutation(HloInstruction instr, int rank) {
        List<Long> perm = instr.ints("dimensions");
        if (perm.size() != rank || perm.stream().distinct().count() != rank
                || perm.stream().anyMatch(p -> p < 0 || p >= rank)) {
            throw Errors.notAPermutation(instr.opcode() + " " + instr.name(), perm, rank);
        }
        return perm;
    }

    /** Reverse is its own inverse: the same map in both directions, the view op's ({@link Reverse#outputToInput}). */
    static List<Set<OperandIndexing>> reverse(HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        boolean[] reversed = new boolean[out.rank()];
        for (long d : instr.ints("dimensions")) {
            reversed[Math.toIntExact(d)] = true;
        }
        return List.of(Maps.one(Reverse.outputToInput(Maps.longs(out.dims()), reversed)));
    }

    static List<Set<OperandIndexing>> getTupleElement(HloInstruction instr) {
        return List.of(Maps.one(Maps.identity(instr.arrayShape())));
    }

    /** Output {@code i} of a tuple is operand {@code i}; the other operands are not read. */
    static List<Set<OperandIndexing>> tuple(Ctx ctx, HloInstruction instr, int outputId) {
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int k = 0; k < instr.operands().size(); k++) {
            if (k == outputId && ctx.operand(instr, k).outputCount() == 1) {
                result.add(Maps.one(Maps.identity(ctx.operandShape(instr, k))));
            } else {
                result.add(Maps.one(k == outputId ? IndexingMap.undefined() : knownEmpty(instr.outputShape(outputId))));
            }
        }
        return result;
    }

    /**
     * Input to output, as XLA's: operand {@code k} is output {@code k} (identity). XLA returns
     * that one map alone; we return one set per output, as for every instruction, with the other
     * outputs never reached (known empty). A tuple-shaped operand is unknown.
     */
    static List<Set<OperandIndexing>> tupleInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        List<Set<OperandIndexing>> result = new ArrayList<>();
        boolean array = ctx.operand(instr, operand).outputCount() == 1;
        for (int o = 0; o < instr.outputCount(); o++) {
            if (o == operand) {
                result.add(Maps.one(array ? Maps.identity(instr.outputShape(o)) : IndexingMap.undefined()));
            } else {
                result.add(Maps.one(knownEmpty(ctx.operandShape(instr, operand))));
            }
        }
        return result;
    }

    /** {@return a map on the output's box whose domain is empty (the operand is never read)} */
    static IndexingMap knownEmpty(ArrayShape out) {
        return Maps.map(Maps.box(out.dims()), List.of(), List.of(), List.of(),
                java.util.Map.of(Maps.c(0), new dev.tensorbuf.views.indexing.Interval(1, 1)));
    }
}
