package dev.tensorbuf.ops.exec;

import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.MapForm;
import java.util.List;
import java.util.Objects;

/**
 * What one executed instruction became: a view of its operands, a copy into new memory, a bound
 * argument, a constant, a scalar folded while the views were made, or an elementwise step fused
 * into another instruction's copy; the form of the resulting view's map, and why.
 * {@snippet :
 * // t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}  with p0 = f32[2,3]{1,0}
 * ExecutedInstruction s = execution.steps().get(1);
 * s.kind();      // Kind.VIEW
 * s.formName();  // "strided": sizes [3, 2] strides [1, 3]
 * // i = s32[] select(lt, add, p1)  (jax's negative-index handling of x[i]), with p1 = -1
 * execution.steps().get(4).reason();  // "folded to 4 when the view was made"
 * }
 *
 * @param name the instruction's name, without {@code %}
 * @param opcode its opcode, e.g. {@code "transpose"}
 * @param kind whether it stayed a view, copied, was folded or fused
 * @param form the form of the map of the view it produced
 * @param reason why it became what it did, e.g. {@code "copy into its own layout f32[2,3]{0,1}"};
 *     empty where the kind says it all (a transpose that is a view)
 * @param fusedInto for a {@link Kind#FUSED} instruction, the instruction whose copy evaluates it;
 *     else empty
 * @param plans for a copy that evaluated fused elementwise work, what each of its passes did, as
 *     the copy engine explains a copy: the expression and its kernel are its
 *     {@link CopyPlan.Explanation#epilogue()}, e.g. {@code epilogue: multiply(add(convert<f32>(%0), negate(%1)),
 *     reciprocal(%2)) per element, lookup table 3x256 (channels along dim 1) of operand %0}; else empty
 */
public record ExecutedInstruction(String name, String opcode, Kind kind, MapForm form, String reason, String fusedInto,
                                  List<CopyPlan.Explanation> plans) {

    /** How an instruction produced its value. */
    public enum Kind {
        /** A new map over existing memory: no element moved. */
        VIEW,
        /** Elements were copied (and converted) into new memory laid out by the instruction's shape. */
        COPY,
        /** The bound argument, read in place. */
        PARAMETER,
        /** New data from the module itself: a literal, or an {@code iota}'s one row broadcast. */
        CONSTANT,
        /**
         * A scalar computed once while the views were made: integer arithmetic on index operands
         * (jax's negative-index handling before a {@code dynamic-slice}), no pass over any array.
         */
        FOLDED,
        /** An elementwise step evaluated inside another instruction's copy ({@link #fusedInto()}): no memory of its own. */
        FUSED,
        /** A {@code reduce}: each element combined from the operand's along the reduced dims, into new memory. */
        REDUCED;

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
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(fusedInto, "fusedInto");
        plans = List.copyOf(plans);
        if ((kind == Kind.FUSED) == fusedInto.isEmpty()) {
            throw new IllegalArgumentException(kind == Kind.FUSED ? "a fused instruction names the copy it is fused into"
                    : "only a fused instruction is fused into another: " + kind + " into " + fusedInto);
        }
    }

    /** {@return a step with no reason given and nothing fused} */
    public ExecutedInstruction(String name, String opcode, Kind kind, MapForm form) {
        this(name, opcode, kind, form, "", "");
    }

    /** {@return a step that ran no elementwise pass of its own: {@link #plans()} empty} */
    public ExecutedInstruction(String name, String opcode, Kind kind, MapForm form, String reason, String fusedInto) {
        this(name, opcode, kind, form, reason, fusedInto, List.of());
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
