package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.internal.HloInstructions;
import dev.tensorbuf.ops.hlo.internal.HloAttribute;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.PadDim;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.SliceDim;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable;
import dev.tensorbuf.ops.internal.Concatenate;
import dev.tensorbuf.ops.internal.DynamicSlice;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.ops.internal.Pad;
import dev.tensorbuf.ops.internal.Slice;
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

/** Ops that read a box of their input: slice, concatenate, pad, dynamic-slice, dynamic-update-slice. */
final class Slicing {
    private Slicing() {
    }

    /** The slice config, checked against the shapes: the maps trust start, stride and the output size. */
    static List<SliceDim> sliceDims(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        ArrayShape out = instr.arrayShape();
        String where = "slice " + instr.name() + " of " + in + " to " + out;
        HloAttribute attribute = HloInstructions.attribute(instr, "slice").orElseThrow(
                () -> Errors.missingAttribute(where, "slice"));
        if (!(attribute instanceof HloAttribute.Slices slices)) {
            throw new IllegalArgumentException(where + ": slice is " + attribute + ", expected [start:limit:stride] per dim");
        }
        List<SliceDim> dims = slices.dims();
        if (dims.size() != in.rank() || out.rank() != in.rank()) {
            throw Errors.attributeRank(where, "slice", dims.size(), in.rank(), out.rank());
        }
        for (int i = 0; i < dims.size(); i++) {
            SliceDim d = dims.get(i);
            if (d.start() < 0 || d.start() > d.limit() || d.limit() > in.dim(i) || d.stride() < 1
                    || (d.limit() - d.start() + d.stride() - 1) / d.stride() != out.dim(i)) {
                throw new IllegalArgumentException(where + ": dim " + i + " [" + d.start() + ":" + d.limit() + ":"
                        + d.stride() + "] does not select " + out.dim(i) + " of " + in.dim(i) + " elements");
            }
        }
        return dims;
    }

    /** Slice: the view op's map ({@link Slice#outputToInput}). */
    static List<Set<OperandIndexing>> slice(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        List<SliceDim> dims = sliceDims(ctx, instr);
        long[] start = new long[out.rank()];
        long[] stride = new long[out.rank()];
        for (int i = 0; i < out.rank(); i++) {
            start[i] = dims.get(i).start();
            stride[i] = dims.get(i).stride();
        }
        return List.of(Maps.one(Slice.outputToInput(Maps.longs(out.dims()), start, stride)));
    }

    /** Input to output: only every stride-th input element from start is read. */
    static List<Set<OperandIndexing>> sliceInputToOutput(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        List<SliceDim> dims = sliceDims(ctx, instr);
        List<Variable> vars = new ArrayList<>();
        List<AffineExpr> res = new ArrayList<>();
        Map<AffineExpr, Interval> cons = Maps.constraints();
        for (int i = 0; i < out.rank(); i++) {
            SliceDim sd = dims.get(i);
            vars.add(Variable.of(sd.start(), sd.start() + (out.dim(i) - 1) * sd.stride()));
            AffineExpr shifted = Maps.d(i).minus(sd.start());
            res.add(shifted.floorDiv(sd.stride()));
            if (sd.stride() != 1) {
                cons.put(shifted.mod(sd.stride()), new Interval(0, 0));
            }
        }
        return List.of(Maps.one(Maps.map(vars, List.of(), List.of(), res, cons)));
    }

    static List<Set<OperandIndexing>> concatenate(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        int dim = instr.oneDimension("dimensions");
        List<Set<OperandIndexing>> result = new ArrayList<>();
        long offset = 0;
        long[] outDims = Maps.longs(out.dims());
        for (int k = 0; k < instr.operands().size(); k++) {
            long size = ctx.operandShape(instr, k).dim(dim);
            // The view op's map to a part ({@link Concatenate#outputToPart}).
            result.add(Maps.one(Concatenate.outputToPart(outDims, dim, offset, size)));
            offset += size;
        }
        return result;
    }

