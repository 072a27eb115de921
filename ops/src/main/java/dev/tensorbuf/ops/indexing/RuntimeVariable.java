package dev.tensorbuf.ops.indexing;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.indexing.IndexingMap;

/**
 * What a runtime variable {@code rt_i} of an operand map stands for: the value of
 * {@code instruction} at the index {@code map} gives (for a scalar offset, {@code (d0, d1) -> ()}).
 *
 * {@snippet :
 * // dynamic-slice(s32[20] src, s32[] of), dynamic_slice_sizes={5}: rt0 is of's value
 * RuntimeVariable rt0 = new RuntimeVariable(of, IndexingMap.parse("(d0) -> (), domain: d0 in [0, 4]"));
 * rt0.toString(); // "parameter(1); (d0) -> (), domain: d0 in [0, 4]"
 * }
 *
 * @param instruction the instruction whose value the variable takes
 * @param map from the operand map's dimensions (and variables) to the index of {@code instruction}
 */
public record RuntimeVariable(HloInstruction instruction, IndexingMap map) {

    /** Prints as XLA does: {@code parameter(N)}, {@code constant(V)} for scalars, else the name. */
    @Override
    public String toString() {
        String who = switch (instruction.opcode()) {
            case "parameter" -> "parameter(" + instruction.payload() + ")";
            case "constant" -> "constant(" + instruction.payload() + ")";
            default -> instruction.name();
        };
        return who + "; " + map;
    }
}
