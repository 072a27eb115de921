package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.tensorbuf.views.text.TextFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import dev.tensorbuf.views.XlaLayout.Tile;

/** Malformed shape text: each is refused with a {@link TextFormatException} naming the problem and its position. */
class XlaShapeParserErrorTest {

    static Stream<Arguments> malformedShapes() throws IOException {
        List<Arguments> cases = new ArrayList<>();
        try (InputStream in = XlaShapeParserErrorTest.class.getResourceAsStream("/xla/malformed-shapes.txt")) {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split("\\|", -1);
                cases.add(Arguments.of(parts[0], parts[1], Integer.parseInt(parts[2])));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "\"{0}\" -> {1} at {2}")
    @MethodSource("malformedShapes")
    void malformedShapeIsRefusedWithProblemAndPosition(String input, String problem, int position) {
        TextFormatException e = assertThrows(TextFormatException.class, () -> XlaShape.parse(input));
        assertTrue(e.getMessage().contains(problem), () -> "message '" + e.getMessage() + "' lacks '" + problem + "'");
        assertEquals(position, e.position(), () -> "position in " + e.getMessage());
        assertEquals(input, e.input());
    }

    @Test
    void atLeastFiftyMalformedShapesAreChecked() throws IOException {
        assertTrue(malformedShapes().count() >= 50);
    }

    @Test
    void nestingDeeperThanTheLimitIsRefusedNotAStackOverflow() {
        String input = "(".repeat(300) + "f32[]" + ")".repeat(300);
        TextFormatException e = assertThrows(TextFormatException.class, () -> XlaShape.parse(input));
        assertTrue(e.getMessage().contains("shape nesting deeper than 256 levels"), e.getMessage());
        assertEquals(256, e.position());
    }

    @Test
    void exampleFromTextFormatExceptionJavadoc() {
        TextFormatException e = assertThrows(TextFormatException.class, () -> XlaShape.parse("f32[2,3]{1,0:T(2,}"));
        assertEquals(17, e.position());
        assertEquals("expected a tile size or '*', found '}'", e.problem());
        assertEquals("expected a tile size or '*', found '}' at position 17 of 'f32[2,3]{1,0:T(2,}'", e.getMessage());
    }

    @Test
    void layoutTextErrorsCarryTheirPosition() {
        TextFormatException e = assertThrows(TextFormatException.class, () -> XlaLayout.parse("{1,0:T(8,128)}x"));
        assertEquals(14, e.position());
        assertTrue(e.getMessage().contains("expected end of input after the layout, found 'x'"), e.getMessage());
    }

    @Test
    void semanticErrorsFromTheValueApiAreIllegalArgumentExceptions() {
        IllegalArgumentException tile = assertThrows(IllegalArgumentException.class, () -> Tile.of(2, -2));
        assertTrue(tile.getMessage().startsWith("layout has invalid tiles"), tile.getMessage());
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class,
                () -> ArrayShape.of(DType.F32, 2, 3).withLayout(XlaLayout.of(0, 1, 2)));
        assertTrue(rank.getMessage().contains(
                "layout minor_to_major field contains 3 elements, but shape has 2 dimensions: {0, 1, 2}; shape: f32[2,3]"),
                rank.getMessage());
        IllegalArgumentException l = assertThrows(IllegalArgumentException.class,
                () -> XlaLayout.of(1, 0).withTailPaddingAlignment(0));
        assertEquals("layout tail_padding_alignment_in_elements field is <= 0: {0}", l.getMessage());
    }
}
