package dev.tensorbuf.views.text;

import java.io.Serial;

/**
 * Text that does not follow a format we read (XLA shape text, indexing-map text, HLO text),
 * with the input and the character position where reading stopped.
 *
 * {@snippet :
 * try {
 *     XlaShape.parse("f32[2,3]{1,0:T(2,}");
 * } catch (TextFormatException e) {
 *     e.position();   // 17
 *     e.problem();    // "expected a tile size or '*', found '}'"
 *     e.getMessage(); // "expected a tile size or '*', found '}' at position 17 of 'f32[2,3]{1,0:T(2,}'"
 * }
 * }
 */
public class TextFormatException extends IllegalArgumentException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String problem;
    private final String input;
    private final int position;

    /**
     * @param problem what was wrong, e.g. {@code "expected ']'"}
     * @param input the whole text being read
     * @param position the 0-based character position of the problem
     */
    public TextFormatException(String problem, String input, int position) {
        super(problem + " at position " + position + " of '" + input + "'");
        this.problem = problem;
        this.input = input;
        this.position = position;
    }

    /**
     * {@return what was wrong, without the position and the input} Callers that show long
     * inputs only in part (the command line caps what it echoes) rebuild the message from this,
     * {@link #position()} and {@link #input()}.
     */
    public String problem() {
        return problem;
    }

    /** {@return the whole text being read} */
    public String input() {
        return input;
    }

    /** {@return the 0-based character position where the problem was found} */
    public int position() {
        return position;
    }
}
