package dev.tensorbuf.interop.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code \\uXXXX} escapes take the ASCII hex digits of either case, and nothing either side of them;
 * whitespace may stand between any two tokens; nesting stops at {@link Json#MAX_DEPTH} levels.
 */
class JsonEscapesTest {
    @Test
    void whitespaceMayStandBetweenAnyTwoTokens() {
        assertEquals(Map.of(), Json.parse("{ }"));
        assertEquals(List.of(), Json.parse("[ ]"));
        assertEquals(Map.of("a", 1L, "b", List.of(1L, 2L), "c", true),
                Json.parseObject("{ \"a\" : 1 , \"b\" : [ 1 , 2 ] , \"c\" : true }"));
    }

    @Test
    void nestingStopsPastSixtyFourLevelsBelowTheTop() {
        assertEquals(List.of(), unwrap(Json.parse("[".repeat(65) + "]".repeat(65)), 64));
        var e = assertThrows(IllegalArgumentException.class, () -> Json.parse("[".repeat(66) + "]".repeat(66)));
        assertTrue(e.getMessage().startsWith("JSON nested deeper than 64 levels at position 65 "), e.getMessage());
        // In objects the innermost value is a level too: 64 objects around a number, not 65.
        assertEquals(1L, unwrapObjects(Json.parse("{\"a\":".repeat(64) + "1" + "}".repeat(64)), 64));
        e = assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\":".repeat(65) + "1" + "}".repeat(65)));
        assertTrue(e.getMessage().startsWith("JSON nested deeper than 64 levels at position 325 "), e.getMessage());
    }

    private static Object unwrapObjects(Object v, int levels) {
        for (int i = 0; i < levels; i++) {
            v = ((Map<?, ?>) v).get("a");
        }
        return v;
    }

    private static Object unwrap(Object v, int levels) {
        for (int i = 0; i < levels; i++) {
            v = ((List<?>) v).get(0);
        }
        return v;
    }

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
