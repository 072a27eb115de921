package dev.tensorbuf.interop.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@code \\uXXXX} escapes take the ASCII hex digits of either case, and nothing either side of them. */
class JsonEscapesTest {
    @Test
    void hexDigitsOfEitherCaseUpToF() {
        assertEquals("\u00af\u00af\u0af0\u0909", Json.parse("\"\\u00af\\u00AF\\u0aF0\\u0909\""));
        assertEquals("\uabcd\uABCD\uFEDC", Json.parse("\"\\uabcd\\uABCD\\ufedc\""));
        assertEquals("\u1234", Json.parse("\"\\u1234\""));
    }

    @Test
    void charactersNextToTheHexRangesAreRefused() {
        // '`' and 'g' sit just outside a-f, '@' and 'G' just outside A-F, '/' and ':' outside 0-9.
        for (String bad : new String[] {"\\u00`0", "\\u00g0", "\\u00@0", "\\u00G0", "\\u00/0", "\\u00:0"}) {
            assertThrows(IllegalArgumentException.class, () -> Json.parse("\"" + bad + "\""), bad);
        }
    }
}
