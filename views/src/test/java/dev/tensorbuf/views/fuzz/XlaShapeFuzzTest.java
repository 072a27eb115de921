package dev.tensorbuf.views.fuzz;

import dev.tensorbuf.testing.FuzzChecks;
import static dev.tensorbuf.testing.FuzzChecks.assertRoundTrip;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptions;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.XlaShape;

/**
 * Fuzzes XLA shape text ({@code f32[2,3]{1,0:T(2,2)}}, tuples, buffers) and, through it, layout
 * text. Seeds and findings: {@code src/test/resources/dev/tensorbuf/views/fuzz/XlaShapeFuzzTestInputs/}.
 */
class XlaShapeFuzzTest {
    @FuzzTest
    void shapeTextParsesOrFailsCleanlyAndRoundTrips(byte[] data) {
        String text = FuzzChecks.text(data);
        expectOnlyDocumentedExceptions(text, () -> {
            XlaShape shape = XlaShape.parse(text);
            String printed = shape.toString();
            assertRoundTrip(shape, printed, XlaShape.parse(printed));
            XlaShape.parse(shape.toStringWithoutLayout());
            if (shape instanceof ArrayShape a && a.layout().isPresent()) {
                XlaLayout layout = a.layout().get();
                assertRoundTrip(layout, layout.toString(), XlaLayout.parse(layout.toString()));
            }
            shape.byteSizeOfElementsRecursive();
            shape.byteSizeOf(8);
        });
        expectOnlyDocumentedExceptions(text, () -> XlaLayout.parse(text));
    }
}
