package dev.tensorbuf.views.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class SuggestionsTest {

    @Test
    void distanceCountsTranspositionsAsOneEdit() {
        assertEquals(1, Suggestions.distance("dmeo", "demo"));
        assertEquals(3, Suggestions.distance("kitten", "sitting"));
        assertEquals(0, Suggestions.distance("", ""));
        assertEquals(4, Suggestions.distance("", "copy"));
    }

    @Test
    void suggestsOnlyWithinAThirdOfTheWord() {
        List<String> opcodes = List.of("transpose", "parameter", "reshape", "slice");
        assertEquals("transpose", Suggestions.closest("tranpose", opcodes));
        assertEquals(" (did you mean reshape?)", Suggestions.didYouMean("rehsape", opcodes, ""));
        // Two edits are always allowed, however short the word; three in a 6-letter word are not.
        assertEquals("slice", Suggestions.closest("slc", opcodes));
        assertNull(Suggestions.closest("frobnicate", opcodes));
        assertEquals("", Suggestions.didYouMean("abcdef", List.of("uvwxyz"), "--"));
        assertEquals(" (did you mean --json?)", Suggestions.didYouMean("jsn", List.of("json", "out"), "--"));
    }
}
