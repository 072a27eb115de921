package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.internal.HloAttribute.ConvolutionDims;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.WindowDim;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.XlaShapePrinter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The shape rules of XLA's verifier for the ops whose maps index by their attributes without
 * looking: element-wise ops (bitcast-convert between widths too), broadcast, transpose, bitcast, reverse, reduce, concatenate, dynamic-slice,
 * dynamic-update-slice, get-tuple-element, and the output sizes XLA's shape inference gives
 * reduce-window, convolution and gather. Without them a module that XLA would refuse got
 * maps of the wrong rank or range: {@code reduce(f32[4,8]), dimensions={1}} declared as
 * {@code f32[8]} mapped the output's 8 elements onto a dimension of 4, a reverse of dimension 2 of
 * a rank-2 operand was the identity. Each error names the instruction and what does not fit.
 * A reduce-window, convolution or gather declared larger than its attributes allow got maps that
 * read past the end of its operand; an all-gather whose operand is not its output split into
 * shards read its operand's other dimensions past their end. (Slice, pad, reshape and dot check
 * their own attributes where they read them, as do the ranks and dim_labels of windowed ops.)
 * {@snippet :
 * // ROOT r = f32[8] reduce(p0, c), dimensions={1} with p0 = f32[4,8]:
 * ShapeChecks.check(ctx, r, false); // IllegalArgumentException: reduce r: output f32[8]{0} does not
 *                                   // match its input f32[4,8]{1,0} without dimensions [1]: expected [4]
 * }
 */
final class ShapeChecks {
    private ShapeChecks() {
    }

    /** @throws IllegalArgumentException naming the instruction if its shapes and attributes do not fit */
    static void check(Ctx ctx, HloInstruction instr, boolean elementwise) {
        if (elementwise) {
            elementwise(ctx, instr);
            return;
        }
        switch (instr.opcode()) {
            case "broadcast" -> broadcast(ctx, instr);
            case "reverse" -> reverse(ctx, instr);
            case "transpose" -> transpose(ctx, instr);
            case "bitcast" -> bitcast(ctx, instr);
            case "reduce" -> reduce(ctx, instr);
            case "concatenate" -> concatenate(ctx, instr);
            case "dynamic-slice" -> dynamicSlice(ctx, instr);
            case "dynamic-update-slice" -> dynamicUpdateSlice(ctx, instr);
            case "get-tuple-element" -> getTupleElement(ctx, instr);
            case "reduce-window" -> reduceWindow(ctx, instr);
            case "convolution" -> convolution(ctx, instr);
            case "gather" -> gather(ctx, instr);
            case "all-gather" -> allGather(ctx, instr);
            default -> {
            }
        }
    }

    /** Every operand has the result's dimensions, or is a scalar read for every element. */
    private static void elementwise(Ctx ctx, HloInstruction instr) {
        if (instr.opcode().equals("bitcast-convert")) {
            bitcastConvert(ctx, instr);
            return;
        }
        ArrayShape out = instr.arrayShape();
        for (int k = 0; k < instr.operands().size(); k++) {
            ArrayShape in = ctx.operandShape(instr, k);
            if (in.rank() != 0 && !in.dims().equals(out.dims())) {
                throw error(instr, "operand " + k + " " + in + " does not have the dimensions of its output " + out);
            }
        }
    }

    /**
     * Between types of one width, the same dimensions; otherwise the narrower side has one more,
     * minor, dimension, as many pieces as the wider type holds ({@code f32[4]} and {@code u8[4,4]}).
     */
    private static void bitcastConvert(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        ArrayShape out = instr.arrayShape();
        int wi = in.dtype().bitWidth();
        int wo = out.dtype().bitWidth();
        if (wi == wo) {
            sameDims(instr, in, out);
            return;
        }
        ArrayShape wide = wi > wo ? in : out;
        ArrayShape narrow = wi > wo ? out : in;
        int pieces = Math.max(wi, wo) / Math.min(wi, wo);
        List<Long> expected = new ArrayList<>(wide.dims());
        expected.add((long) pieces);
        if (Math.max(wi, wo) % Math.min(wi, wo) != 0 || !narrow.dims().equals(expected)) {
            throw error(instr, "the " + narrow.dtype().xlaName() + " side " + narrow + " must be the "
                    + wide.dtype().xlaName() + " side " + wide + " with one more dimension of " + pieces);
        }
    }

