package dev.tensorbuf.ops.hlo;

import dev.tensorbuf.ops.hlo.internal.HloInstructions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.ops.hlo.internal.HloSyntaxException;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * XLA's HLO parser reads ASCII digits only; Java's would read '３' (fullwidth), '٣' (Arabic-Indic)
 * or '३' (Devanagari) as 3. Each is refused naming the character, its line and column.
 */
class HloAsciiDigitsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            fullwidth in dims         | HloModule m\\nENTRY e {\\n  ROOT p = f32[３] parameter(0)\\n}                       | 3:16 | '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit
            fullwidth in layout       | HloModule m\\nENTRY e {\\n  ROOT p = f32[2,2]{1,０} parameter(0)\\n}               | 3:23 | '０' (U+FF10 FULLWIDTH DIGIT ZERO) is not an ASCII digit
            Arabic-Indic parameter    | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] parameter(٣)\\n}                       | 3:29 | '٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit
            Devanagari attribute      | HloModule m\\nENTRY e {\\n  p = f32[8] parameter(0)\\n  ROOT r = f32[8] reverse(p), dimensions={0,३}\\n} | 4:45 | '३' (U+0969 DEVANAGARI DIGIT THREE) is not an ASCII digit
            Arabic-Indic slice        | HloModule m\\nENTRY e {\\n  p = f32[8] parameter(0)\\n  ROOT s = f32[4] slice(p), slice={[0:٤]}\\n} | 4:39 | '٤' (U+0664 ARABIC-INDIC DIGIT FOUR) is not an ASCII digit
            superscript constant      | HloModule m\\nENTRY e {\\n  ROOT c = f32[] constant(²)\\n}                         | 3:27 | '²' (U+00B2 SUPERSCRIPT TWO) is not an ASCII digit
            """)
    void nonAsciiDigitIsRefusedNamingItAndWhere(String name, String text, String where, String problem) {
        String hlo = text.strip().replace("\\n", "\n");
        HloSyntaxException e = assertThrows(HloSyntaxException.class, () -> HloModule.parse(hlo));
        assertTrue(e.getMessage().startsWith(where.strip()), () -> "message '" + e.getMessage() + "' should start with " + where);
        assertTrue(e.getMessage().contains(problem.strip()), () -> "message '" + e.getMessage() + "' should contain " + problem);
    }

    @Test
    void stringsAndCommentsMayHoldAnyDigits() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n  /* ３ */ ROOT p = f32[3] parameter(0),"
                + " metadata={op_name=\"x٣\"} // ३\n}");
        assertEquals(0, m.entry().root().parameterNumber());
    }

    @Test
    void anArgumentKeyOfOtherDigitsNamesTheCharacter() {
        String text = "HloModule m\nENTRY e {\n  ROOT p0 = f32[2] parameter(0)\n}\n";
        try (var arena = Allocators.confined()) {
            TensorView arg = TensorView.of(arena.allocate(8), "f32[2]");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HloExecutor.execute(text, Map.of("٠", arg)).close());
            assertEquals("'٠' names no parameter of e: '٠' (U+0660 ARABIC-INDIC DIGIT ZERO) is not an ASCII digit"
                    + " at position 0", e.getMessage());
        }
    }

    @Test
    void instructionsBuiltInCodeAreHeldToTheSameDigits() {
        XlaShape scalar = XlaShape.parse("f32[]");
        HloInstruction parameter = HloInstructions.of("p", scalar, "parameter", List.of(), Map.of(), "３");
        IllegalArgumentException p = assertThrows(IllegalArgumentException.class, parameter::parameterNumber);
        assertTrue(p.getMessage().contains("'３'"), p.getMessage());
        HloInstruction huge = HloInstructions.of("q", scalar, "parameter", List.of(), Map.of(), "2147483648");
        assertEquals("parameter q has number 2147483648, past the largest XLA takes (2147483647)",
                assertThrows(IllegalArgumentException.class, huge::parameterNumber).getMessage());

        HloInstruction constant = HloInstructions.of("c", scalar, "constant", List.of(), Map.of(), "３");
        HloModule module = new HloModule("m", Map.of(), List.of(new HloComputation("e", true, List.of(constant), "c")));
        RuntimeException c = assertThrows(RuntimeException.class, () -> HloExecutor.execute(module, Map.of()).close());
        assertTrue(c.getMessage().contains("'３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit at position 0"
                + " of the literal '３' of f32[]"), c.getMessage());
    }
}
