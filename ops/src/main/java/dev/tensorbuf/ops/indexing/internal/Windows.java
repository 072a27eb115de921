package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.internal.HloInstructions;
import dev.tensorbuf.ops.hlo.internal.HloAttribute;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.ConvolutionDims;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.WindowDim;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Windowed ops: reduce-window and convolution. A window position {@code x = d * stride +
 * s * rhs_dilate} in the padded, base-dilated input reads input element
 * {@code (x - pad_low) / lhs_dilate} when it is not padding: the composition of XLA's window map
 * with its pad map, written out directly. The maps index by the window and dimension labels
 * unchecked: {@link ShapeChecks} has run {@link #checkWindowRank} and {@link #checkConvolution}
 * on the instruction before either direction.
 */
final class Windows {
    private Windows() {
    }

    static List<WindowDim> window(HloInstruction instr) {
        return ((HloAttribute.Window) HloInstructions.attribute(instr, "window").orElseThrow(
                () -> Errors.missingAttribute(instr.opcode() + " " + instr.name(), "window"))).dims();
    }

    /** {@return the input index expression of one windowed dimension, adding its constraints} */
    private static AffineExpr windowed(AffineExpr d, AffineExpr s, WindowDim w, long inputSize,
                                       Map<AffineExpr, Interval> cons) {
        AffineExpr x = d.times(w.stride()).plus(s.times(w.windowDilation()));
        AffineExpr shifted = x.minus(w.padLow());
        cons.merge(x, new Interval(w.padLow(), w.padLow() + (inputSize - 1) * w.baseDilation()), Interval::intersect);
        if (w.baseDilation() == 1) {
            return shifted;
        }
        cons.merge(shifted.mod(w.baseDilation()), new Interval(0, 0), Interval::intersect);
        return shifted.floorDiv(w.baseDilation());
    }

    static List<Set<OperandIndexing>> reduceWindow(Ctx ctx, HloInstruction instr, int outputId) {
        ArrayShape out = instr.outputShape(outputId);
        List<WindowDim> window = window(instr);
        List<Set<OperandIndexing>> result = new ArrayList<>();
        // An init value is a scalar (ShapeChecks): the loop below gives it (d...) -> (), read for every element.
        for (int k = 0; k < instr.operands().size(); k++) {
            ArrayShape in = ctx.operandShape(instr, k);
            Map<AffineExpr, Interval> cons = Maps.constraints();
            List<AffineExpr> res = new ArrayList<>();
            List<Long> ranges = new ArrayList<>();
            for (int i = 0; i < in.rank(); i++) {
                res.add(windowed(Maps.d(i), position(window.get(i), ranges), window.get(i), in.dim(i), cons));
            }
            result.add(Maps.one(finish(Maps.map(Maps.box(out.dims()), Maps.box(ranges), List.of(), res, cons))));
        }
        return result;
    }

    /**
     * Checks that a convolution's attributes fit its shapes before any map is built: ranks against
     * {@code dim_labels}, one window dimension per spatial dimension, and group counts that are
     * positive and divide the dimensions they split.
     */
    static void checkConvolution(HloInstruction instr, ArrayShape lhs, ArrayShape rhs, ArrayShape out,
                                         List<WindowDim> window, ConvolutionDims dn, long fgc, long bgc) {
        String what = "convolution " + instr.name();
        checkRank(what, "input", lhs, dn.inputSpatial().size());
        checkRank(what, "kernel", rhs, dn.kernelSpatial().size());
        checkRank(what, "output", out, dn.outputSpatial().size());
        int spatial = dn.inputSpatial().size();
        // The HLO parser refuses dim_labels whose three parts differ in rank: only the window can disagree.
        if (window.size() != spatial) {
            throw new IllegalArgumentException(what + ": dim_labels and window must agree on the spatial dimensions"
                    + " (input " + spatial + ", kernel " + dn.kernelSpatial().size() + ", output "
                    + dn.outputSpatial().size() + ", window " + window.size() + ")");
        }
        if (fgc < 1 || bgc < 1) {
            throw new IllegalArgumentException(what + ": feature_group_count " + fgc + " and batch_group_count " + bgc
                    + " must be at least 1");
        }
        if (lhs.dim(dn.inputFeature()) % fgc != 0 || out.dim(dn.outputFeature()) % fgc != 0) {
            throw new IllegalArgumentException(what + ": feature_group_count " + fgc + " must divide the input features "
                    + lhs.dim(dn.inputFeature()) + " and the output features " + out.dim(dn.outputFeature()));
        }
        if (lhs.dim(dn.inputBatch()) % bgc != 0) {
            throw new IllegalArgumentException(what + ": batch_group_count " + bgc + " must divide the input batch "
                    + lhs.dim(dn.inputBatch()));
        }
    }

    /** A reduce-window has one window dimension per dimension of its operands and outputs. */
    static void checkWindowRank(HloInstruction instr, List<WindowDim> window, ArrayShape in, ArrayShape out) {
        if (window.size() != in.rank() || out.rank() != in.rank()) {
            throw new IllegalArgumentException("reduce-window " + instr.name() + ": window has " + window.size()
                    + " dimension(s), operand " + in + " and output " + out + " must have as many");
        }
    }

    private static void checkRank(String what, String side, ArrayShape shape, int spatial) {
        if (shape.rank() != spatial + 2) {
            throw new IllegalArgumentException(what + ": the " + side + " " + shape + " has rank " + shape.rank()
                    + " but dim_labels give it " + (spatial + 2) + " dimensions");
        }
    }

    static ConvolutionDims dimLabels(HloInstruction instr) {
        return ((HloAttribute.DimLabels) HloInstructions.attribute(instr, "dim_labels").orElseThrow(
                () -> Errors.missingAttribute("convolution " + instr.name(), "dim_labels"))).labels();
    }

    static List<Set<OperandIndexing>> convolution(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        ArrayShape lhs = ctx.operandShape(instr, 0);
        ArrayShape rhs = ctx.operandShape(instr, 1);
        List<WindowDim> window = window(instr);
        ConvolutionDims dn = dimLabels(instr);
        long fgc = instr.intValue("feature_group_count", 1);
        long bgc = instr.intValue("batch_group_count", 1);
        int spatial = dn.inputSpatial().size();
        long inputGroupSize = lhs.dim(dn.inputFeature()) / fgc;
        long outputGroupSize = out.dim(dn.outputFeature()) / fgc;

        List<Long> ranges = new ArrayList<>();
        AffineExpr[] positions = new AffineExpr[spatial];
        for (int i = 0; i < spatial; i++) {
            positions[i] = position(window.get(i), ranges);
        }
        int featureVar = ranges.size();
        ranges.add(inputGroupSize);
        if (bgc > 1) {
            ranges.add(bgc);
        }
        Map<AffineExpr, Interval> cons = Maps.constraints();
        AffineExpr[] l = new AffineExpr[lhs.rank()];
        AffineExpr batch = Maps.d(dn.outputBatch());
        if (bgc > 1) {
            batch = batch.plus(Maps.s(featureVar + 1).times(out.dim(dn.outputBatch())));
        }
        l[dn.inputBatch()] = batch;
        AffineExpr feature = Maps.s(featureVar);
        if (fgc > 1) {
            feature = feature.plus(Maps.d(dn.outputFeature()).floorDiv(outputGroupSize).times(inputGroupSize));
        }
        l[dn.inputFeature()] = feature;
        AffineExpr[] r = new AffineExpr[rhs.rank()];
        r[dn.kernelInputFeature()] = Maps.s(featureVar);
        r[dn.kernelOutputFeature()] = Maps.d(dn.outputFeature());
        for (int i = 0; i < spatial; i++) {
            int inDim = dn.inputSpatial().get(i);
            l[inDim] = windowed(Maps.d(dn.outputSpatial().get(i)), positions[i], window.get(i), lhs.dim(inDim), cons);
            r[dn.kernelSpatial().get(i)] = positions[i];
        }
        IndexingMap lhsMap = finish(Maps.map(Maps.box(out.dims()), Maps.box(ranges), List.of(), Arrays.asList(l), cons));
        List<Long> rhsRanges = ranges.subList(0, featureVar + 1);
        IndexingMap rhsMap = Maps.map(out.dims(), rhsRanges, Arrays.asList(r)).simplify();
        return List.of(Maps.one(lhsMap), Maps.one(rhsMap));
    }

    /**
     * {@return the output index of one windowed dimension reached from input index {@code i}, the
     * inverse of {@link #windowed}: {@code o = (i * lhs_dilate + pad_low - s * rhs_dilate) / stride}
     * where that divides and lies in {@code [0, outputSize)}, adding its constraints}
     */
    private static AffineExpr unwindowed(AffineExpr i, AffineExpr s, WindowDim w, long outputSize,
                                         Map<AffineExpr, Interval> cons) {
        AffineExpr x = i.times(w.baseDilation()).plus(w.padLow()).minus(s.times(w.windowDilation()));
        cons.merge(x, new Interval(0, (outputSize - 1) * w.stride()), Interval::intersect);
        if (w.stride() == 1) {
            return x;
        }
        cons.merge(x.mod(w.stride()), new Interval(0, 0), Interval::intersect);
        return x.floorDiv(w.stride());
    }

    /**
     * Input to output, the inverse of {@link #reduceWindow}: an input element reaches, in every
     * output, each window position (a range variable) whose window covers it; an init value
     * reaches every output element. XLA's {@code ComputeInputToOutputIndexing} returns undefined
     * for reduce-window; this is our model.
     */
    static List<Set<OperandIndexing>> reduceWindowInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        List<WindowDim> window = window(instr);
        int n = instr.operands().size() / 2;
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int o = 0; o < instr.outputCount(); o++) {
            ArrayShape out = instr.outputShape(o);
            if (operand >= n) {
                result.add(Maps.one(Maps.fromScalar(out)));
                continue;
            }
            ArrayShape in = ctx.operandShape(instr, operand);
            Map<AffineExpr, Interval> cons = Maps.constraints();
            List<AffineExpr> res = new ArrayList<>();
            List<Long> ranges = new ArrayList<>();
            for (int i = 0; i < in.rank(); i++) {
                res.add(unwindowed(Maps.d(i), position(window.get(i), ranges), window.get(i), out.dim(i), cons));
            }
            result.add(Maps.one(finish(Maps.map(Maps.box(in.dims()), Maps.box(ranges), List.of(), res, cons))));
        }
        return result;
    }

    /**
     * Input to output, the inverse of {@link #convolution}. An lhs element reaches its batch (modulo
     * the output batch when batch groups split it), every output feature of its feature group (a
     * range variable), and each window position covering it; a kernel element reaches its output
     * feature at every batch and spatial position (range variables), as the output-to-input kernel
     * map reads every kernel position for every output. XLA's {@code ComputeInputToOutputIndexing}
     * returns undefined for convolution; this is our model.
     */
    static List<Set<OperandIndexing>> convolutionInputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        ArrayShape out = instr.arrayShape();
        ArrayShape lhs = ctx.operandShape(instr, 0);
        ArrayShape rhs = ctx.operandShape(instr, 1);
        List<WindowDim> window = window(instr);
        ConvolutionDims dn = dimLabels(instr);
        long fgc = instr.intValue("feature_group_count", 1);
        long bgc = instr.intValue("batch_group_count", 1);
        AffineExpr[] o = new AffineExpr[out.rank()];
        List<Long> ranges = new ArrayList<>();
        Map<AffineExpr, Interval> cons = Maps.constraints();
        if (operand == 1) {
            o[dn.outputBatch()] = Maps.s(ranges.size());
            ranges.add(out.dim(dn.outputBatch()));
            o[dn.outputFeature()] = Maps.d(dn.kernelOutputFeature());
            for (int i = 0; i < dn.outputSpatial().size(); i++) {
                o[dn.outputSpatial().get(i)] = Maps.s(ranges.size());
                ranges.add(out.dim(dn.outputSpatial().get(i)));
            }
            return List.of(Maps.one(Maps.map(rhs.dims(), ranges, Arrays.asList(o))));
        }
        long outBatch = out.dim(dn.outputBatch());
        AffineExpr batch = Maps.d(dn.inputBatch());
        o[dn.outputBatch()] = bgc > 1 ? batch.mod(outBatch) : batch;
        long inputGroupSize = lhs.dim(dn.inputFeature()) / fgc;
        long outputGroupSize = out.dim(dn.outputFeature()) / fgc;
        AffineExpr feature = Maps.s(ranges.size());
        ranges.add(outputGroupSize);
        if (fgc > 1) {
            feature = feature.plus(Maps.d(dn.inputFeature()).floorDiv(inputGroupSize).times(outputGroupSize));
        }
        o[dn.outputFeature()] = feature;
        for (int i = 0; i < dn.inputSpatial().size(); i++) {
            int outDim = dn.outputSpatial().get(i);
            o[outDim] = unwindowed(Maps.d(dn.inputSpatial().get(i)), position(window.get(i), ranges), window.get(i),
                    out.dim(outDim), cons);
        }
        return List.of(Maps.one(finish(Maps.map(Maps.box(lhs.dims()), Maps.box(ranges), List.of(), Arrays.asList(o), cons))));
    }

    /** {@return the window position variable, or 0 for a size-1 window (XLA drops those variables)} */
    private static AffineExpr position(WindowDim w, List<Long> ranges) {
        if (w.size() == 1) {
            return Maps.c(0);
        }
        ranges.add(w.size());
        return Maps.s(ranges.size() - 1);
    }

    /** XLA simplifies these maps and drops window variables of size-1 windows. */
    private static IndexingMap finish(IndexingMap m) {
        return m.simplify().removeUnusedSymbols();
    }
}