    /**
     * {@code dimensions} maps each operand dimension to a distinct output dimension of the same
     * size. Out of order ({@code {1,0}}) it also transposes, and XLA runs it so.
     */
    private static void broadcast(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        ArrayShape out = instr.arrayShape();
        List<Long> dims = instr.intsOrEmpty("dimensions");
        if (dims.size() != in.rank()) {
            throw error(instr, "dimensions " + dims + " must name one output dimension for each of the "
                    + in.rank() + " dimensions of its operand " + in);
        }
        for (int i = 0; i < dims.size(); i++) {
            long d = dims.get(i);
            if (d < 0 || d >= out.rank() || dims.subList(0, i).contains(d)) {
                throw error(instr, "dimensions " + dims + " must be distinct dimensions of its rank-" + out.rank()
                        + " output " + out);
            }
            if (out.dim((int) d) != in.dim(i)) {
                throw error(instr, "operand dimension " + i + " of " + in + " has size " + in.dim(i)
                        + " but output dimension " + d + " of " + out + " has size " + out.dim((int) d));
            }
        }
    }

    /** Output dimension i is operand dimension dimensions[i]. */
    private static void transpose(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        ArrayShape out = instr.arrayShape();
        List<Long> perm = instr.ints("dimensions");
        if (perm.size() != in.rank() || perm.stream().distinct().count() != perm.size()
                || perm.stream().anyMatch(d -> d < 0 || d >= in.rank())) {
            throw error(instr, "dimensions " + perm + " are not a permutation of [0, " + in.rank() + ")");
        }
        List<Long> expected = new ArrayList<>();
        for (long d : perm) {
            expected.add(in.dim((int) d));
        }
        if (!out.dims().equals(expected)) {
            throw error(instr, "output " + out + " does not match " + in + " with dimensions " + perm + ": expected "
                    + expected);
        }
    }

    /** A bitcast reinterprets the operand's bytes, so both sides hold as many bits. */
    private static void bitcast(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        ArrayShape out = instr.arrayShape();
        long inBits = Math.multiplyExact(in.elementCount(), in.dtype().bitWidth());
        long outBits = Math.multiplyExact(out.elementCount(), out.dtype().bitWidth());
        if (inBits != outBits) {
            throw error(instr, "changes the element count: " + in + " has " + in.elementCount() + " elements, "
                    + out + " " + out.elementCount());
        }
        // Same elements, other bytes: E(n) packing or tile padding on one side only (XLA's
        // verifier compares the byte sizes too).
        long inBytes = in.laidOut().arraySize();
        long outBytes = out.laidOut().arraySize();
        if (inBytes != outBytes) {
            throw error(instr, "changes the byte size: " + in.laidOut() + " is " + inBytes + " bytes, " + out.laidOut()
                    + " " + outBytes);
        }
    }

    private static void reverse(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        sameDims(instr, in, instr.arrayShape());
        distinctDims(instr, "dimensions", instr.ints("dimensions"), in);
    }

    /** N inputs of one shape, N scalar inits; each output is the input without the reduced dimensions. */
    private static void reduce(Ctx ctx, HloInstruction instr) {
        int operands = instr.operands().size();
        if (operands == 0 || operands % 2 != 0) {
            throw error(instr, "has " + operands + " operands; it takes its inputs, then as many init values");
        }
        int n = operands / 2;
        if (instr.outputCount() != n) {
            throw error(instr, "reduces " + n + " input(s) but has " + instr.outputCount() + " output(s)");
        }
        ArrayShape first = ctx.operandShape(instr, 0);
        List<Long> reduced = instr.ints("dimensions");
        distinctDims(instr, "dimensions", reduced, first);
        List<Long> kept = new ArrayList<>();
        for (int j = 0; j < first.rank(); j++) {
            if (!reduced.contains((long) j)) {
                kept.add(first.dim(j));
            }
        }
        for (int k = 0; k < n; k++) {
            ArrayShape in = ctx.operandShape(instr, k);
            if (!in.dims().equals(first.dims())) {
                throw error(instr, "input " + k + " " + in + " does not have the dimensions of input 0 " + first);
            }
            ArrayShape init = ctx.operandShape(instr, n + k);
            if (init.rank() != 0) {
                throw error(instr, "init value " + k + " " + init + " must be a scalar");
            }
            ArrayShape out = instr.outputShape(k);
            if (!out.dims().equals(kept)) {
                throw error(instr, "output " + out + " does not match its input " + in + " without dimensions "
                        + reduced + ": expected " + kept);
            }
        }
    }

