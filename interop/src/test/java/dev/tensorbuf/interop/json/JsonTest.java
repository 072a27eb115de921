package dev.tensorbuf.interop.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.text.TextFormatException;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonTest {
    @Test
    void exampleFromJavadoc() {
        Object v = Json.parse("{\"shape\": [2, 3], \"dtype\": \"F32\"}");
        assertEquals("{\"shape\":[2,3],\"dtype\":\"F32\"}", Json.write(v));
    }

    @Test
    void readsEveryKindOfValue() {
        Map<String, Object> m = Json.parseObject(
                " {\"a\": -12, \"b\": 1.5e2, \"c\": [true, false, null], \"d\": \"q\\\"\\u00e9\\n\", \"e\": {}} ");
        assertEquals(-12L, m.get("a"));
        assertEquals(150.0, m.get("b"));
        assertEquals(java.util.Arrays.asList(true, false, null), m.get("c"));
        assertEquals("q\"\u00e9\n", m.get("d"));
        assertEquals(Map.of(), m.get("e"));
    }

    @Test
    void negativeZeroKeepsItsSign() {
        // Python's json writes ml_dtypes' -0.0 as "-0.0"; a reader that made it +0.0 would hide a sign bit.
        assertEquals(-0.0, Json.parse("-0.0"));
        assertEquals(-0.0, Json.parse("-0e5"));
        assertEquals(0.0, Json.parse("0.0"));
        assertEquals(0L, Json.parse("-0"));
    }

    @Test
    void integersPastSixtyFourBitsStayExact() {
        assertEquals(new BigInteger("18446744073709551616"), Json.parse("18446744073709551616"));
        assertEquals(Long.MIN_VALUE, Json.parse("-9223372036854775808"));
    }

    @Test
    void writesStringsWithEscapesAndArrays() {
        assertEquals("[\"a\\\"b\\\\\\n\\u0001\",[1,2],[3]]",
                Json.write(List.of("a\"b\\\n\u0001", new long[] {1, 2}, new int[] {3})));
        assertEquals("[null,2,0.5]", Json.write(List.of(Double.NaN, 2.0, 0.5)));
        // A pair is one character (U+1F600) and round-trips; half of one has no UTF-8 form.
        assertEquals("\ud83d\ude00", Json.parse(Json.write("\ud83d\ude00")));
        assertEquals("\ud83d\ude00", Json.parse("\"\\ud83d\\ude00\""));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.write(List.of("x\ud83d")));
        assertEquals("cannot write a string with an unpaired surrogate U+D83D at char 1 as JSON: UTF-8 has no encoding"
                + " for it", e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"a\":1,\"a\":2}|duplicate key \"a\" at position 7",
        "[1,2|expected ',' or ']' in an array at position 4",
        "{\"a\" 1}|expected ':' at position 5",
        "\"abc|unterminated string at position 4",
        "[1] x|unexpected text after the JSON value at position 4",
        "-|expected digits in a number at position 1",
        "tru|expected 'true' at position 0",
        "not json|expected a JSON value, found 'not' at position 0",
        "\"\\q\"|unknown escape '\\q' at position 2",
        "[\"a\\ud800\"]|unpaired surrogate \\ud800 in a string at position 1",
        "\"\\udc00\\ud800\"|unpaired surrogate \\udc00 in a string at position 0",
        "|expected a JSON value, found the end of the text at position 0",
    })
    void malformedTextNamesTheProblemAndPosition(String text, String message) {
        TextFormatException e = assertThrows(TextFormatException.class, () -> Json.parse(text == null ? "" : text));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }

    /** JSON's digits are ASCII (RFC 8259); Java's BigInteger would read each of these as its value. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "[３]|'３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit at position 1",
        "{\"shape\": [2, -٣]}|'٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit at position 15",
        "[1३]|'३' (U+0969 DEVANAGARI DIGIT THREE) is not an ASCII digit at position 2",
        "[1.5e²]|'²' (U+00B2 SUPERSCRIPT TWO) is not an ASCII digit at position 5",
        "\"\\u００e9\"|bad hex digit in \\u escape at position 3",
    })
    void nonAsciiDigitsAreRefusedNamingTheCharacterAndPosition(String text, String message) {
        TextFormatException e = assertThrows(TextFormatException.class, () -> Json.parse(text));
        assertEquals(message + " of '" + text + "'", e.getMessage());
    }

    @Test
    void deepNestingIsRefusedNotAStackOverflow() {
        String deep = "[".repeat(100_000);
        TextFormatException e = assertThrows(TextFormatException.class, () -> Json.parse(deep));
        assertTrue(e.getMessage().startsWith("JSON nested deeper than 64 levels"), e.getMessage());
    }

    @Test
    void parseObjectRefusesOtherValues() {
        TextFormatException e = assertThrows(TextFormatException.class, () -> Json.parseObject("[1]"));
        assertTrue(e.getMessage().startsWith("expected a JSON object, found an array"), e.getMessage());
    }
}
