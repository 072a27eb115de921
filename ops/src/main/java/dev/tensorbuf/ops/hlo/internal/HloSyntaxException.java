package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.views.text.TextFormatException;
import java.io.Serial;

/**
 * HLO module text that does not parse, with the 1-based line and column of the problem.
 *
 * <p>The message names the line and column first, then the problem, then the offending line,
 * because whole modules are too long to quote.
 *
 * {@snippet :
 * try {
 *     HloModule.parse("HloModule m\nENTRY e {\n  ROOT p = f32[2 parameter(0)\n}");
 * } catch (HloSyntaxException e) {
 *     e.line();       // 3
 *     e.column();     // 18
 *     e.getMessage();
 *     // "3:18: bad shape: expected ',' or ']' after a dimension size, found 'parameter' (line 3: '  ROOT p = f32[2 parameter(0)')"
 * }
 * }
 */
public final class HloSyntaxException extends TextFormatException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int line;
    private final int column;
    private final String problem;

    /**
     * @param problem what was wrong, e.g. {@code "expected '='"}
     * @param input the whole module text
     * @param position the 0-based character position of the problem
     */
    public HloSyntaxException(String problem, String input, int position) {
        super(problem, input, position);
        this.problem = problem;
        int l = 1;
        int lineStart = 0;
        for (int i = 0; i < Math.min(position, input.length()); i++) {
            if (input.charAt(i) == '\n') {
                l++;
                lineStart = i + 1;
            }
        }
        this.line = l;
        this.column = position - lineStart + 1;
    }

    /** {@return the 1-based line of the problem} */
    public int line() {
        return line;
    }

    /** {@return the 1-based column of the problem} */
    public int column() {
        return column;
    }

    /** {@return the problem without its location} */
    public String problem() {
        return problem;
    }

    @Override
    public String getMessage() {
        String text = input();
        int start = text.lastIndexOf('\n', Math.min(position(), text.length()) - 1) + 1;
        int end = text.indexOf('\n', start);
        String lineText = text.substring(start, end < 0 ? text.length() : end);
        return line + ":" + column + ": " + problem + " (line " + line + ": '" + lineText + "')";
    }
}