    /** Operands agree with the output except along the concatenated dimension, whose sizes add up to the output's. */
    private static void concatenate(Ctx ctx, HloInstruction instr) {
        ArrayShape out = instr.arrayShape();
        int dim = instr.oneDimension("dimensions");
        long total = 0;
        for (int k = 0; k < instr.operands().size(); k++) {
            ArrayShape in = ctx.operandShape(instr, k);
            boolean fits = in.rank() == out.rank();
            for (int j = 0; fits && j < out.rank(); j++) {
                fits = j == dim || in.dim(j) == out.dim(j);
            }
            if (!fits) {
                throw error(instr, "operand " + k + " " + in + " must match its output " + out
                        + " in every dimension but " + dim);
            }
            total += in.dim(dim);
        }
        if (total != out.dim(dim)) {
            throw error(instr, "its operands' sizes along dimension " + dim + " add up to " + total
                    + ", not to its output's " + out.dim(dim));
        }
    }

    /** One scalar start index per operand dimension, and slice sizes within the operand that are the output's. */
    private static void dynamicSlice(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        startIndices(ctx, instr, 1, in);
        List<Long> sizes = instr.ints("dynamic_slice_sizes");
        if (sizes.size() != in.rank()) {
            throw error(instr, "dynamic_slice_sizes " + sizes + " must have one size per dimension of " + in);
        }
        for (int j = 0; j < in.rank(); j++) {
            if (sizes.get(j) < 0 || sizes.get(j) > in.dim(j)) {
                throw error(instr, "dynamic_slice_sizes " + sizes + " must lie within its operand " + in);
            }
        }
        if (!sizes.equals(instr.arrayShape().dims())) {
            throw error(instr, "output " + instr.arrayShape() + " must have the dimensions dynamic_slice_sizes " + sizes);
        }
    }

    /** An update no larger than the operand, one scalar start index per dimension, and the operand's dimensions out. */
    private static void dynamicUpdateSlice(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        sameDims(instr, in, instr.arrayShape());
        if (instr.operands().size() < 2) {
            throw error(instr, "needs an operand, an update and start indices");
        }
        ArrayShape update = ctx.operandShape(instr, 1);
        boolean fits = update.rank() == in.rank();
        for (int j = 0; fits && j < in.rank(); j++) {
            fits = update.dim(j) <= in.dim(j);
        }
        if (!fits) {
            throw error(instr, "update " + update + " must fit inside its operand " + in);
        }
        startIndices(ctx, instr, 2, in);
    }

    private static void getTupleElement(Ctx ctx, HloInstruction instr) {
        HloInstruction tuple = ctx.operand(instr, 0);
        long index = instr.intValue("index", -1);
        if (index < 0 || index >= tuple.outputCount()) {
            throw error(instr, "index " + index + " is outside its operand's " + tuple.outputCount() + " element(s): "
                    + tuple.shape());
        }
        ArrayShape element = tuple.outputShape((int) index);
        if (!element.dims().equals(instr.arrayShape().dims())) {
            throw error(instr, "output " + instr.arrayShape() + " is not element " + index + " of " + tuple.shape());
        }
    }

    /** Scalar inits; each output is its input with every dimension windowed as XLA's {@code InferWindowOutputShape} does. */
    private static void reduceWindow(Ctx ctx, HloInstruction instr) {
        List<WindowDim> window = Windows.window(instr);
        int n = instr.operands().size() / 2;
        if (instr.operands().size() % 2 != 0 || instr.outputCount() != n) {
            throw error(instr, "has " + instr.operands().size() + " operands and " + instr.outputCount()
                    + " output(s); it takes N inputs, then N init values, for N outputs");
        }
        for (int k = 0; k < n; k++) {
            ArrayShape in = ctx.operandShape(instr, k);
            ArrayShape out = instr.outputShape(k);
            ArrayShape init = ctx.operandShape(instr, n + k);
            if (init.rank() != 0) {
                throw error(instr, "init value " + k + " " + init + " must be a scalar");
            }
            Windows.checkWindowRank(instr, window, in, out);
            for (int j = 0; j < in.rank(); j++) {
                long expected = windowed(instr, window.get(j), j, in.dim(j));
                if (out.dim(j) != expected) {
                    throw error(instr, "output " + out + " dimension " + j + " has size " + out.dim(j)
                            + ", but its window over input " + in + " dimension " + j + " gives " + expected);
                }
            }
        }
    }

