package dev.tensorbuf.interop.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.text.TextFormatException;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reader's and writer's edges, where mutation testing found nothing pinned: the positions
 * errors point at, the last character of a cut-off text, the largest long, exponents with a sign,
 * and the writer's switch to exponent notation.
 */
class JsonEdgesTest {

    private static TextFormatException refused(String text) {
        return assertThrows(TextFormatException.class, () -> Json.parse(text));
    }

    @Test
    void errorsPointAtTheOffendingCharacter() {
        assertEquals(7, refused("{\"a\":1 \"b\":2}").position(), "the key with no ',' before it");
        assertEquals(7, refused("[1,2,3 4]").position());
        assertEquals(2, refused("\"a\u0001\"").position(), "the control character");
    }

    @Test
    void textCutOffInsideAStringIsNamedNotAnIndexError() {
        assertTrue(refused("\"ab\\").getMessage().startsWith("unterminated escape"));
        assertTrue(refused("\"\\u00").getMessage().startsWith("short \\u escape"));
        // Four hex digits end the text: the escape is whole, the string is not.
        assertTrue(refused("\"\\u0041").getMessage().startsWith("unterminated string"));
        assertEquals("A", Json.parse("\"\\u0041\""));
    }

    @Test
    void integersPastTheLargestLongStayExact() {
        assertEquals(Long.MAX_VALUE, Json.parse("9223372036854775807"));
        assertEquals(new BigInteger("9223372036854775808"), Json.parse("9223372036854775808"));
        assertEquals(Long.MIN_VALUE, Json.parse("-9223372036854775808"));
    }

    @Test
    void exponentsTakeASign() {
        assertEquals(1.0e-5, Json.parse("1e-5"));
        assertEquals(2000.0, Json.parse("2E+3"));
        assertEquals(List.of(1.5e-3, 4.0), Json.parse("[1.5e-3, 0.4e+1]"));
    }

    @Test
    void aWordThatIsNoLiteralIsQuotedUpToTwentyCharacters() {
        assertEquals("expected a JSON value, found 'nonsensewordthatgoes'",
                refused("[nonsensewordthatgoesonandon]").getMessage().replaceFirst(" at position.*", ""));
        assertEquals("expected 'null'", refused("[nul]").getMessage().replaceFirst(" at position.*", ""));
    }

    @Test
    void floatsAreWrittenAsDoublesAndNonFiniteOnesAsNull() {
        assertEquals("[1.5,null,null,null,3]",
                Json.write(List.of(1.5f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 3.0f)));
    }

    @Test
    void wholeNumbersBelowTenToTheFifteenAreWrittenAsIntegers() {
        assertEquals("999999999999999", Json.write(999_999_999_999_999.0));
        assertEquals("1.0E15", Json.write(1e15));
        assertEquals("-999999999999999", Json.write(-999_999_999_999_999.0));
    }

    @Test
    void anUnpairedSurrogateIsRefusedWhereverItIs() {
        for (String s : List.of("\uD800x", "x\uDC00", "x\uD800")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.write(s));
            assertTrue(e.getMessage().contains("unpaired surrogate"), e.getMessage());
        }
    }
}
