package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.cli.render.SliceSpec;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every number the command line reads, in lists, options and the texts it hands the parsers, takes
 * ASCII digits only, as XLA, NumPy and JSON do: Java's Long.parseLong would read '３' as 3. Each
 * refusal is one line on stderr naming the character and where it is.
 */
class AsciiDigitsCliTest {
    private static final String HLO = "HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n"
            + "  ROOT t = f32[3,2] transpose(p), dimensions={1,0}\n}\n";

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(List.of("strides", "--dtype", "f32", "--sizes", "３,16,16,3"),
                        "tensorbuf strides: --sizes '３,16,16,3': '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit"
                                + " at position 0"),
                Arguments.of(List.of("strides", "--dtype", "f32", "--sizes", "2,3", "--strides", "3,٣"),
                        "tensorbuf strides: --strides '3,٣': '٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit"
                                + " at position 2"),
                Arguments.of(List.of("strides", "--dtype", "f32", "--sizes", "2,3", "--offset", "१"),
                        "tensorbuf strides: --offset '१': '१' (U+0967 DEVANAGARI DIGIT ONE) is not an ASCII digit"
                                + " at position 0"),
                Arguments.of(List.of("strides", "--dtype", "f32", "--sizes", "2,3", "--index", "0,²"),
                        "tensorbuf strides: --index '0,²': '²' (U+00B2 SUPERSCRIPT TWO) is not an ASCII digit at position 2"),
                Arguments.of(List.of("strides", "--dtype", "f３2", "--sizes", "2"),
                        "tensorbuf strides: --dtype 'f３2': '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit"
                                + " at position 1"),
                Arguments.of(List.of("layout", "f32[2,3]{1,0}", "--index", "0,３"),
                        "tensorbuf layout: --index '0,３': '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit"
                                + " at position 2"),
                Arguments.of(List.of("layout", "f32[٣,3]{1,0}"),
                        "tensorbuf layout: '٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit at position 4 of"
                                + " 'f32[٣,3]{1,0}'"),
                Arguments.of(List.of("simplify", "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [３, 19]"),
                        "tensorbuf simplify: '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit at position 52 of"
                                + " '(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [３, 19]'"),
                Arguments.of(List.of("simplify", "(d0) -> (d0), domain: d0 in [-٣, 5]"),
                        "tensorbuf simplify: '٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit at position 30 of"
                                + " '(d0) -> (d0), domain: d0 in [-٣, 5]'"),
                Arguments.of(List.of("bench", "--threads", "٤"),
                        "tensorbuf bench: --threads '٤': '٤' (U+0664 ARABIC-INDIC DIGIT FOUR) is not an ASCII digit"
                                + " at position 0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aNumberOfOtherDigitsIsRefusedInOneLineNamingIt(List<String> args, String message) {
        CliHarness r = CliHarness.run(args.toArray(String[]::new));
        assertEquals(2, r.code(), r.err());
        assertEquals(message + "\n", r.err());
    }

    @Test
    void indexingOperandAndHloTextTakeAsciiDigitsOnly() {
        CliHarness operand = CliHarness.runWithInput(HLO, "indexing", "-", "--operand", "०");
        assertEquals(2, operand.code(), operand.err());
        assertEquals("tensorbuf indexing: --operand '०': '०' (U+0966 DEVANAGARI DIGIT ZERO) is not an ASCII digit at"
                + " position 0\n", operand.err());
        CliHarness hlo = CliHarness.runWithInput(HLO.replace("f32[2,3] parameter(0)", "f32[2,3] parameter(０)"),
                "indexing", "-");
        assertEquals(2, hlo.code(), hlo.err());
        assertEquals(1, hlo.err().lines().count(), hlo.err());
        assertEquals(true, hlo.err().contains("'０' (U+FF10 FULLWIDTH DIGIT ZERO) is not an ASCII digit"), hlo.err());
    }

    @Test
    void aBatchRequestIsJsonAndTakesAsciiDigitsOnly() {
        CliHarness r = CliHarness.runWithInput("{\"dtype\": \"f32\", \"sizes\": [2, ３]}\n", "strides", "--batch");
        assertEquals(true, r.out().contains("'３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit")
                || r.err().contains("'３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit"), r.out() + r.err());
    }

    @Test
    void aRenderSliceTakesAsciiDigitsOnly() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SliceSpec.parse("０, :", List.of(2L, 3L)));
        assertEquals("slice '０, :': '０' (U+FF10 FULLWIDTH DIGIT ZERO) is not an ASCII digit at position 0", e.getMessage());
    }
}