    /**
     * {@return the number of window positions along one dimension of {@code size} elements}: the
     * base-dilated, padded bound and the dilated window, strided as XLA's {@code window_util} does
     */
    private static long windowed(HloInstruction instr, WindowDim w, int dim, long size) {
        try {
            long dilated = size == 0 ? 0 : Math.addExact(Math.multiplyExact(size - 1, w.baseDilation()), 1);
            long padded = Math.addExact(Math.addExact(dilated, w.padLow()), w.padHigh());
            long window = Math.addExact(Math.multiplyExact(w.size() - 1, w.windowDilation()), 1);
            if (padded < 0) {
                throw error(instr, "window dimension " + dim + " pads " + size + " element(s) to " + padded);
            }
            return padded == 0 || window > padded ? 0 : (padded - window) / w.stride() + 1;
        } catch (ArithmeticException overflow) {
            throw error(instr, "window dimension " + dim + " over " + size + " element(s) overflows 64 bits");
        }
    }

    /**
     * The output batch is the input batch over {@code batch_group_count}, the output features the
     * kernel's, each spatial dimension the input's windowed (XLA's {@code InferConvolveShape}).
     */
    private static void convolution(Ctx ctx, HloInstruction instr) {
        ArrayShape lhs = ctx.operandShape(instr, 0);
        ArrayShape rhs = ctx.operandShape(instr, 1);
        ArrayShape out = instr.arrayShape();
        List<WindowDim> window = Windows.window(instr);
        ConvolutionDims dn = Windows.dimLabels(instr);
        long fgc = instr.intValue("feature_group_count", 1);
        long bgc = instr.intValue("batch_group_count", 1);
        Windows.checkConvolution(instr, lhs, rhs, out, window, dn, fgc, bgc);
        long inFeatures = lhs.dim(dn.inputFeature());
        long kernelIn = rhs.dim(dn.kernelInputFeature());
        long kernelOut = rhs.dim(dn.kernelOutputFeature());
        if (inFeatures / fgc != kernelIn) {
            throw error(instr, "input features " + inFeatures + " over feature_group_count " + fgc
                    + " must be the kernel's input features " + kernelIn + " (kernel " + rhs + ")");
        }
        if (kernelOut % fgc != 0 || kernelOut % bgc != 0) {
            throw error(instr, "the kernel's output features " + kernelOut + " must divide by feature_group_count "
                    + fgc + " and batch_group_count " + bgc);
        }
        List<Long> expected = new ArrayList<>(out.dims());
        expected.set(dn.outputBatch(), lhs.dim(dn.inputBatch()) / bgc);
        expected.set(dn.outputFeature(), kernelOut);
        for (int i = 0; i < dn.inputSpatial().size(); i++) {
            long kernelSize = rhs.dim(dn.kernelSpatial().get(i));
            if (window.get(i).size() != kernelSize) {
                throw error(instr, "window dimension " + i + " has size " + window.get(i).size()
                        + " but kernel " + rhs + " spatial dimension " + dn.kernelSpatial().get(i) + " has size "
                        + kernelSize);
            }
            expected.set(dn.outputSpatial().get(i),
                    windowed(instr, window.get(i), i, lhs.dim(dn.inputSpatial().get(i))));
        }
        mismatch(instr, out, expected, "its input " + lhs + " and kernel " + rhs);
    }

