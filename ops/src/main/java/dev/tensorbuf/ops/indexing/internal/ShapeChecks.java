package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The shape rules of XLA's verifier for the ops whose maps index by their attributes without
 * looking: element-wise ops (bitcast-convert between widths too), broadcast, transpose, bitcast, reverse, reduce, concatenate, dynamic-slice,
 * dynamic-update-slice and get-tuple-element. Without them a module that XLA would refuse got
 * maps of the wrong rank or range: {@code reduce(f32[4,8]), dimensions={1}} declared as
 * {@code f32[8]} mapped the output's 8 elements onto a dimension of 4, a reverse of dimension 2 of
 * a rank-2 operand was the identity. Each error names the instruction and what does not fit.
 * (Slice, pad, reshape, dot, reduce-window, convolution and all-gather check their own
 * attributes where they read them.)
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

    /** {@code dimensions} maps each operand dimension, in order, to an output dimension of the same size. */
    private static void broadcast(Ctx ctx, HloInstruction instr) {
        ArrayShape in = ctx.operandShape(instr, 0);
        ArrayShape out = instr.arrayShape();
        List<Long> dims = instr.ints("dimensions");
        if (dims.size() != in.rank()) {
            throw error(instr, "dimensions " + dims + " must name one output dimension for each of the "
                    + in.rank() + " dimensions of its operand " + in);
        }
        for (int i = 0; i < dims.size(); i++) {
            long d = dims.get(i);
            if (d < 0 || d >= out.rank() || (i > 0 && d <= dims.get(i - 1))) {
                throw error(instr, "dimensions " + dims + " must be increasing dimensions of its rank-" + out.rank()
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

    /** Operands from {@code first} on are one scalar start index per dimension of {@code in}. */
    private static void startIndices(Ctx ctx, HloInstruction instr, int first, ArrayShape in) {
        int given = instr.operands().size() - first;
        if (given != in.rank()) {
            throw error(instr, "has " + given + " start index operand(s) for its rank-" + in.rank() + " operand " + in);
        }
        for (int k = first; k < instr.operands().size(); k++) {
            if (ctx.operandShape(instr, k).rank() != 0) {
                throw error(instr, "start index operand " + k + " " + ctx.operandShape(instr, k) + " must be a scalar");
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
