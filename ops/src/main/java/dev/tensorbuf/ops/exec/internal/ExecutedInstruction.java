package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.views.MapForm;
import java.util.Objects;

/**
 * What one executed instruction became: a view of its operands, a copy into new memory, a bound
 * argument or a constant, and the form of the resulting view's map.
 * {@snippet :
 * // t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}  with p0 = f32[2,3]{1,0}
 * ExecutedInstruction s = execution.steps().get(1);
 * s.kind();      // Kind.VIEW
 * s.formName();  // "strided": sizes [3, 2] strides [1, 3]
 * }
 *
 * @param name the instruction's name, without {@code %}
 * @param opcode its opcode, e.g. {@code "transpose"}
 * @param kind whether it stayed a view or copied
 * @param form the form of the map of the view it produced
 */
public record ExecutedInstruction(String name, String opcode, Kind kind, MapForm form) {

    /** How an instruction produced its value. */
    public enum Kind {
        /** A new map over existing memory: no element moved. */
        VIEW,
        /** Elements were copied (and converted) into new memory laid out by the instruction's shape. */
        COPY,
        /** The bound argument, read in place. */
        PARAMETER,
        /** New data from the module itself: a literal, or an {@code iota}'s one row broadcast. */
        CONSTANT;

        /** {@return the lower-case name used in JSON, e.g. {@code "view"}} */
        public String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** @throws NullPointerException for a null part */
    public ExecutedInstruction {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(opcode, "opcode");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(form, "form");
    }

    /** {@return {@code "strided"}, {@code "tiled"} or {@code "general"}} */
    public String formName() {
        return switch (form) {
            case MapForm.Strided s -> "strided";
            case MapForm.Tiled t -> "tiled";
            case MapForm.General g -> "general";
        };
    }
}