    static List<Set<OperandIndexing>> concatenateInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        int dim = instr.oneDimension("dimensions");
        long offset = 0;
        for (int k = 0; k < operand; k++) {
            offset += ctx.operandShape(instr, k).dim(dim);
        }
        ArrayShape in = ctx.operandShape(instr, operand);
        List<AffineExpr> res = new ArrayList<>();
        for (int i = 0; i < in.rank(); i++) {
            res.add(i == dim ? Maps.d(i).plus(offset) : Maps.d(i));
        }
        return List.of(Maps.one(Maps.map(in.dims(), List.of(), res)));
    }

    static List<Set<OperandIndexing>> pad(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape in = ctx.operandShape(instr, 0);
        List<PadDim> pads = padding(instr, in, out);
        long[] low = new long[in.rank()];
        long[] high = new long[in.rank()];
        long[] interior = new long[in.rank()];
        for (int i = 0; i < in.rank(); i++) {
            low[i] = pads.get(i).low();
            high[i] = pads.get(i).high();
            interior[i] = pads.get(i).interior();
        }
        // The view op's map ({@link Pad#outputToInput}); the fill is read everywhere.
        return List.of(Maps.one(Pad.outputToInput(Maps.longs(in.dims()), low, high, interior)),
                Maps.one(Maps.toScalar(out)));
    }

    static List<Set<OperandIndexing>> padInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        ArrayShape out = instr.arrayShape();
        if (operand == 1) {
            return List.of(Maps.one(Maps.fromScalar(out)));
        }
        ArrayShape in = ctx.operandShape(instr, 0);
        List<PadDim> pads = padding(instr, in, out);
        List<AffineExpr> res = new ArrayList<>();
        Map<AffineExpr, Interval> cons = Maps.constraints();
        for (int i = 0; i < in.rank(); i++) {
            PadDim p = pads.get(i);
            AffineExpr e = Maps.d(i).times(p.interior() + 1).plus(p.low());
            res.add(e);
            cons.put(e, new Interval(0, out.dim(i) - 1));
        }
        return List.of(Maps.one(Maps.map(Maps.box(in.dims()), List.of(), List.of(), res, cons)));
    }

    /**
     * The pad's config, checked against its shapes: the maps above index it by dimension and
     * trust that each output dim is {@code low + high + in + (in - 1) * interior}.
     */
    static List<PadDim> padding(HloInstruction instr, ArrayShape in, ArrayShape out) {
        String where = "pad " + instr.name() + " of " + in + " to " + out;
        HloAttribute attribute = HloInstructions.attribute(instr, "padding").orElseThrow(
                () -> Errors.missingAttribute(where, "padding"));
        if (!(attribute instanceof HloAttribute.Padding padding)) {
            throw new IllegalArgumentException(where + ": padding is " + attribute + ", expected low_high_interior per dim");
        }
        List<PadDim> pads = padding.dims();
        if (pads.size() != in.rank() || out.rank() != in.rank()) {
            throw Errors.attributeRank(where, "padding", pads.size(), in.rank(), out.rank());
        }
        for (int i = 0; i < pads.size(); i++) {
            PadDim p = pads.get(i);
            long expected;
            try {
                long inner = in.dim(i) == 0 ? 0 : Math.addExact(in.dim(i), Math.multiplyExact(in.dim(i) - 1, p.interior()));
                expected = Math.addExact(Math.addExact(p.low(), p.high()), inner);
            } catch (ArithmeticException e) {
                throw Errors.overflows(where + ": dim " + i + " padded by " + p, e);
            }
            if (p.interior() < 0 || expected != out.dim(i)) {
                throw new IllegalArgumentException(where + ": dim " + i + " of size " + in.dim(i) + " padded by "
                        + p.low() + "_" + p.high() + "_" + p.interior() + " gives " + expected + ", not " + out.dim(i));
            }
        }
        return pads;
    }

    /**
     * The view op's map ({@link DynamicSlice#outputToInput}): offsets are runtime variables, bound
     * here to the scalar offset operands, their ranges the clamp that makes the slice fit.
     */
    static List<Set<OperandIndexing>> dynamicSlice(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape in = ctx.operandShape(instr, 0);
        List<RuntimeVariable> bindings = new ArrayList<>();
        for (int i = 0; i < in.rank(); i++) {
            bindings.add(new RuntimeVariable(ctx.operand(instr, i + 1), Maps.toScalar(out)));
        }
        IndexingMap map = DynamicSlice.outputToInput(Maps.longs(in.dims()), Maps.longs(out.dims()));
        List<Set<OperandIndexing>> result = new ArrayList<>();
        result.add(Maps.one(RuntimeVars.foldAffine(ctx, new OperandIndexing(map, bindings, Optional.empty()))));
        for (int k = 1; k < instr.operands().size(); k++) {
            result.add(Maps.one(Maps.toScalar(out)));
        }
        return result;
    }

    /**
     * Input to output, the inverse of {@link #dynamicSlice}: source element {@code i} lands at
     * {@code i - rt} when that lies in the output; an offset reaches every output element. XLA's
     * {@code ComputeInputToOutputIndexing} returns undefined for dynamic-slice; this is our model.
     */
    static List<Set<OperandIndexing>> dynamicSliceInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        ArrayShape out = instr.arrayShape();
        if (operand > 0) {
            return List.of(Maps.one(Maps.fromScalar(out)));
        }
        ArrayShape in = ctx.operandShape(instr, 0);
        List<Variable> rts = new ArrayList<>();
        List<RuntimeVariable> bindings = new ArrayList<>();
        List<AffineExpr> res = new ArrayList<>();
        Map<AffineExpr, Interval> cons = Maps.constraints();
        for (int i = 0; i < in.rank(); i++) {
            rts.add(Variable.of(0, in.dim(i) - out.dim(i)));
            bindings.add(new RuntimeVariable(ctx.operand(instr, i + 1), Maps.toScalar(in)));
            AffineExpr e = Maps.d(i).minus(Maps.rt(i));
            res.add(e);
            cons.put(e, new Interval(0, out.dim(i) - 1));
        }
        return List.of(Maps.one(RuntimeVars.foldAffine(ctx, new OperandIndexing(
                Maps.map(Maps.box(in.dims()), List.of(), rts, res, cons), bindings, Optional.empty()))));
    }

    static List<Set<OperandIndexing>> dynamicUpdateSlice(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape upd = ctx.operandShape(instr, 1);
        List<Variable> rts = new ArrayList<>();
        List<RuntimeVariable> bindings = new ArrayList<>();
        List<AffineExpr> res = new ArrayList<>();
        for (int i = 0; i < out.rank(); i++) {
            rts.add(Variable.of(0, out.dim(i) - upd.dim(i)));
            bindings.add(new RuntimeVariable(ctx.operand(instr, i + 2), Maps.toScalar(out)));
            res.add(Maps.d(i).minus(Maps.rt(i)));
        }
        List<Set<OperandIndexing>> result = new ArrayList<>();
        result.add(Maps.one(Maps.identity(out)));
        result.add(Maps.one(RuntimeVars.foldAffine(ctx, new OperandIndexing(
                Maps.map(Maps.box(out.dims()), List.of(), rts, res, Map.of()), bindings, Optional.empty()))));
        for (int k = 2; k < instr.operands().size(); k++) {
            result.add(Maps.one(Maps.toScalar(out)));
        }
        return result;
    }

    /**
     * Input to output, the inverse of {@link #dynamicUpdateSlice}: the source keeps its place (the
     * output-to-input map reads it everywhere, as XLA's does), update element {@code i} lands at
     * {@code i + rt}, and an offset reaches every output element. XLA's
     * {@code ComputeInputToOutputIndexing} returns undefined for dynamic-update-slice; this is our model.
     */
    static List<Set<OperandIndexing>> dynamicUpdateSliceInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        ArrayShape out = instr.arrayShape();
        if (operand == 0) {
            return List.of(Maps.one(Maps.identity(out)));
        }
        if (operand > 1) {
            return List.of(Maps.one(Maps.fromScalar(out)));
        }
        ArrayShape upd = ctx.operandShape(instr, 1);
        List<Variable> rts = new ArrayList<>();
        List<RuntimeVariable> bindings = new ArrayList<>();
        List<AffineExpr> res = new ArrayList<>();
        for (int i = 0; i < out.rank(); i++) {
            rts.add(Variable.of(0, out.dim(i) - upd.dim(i)));
            bindings.add(new RuntimeVariable(ctx.operand(instr, i + 2), Maps.toScalar(upd)));
            res.add(Maps.d(i).plus(Maps.rt(i)));
        }
        return List.of(Maps.one(RuntimeVars.foldAffine(ctx, new OperandIndexing(
                Maps.map(Maps.box(upd.dims()), List.of(), rts, res, Map.of()), bindings, Optional.empty()))));
    }
}
