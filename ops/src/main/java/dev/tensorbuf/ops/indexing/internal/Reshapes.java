package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.OperandIndexing;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reshape, bitcast and the logical/physical layout permutations. A reshape is split into
 * minimal groups of dimensions with equal element counts; each group is kept, expanded
 * (linearise the output dims), collapsed (delinearise the output dim) or, in general, both
 * (XLA's {@code ComputeReshapeIndexingMap}).
 */
final class Reshapes {
    private Reshapes() {
    }

    static List<Set<OperandIndexing>> reshape(Ctx ctx, HloInstruction instr) {
        checkCounts(instr, ctx.operandShape(instr, 0).dims(), instr.arrayShape().dims());
        return List.of(Maps.one(reshapeMap(ctx.operandShape(instr, 0).dims(), instr.arrayShape().dims())));
    }

    static List<Set<OperandIndexing>> reshapeInputToOutput(Ctx ctx, HloInstruction instr) {
        checkCounts(instr, ctx.operandShape(instr, 0).dims(), instr.arrayShape().dims());
        return List.of(Maps.one(reshapeMap(instr.arrayShape().dims(), ctx.operandShape(instr, 0).dims())));
    }

    static List<Set<OperandIndexing>> bitcast(Ctx ctx, HloInstruction instr) {
        return List.of(Maps.one(bitcastMap(ctx.operandShape(instr, 0), instr.arrayShape())));
    }

    static List<Set<OperandIndexing>> bitcastInputToOutput(Ctx ctx, HloInstruction instr) {
        return List.of(Maps.one(bitcastMap(instr.arrayShape(), ctx.operandShape(instr, 0))));
    }

    /** {@return the map from an output index of a reshape {@code input -> output} to the input index} */
    /** A reshape keeps every element: the linearised maps below assume equal element counts. */
    private static void checkCounts(HloInstruction instr, List<Long> in, List<Long> out) {
        long inCount = count(instr, in);
        long outCount = count(instr, out);
        if (inCount != outCount) {
            throw Errors.elementCountsDiffer(instr.opcode() + " " + instr.name(), in, inCount, out, outCount);
        }
    }

    private static long count(HloInstruction instr, List<Long> dims) {
        try {
            return Extents.elementCount("", dims);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(instr.opcode() + " " + instr.name() + ": " + e.getMessage(), e);
        }
    }

    static IndexingMap reshapeMap(List<Long> input, List<Long> output) {
        List<AffineExpr> exprs = new ArrayList<>();
        long inputElements = Extents.elementCount("reshape input", input);
        if (inputElements == 0) {
            for (int i = 0; i < input.size(); i++) {
                exprs.add(Maps.c(0));
            }
            return Maps.map(output, List.of(), exprs);
        }
        int in = 0;
        int outDim = 0;
        long inCount = 1;
        long outCount = 1;
        List<Long> inSub = new ArrayList<>();
        List<Long> outSub = new ArrayList<>();
        List<AffineExpr> outExprs = new ArrayList<>();
        while (in < input.size() || outDim < output.size() || !inSub.isEmpty()) {
            if (in < input.size() && (inSub.isEmpty() || inCount < outCount || input.get(in) == 1)) {
                inCount *= input.get(in);
                inSub.add(input.get(in++));
                continue;
            }
            if (outDim < output.size() && (outSub.isEmpty() || outCount < inCount || output.get(outDim) == 1)) {
                outCount *= output.get(outDim);
                outSub.add(output.get(outDim));
                outExprs.add(Maps.d(outDim++));
                continue;
            }
            minimal(inSub, outSub, outExprs, exprs);
            inCount = 1;
            outCount = 1;
            inSub.clear();
            outSub.clear();
            outExprs.clear();
        }
        return Maps.map(output, List.of(), exprs).simplify();
    }

    private static void minimal(List<Long> in, List<Long> out, List<AffineExpr> outExprs, List<AffineExpr> exprs) {
        if (in.size() == 1 && out.size() == 1) {
            exprs.addAll(outExprs);
        } else if (in.size() == 1) {
            exprs.add(linearize(out, outExprs));
        } else if (out.size() == 1) {
            exprs.addAll(delinearize(in, outExprs.getFirst()));
        } else {
            exprs.addAll(delinearize(in, linearize(out, outExprs)));
        }
    }

    private static AffineExpr linearize(List<Long> dims, List<AffineExpr> index) {
        AffineExpr linear = Maps.c(0);
        long stride = 1;
        for (int i = dims.size() - 1; i >= 0; i--) {
            linear = index.get(i).times(stride).plus(linear);
            stride *= dims.get(i);
        }
        return linear;
    }

    private static List<AffineExpr> delinearize(List<Long> dims, AffineExpr linear) {
        long[] strides = new long[dims.size()];
        long stride = 1;
        for (int i = dims.size() - 1; i >= 0; i--) {
            strides[i] = stride;
            stride *= dims.get(i);
        }
        List<AffineExpr> out = new ArrayList<>();
        AffineExpr remainder = linear;
        for (long st : strides) {
            out.add(remainder.floorDiv(st));
            remainder = remainder.mod(st);
        }
        return out;
    }

    /**
     * {@return output index to input index of a bitcast: output logical to physical, reshape of the
     * physical shapes, input physical to logical}
     */
    static IndexingMap bitcastMap(ArrayShape input, ArrayShape output) {
        IndexingMap transpose = transposeBitcast(input, output);
        if (transpose != null) {
            return transpose;
        }
        IndexingMap outToPhysical = logicalToPhysical(output);
        IndexingMap reshape = reshapeMap(physicalDims(input), physicalDims(output));
        IndexingMap inFromPhysical = physicalToLogical(input);
        return IndexingMap.compose(inFromPhysical, IndexingMap.compose(reshape, outToPhysical)).simplify();
    }

    /**
     * {@return the transpose map when the bitcast only permutes dimensions (the physical orders
     * line up dimension by dimension, as XLA's {@code TransposeIsBitcast}), else null}
     */
    private static IndexingMap transposeBitcast(ArrayShape input, ArrayShape output) {
        if (input.rank() != output.rank()) {
            return null;
        }
        List<Integer> in = minorToMajor(input);
        List<Integer> out = minorToMajor(output);
        AffineExpr[] res = new AffineExpr[input.rank()];
        for (int k = 0; k < in.size(); k++) {
            if (input.dim(in.get(k)) != output.dim(out.get(k))) {
                return null;
            }
            res[in.get(k)] = Maps.d(out.get(k));
        }
        return Maps.map(output.dims(), List.of(), List.of(res));
    }

    static List<Integer> minorToMajor(ArrayShape shape) {
        return shape.layout().map(XlaLayout::minorToMajor).orElseGet(() -> XlaLayout.descending(shape.rank()).minorToMajor());
    }

    /** {@return the dimension sizes in physical (major-to-minor) order} */
    static List<Long> physicalDims(ArrayShape shape) {
        List<Integer> m2m = minorToMajor(shape);
        List<Long> out = new ArrayList<>();
        for (int k = m2m.size() - 1; k >= 0; k--) {
            out.add(shape.dim(m2m.get(k)));
        }
        return out;
    }

    /** {@return logical index to physical index: physical dim k is logical dim m2m[rank-1-k]} */
    static IndexingMap logicalToPhysical(ArrayShape shape) {
        List<Integer> m2m = minorToMajor(shape);
        List<AffineExpr> res = new ArrayList<>();
        for (int k = m2m.size() - 1; k >= 0; k--) {
            res.add(Maps.d(m2m.get(k)));
        }
        return Maps.map(shape.dims(), List.of(), res);
    }

    /** {@return physical index to logical index} */
    static IndexingMap physicalToLogical(ArrayShape shape) {
        List<Integer> m2m = minorToMajor(shape);
        int rank = m2m.size();
        AffineExpr[] res = new AffineExpr[rank];
        for (int k = 0; k < rank; k++) {
            res[m2m.get(rank - 1 - k)] = Maps.d(k);
        }
        return Maps.map(physicalDims(shape), List.of(), List.of(res));
    }
}
