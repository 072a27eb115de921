package dev.tensorbuf.views.fuzz;

import dev.tensorbuf.testing.FuzzChecks;
import static dev.tensorbuf.testing.FuzzChecks.assertRoundTrip;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptions;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.views.indexing.IndexingMap;

/**
 * Fuzzes indexing-map text ({@code (d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]}):
 * parse, print, parse again, and simplify. Seeds and findings:
 * {@code src/test/resources/dev/tensorbuf/views/fuzz/IndexingMapFuzzTestInputs/}.
 */
class IndexingMapFuzzTest {
    @FuzzTest
    void mapTextParsesOrFailsCleanlyAndRoundTrips(byte[] data) {
        String text = FuzzChecks.text(data);
        expectOnlyDocumentedExceptions(text, () -> {
            IndexingMap map = IndexingMap.parse(text);
            assertPrintsAndReadsBack(map);
            assertPrintsAndReadsBack(map.simplify());
        });
    }

    /** A known-empty map prints as XLA does, {@code KNOWN EMPTY}, which keeps only that it is empty. */
    private static void assertPrintsAndReadsBack(IndexingMap map) {
        String printed = map.toString();
        IndexingMap reparsed = IndexingMap.parse(printed);
        if (map.isKnownEmpty()) {
            if (!reparsed.isKnownEmpty()) {
                throw new AssertionError("known-empty map printed as " + FuzzChecks.quote(printed) + " reads back as " + reparsed);
            }
            return;
        }
        // The printed text is canonical, so it is the round trip's fixed point. Comparing trees is
        // too strict: a product over a division by a variable, (x / d0) * d0 * d2, can group
        // differently when built from the text than when built by simplification, with the
        // same text and the same values (finding division-by-a-dimension-reads-back-as-...).
        assertRoundTrip(printed, printed, reparsed.toString());
    }
}
