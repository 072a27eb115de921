package dev.tensorbuf.interop.fuzz;

import dev.tensorbuf.testing.FuzzChecks;
import static dev.tensorbuf.testing.FuzzChecks.assertRoundTrip;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptions;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.interop.json.Json;

/**
 * Fuzzes the JSON reader the CLI and the safetensors header use: a document either parses or
 * fails with IllegalArgumentException, and what parses writes out as text that parses and writes to the same text.
 * Seeds and findings: {@code src/test/resources/dev/tensorbuf/interop/fuzz/JsonFuzzTestInputs/}.
 */
class JsonFuzzTest {
    @FuzzTest
    void jsonParsesOrFailsCleanlyAndRoundTrips(byte[] data) {
        String text = FuzzChecks.text(data);
        expectOnlyDocumentedExceptions(text, () -> {
            Object value = Json.parse(text);
            String written = Json.write(value);
            // Writing is lossy on purpose (2.0 writes as 2, 1e999 as null), so the written text is
            // the fixed point: it must parse and write to itself.
            assertRoundTrip(written, written, Json.write(Json.parse(written)));
        });
    }
}
