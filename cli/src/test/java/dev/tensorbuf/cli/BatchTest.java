package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The {@code --batch} loop itself: every line answered, in order, whatever a request throws. */
class BatchTest {
    /** The exit code and output lines of a batch run. */
    private record Run(int code, List<String> lines) {}

    /** Runs {@link Batch#run} over {@code input}, with "x" the one request key. */
    private static Run run(String input, Function<BatchRequest, Object> handler) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            Invocation in = new Invocation(new SimplifyCommand(), List.of(), Map.of("batch", List.of("true")),
                    new BufferedReader(new StringReader(input)), o, o);
            int code = Batch.run(in, List.of("x"), handler);
            return new Run(code, out.toString(StandardCharsets.UTF_8).lines().toList());
        }
    }

    /** Answers {"x": N} with {"y": N}, or throws what request N asks for. */
    private static Object throwing(BatchRequest r) {
        return switch (r.integer("x")) {
            case 1 -> throw new StackOverflowError();
            case 2 -> throw new OutOfMemoryError("cannot reserve 4000000000000 bytes aligned to 1 for arena");
            case 3 -> throw new NullPointerException("bug");
            case 4 -> throw new IllegalArgumentException("bad value");
            default -> Map.of("y", (long) r.integer("x"));
        };
    }

    @Test
    void everyKindOfFailureGetsItsLineAndTheLoopGoesOn() throws IOException {
        Run r = run("{\"x\": 0}\n{\"x\": 1}\n{\"x\": 2}\n{\"x\": 4}\n{\"x\": 5}\n", BatchTest::throwing);
        assertEquals(List.of("{\"y\":0}",
                "{\"error\":\"input nested too deeply to process\"}",
                "{\"error\":\"not enough memory: cannot reserve 4000000000000 bytes aligned to 1 for arena\"}",
                "{\"error\":\"bad value\"}",
                "{\"y\":5}"), r.lines());
        assertEquals(0, r.code(), "bad input, too deep and too big are per-request data");
    }

    @Test
    void internalErrorIsAnsweredInPlaceAndMakesTheExitCodeOne() throws IOException {
        Run r = run("{\"x\": 3}\n{\"x\": 7}\n", BatchTest::throwing);
        assertEquals(2, r.lines().size(), r.lines().toString());
        assertTrue(r.lines().get(0).startsWith("{\"error\":\"internal error: java.lang.NullPointerException: bug"),
                r.lines().get(0));
        assertEquals("{\"y\":7}", r.lines().get(1));
        assertEquals(1, r.code());
    }

    @Test
    void blankLinesAreAnsweredSoResultsPairWithRequests() throws IOException {
        Run r = run("{\"x\": 0}\n\n   \n{\"x\": 9}\n", BatchTest::throwing);
        assertEquals(List.of("{\"y\":0}",
                "{\"error\":\"blank line: expected a JSON request object\"}",
                "{\"error\":\"blank line: expected a JSON request object\"}",
                "{\"y\":9}"), r.lines());
    }

    @Test
    void unknownKeysAndWrongTypesAreNamed() throws IOException {
        Run r = run("{\"xx\": 1}\n{\"x\": \"1\"}\n{\"x\": 4294967296}\n[1]\n", BatchTest::throwing);
        assertEquals(List.of("{\"error\":\"unknown request key 'xx' (did you mean x?); keys: x\"}",
                "{\"error\":\"request key \\\"x\\\" must be a 32-bit integer, got \\\"1\\\"\"}",
                "{\"error\":\"request key \\\"x\\\" must be a 32-bit integer, got 4294967296\"}",
                "{\"error\":\"expected a JSON request object, found an array at position 0 of '[1]'\"}"), r.lines());
    }

    @Test
    void singularOptionNamesSuggestTheirPluralKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BatchRequest.of(Map.of("index", List.of()), List.of("shape", "indices", "offsets")));
        assertEquals("unknown request key 'index' (did you mean indices?); keys: shape, indices, offsets", e.getMessage());
    }

    @Test
    void linesThatAreNotJsonSaySoWithThePosition() throws IOException {
        Run r = run("not json\n{\"x\": nul}\n{\"x\": 1,}\n  7\n", BatchTest::throwing);
        assertEquals(List.of("{\"error\":\"line is not JSON: expected a JSON value, found 'not' at position 0 of 'not json'\"}",
                "{\"error\":\"line is not JSON: expected 'null' at position 6 of '{\\\"x\\\": nul}'\"}",
                "{\"error\":\"line is not JSON: expected a quoted object key at position 8 of '{\\\"x\\\": 1,}'\"}",
                "{\"error\":\"expected a JSON request object, found a number at position 2 of '  7'\"}"), r.lines());
    }

    @Test
    void wrongValuesAreQuotedAsWrittenNotAsJsonNormalisesThem() throws IOException {
        Run r = run("""
                {"x": [2.0]}
                {"x": [1e2, 3]}
                {"x": -0.0}
                {"\\u0078" : 1E+2 }
                """, BatchTest::throwing);
        assertEquals(List.of("{\"error\":\"request key \\\"x\\\" must be a 32-bit integer, got [2.0]\"}",
                "{\"error\":\"request key \\\"x\\\" must be a 32-bit integer, got [1e2, 3]\"}",
                "{\"error\":\"request key \\\"x\\\" must be a 32-bit integer, got -0.0\"}",
                "{\"error\":\"request key \\\"x\\\" must be a 32-bit integer, got 1E+2\"}"), r.lines());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BatchRequest.parse("{\"a\": [[1], \"]\"], \"sizes\": [2, 1e2]}", List.of("a", "sizes")).longs("sizes"));
        assertEquals("request key \"sizes\" must be a list of 64-bit integers, got [2, 1e2]", e.getMessage());
    }

    @Test
    void rawJsonExamplesFromJavadoc() {
        assertEquals("[2.0, 1e2]", RawJson.valueOf("{\"sizes\": [2.0, 1e2], \"dtype\": \"f32\"}", "sizes"));
        assertNull(RawJson.valueOf("{\"dtype\": \"f32\"}", "sizes"));
        assertEquals("{\"b\": [\"}\", {}]}", RawJson.valueOf("{ \"a\" : \"x\\\"y\" , \"b\": {\"b\": [\"}\", {}]} }", "b"));
        assertNull(RawJson.valueOf("{}", "b"));
    }

    @Test
    void nullIsAWrongTypeNotTheDefault() {
        BatchRequest r = BatchRequest.of(new HashMap<>(Collections.singletonMap("s", null)), List.of("s"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> r.string("s"));
        assertEquals("request key \"s\" must be a string, got null (leave the key out for its default)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> r.flag("s"));
        assertEquals("request key \"s\" must be true or false, got null (leave the key out for its default)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> r.longLists("s"));
        assertEquals("request key \"s\" must be a list of lists of 64-bit integers, got null (leave the key out for its default)",
                e.getMessage());
        BatchRequest absent = BatchRequest.of(Map.of(), List.of("s"));
        assertNull(absent.string("s"));
        assertFalse(absent.flag("s"));
        assertNull(absent.integer("s"));
        assertEquals(List.of(), absent.longLists("s"));
    }

    @Test
    void nullForARequiredKeyHasNoHintToLeaveItOut() {
        // Leaving out a key without a default only gets "request needs": the hint would go in a circle.
        Map<String, Object> request = new HashMap<>();
        request.put("shape", null);
        request.put("sizes", null);
        BatchRequest r = BatchRequest.of(request, List.of("shape", "sizes"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> r.requiredString("shape", "the shape text"));
        assertEquals("request key \"shape\" must be a string, got null", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> r.requiredLongs("sizes", "a list of integers"));
        assertEquals("request key \"sizes\" must be a list of 64-bit integers, got null", e.getMessage());
        BatchRequest absent = BatchRequest.of(Map.of(), List.of("sizes"));
        e = assertThrows(IllegalArgumentException.class, () -> absent.requiredLongs("sizes", "a list of integers"));
        assertTrue(e.getMessage().startsWith("request needs \"sizes\""), e.getMessage());
    }

    @Test
    void examplesFromBatchRequestJavadoc() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BatchRequest.parse(
                "{\"sizes\": [2, 3], \"stride\": [0, 1]}", List.of("dtype", "sizes", "strides")));
        assertEquals("unknown request key 'stride' (did you mean strides?); keys: dtype, sizes, strides", e.getMessage());
        BatchRequest r = BatchRequest.parse("{\"sizes\": [2.0], \"physical\": null}", List.of("sizes", "physical"));
        e = assertThrows(IllegalArgumentException.class, () -> r.longs("sizes"));
        assertEquals("request key \"sizes\" must be a list of 64-bit integers, got [2.0]", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> r.flag("physical"));
        assertEquals("request key \"physical\" must be true or false, got null (leave the key out for its default)",
                e.getMessage());
    }

    @Test
    void longValuesAreShortenedInMessages() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BatchRequest.of(Map.of("s", "a".repeat(100)), List.of("s")).longs("s"));
        assertEquals("request key \"s\" must be a list of 64-bit integers, got \"" + "a".repeat(39) + "...", e.getMessage());
    }
}
