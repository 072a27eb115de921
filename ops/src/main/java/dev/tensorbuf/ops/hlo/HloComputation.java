package dev.tensorbuf.ops.hlo;

import dev.tensorbuf.ops.hlo.internal.NamedInstructions;
import dev.tensorbuf.ops.internal.Errors;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A named HLO computation: its instructions in the order written, and its {@code ROOT} (the
 * last instruction when none is marked, as XLA's parser does).
 *
 * {@snippet :
 * HloComputation max = HloModule.parse("""
 *     HloModule m
 *     max {
 *       p0 = f32[] parameter(0)
 *       p1 = f32[] parameter(1)
 *       ROOT m = f32[] maximum(p0, p1)
 *     }
 *     ENTRY e { ROOT c = f32[] constant(0) }""").computation("max");
 * max.root().opcode();      // "maximum"
 * max.parameter(1).name();  // "p1"
 * }
 *
 * @param name the computation's name, without {@code %}
 * @param isEntry whether it is marked {@code ENTRY}
 * @param instructions its instructions in order
 * @param rootName the name of its root instruction
 */
public record HloComputation(String name, boolean isEntry, List<HloInstruction> instructions, String rootName) {

    public HloComputation {
        instructions = NamedInstructions.of(instructions);
        if (((NamedInstructions) instructions).named(rootName) == null) {
            throw new IllegalArgumentException("root " + rootName + " is not an instruction of computation " + name);
        }
    }

    /** {@return the root instruction} */
    public HloInstruction root() {
        return instruction(rootName);
    }

    /**
     * {@return the instruction of that name}
     *
     * @param instructionName the name, with or without {@code %}
     * @throws IllegalArgumentException if there is none, listing the names there are
     */
    public HloInstruction instruction(String instructionName) {
        return find(instructionName).orElseThrow(
                () -> Errors.notFound("instruction", instructionName, "computation " + name, names()));
    }

    /** {@return the instruction of that name, if any} @param instructionName with or without {@code %} */
    public Optional<HloInstruction> find(String instructionName) {
        String n = instructionName.startsWith("%") ? instructionName.substring(1) : instructionName;
        return Optional.ofNullable(((NamedInstructions) instructions).named(n));
    }

    /**
     * {@return the {@code parameter(number)} instruction}
     *
     * @param number the parameter number
     * @throws IndexOutOfBoundsException if the computation has no such parameter
     */
    public HloInstruction parameter(int number) {
        return instructions.stream()
                .filter(i -> i.opcode().equals("parameter") && i.parameterNumber() == number)
                .findFirst()
                .orElseThrow(() -> Errors.outOfBounds("parameter", number, parameterCount(), "computation " + name));
    }

    /** {@return the number of parameter instructions} */
    public int parameterCount() {
        return (int) instructions.stream().filter(i -> i.opcode().equals("parameter")).count();
    }

    /** {@return the instructions by name, in order} */
    public Map<String, HloInstruction> byName() {
        Map<String, HloInstruction> m = new LinkedHashMap<>();
        instructions.forEach(i -> m.put(i.name(), i));
        return m;
    }

    private List<String> names() {
        return instructions.stream().map(HloInstruction::name).toList();
    }
}
