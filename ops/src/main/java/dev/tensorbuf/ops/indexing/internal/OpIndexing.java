package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The one entry point per direction, as XLA's {@code ComputeOutputToInputIndexing}: checks the
 * instruction's shapes against its attributes ({@link ShapeChecks}), then picks the op family by
 * opcode. An op without indexing gives {@code unknown indexing} for every operand (or output),
 * never an exception.
 */
public final class OpIndexing {
    private OpIndexing() {
    }

    private static final Set<String> ELEMENTWISE = Set.of(
            "abs", "add", "and", "atan2", "bitcast-convert", "cbrt", "ceil", "clamp", "compare", "count-leading-zeros", "complex",
            "convert", "copy", "cosine", "divide", "erf", "exponential", "exponential-minus-one", "floor", "imag",
            "is-finite", "log", "log-plus-one", "logistic", "map", "maximum", "minimum", "multiply", "negate", "not",
            "or", "popcnt", "power", "real", "reduce-precision", "remainder", "round-nearest-afz",
            "round-nearest-even", "rsqrt", "select", "shift-left", "shift-right-arithmetic", "shift-right-logical",
            "sign", "sine", "sqrt", "stochastic-convert", "subtract", "tan", "tanh", "xor");

    /**
     * Checks {@code instr}'s declared shape against its operands' and its attributes by the rules
     * the maps below rely on, XLA's verifier's ({@link ShapeChecks}, a slice's and a pad's dims, a
     * reshape's element count), building no map: for a caller that checks a whole module before
     * running any of it, where an instruction nothing reaches would otherwise never be looked at.
     * Array-shaped instructions with array operands only.
     *
     * @throws IllegalArgumentException naming the instruction and what does not fit
     */
    public static void checkShapes(Ctx ctx, HloInstruction instr) {
        ifShapesFit(instr, () -> {
            switch (instr.opcode()) {
                case "slice" -> Slicing.sliceDims(ctx, instr);
                case "pad" -> Slicing.padding(instr, ctx.operandShape(instr, 0), instr.arrayShape());
                case "reshape" -> Reshapes.checkCounts(instr, ctx.operandShape(instr, 0).dims(), instr.arrayShape().dims());
                default -> ShapeChecks.check(ctx, instr, ELEMENTWISE.contains(instr.opcode()));
            }
            return null;
        });
    }

