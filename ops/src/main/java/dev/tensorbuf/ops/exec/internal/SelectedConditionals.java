package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.internal.Graphs;
import java.util.List;
import java.util.Set;

/**
 * Which conditionals XLA runs as a {@code select}: its conditional simplifier computes both
 * branches of a two-way {@code pred} conditional whose branches hold only cheap work
 * (elementwise ops and a few moves) and selects between them, unless a branch does nothing but
 * hand on its parameter (jax 0.10.2, read from the optimized HLO). Such a conditional is no
 * boundary: a product in the chosen branch contracts with a sum after the conditional, and a
 * product before it with a sum in the branch, in every type and shape probed (f16, f32, f64;
 * [3,3], [4,4], [64], [5,7]), so {@link Interpreter} runs the chosen branch inlined, as it does
 * a branch chosen by a constant.
 */
final class SelectedConditionals {
    /** Besides elementwise ops, what the simplifier counts as cheap in a branch. */
    private static final Set<String> CHEAP_MOVES = Set.of("broadcast", "concatenate", "dynamic-slice", "get-tuple-element",
            "reduce", "reshape", "pad", "parameter", "slice", "tuple");
    /** Elementwise to XLA beyond {@link Pointwise#OPCODES} (run refuses most of the functions itself). */
    private static final Set<String> ELEMENTWISE = Set.of("constant", "copy", "bitcast-convert", "map", "exponential",
            "exponential-minus-one", "log", "log-plus-one", "logistic", "tanh", "power", "rsqrt", "cbrt", "sine", "cosine",
            "tan", "atan2", "erf", "real", "imag", "complex", "stochastic-convert");

    private SelectedConditionals() {
    }

    /**
     * {@return whether XLA makes the conditional {@code in} a select of its two branches} A
     * branch's dead instructions do not count (they are removed first), nor do moves that change
     * nothing, which the simplifier removes (a copy, a convert into the same type, an identity
     * reshape, transpose or full slice, a reverse along dims of one). An {@code iota}, a
     * {@code transpose} or {@code reverse} that moves elements, a {@code dynamic-update-slice},
     * a {@code sort} or a loop keeps the conditional; so does a nested conditional that stays one.
     */
    static boolean becomesSelect(HloModule module, HloInstruction in) {
        return becomesSelect(module, in, 0);
    }

    private static boolean becomesSelect(HloModule module, HloInstruction in, int depth) {
        if (!in.opcode().equals("conditional") || in.text("branch_computations").isPresent() || depth > 16) {
            return false;
        }
        List<String> branches = Interpreter.branchNames(in);
        if (branches.size() != 2) {
            return false;
        }
        for (String b : branches) {
            // Every branch and callee exists: checked before the run (checkSignatures, and the calls when the interpreter starts).
            HloComputation branch = module.computation(b);
            if (!allCheap(module, branch, depth) || handsOnItsParameter(module, branch, depth)) {
                return false;
            }
        }
        return true;
    }

    private static boolean allCheap(HloModule module, HloComputation comp, int depth) {
        for (HloInstruction x : live(comp)) {
            String op = x.opcode();
            boolean cheap = CHEAP_MOVES.contains(op) || Pointwise.OPCODES.contains(op) || ELEMENTWISE.contains(op) || changesNothing(comp, x)
                    || op.equals("call") && allCheap(module, module.computation(Interpreter.calleeName(x)), depth + 1)
                    || op.equals("conditional") && becomesSelect(module, x, depth + 1);
            if (!cheap) {
                return false;
            }
        }
        return true;
    }

    /** {@return whether {@code comp} computes nothing: its live work, moves that change nothing aside, is parameters and tuples} */
    private static boolean handsOnItsParameter(HloModule module, HloComputation comp, int depth) {
        for (HloInstruction x : live(comp)) {
            boolean nothing = Set.of("parameter", "tuple", "get-tuple-element").contains(x.opcode()) || changesNothing(comp, x)
                    || x.opcode().equals("call") && depth < 16 && handsOnItsParameter(module, module.computation(Interpreter.calleeName(x)), depth + 1);
            if (!nothing) {
                return false;
            }
        }
        return true;
    }

    /** {@return whether the simplifier removes {@code x}, its value being its operand's} */
    private static boolean changesNothing(HloComputation comp, HloInstruction x) {
        if (x.operands().isEmpty() || !(x.shape() instanceof dev.tensorbuf.views.ArrayShape shape)) {
            return false;
        }
        HloInstruction operand = comp.instruction(x.operands().getFirst());
        if (!(operand.shape() instanceof dev.tensorbuf.views.ArrayShape from)) {
            return false;
        }
        boolean same = from.dtype() == shape.dtype() && from.dims().equals(shape.dims());
        return switch (x.opcode()) {
            case "copy" -> true;
            case "convert", "reshape" -> same;
            case "bitcast-convert" -> same || operand.opcode().equals("bitcast-convert") && !operand.operands().isEmpty()
                    && comp.instruction(operand.operands().getFirst()).shape().equals(x.shape());
            case "transpose" -> same && isIdentity(x.intsOrEmpty("dimensions"));
            case "reverse" -> x.intsOrEmpty("dimensions").stream().allMatch(d -> d >= 0 && d < from.dims().size() && from.dims().get(d.intValue()) == 1);
            case "slice" -> same;
            default -> false;
        };
    }

    private static boolean isIdentity(List<Long> permutation) {
        for (int k = 0; k < permutation.size(); k++) {
            if (permutation.get(k) != k) {
                return false;
            }
        }
        return true;
    }

    /** {@return the instructions the ROOT of {@code comp} depends on, the ROOT too} */
    private static List<HloInstruction> live(HloComputation comp) {
        // An operand the computation does not define is refused where it runs, not here.
        return Graphs.postOrder(comp.root(), x -> x.operands().stream().flatMap(o -> comp.find(o).stream()).toList());
    }
}
