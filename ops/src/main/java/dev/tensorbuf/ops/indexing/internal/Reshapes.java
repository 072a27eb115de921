package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.ops.internal.Bitcast;
import dev.tensorbuf.ops.internal.Reshape;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reshape, bitcast and the logical/physical layout permutations. A reshape's map is the view
 * op's ({@link Reshape#outputToInput}): the output's row-major position delinearised over the
 * input dims, which simplifies to XLA's {@code ComputeReshapeIndexingMap} forms.
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

    /** A reshape keeps every element: the linearised maps below assume equal element counts. */
    static void checkCounts(HloInstruction instr, List<Long> in, List<Long> out) {
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

    /**
     * {@return the map from an output index of a reshape {@code input -> output} to the input
     * index}: the view op's map ({@link Reshape#outputToInput}), so a reshape view and the
     * reshape instruction index alike
     */
    static IndexingMap reshapeMap(List<Long> input, List<Long> output) {
        return Reshape.outputToInput(Maps.longs(input), Maps.longs(output));
    }

    /** {@return output index to input index of a bitcast: the view op's map ({@link Bitcast#outputToInput})} */
    static IndexingMap bitcastMap(ArrayShape input, ArrayShape output) {
        return Bitcast.outputToInput(input, output);
    }

    /** {@return logical index to physical index} */
    static IndexingMap logicalToPhysical(ArrayShape shape) {
        return Bitcast.logicalToPhysical(shape);
    }

    /** {@return physical index to logical index} */
    static IndexingMap physicalToLogical(ArrayShape shape) {
        return Bitcast.physicalToLogical(shape);
    }
}
