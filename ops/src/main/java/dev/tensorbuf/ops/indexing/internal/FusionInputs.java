package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.internal.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Input-to-output indexing of a fusion: from the parameter of one operand, every instruction's
 * maps are the compositions of each of its operands' maps with the instruction's own
 * input-to-output map, visiting operands first; tuples and get-tuple-elements route maps between
 * the outputs of multi-output instructions. Equal maps are kept once. XLA's
 * {@code ComputeInputToOutputIndexing} returns undefined for fusions; this is our model, the
 * forward counterpart of {@link Fusions#outputToInput}.
 */
final class FusionInputs {
    private FusionInputs() {
    }

    static List<Set<OperandIndexing>> inputToOutput(Ctx ctx, HloInstruction fusion, int operand) {
        String called = fusion.text("calls").orElseThrow(
                () -> Errors.missingAttribute("fusion " + fusion.name(), "calls"));
        Ctx inner = ctx.enter(called);
        HloComputation body = inner.computation();
        Fusions.checkRoot(fusion, body);
        HloInstruction parameter = body.parameter(operand);
        Map<String, List<Set<OperandIndexing>>> reached = new HashMap<>();
        List<Set<OperandIndexing>> start = sets(parameter.outputCount());
        for (int o = 0; o < parameter.outputCount(); o++) {
            start.get(o).add(OperandIndexing.of(Maps.identity(parameter.outputShape(o))));
        }
        reached.put(parameter.name(), start);
        for (HloInstruction instr : operandsFirst(inner, body.root())) {
            for (int p = 0; p < instr.operands().size(); p++) {
                List<Set<OperandIndexing>> from = reached.get(instr.operands().get(p));
                if (from != null && !instr.name().equals(parameter.name())) {
                    List<Set<OperandIndexing>> mine = reached.computeIfAbsent(instr.name(), n -> sets(instr.outputCount()));
                    step(inner, instr, p, from, mine);
                }
            }
        }
        // The root has the fusion's outputs (checkRoot); one it does not reach is read by no output.
        return reached.getOrDefault(body.root().name(), sets(fusion.outputCount()));
    }

    /** Adds to {@code mine} (one set per output of instr) what operand {@code p}'s maps {@code from} reach. */
    private static void step(Ctx ctx, HloInstruction instr, int p, List<Set<OperandIndexing>> from,
                             List<Set<OperandIndexing>> mine) {
        switch (instr.opcode()) {
            case "get-tuple-element" -> {
                int index = (int) instr.intValue("index", 0);
                if (index < from.size()) {
                    mine.getFirst().addAll(from.get(index));
                } else {
                    mine.getFirst().addAll(Maps.undefined());
                }
            }
            case "tuple" -> mine.get(p).addAll(from.getFirst());
            default -> {
                List<Set<OperandIndexing>> own = ownMaps(ctx, instr, p);
                for (int o = 0; o < mine.size(); o++) {
                    for (OperandIndexing before : from.getFirst()) {
                        for (OperandIndexing after : own.get(o)) {
                            mine.get(o).add(Composition.compose(before, after));
                        }
                    }
                }
            }
        }
    }

    private static List<Set<OperandIndexing>> ownMaps(Ctx ctx, HloInstruction instr, int p) {
        try {
            return OpIndexing.inputToOutput(ctx, instr, p);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            // A form the analysis does not model makes only this path unknown.
            return OpIndexing.unknown(instr.outputCount());
        }
    }

    private static List<Set<OperandIndexing>> sets(int n) {
        List<Set<OperandIndexing>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new LinkedHashSet<>());
        }
        return out;
    }

    /** {@return the instructions the root depends on (and the root), each after all its operands} */
    private static List<HloInstruction> operandsFirst(Ctx ctx, HloInstruction root) {
        // A computation holds one instruction per name, so by identity is by name.
        return dev.tensorbuf.ops.internal.Graphs.postOrder(root,
                instr -> instr.operands().stream().map(o -> ctx.computation().instruction(o)).toList());
    }
}
