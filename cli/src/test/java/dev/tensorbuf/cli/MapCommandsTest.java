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
        assertEquals("{\"map\":\"(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]\",\"empty\":false}\n",
                r.out());
    }

    @Test
    void composeJsonSaysWhenEmptyAsSimplifyDoes() {
        // The consumer reads d0 + 10, beyond the producer's domain [0, 3]: no element is left.
        CliHarness r = CliHarness.run("compose", "(d0) -> (d0 + 10), domain: d0 in [0, 3]",
                "(d0) -> (d0), domain: d0 in [0, 3]", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"map\":\"KNOWN EMPTY\",\"empty\":true}\n", r.out());
        CliHarness text = CliHarness.run("compose", "(d0) -> (d0 + 10), domain: d0 in [0, 3]",
                "(d0) -> (d0), domain: d0 in [0, 3]");
        assertEquals("KNOWN EMPTY\n", text.out());
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
        assertEquals("{\"map\":\"(d0) -> (d0 * 2 + 2), domain: d0 in [0, 3]\",\"empty\":false}", out[0]);
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

    /** A 40 KB map with a mistake far in: one short line that still shows the mistake. */
    @Test
    void errorsAboutLongMapsShowTheMistakeNotTheWholeMap() {
        StringBuilder dims = new StringBuilder();
        StringBuilder domain = new StringBuilder();
        for (int i = 0; i < 2500; i++) {
            dims.append(i == 0 ? "" : ", ").append("d").append(i);
            domain.append(i == 0 ? "" : ", ").append("d").append(i).append(" in [0, 3]");
        }
        String map = "(" + dims + ") -> (" + dims + "), domain: " + domain;
        String bad = map.replace("d2000 in [0, 3]", "d2000 in [0, 3)");
        int position = bad.indexOf("3)") + 1;
        assertTrue(bad.length() > 40_000);
        CliHarness r = CliHarness.run("simplify", bad);
        assertEquals(2, r.code());
        String prefix = "tensorbuf simplify: expected ']' at position " + position + " of '(" + (position - 100)
                + " characters before) ...";
        assertTrue(r.err().startsWith(prefix), r.err());
        assertTrue(r.err().contains("d1999 in [0, 3], d2000 in [0, 3), d2001 in [0, 3]"), r.err());
        assertTrue(r.err().endsWith("... (" + (bad.length() - position - 100) + " more characters)'\n"), r.err());
        assertEquals(1, r.err().lines().count());
        assertTrue(r.err().length() < 350, r.err().length() + ": " + r.err());

        CliHarness json = CliHarness.run("simplify", bad, "--json");
        assertEquals(r.err().strip().substring("tensorbuf simplify: ".length()),
                dev.tensorbuf.interop.json.Json.parseObject(json.out().strip()).get("error"));

        CliHarness batch = CliHarness.runWithInput("{\"map\": \"" + bad + "\"}\n", "simplify", "--batch");
        assertEquals("{\"error\":\"" + r.err().strip().substring("tensorbuf simplify: ".length()) + "\"}\n", batch.out());

        CliHarness compose = CliHarness.run("compose", map, "(d0) -> (d0), domain: d0 in [0, 3]");
        assertEquals(2, compose.code());
        assertTrue(compose.err().startsWith("tensorbuf compose: cannot compose: the map applied first, (d0, d1, d2,"), compose.err());
        assertTrue(compose.err().contains("... (" + (map.length() - 200) + " more characters), has 2500 result(s)"
                + " but the map applied second, (d0) -> (d0), domain: d0 in [0, 3], has 1 dimension(s); the counts must be"
                + " equal"), compose.err());
    }
}
