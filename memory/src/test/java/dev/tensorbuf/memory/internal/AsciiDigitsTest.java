package dev.tensorbuf.memory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AsciiDigitsTest {

    @Test
    void exampleFromJavadoc() {
        assertTrue(AsciiDigits.isDigit('3'));
        assertFalse(AsciiDigits.isDigit('３'));
        assertEquals(4, AsciiDigits.find("[0, ３]", 0, 6));
        assertEquals("'３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit", AsciiDigits.notAsciiDigit('３'));
    }

    @Test
    void onlyAsciiDigitsAreDigits() {
        for (int c = 0; c < 0x10000; c++) {
            assertEquals(c >= '0' && c <= '9', AsciiDigits.isDigit(c), "U+" + Integer.toHexString(c));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "３ | '３' (U+FF13 FULLWIDTH DIGIT THREE)",
        "٣ | '٣' (U+0663 ARABIC-INDIC DIGIT THREE)",
        "३ | '३' (U+0969 DEVANAGARI DIGIT THREE)",
        "³ | '³' (U+00B3 SUPERSCRIPT THREE)",
        "₃ | '₃' (U+2083 SUBSCRIPT THREE)",
        "½ | '½' (U+00BD VULGAR FRACTION ONE HALF)",
        "Ⅲ | 'Ⅲ' (U+2162 ROMAN NUMERAL THREE)",
        "𝟑 | '𝟑' (U+1D7D1 MATHEMATICAL BOLD DIGIT THREE)",
    })
    void otherNumberCharactersAreFoundAndNamed(String c, String described) {
        String text = "12" + c + "4";
        assertTrue(AsciiDigits.isOtherDigit(c.codePointAt(0)));
        assertEquals(2, AsciiDigits.find(text, 0, text.length()));
        assertEquals(-1, AsciiDigits.find(text, 0, 2));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> AsciiDigits.require(text, 0,
                text.length(), (problem, at) -> new IllegalStateException(problem + " @" + at)));
        assertEquals(described + " is not an ASCII digit @2", e.getMessage());
    }

    @Test
    void lettersSignsAndAsciiAreNotOtherDigits() {
        for (char c : "09azAZ-+.,_ éßЖ中".toCharArray()) {
            assertFalse(AsciiDigits.isOtherDigit(c), String.valueOf(c));
        }
        AsciiDigits.require("f32[2,3]{1,0} é", 0, 15, (p, at) -> new IllegalStateException(p));
    }
}
