package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.ops.exec.HloExecutor;
import java.util.OptionalInt;

/**
 * An instruction whose opcode the executor does not run: it runs data-movement ops
 * ({@link HloExecutor#SUPPORTED_OPCODES}), elementwise ops ({@link HloExecutor#ELEMENTWISE_OPCODES})
 * and {@code call} or {@code fusion} of computations made of them. Thrown before any argument is
 * read. Inside a called computation, the location names the computation and the call site too.
 * {@snippet :
 * // ENTRY e { p0 = f32[2] parameter(0)  ROOT a = f32[2] while(p0), condition=c, body=b }, a on line 4
 * e.getMessage();
 * // "unsupported op 'while' (instruction %a, line 4): a loop (condition=c, body=b) runs ...; data-movement ops execute: parameter, ..."
 * e.opcode();   // "while"
 * e.line();     // OptionalInt[4]
 * // the same while as the ROOT of computation f, which %c = f32[2] call(p0), to_apply=f on line 9 runs:
 * e.location(); // "(instruction %a, line 4, in f, called by %c, line 9)"
 * // m = f32[4] custom-call(p), custom_call_target="my_kernel"
 * e.detail();   // "custom_call_target=\"my_kernel\" is a kernel, not an annotation that runs as the identity (...)"
 * }
 */
public final class UnsupportedOpException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String opcode;
    private final String instruction;
    private final int line;
    private final String callers;
    private final String detail;

    /** @param callers {@code ", in f, called by %c, line 9"} for each call on the way, innermost first; empty in the entry */
    public UnsupportedOpException(String opcode, String instruction, OptionalInt line, String callers) {
        this(opcode, instruction, line, callers, "");
    }

    /** @param detail what this instruction does that does not run, e.g. {@code custom_call_target="my_kernel"}; empty if the opcode says it all */
    public UnsupportedOpException(String opcode, String instruction, OptionalInt line, String callers, String detail) {
        super("unsupported op '" + opcode + "' " + where(instruction, line, callers) + ": "
                + (detail.isEmpty() ? "" : detail + "; ") + "data-movement ops execute: "
                + String.join(", ", HloExecutor.SUPPORTED_OPCODES) + ", elementwise ops fused into copies: "
                + String.join(", ", HloExecutor.ELEMENTWISE_OPCODES) + ", reductions by one exact op: "
                + String.join(", ", HloExecutor.REDUCTION_OPCODES) + ", and call or fusion of computations made of them");
        this.opcode = opcode;
        this.instruction = instruction;
        this.line = line.orElse(-1);
        this.callers = callers;
        this.detail = detail;
    }

    /**
     * {@return what the instruction does that does not run, beyond its opcode; empty when the
     * opcode says it all} e.g. {@code custom_call_target="my_kernel" is no annotation that runs as
     * the identity}, or an all-reduce's {@code replica_groups}
     */
    public String detail() {
        return detail;
    }

    /** {@return {@code (instruction %a, line 5)}, the line left out when unknown, the callers appended} */
    static String where(String instruction, OptionalInt line, String callers) {
        return "(instruction %" + instruction + (line.isPresent() ? ", line " + line.getAsInt() : "") + callers + ")";
    }

    /** {@return the opcode, e.g. {@code "add"}} */
    public String opcode() {
        return opcode;
    }

    /** {@return the instruction's name, without {@code %}} */
    public String instruction() {
        return instruction;
    }

    /** {@return the 1-based line of the instruction in the module text, when the text was given} */
    public OptionalInt line() {
        return line < 0 ? OptionalInt.empty() : OptionalInt.of(line);
    }

    /** {@return {@code (instruction %a, line 5)}, or inside a call {@code (instruction %a, line 4, in f, called by %c, line 9)}} */
    public String location() {
        return where(instruction, line(), callers);
    }
}
