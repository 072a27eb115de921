package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.internal.Errors;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Indexing through a group of instructions (a fusion's computation, or any producer/consumer
 * group): from a start instruction, every instruction's maps are the compositions of each of
 * its consumers' maps with that consumer's operand maps, visiting consumers first.
 */
public final class Fusions {
    private Fusions() {
    }

    static List<Set<OperandIndexing>> outputToInput(Ctx ctx, HloInstruction fusion, int outputId) {
        String called = fusion.text("calls").orElseThrow(
                () -> Errors.missingAttribute("fusion " + fusion.name(), "calls"));
        Ctx inner = ctx.enter(called);
        HloComputation body = inner.computation();
        checkRoot(fusion, body);
        HloInstruction start = body.root();
        int startOutput = outputId;
        if (start.opcode().equals("tuple")) {
            start = inner.operand(start, outputId);
            startOutput = 0;
        }
        OperandIndexing startIndexing = OperandIndexing.of(Maps.identity(fusion.outputShape(outputId)));
        Map<String, Set<OperandIndexing>> grouped =
                grouped(inner, i -> !i.opcode().equals("parameter"), start, startOutput, startIndexing);
        List<Set<OperandIndexing>> result = new ArrayList<>();
        for (int k = 0; k < fusion.operands().size(); k++) {
            result.add(grouped.getOrDefault(body.parameter(k).name(), Set.of()));
        }
        return result;
    }

    /**
     * XLA's verifier rule that the fused computation returns the fusion's shape, on the output
     * count and dimensions the maps are built from (output {@code j} of the fusion is output
     * {@code j} of the root).
     *
     * @throws IllegalArgumentException naming the fusion if they differ
     */
    static void checkRoot(HloInstruction fusion, HloComputation body) {
        HloInstruction root = body.root();
        boolean same = root.outputCount() == fusion.outputCount();
        for (int o = 0; same && o < fusion.outputCount(); o++) {
            same = root.outputShape(o).dims().equals(fusion.outputShape(o).dims());
        }
        if (!same) {
            throw new IllegalArgumentException("fusion " + fusion.name() + ": Fused computation shape (" + root.shape()
                    + ") is not equal to the fusion shape (" + fusion.shape() + ")");
        }
    }

    /** As {@link #grouped(Ctx, Predicate, HloInstruction, int, OperandIndexing)} from output 0 of start. */
    public static Map<String, Set<OperandIndexing>> grouped(Ctx ctx, Predicate<HloInstruction> inGroup,
                                                           HloInstruction start, OperandIndexing startIndexing) {
        return grouped(ctx, inGroup, start, 0, startIndexing);
    }

    /**
     * {@return for every instruction reached from {@code start} (inside the group, and the first
     * instructions outside it), the maps from the start's output to that instruction's output}
     * A multi-output instruction is tracked per output: a get-tuple-element routes its maps to
     * the output it reads, and the instruction's maps for output {@code j} come from its
     * output-to-input indexing of output {@code j}. (XLA always uses output 0 here, which is only
     * right when all outputs have the same indexing, as for a variadic reduce.) In the returned
     * map, the maps of all outputs of one instruction are merged.
     *
     * @param ctx the computation holding the group
     * @param inGroup which instructions belong to the group; the others are its inputs
     * @param start where indexing starts
     * @param startOutput which output of start (0 for a single-output instruction)
     * @param startIndexing the start's own map, usually the identity
     */
    public static Map<String, Set<OperandIndexing>> grouped(Ctx ctx, Predicate<HloInstruction> inGroup,
                                                           HloInstruction start, int startOutput,
                                                           OperandIndexing startIndexing) {
        List<HloInstruction> order = consumersFirst(ctx, inGroup, start);
        Map<String, Map<Integer, Set<OperandIndexing>>> maps = new LinkedHashMap<>();
        maps.computeIfAbsent(start.name(), n -> new TreeMap<>())
                .put(startOutput, new LinkedHashSet<>(List.of(startIndexing)));
        for (HloInstruction instr : order) {
            if (!inGroup.test(instr)) {
                continue;
            }
            for (Map.Entry<Integer, Set<OperandIndexing>> mine : maps.getOrDefault(instr.name(), Map.of()).entrySet()) {
                List<Set<OperandIndexing>> operands = operandsOf(ctx, instr, mine.getKey());
                // A get-tuple-element reads one output of its operand; every other op reads output 0.
                int operandOutput = instr.opcode().equals("get-tuple-element") ? (int) instr.intValue("index", 0) : 0;
                for (int k = 0; k < instr.operands().size(); k++) {
                    Set<OperandIndexing> target = maps.computeIfAbsent(instr.operands().get(k), n -> new TreeMap<>())
                            .computeIfAbsent(operandOutput, n -> new LinkedHashSet<>());
                    for (OperandIndexing consumer : mine.getValue()) {
                        for (OperandIndexing producer : operands.get(k)) {
                            target.add(Composition.compose(consumer, producer));
                        }
                    }
                }
            }
        }
        Map<String, Set<OperandIndexing>> out = new LinkedHashMap<>();
        maps.forEach((name, byOutput) -> {
            Set<OperandIndexing> all = new LinkedHashSet<>();
            byOutput.values().forEach(all::addAll);
            out.put(name, Collections.unmodifiableSet(all));
        });
        return out;
    }

    private static List<Set<OperandIndexing>> operandsOf(Ctx ctx, HloInstruction instr, int outputId) {
        try {
            return OpIndexing.outputToInput(ctx, instr, outputId);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            // A form the analysis does not model makes only this path unknown, as XLA does.
            return OpIndexing.unknown(instr.operands().size());
        }
    }

    /** {@return the instructions reachable from start through group members, each after all its users} */
    private static List<HloInstruction> consumersFirst(Ctx ctx, Predicate<HloInstruction> inGroup, HloInstruction start) {
        List<HloInstruction> postOrder = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Deque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {start, 0});
        seen.add(start.name());
        while (!stack.isEmpty()) {
            Object[] top = stack.peek();
            HloInstruction instr = (HloInstruction) top[0];
            int next = (Integer) top[1];
            if (inGroup.test(instr) && next < instr.operands().size()) {
                top[1] = next + 1;
                HloInstruction operand = ctx.operand(instr, next);
                if (seen.add(operand.name())) {
                    stack.push(new Object[] {operand, 0});
                }
            } else {
                stack.pop();
                postOrder.add(instr);
            }
        }
        Collections.reverse(postOrder);
        return postOrder;
    }
}
