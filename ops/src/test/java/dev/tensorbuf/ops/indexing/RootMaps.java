package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing.InstructionIndexing;
import java.util.List;

/** The set-up the HLO indexing tests share: the maps of a module's root, as the text they assert. */
final class RootMaps {
    private RootMaps() {
    }

    /** {@return the root's output 0 to its operands, logical, as text} */
    static String outputToInput(HloModule m) {
        return HloIndexing.outputToInput(m, m.entry().root()).toString();
    }

    /** {@return the root's output {@code output} to its operands, as text} */
    static String outputToInput(HloModule m, int output, boolean physical) {
        return HloIndexing.outputToInput(m, m.entry().root(), output, physical).toString();
    }

    /** {@return the root's operand {@code operand} to its outputs, as text} */
    static String inputToOutput(HloModule m, int operand, boolean physical) {
        return HloIndexing.inputToOutput(m, m.entry().root(), operand, physical).toString();
    }

    /** {@return the one map of {@code operand}, as text; fails when it has another number} */
    static String single(InstructionIndexing i, int operand) {
        assertEquals(1, i.operand(operand).size(), i.toString());
        return i.operand(operand).iterator().next().toString();
    }

    /**
     * {@return the messages of the {@link IllegalArgumentException}s that both directions throw
     * for the root: from output 0 (logical), then from operand {@code operand}} Fails, naming
     * {@code what}, when either direction does not throw one.
     */
    static List<String> refusals(HloModule m, int operand, String what) {
        IllegalArgumentException out = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.outputToInput(m, m.entry().root()), what);
        IllegalArgumentException in = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.inputToOutput(m, m.entry().root(), operand, false), what);
        return List.of(out.getMessage(), in.getMessage());
    }
}
