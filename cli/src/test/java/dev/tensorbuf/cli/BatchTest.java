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
                "{\"error\":\"expected a JSON object, found an array at position 0 of '[1]'\"}"), r.lines());
    }

    @Test
    void singularOptionNamesSuggestTheirPluralKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BatchRequest.of(Map.of("index", List.of()), List.of("shape", "indices", "offsets")));
        assertEquals("unknown request key 'index' (did you mean indices?); keys: shape, indices, offsets", e.getMessage());
    }

    @Test
    void nullCountsAsAbsentAndLongValuesAreShortenedInMessages() {
        BatchRequest r = BatchRequest.of(new HashMap<>(Collections.singletonMap("s", null)), List.of("s"));
        assertNull(r.string("s"));
        assertFalse(r.flag("s"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BatchRequest.of(Map.of("s", "a".repeat(100)), List.of("s")).longs("s"));
        assertEquals("request key \"s\" must be a list of 64-bit integers, got \"" + "a".repeat(39) + "...", e.getMessage());
    }
}
