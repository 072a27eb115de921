package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LayoutCommandTest {
    @Test
    void exampleFromHelp() {
        CliHarness r = CliHarness.run("layout", "f32[3,5]{1,0:T(2,2)}", "--index", "2,3", "--offset", "9");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                shape: f32[3,5]{1,0:T(2,2)}
                dtype: f32, dims: [3, 5], minor_to_major: [1, 0]
                tiles: (2,2)
                physical dims: [2, 3, 2, 2] (24 element slots, padding included)
                byte size: 96
                index [2, 3] -> offset 17
                offset 9 -> padding
                """, r.out());
    }

    @Test
    void oneSlotIsSingular() {
        CliHarness r = CliHarness.run("layout", "u8[1]{0}");
        assertTrue(r.out().contains("physical dims: [1] (1 element slot, padding included)\n"), r.out());
    }

    @Test
    void nullForTheShapeHasNoHintToLeaveItOut() {
        // Leaving "shape" out is not a default: it gets "request needs \"shape\"".
        CliHarness r = CliHarness.runWithInput("{\"shape\":null}\n", "layout", "--batch");
        assertEquals("{\"error\":\"request key \\\"shape\\\" must be a string, got null\"}\n", r.out());
    }

    @Test
    void aLaterTileThatPadsInsideAnEarlierOneIsPointedOut() {
        CliHarness r = CliHarness.run("layout", "f32[2,3]{1,0:T(2,3)(1,2)}");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("physical dims: [1, 1, 2, 2, 1, 2] (8 element slots, padding included)\n"
                + "byte size: 24 (XLA's ArraySize, by the first tile; the tiles address 32 bytes because a later tile"
                + " pads inside an earlier one)\n"), r.out());
        assertTrue(CliHarness.run("layout", "bf16[16,256]{1,0:T(8,128)(2,1)}").out().contains("byte size: 8192\n"));
    }

    @Test
    void offsetsInTheTailPaddingOfLAreReportedAsPadding() {
        // f32[5]{0:T(4)L(64)}: 8 slots of tiles, ArraySize rounded up to 64 elements (256 bytes).
        CliHarness r = CliHarness.run("layout", "f32[5]{0:T(4)L(64)}", "--offset", "4", "--offset", "24", "--offset", "63");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().endsWith("offset 4 -> index [4]\noffset 24 -> padding\noffset 63 -> padding\n"), r.out());
        CliHarness past = CliHarness.run("layout", "f32[5]{0:T(4)L(64)}", "--offset", "64");
        assertEquals(2, past.code());
        assertEquals("tensorbuf layout: element offset 64 out of bounds [0, 64) of f32[5]{0:T(4)L(64)}\n", past.err());
    }

    @Test
    void jsonHasTheKeysOfTheIssue() {
        // slot 5 is the last of the first 2x3 tile: combined row 1 = (0,0,1), combined column 2 = (0,2)
        CliHarness r = CliHarness.run("layout", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "--index", "0,0,0,0,1",
                "--offset", "1", "--offset", "5", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"shape\":\"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}\",\"dtype\":\"f32\",\"dims\":[2,7,8,11,10],"
                + "\"minor_to_major\":[4,3,2,1,0],\"tiles\":[[\"*\",\"*\",2,\"*\",3]],\"tail_padding_alignment\":1,"
                + "\"element_size_in_bits\":0,\"memory_space\":0,\"physical_dims\":[56,37,2,3],"
                + "\"physical_elements\":12432,\"byte_size\":49728,\"indices\":[{\"index\":[0,0,0,0,1],\"linear\":1}],"
                + "\"offsets\":[{\"linear\":1,\"index\":[0,0,0,0,1]},{\"linear\":5,\"index\":[0,0,1,0,2]}]}\n", r.out());
    }

    @Test
    void helpSaysTheJsonKeyLinearIsTheOffset() {
        // Scripts read "linear", so the key keeps its name; the help ties it to the text's "offset".
        String help = CliHarness.run("layout", "--help").out().replace('\n', ' ');
        assertTrue(help.contains("\"linear\" is the element offset the text calls \"offset\""), help);
    }

    @Test
    void batchAnswersEachLineAndReportsErrorsInline() {
        String input = """
                {"shape": "bf16[4,8]{1,0:T(2,4)(2,1)}", "indices": [[3,7]], "offsets": [31]}
                {"shape": "f32[2,3]{1,0:T(2,-2)}"}
                {"shape": "f32[2]", "indices": [[5]]}
                """;
        CliHarness r = CliHarness.runWithInput(input, "layout", "--batch");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertEquals(3, lines.length, r.out());
        assertTrue(lines[0].contains("\"indices\":[{\"index\":[3,7],\"linear\":31}],\"offsets\":[{\"linear\":31,\"index\":[3,7]}]"),
                lines[0]);
        assertTrue(lines[1].startsWith("{\"error\":\"layout has invalid tiles"), lines[1]);
        assertEquals("{\"error\":\"index 5 out of bounds [0, 2) for dim 0 of f32[2]{0}\"}", lines[2]);
    }

    @Test
    void badShapeExitsTwoWithTheParserMessage() {
        CliHarness r = CliHarness.run("layout", "f32[2,3]{0}");
        assertEquals(2, r.code());
        assertEquals("tensorbuf layout: Dimensions size is 2, but minor to major size is 1. at position 8 of 'f32[2,3]{0}'\n",
                r.err());
        CliHarness tuple = CliHarness.run("layout", "(f32[2], s8[])");
        assertEquals(2, tuple.code());
        assertTrue(tuple.err().contains("layout needs an array shape, got (f32[2]{0}, s8[])"), tuple.err());
    }

    @Test
    void batchQuotesValuesAsWrittenAndRefusesNull() {
        String input = """
                {"shape": "f32[2,3]", "offsets": [1e2]}
                {"shape": "f32[2]", "indices": null}
                not json
                """;
        CliHarness r = CliHarness.runWithInput(input, "layout", "--batch");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                {"error":"request key \\"offsets\\" must be a list of 64-bit integers, got [1e2]"}
                {"error":"request key \\"indices\\" must be a list of lists of 64-bit integers, got null (leave the key out for its default)"}
                {"error":"line is not JSON: expected a JSON value, found 'not' at position 0 of 'not json'"}
                """, r.out());
    }

    @Test
    void batchRefusesMisspeltKeysAndTheCommandLineOptions() {
        String input = """
                {"shape": "f32[2,3]", "index": [[1, 1]]}
                {"shape": "f32[2,3]", "offsets": [1.5]}

                {"shape": "f32[2,3]", "offsets": [4]}
                """;
        CliHarness r = CliHarness.runWithInput(input, "layout", "--batch");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertEquals(4, lines.length, "one line per request line, the blank one included:\n" + r.out());
        assertEquals("{\"error\":\"unknown request key 'index' (did you mean indices?); keys: shape, indices, offsets\"}", lines[0]);
        assertEquals("{\"error\":\"request key \\\"offsets\\\" must be a list of 64-bit integers, got [1.5]\"}", lines[1]);
        assertEquals("{\"error\":\"blank line: expected a JSON request object\"}", lines[2]);
        assertTrue(lines[3].endsWith("\"offsets\":[{\"linear\":4,\"index\":[1,1]}]}"), lines[3]);
        CliHarness index = CliHarness.runWithInput(input, "layout", "--batch", "--index", "1");
        assertEquals(2, index.code());
        assertEquals("tensorbuf layout: --index cannot be combined with --batch: each request line carries its own values"
                + " (keys: shape, indices, offsets)\n", index.err());
    }
}