    /**
     * Runs an analysis of {@code instr}, turning the symptoms of attributes that do not fit the
     * shapes (an index past a dimension list, a division by a zero size) into an error naming the
     * instruction. XLA's verifier would refuse such a module first; the ops checked explicitly say
     * precisely what does not fit, and this covers the rest. (Caught here rather than relied on:
     * a hot JIT site may throw these without a message.)
     */
    public static <T> T ifShapesFit(HloInstruction instr, java.util.function.Supplier<T> analysis) {
        try {
            return analysis.get();
        } catch (IndexOutOfBoundsException | ArithmeticException e) {
            throw new IllegalArgumentException(instr.opcode() + " " + instr.name() + ": its attributes do not fit its shape "
                    + instr.shape() + " and operands (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
        }
    }

    /** {@return one set of maps per operand, from output {@code outputId} of the instruction} */
    public static List<Set<OperandIndexing>> outputToInput(Ctx ctx, HloInstruction instr, int outputId) {
        String op = instr.opcode();
        ShapeChecks.check(ctx, instr, ELEMENTWISE.contains(op));
        if (ELEMENTWISE.contains(op)) {
            return Elementwise.outputToInput(ctx, instr);
        }
        return switch (op) {
            case "parameter", "constant", "iota" -> List.of();
            case "broadcast" -> Permutations.broadcast(instr);
            case "transpose" -> Permutations.transpose(instr);
            case "reverse" -> Permutations.reverse(instr);
            case "get-tuple-element" -> Permutations.getTupleElement(instr);
            case "tuple" -> Permutations.tuple(ctx, instr, outputId);
            case "reduce" -> Reductions.reduce(ctx, instr, outputId);
            case "dot" -> Reductions.dot(ctx, instr);
            case "scaled-dot" -> Reductions.scaledDot(ctx, instr);
            case "slice" -> Slicing.slice(ctx, instr);
            case "concatenate" -> Slicing.concatenate(ctx, instr);
            case "pad" -> Slicing.pad(ctx, instr);
            case "dynamic-slice" -> Slicing.dynamicSlice(ctx, instr);
            case "dynamic-update-slice" -> Slicing.dynamicUpdateSlice(ctx, instr);
            case "gather" -> Gather.outputToInput(ctx, instr);
            case "reshape" -> Reshapes.reshape(ctx, instr);
            case "bitcast" -> Reshapes.bitcast(ctx, instr);
            case "reduce-window" -> Windows.reduceWindow(ctx, instr, outputId);
            case "convolution" -> Windows.convolution(ctx, instr);
            case "all-gather" -> Collectives.allGather(ctx, instr);
            case "scan" -> Collectives.scan(instr, outputId);
            case "fusion" -> Fusions.outputToInput(ctx, instr, outputId);
            default -> unknown(instr.operands().size());
        };
    }

    /**
     * {@return one set of maps per output, from operand {@code operand} of the instruction}
     * {@code operand} is one of its operands: {@code HloIndexing.inputToOutput} checks a caller's,
     * the fusion walk and the epilogue pass the position of an operand they found.
     */
    public static List<Set<OperandIndexing>> inputToOutput(Ctx ctx, HloInstruction instr, int operand) {
        String op = instr.opcode();
        ShapeChecks.check(ctx, instr, ELEMENTWISE.contains(op));
        if (ELEMENTWISE.contains(op)) {
            return Elementwise.inputToOutput(ctx, instr, operand);
        }
        return switch (op) {
            case "broadcast" -> Permutations.broadcastInputToOutput(ctx, instr);
            case "transpose" -> Permutations.transposeInputToOutput(ctx, instr);
            case "reverse" -> Permutations.reverse(instr);
            case "reduce" -> Reductions.reduceInputToOutput(ctx, instr, operand);
            case "dot" -> Reductions.dotInputToOutput(ctx, instr, operand);
            case "scaled-dot" -> Reductions.scaledDotInputToOutput(ctx, instr, operand);
            case "slice" -> Slicing.sliceInputToOutput(ctx, instr);
            case "concatenate" -> Slicing.concatenateInputToOutput(ctx, instr, operand);
            case "pad" -> Slicing.padInputToOutput(ctx, instr, operand);
            case "reshape" -> Reshapes.reshapeInputToOutput(ctx, instr);
            case "bitcast" -> Reshapes.bitcastInputToOutput(ctx, instr);
            case "tuple" -> Permutations.tupleInputToOutput(ctx, instr, operand);
            // XLA's ComputeInputToOutputIndexing returns undefined for the ops below (and for pad
            // and dot above); ours invert their output-to-input maps exactly.
            case "dynamic-slice" -> Slicing.dynamicSliceInputToOutput(ctx, instr, operand);
            case "dynamic-update-slice" -> Slicing.dynamicUpdateSliceInputToOutput(ctx, instr, operand);
            case "gather" -> Gather.inputToOutput(ctx, instr, operand);
            case "reduce-window" -> Windows.reduceWindowInputToOutput(ctx, instr, operand);
            case "convolution" -> Windows.convolutionInputToOutput(ctx, instr, operand);
            case "fusion" -> FusionInputs.inputToOutput(ctx, instr, operand);
            default -> unknown(instr.outputCount());
        };
    }

    static List<Set<OperandIndexing>> unknown(int count) {
        List<Set<OperandIndexing>> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(Maps.undefined());
        }
        return out;
    }
}
