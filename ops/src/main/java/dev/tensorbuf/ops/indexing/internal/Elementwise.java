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
 * Element-wise ops (unary, binary, ternary, select, clamp, compare, convert, map, copy): the
 * identity, except that a scalar operand of a non-scalar result is read for every element, and
 * that a bitcast-convert between types of different widths adds or drops the narrow type's minor
 * dimension.
 */
final class Elementwise {
    private Elementwise() {
    }

    static List<Set<OperandIndexing>> outputToInput(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        if (changesRank(ctx, instr)) {
            return List.of(Maps.one(bitcastConvert(out, ctx.operandShape(instr, 0))));
        }
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int k = 0; k < instr.operands().size(); k++) {
            ArrayShape in = ctx.operandShape(instr, k);
            // A scalar operand of a scalar result gets () -> () either way.
            result.add(Maps.one(in.rank() == 0 ? Maps.toScalar(out) : Maps.identity(out)));
        }
        return result;
    }

    static List<Set<OperandIndexing>> inputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        ArrayShape out = instr.arrayShape();
        ArrayShape in = ctx.operandShape(instr, operand);
        if (changesRank(ctx, instr)) {
            return List.of(Maps.one(bitcastConvert(in, out)));
        }
        return List.of(Maps.one(in.rank() == 0 ? Maps.fromScalar(out) : Maps.identity(out)));
    }

    /** {@return whether the instruction is a bitcast-convert between types of different widths} */
    private static boolean changesRank(Ctx ctx, HloInstruction instr) {
        return instr.opcode().equals("bitcast-convert")
                && instr.arrayShape().dtype().bitWidth() != ctx.operandShape(instr, 0).dtype().bitWidth();
    }

    /**
     * From the elements of {@code from} to those of {@code to}, one side a bitcast-convert of the
     * other between types of different widths: the narrower type has one more, minor, dimension
     * that counts its pieces of a wide element ({@code f32[4]} is {@code u8[4,4]}). A wide element
     * covers every piece of that dimension (a range variable); a piece lies in the wide element at
     * its other indices. The shapes were checked ({@link ShapeChecks}).
     */
    private static IndexingMap bitcastConvert(ArrayShape from, ArrayShape to) {
        List<AffineExpr> res = new ArrayList<>();
        for (int i = 0; i < Math.min(from.rank(), to.rank()); i++) {
            res.add(Maps.d(i));
        }
        if (to.rank() > from.rank()) {
            res.add(Maps.s(0));
            return Maps.map(from.dims(), List.of(to.dim(to.rank() - 1)), res);
        }
        return Maps.map(from.dims(), List.of(), res);
    }
}
