package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexingCommandTest {
    private static final String TRANSPOSE = """
            HloModule m
            ENTRY e {
              p0 = f32[3,12288,6,128] parameter(0)
              ROOT t = f32[3,6,128,12288] transpose(p0), dimensions={0,2,3,1}
            }
            """;

    private static final String PAD = """
            HloModule m
            ENTRY e {
              p0 = f32[4,4] parameter(0)
              p1 = f32[] parameter(1)
              ROOT pad = f32[12,16] pad(p0, p1), padding=1_4_1x4_8_0
            }
            """;

    @Test
    void exampleFromHelp(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.hlo");
        Files.writeString(file, TRANSPOSE);
        CliHarness r = CliHarness.run("indexing", file.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("operand id = 0 (d0, d1, d2, d3) -> (d0, d3, d1, d2), domain: d0 in [0, 2], d1 in [0, 5], "
                + "d2 in [0, 127], d3 in [0, 12287]\n", r.out());
    }

    @Test
    void readsStdinAndSelectsOneOperandAsJson() {
        CliHarness r = CliHarness.runWithInput(PAD, "indexing", "-", "--operand", "0", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"instruction\":\"pad\",\"direction\":\"output-to-input\",\"operands\":[{\"operand\":0,"
                + "\"maps\":[\"(d0, d1) -> ((d0 - 1) / 2, d1 - 4), domain: d0 in [1, 7], d1 in [4, 7], "
                + "(d0 - 1) mod 2 in [0, 0]\"]}]}\n", r.out());
    }

    /** The same mistake reads the same whichever direction is asked for. */
    @Test
    void anOperandOrOutputThatIsNotThereIsWordedTheSameBothWays() {
        String dot = """
                HloModule m
                ENTRY e {
                  a = f32[2,3] parameter(0)
                  b = f32[3,4] parameter(1)
                  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
                }
                """;
        for (String direction : new String[] {"output-to-input", "input-to-output"}) {
            CliHarness operand = CliHarness.runWithInput(dot, "indexing", "-", "--direction", direction, "--operand", "2");
            assertEquals(2, operand.code(), direction);
            assertEquals("tensorbuf indexing: operand 2 out of bounds [0, 2) for dot d\n", operand.err(), direction);
            CliHarness output = CliHarness.runWithInput(dot, "indexing", "-", "--direction", direction, "--output", "3");
            assertEquals(2, output.code(), direction);
            assertEquals("tensorbuf indexing: output 3 out of bounds [0, 1) for d of shape f32[2,4]{1,0}\n", output.err(),
                    direction);
        }
    }

    @Test
    void inputToOutputOfAnInnerInstruction() {
        CliHarness r = CliHarness.runWithInput(TRANSPOSE, "indexing", "-", "--instruction", "t",
                "--direction", "input-to-output", "--operand", "0");
        assertEquals(0, r.code(), r.err());
        assertEquals("operand id = 0 (d0, d1, d2, d3) -> (d0, d2, d3, d1), domain: d0 in [0, 2], d1 in [0, 12287], "
                + "d2 in [0, 5], d3 in [0, 127]\n", r.out());
    }

    @Test
    void anInstructionWithoutOperandsSaysSo() {
        CliHarness r = CliHarness.runWithInput(TRANSPOSE, "indexing", "-", "--instruction", "p0");
        assertEquals(0, r.code(), r.err());
        assertEquals("p0 has no operands, so no indexing maps\n", r.out());
    }

    @Test
    void physicalLayoutUsesLayoutOrderedDimensions() {
        String hlo = """
                HloModule m
                ENTRY e {
                  p0 = f32[10, 20, 30]{1, 0, 2} parameter(0)
                  ROOT add0 = f32[10, 20, 30]{1, 0, 2} exponential(p0)
                }""";
        CliHarness r = CliHarness.runWithInput(hlo, "indexing", "-", "--physical");
        assertEquals(0, r.code(), r.err());
        assertEquals("operand id = 0 (d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 29], d1 in [0, 9], d2 in [0, 19]\n",
                r.out());
    }

    @Test
    void unsupportedOpPrintsUnknownIndexing() {
        String hlo = """
                HloModule m
                ENTRY e {
                  p1 = f32[4,4] parameter(0)
                  p2 = f32[4,3] parameter(1)
                  ROOT s = f32[4,3] triangular-solve(p1, p2), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
                }""";
        CliHarness r = CliHarness.runWithInput(hlo, "indexing", "-");
        assertEquals(0, r.code(), r.err());
        assertEquals("operand id = 0 unknown indexing\noperand id = 1 unknown indexing\n", r.out());
    }

    @Test
    void malformedHloExitsTwoWithLineAndColumn() {
        CliHarness r = CliHarness.runWithInput("HloModule m\nENTRY e {\n  ROOT p = f32[2] paramter(0)\n}", "indexing", "-");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf indexing: 3:19: unknown opcode 'paramter'"), r.err());
    }

    @Test
    void badDirectionIsAUsageError() {
        CliHarness r = CliHarness.runWithInput(TRANSPOSE, "indexing", "-", "--direction", "sideways");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--direction must be output-to-input or input-to-output"), r.err());
    }

    @Test
    void batchAnswersEachLineAndReportsErrorsInline() {
        String good = PAD.replace("\n", "\\n");
        String input = "{\"hlo\": \"" + good + "\", \"operand\": 1}\n"
                + "{\"hlo\": \"HloModule m\"}\n"
                + "{\"hlo\": \"" + good + "\", \"instruction\": \"nope\"}\n";
        CliHarness r = CliHarness.runWithInput(input, "indexing", "--batch");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertEquals(3, lines.length, r.out());
        assertEquals("{\"instruction\":\"pad\",\"direction\":\"output-to-input\",\"operands\":[{\"operand\":1,"
                + "\"maps\":[\"(d0, d1) -> (), domain: d0 in [0, 11], d1 in [0, 15]\"]}]}", lines[0]);
        assertTrue(lines[1].startsWith("{\"error\":\"1:12: expected a computation"), lines[1]);
        assertTrue(lines[2].startsWith("{\"error\":\"no instruction nope in module m"), lines[2]);
    }

    @Test
    void batchFlagsMustBeBooleansAndErrorsNameTheKey() {
        String good = PAD.replace("\n", "\\n");
        String input = "{\"hlo\": \"" + good + "\", \"physical\": 1}\n"
                + "{\"hlo\": \"" + good + "\", \"physical\": \"yes\"}\n"
                + "{\"hlo\": \"" + good + "\", \"direction\": \"sideways\"}\n"
                + "{\"hlo\": \"" + good + "\", \"operand\": \"0\"}\n";
        CliHarness r = CliHarness.runWithInput(input, "indexing", "--batch");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                {"error":"request key \\"physical\\" must be true or false, got 1"}
                {"error":"request key \\"physical\\" must be true or false, got \\"yes\\""}
                {"error":"\\"direction\\" must be output-to-input or input-to-output, got 'sideways'"}
                {"error":"request key \\"operand\\" must be a 32-bit integer, got \\"0\\""}
                """, r.out());
    }

    @Test
    void fileThatIsNotUtf8IsNamedWithTheOffendingByte(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.hlo");
        byte[] text = "HloModule m\n// caf".getBytes(StandardCharsets.UTF_8);
        byte[] bytes = Arrays.copyOf(text, text.length + 2);
        bytes[text.length] = (byte) 0xe9; // Latin-1 for é, not UTF-8
        bytes[text.length + 1] = '\n';
        Files.write(file, bytes);
        CliHarness r = CliHarness.run("indexing", file.toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf indexing: " + file + ": not valid UTF-8 text at byte " + text.length + "\n", r.err());
    }
}