    /**
     * Offset dimensions take the slice sizes of the operand dimensions that are neither collapsed
     * nor batching dimensions, in order; the other output dimensions take the indices' dimensions
     * without {@code index_vector_dim}, in order (XLA's {@code InferGatherShape}). Each index
     * column names one distinct operand dimension in {@code start_index_map}, which {@code Gather}
     * relies on.
     */
    private static void gather(Ctx ctx, HloInstruction instr) {
        ArrayShape operand = ctx.operandShape(instr, 0);
        ArrayShape indices = ctx.operandShape(instr, 1);
        ArrayShape out = instr.arrayShape();
        DType.Kind kind = indices.dtype().kind();
        if (kind != DType.Kind.SIGNED && kind != DType.Kind.UNSIGNED) {
            throw error(instr, "its indices " + indices + " must be integers");
        }
        List<Long> sliceSizes = instr.ints("slice_sizes");
        if (sliceSizes.size() != operand.rank()) {
            throw error(instr, "slice_sizes " + sliceSizes + " must have one size per dimension of " + operand);
        }
        for (int j = 0; j < operand.rank(); j++) {
            if (sliceSizes.get(j) < 0 || sliceSizes.get(j) > operand.dim(j)) {
                throw error(instr, "slice_sizes " + sliceSizes + " must lie within its operand " + operand);
            }
        }
        List<Long> collapsed = instr.intsOrEmpty("collapsed_slice_dims");
        List<Long> batching = instr.intsOrEmpty("operand_batching_dims");
        distinctDims(instr, "collapsed_slice_dims", collapsed, operand);
        distinctDims(instr, "operand_batching_dims", batching, operand);
        for (String key : List.of("collapsed_slice_dims", "operand_batching_dims")) {
            List<Long> dims = key.equals("collapsed_slice_dims") ? collapsed : batching;
            if (!dims.equals(dims.stream().sorted().toList())) {
                throw error(instr, key + " " + dims + " must be in increasing order, as XLA requires");
            }
        }
        for (long d : collapsed) {
            if (sliceSizes.get((int) d) > 1 || batching.contains(d)) {
                throw error(instr, "collapsed_slice_dims " + collapsed + " must be dimensions of slice size at most 1"
                        + " that are not operand_batching_dims " + batching + " (slice_sizes " + sliceSizes + ")");
            }
        }
        long ivd = instr.intValue("index_vector_dim", indices.rank());
        if (ivd < 0 || ivd > indices.rank()) {
            throw error(instr, "index_vector_dim " + ivd + " must lie in [0, " + indices.rank() + "] for indices "
                    + indices);
        }
        List<Long> batchSizes = new ArrayList<>(indices.dims());
        if (ivd < indices.rank()) {
            batchSizes.remove((int) ivd);
        }
        // XLA's ValidateGatherDimensionNumbers: one distinct operand dimension per index column.
        List<Long> startIndexMap = instr.intsOrEmpty("start_index_map");
        long columns = ivd < indices.rank() ? indices.dim((int) ivd) : 1;
        if (startIndexMap.size() != columns) {
            throw error(instr, "start_index_map " + startIndexMap + " must name one operand dimension for each of the "
                    + columns + " index column(s) of " + indices);
        }
        distinctDims(instr, "start_index_map", startIndexMap, operand);
        List<Long> offsetSizes = new ArrayList<>();
        for (int j = 0; j < operand.rank(); j++) {
            if (!collapsed.contains((long) j) && !batching.contains((long) j)) {
                offsetSizes.add(sliceSizes.get(j));
            }
        }
        List<Long> offsetDims = instr.intsOrEmpty("offset_dims");
        int rank = batchSizes.size() + offsetSizes.size();
        if (out.rank() != rank) {
            throw error(instr, "output " + out + " must have rank " + rank + ": " + batchSizes.size()
                    + " batch dimension(s) from indices " + indices + " and " + offsetSizes.size()
                    + " offset dimension(s) from slice_sizes " + sliceSizes);
        }
        if (offsetDims.size() != offsetSizes.size()) {
            throw error(instr, "offset_dims " + offsetDims + " must name " + offsetSizes.size() + " output dimension(s),"
                    + " one per operand dimension neither collapsed nor batching");
        }
        for (int i = 0; i < offsetDims.size(); i++) {
            long d = offsetDims.get(i);
            if (d < 0 || d >= rank || (i > 0 && d <= offsetDims.get(i - 1))) {
                throw error(instr, "offset_dims " + offsetDims + " must be increasing dimensions of its rank-" + rank
                        + " output " + out);
            }
        }
        List<Long> expected = new ArrayList<>();
        int nextOffset = 0;
        int nextBatch = 0;
        for (int d = 0; d < rank; d++) {
            expected.add(offsetDims.contains((long) d) ? offsetSizes.get(nextOffset++) : batchSizes.get(nextBatch++));
        }
        mismatch(instr, out, expected, "its operand " + operand + ", indices " + indices + " and slice_sizes "
                + sliceSizes);
    }

