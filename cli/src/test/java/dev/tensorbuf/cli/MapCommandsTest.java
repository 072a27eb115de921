package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MapCommandsTest {
    @Test
    void simplifyExampleFromHelp() {
        CliHarness r = CliHarness.run("simplify",
                "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]");
        assertEquals(0, r.code(), r.err());
        assertEquals("(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]\n", r.out());
    }

    @Test
    void simplifyJsonSaysWhenEmpty() {
        CliHarness r = CliHarness.run("simplify", "(d0) -> (d0), domain: d0 in [0, 3], d0 * 2 in [7, 7]", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"map\":\"KNOWN EMPTY\",\"empty\":true}\n", r.out());
    }

    @Test
    void composeExampleFromHelp() {
        CliHarness r = CliHarness.run("compose", "(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]",
                "(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"map\":\"(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]\"}\n", r.out());
    }

    @Test
    void batchesReportErrorsInline() {
        CliHarness s = CliHarness.runWithInput("{\"map\": \"(d0) -> (d0 mod 4), domain: d0 in [0, 3]\"}\n{\"map\": \"(d0 -> \"}\n",
                "simplify", "--batch");
        assertEquals(0, s.code(), s.err());
        String[] lines = s.out().split("\n");
        assertEquals("{\"map\":\"(d0) -> (d0), domain: d0 in [0, 3]\",\"empty\":false}", lines[0]);
        assertTrue(lines[1].startsWith("{\"error\":"), lines[1]);
        CliHarness c = CliHarness.runWithInput("{\"consumer\": \"(d0) -> (d0 + 1), domain: d0 in [0, 3]\", "
                + "\"producer\": \"(d0) -> (d0 * 2), domain: d0 in [0, 4]\"}\n{\"consumer\": \"(d0) -> (d0), domain: d0 in [0, 3]\"}\n",
                "compose", "--batch");
        String[] out = c.out().split("\n");
        assertEquals("{\"map\":\"(d0) -> (d0 * 2 + 2), domain: d0 in [0, 3]\"}", out[0]);
        assertTrue(out[1].startsWith("{\"error\":\"request needs"), out[1]);
    }

    @Test
    void batchAnswersTheRequestsAfterOneNestedTooDeeplyToProcess() {
        String deep = "(d0) -> (" + "(".repeat(20_000) + "d0" + ")".repeat(20_000) + "), domain: d0 in [0, 3]";
        String good = "{\"map\": \"(d0) -> (d0 mod 4), domain: d0 in [0, 3]\"}\n";
        CliHarness r = CliHarness.runWithInput(good + "{\"map\": \"" + deep + "\"}\n" + good, "simplify", "--batch");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertEquals(3, lines.length, r.out());
        assertEquals("{\"map\":\"(d0) -> (d0), domain: d0 in [0, 3]\",\"empty\":false}", lines[0]);
        // The message depends on which limit is hit first: the parser's own depth limit, or the thread's stack.
        assertTrue(lines[1].startsWith("{\"error\":\""), lines[1]);
        assertEquals(lines[0], lines[2]);
    }
}
