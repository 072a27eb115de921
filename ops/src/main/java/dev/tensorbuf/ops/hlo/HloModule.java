package dev.tensorbuf.ops.hlo;

import dev.tensorbuf.ops.hlo.internal.HloParser;
import dev.tensorbuf.ops.hlo.internal.HloSyntaxException;
import dev.tensorbuf.ops.internal.Errors;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An HLO module read from XLA's text: the header's name and attributes, and its computations.
 * Comments ({@code //}, {@code /* *}{@code /}), {@code %} sigils, inline operand shapes and
 * opaque attributes ({@code metadata}, {@code backend_config}, {@code frontend_attributes}) are
 * accepted and kept out of the way. As in XLA, the {@code HloModule} line may be left out: the
 * text is then a set of computations ({@code f { ... } ENTRY e { ... }}), the one marked
 * {@code ENTRY} (else the last) is the entry, and the module is named {@code module_<entry>}.
 *
 * {@snippet :
 * HloModule m = HloModule.parse("""
 *     HloModule m, replica_count=4
 *     ENTRY e {
 *       p0 = f32[10,20] parameter(0)
 *       ROOT e0 = f32[10,20] exponential(f32[10,20] %p0)  // inline operand shape
 *     }""");
 * m.name();                  // "m"
 * m.attributes();            // {replica_count=4}
 * m.entry().root().opcode(); // "exponential"
 * }
 *
 * @param name the module name
 * @param attributes header attributes after the name, as written
 * @param computations computations in order
 */
public record HloModule(String name, Map<String, String> attributes, List<HloComputation> computations) {

    public HloModule {
        attributes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        computations = List.copyOf(computations);
        if (computations.isEmpty()) {
            throw new IllegalArgumentException("module " + name + " has no computations");
        }
    }

    /**
     * Reads HLO module text.
     *
     * @throws HloSyntaxException naming the line and column of the first problem
     */
    public static HloModule parse(String text) {
        return HloParser.parse(text);
    }

    /** {@return the {@code ENTRY} computation, or the last one when none is marked (as XLA does)} */
    public HloComputation entry() {
        return computations.stream().filter(HloComputation::isEntry).findFirst()
                .orElse(computations.getLast());
    }

    /**
     * {@return the computation of that name}
     *
     * @param computationName with or without {@code %}
     * @throws IllegalArgumentException if there is none, listing the names there are
     */
    public HloComputation computation(String computationName) {
        String n = computationName.startsWith("%") ? computationName.substring(1) : computationName;
        return computations.stream().filter(c -> c.name().equals(n)).findFirst()
                .orElseThrow(() -> Errors.notFound("computation", computationName, "module " + name,
                        computations.stream().map(HloComputation::name).toList()));
    }

    /**
     * {@return the instruction of that name, searched in the entry computation first, then in
     * the others in order}
     *
     * @param instructionName with or without {@code %}
     * @throws IllegalArgumentException if no computation has it
     */
    public HloInstruction instruction(String instructionName) {
        return entry().find(instructionName)
                .or(() -> computations.stream().flatMap(c -> c.find(instructionName).stream()).findFirst())
                .orElseThrow(() -> Errors.notFound("instruction", instructionName, "module " + name, null));
    }

    /** {@return the computation that holds this instruction object} @param instruction one of this module's */
    public HloComputation computationOf(HloInstruction instruction) {
        return computations.stream().filter(c -> c.instructions().stream().anyMatch(i -> i == instruction)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("instruction " + instruction.name()
                        + " is not in module " + name));
    }
}