    /**
     * The output is the operand with the gathered dimension multiplied by the shard count, which
     * XLA's verifier ({@code CheckCommonAllGatherInvariants}) takes as {@code ceil(output / operand)}
     * along that dimension; the message is its {@code CheckShape}'s. An operand dimension of 0
     * gathers to 0 whatever the count (XLA divides by it).
     */
    private static void allGather(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        ArrayShape out = instr.arrayShape();
        int dim = instr.oneDimension("dimensions");
        if (dim >= in.rank()) {
            throw error(instr, "dimensions={" + dim + "} must name a dimension of its rank-" + in.rank() + " operand "
                    + XlaShapePrinter.shape(in, false));
        }
        List<Long> expected = new ArrayList<>(in.dims());
        if (in.dim(dim) != 0) {
            long shards = Math.ceilDiv(out.dim(dim), in.dim(dim));
            expected.set(dim, Math.multiplyExact(shards, in.dim(dim)));
        }
        if (!out.dims().equals(expected)) {
            throw error(instr, "Expected instruction to have shape equal to " + out.dtype().xlaName()
                    + expected.toString().replace(" ", "") + ", actual shape is "
                    + XlaShapePrinter.shape(out, false) + " (operand " + XlaShapePrinter.shape(in, false)
                    + " gathered along dimension " + dim + ")");
        }
    }

    /** Refuses {@code out} naming its first dimension whose size is not the one its attributes give. */
    private static void mismatch(HloInstruction instr, ArrayShape out, List<Long> expected, String from) {
        for (int d = 0; d < out.rank(); d++) {
            if (out.dim(d) != expected.get(d)) {
                throw error(instr, "output " + out + " dimension " + d + " has size " + out.dim(d) + ", but "
                        + from + " give " + expected.get(d) + ": expected " + expected);
            }
        }
    }

    /** Operands from {@code first} on are one scalar start index per dimension of {@code in}. */
    private static void startIndices(Ctx ctx, HloInstruction instr, int first, ArrayShape in) {
        int given = instr.operands().size() - first;
        if (given != in.rank()) {
            throw error(instr, "has " + given + " start index operand(s) for its rank-" + in.rank() + " operand " + in);
        }
        for (int k = first; k < instr.operands().size(); k++) {
            ArrayShape index = ctx.operandShape(instr, k);
            DType.Kind kind = index.dtype().kind();
            if (index.rank() != 0 || kind != DType.Kind.SIGNED && kind != DType.Kind.UNSIGNED) {
                throw error(instr, "start operand " + k + " (" + instr.operands().get(k) + ") is " + index
                        + ", not an integer scalar");
            }
            if (index.dtype() != ctx.operandShape(instr, first).dtype()) {
                throw error(instr, "start operands must have one element type, as XLA requires: " + instr.operands().get(first)
                        + " is " + ctx.operandShape(instr, first).dtype().xlaName() + ", " + instr.operands().get(k) + " is "
                        + index.dtype().xlaName());
            }
        }
    }

    private static void sameDims(HloInstruction instr, ArrayShape in, ArrayShape out) {
        if (!in.dims().equals(out.dims())) {
            throw error(instr, "output " + out + " must have the dimensions of its operand " + in);
        }
    }

    private static void distinctDims(HloInstruction instr, String key, List<Long> dims, ArrayShape in) {
        Set<Long> seen = new HashSet<>();
        for (long d : dims) {
            if (d < 0 || d >= in.rank() || !seen.add(d)) {
                throw error(instr, key + " " + dims + " must be distinct dimensions of its rank-" + in.rank()
                        + " operand " + in);
            }
        }
    }

    private static IllegalArgumentException error(HloInstruction instr, String what) {
        return new IllegalArgumentException(instr.opcode() + " " + instr.name() + ": " + what);
    }
}
