package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.XlaShape;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An {@link HloInstruction}'s typed attributes ({@link HloAttribute}) and its making: what the
 * public type does not show, because the attribute forms are the parser's own. For the parser,
 * the interpreter and HLO indexing in this module.
 * {@snippet :
 * HloInstruction s = HloModule.parse("""
 *     HloModule m
 *     ENTRY e {
 *       p0 = f32[10,4] parameter(0)
 *       ROOT s = f32[5,4] slice(p0), slice={[0:10:2], [0:4]}
 *     }""").entry().root();
 * HloInstructions.attribute(s, "slice");   // Optional[Slices[dims=[SliceDim[start=0, limit=10, stride=2], ...]]]
 * }
 * The fields stay private to {@code ops.hlo}: {@code HloInstruction}'s class initializer lends
 * them here ({@link Lender}), as the JDK's shared secrets do.
 */
public final class HloInstructions {
    private HloInstructions() {
    }

    /** What {@code ops.hlo} lends: set once, by {@code HloInstruction}'s class initializer. */
    public interface Lender {
        /** {@return a new instruction} */
        HloInstruction of(String name, XlaShape shape, String opcode, List<String> operands,
                          Map<String, HloAttribute> attributes, String payload);

        /** {@return the instruction's attributes by name, in the order written} */
        Map<String, HloAttribute> attributes(HloInstruction in);
    }

    private static volatile Lender lender;

    /**
     * Takes {@code ops.hlo}'s lender.
     *
     * @throws IllegalStateException if one was lent already, or it is not {@code ops.hlo}'s
     */
    public static void lend(Lender l) {
        if (lender != null || !l.getClass().getPackageName().equals(HloInstruction.class.getPackageName())) {
            throw new IllegalStateException("only dev.tensorbuf.ops.hlo lends, once");
        }
        lender = l;
    }

    private static Lender lender() {
        Lender l = lender;
        if (l == null) {
            try {
                Class.forName(HloInstruction.class.getName(), true, HloInstruction.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
            l = lender;
        }
        return l;
    }

    /**
     * {@return the instruction {@code name = shape opcode(operands), attributes}}
     *
     * @param payload text inside the parentheses of {@code constant(...)} and {@code parameter(...)}, else empty
     * @throws NullPointerException if an argument is null
     */
    public static HloInstruction of(String name, XlaShape shape, String opcode, List<String> operands,
                                    Map<String, HloAttribute> attributes, String payload) {
        return lender().of(name, shape, opcode, operands, attributes, payload);
    }

    /** {@return the attribute of that name, if written} @param key the attribute name */
    public static Optional<HloAttribute> attribute(HloInstruction in, String key) {
        return Optional.ofNullable(lender().attributes(in).get(key));
    }

    /** {@return the attributes by name, in the order written} */
    public static Map<String, HloAttribute> attributes(HloInstruction in) {
        return lender().attributes(in);
    }
}
