package dev.tensorbuf.ops.exec;

import java.util.OptionalInt;

/**
 * An instruction whose opcode the executor does not run: it runs data-movement ops only
 * ({@link HloExecutor#SUPPORTED_OPCODES}). Thrown before any argument is read.
 * {@snippet :
 * // ENTRY e { p0 = f32[2] parameter(0)  ROOT a = f32[2] add(p0, p0) }, a on line 4
 * e.getMessage();
 * // "unsupported op 'add' (instruction %a, line 4): only data-movement ops execute: parameter, constant, ..."
 * e.opcode();   // "add"
 * e.line();     // OptionalInt[4]
 * }
 */
public final class UnsupportedOpException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String opcode;
    private final String instruction;
    private final int line;

    UnsupportedOpException(String opcode, String instruction, OptionalInt line) {
        super("unsupported op '" + opcode + "' " + where(instruction, line) + ": only data-movement ops execute: "
                + String.join(", ", HloExecutor.SUPPORTED_OPCODES));
        this.opcode = opcode;
        this.instruction = instruction;
        this.line = line.orElse(-1);
    }

    /** {@return {@code (instruction %a, line 5)}, the line left out when unknown} */
    static String where(String instruction, OptionalInt line) {
        return "(instruction %" + instruction + (line.isPresent() ? ", line " + line.getAsInt() : "") + ")";
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

    /** {@return {@code (instruction %a, line 5)}} */
    public String location() {
        return where(instruction, line());
    }
}
