package dev.tensorbuf.views.internal;

import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.views.text.TextFormatException;

/**
 * Tokens of XLA shape text, produced on demand so that a shape can be read out of a longer
 * text (an HLO module) without lexing what follows it. Whitespace and {@code /*...*&#47;} and
 * {@code //} comments separate tokens; the printer itself writes {@code /*index=5*&#47;} into tuples.
 */
final class XlaShapeLexer {
    enum Kind { IDENT, INT, LBRACKET, RBRACKET, LBRACE, RBRACE, LPAREN, RPAREN, COMMA, COLON, STAR, HASH,
        LEQ, QUESTION, PLUS, TILDE, OTHER, EOF }

    /** A token: its kind, where it starts and ends, and for {@code INT} its value. */
    record Token(Kind kind, int start, int end, String text, long value) {
        String describe() {
            return kind == Kind.EOF ? "end of input" : "'" + text + "'";
        }
    }

    private final String input;

    XlaShapeLexer(String input) {
        this.input = input;
    }

    String input() {
        return input;
    }

    /** {@return the first token at or after {@code from}} */
    Token lex(int from) {
        int p = skipSpaceAndComments(from);
        if (p >= input.length()) {
            return new Token(Kind.EOF, p, p, "", 0);
        }
        char c = input.charAt(p);
        checkNotOtherDigit(p);
        if (Character.isLetter(c) || c == '_') {
            int e = p + 1;
            while (e < input.length() && isIdentPart(input.charAt(e))) {
                e++;
            }
            checkNotOtherDigit(e);
            return new Token(Kind.IDENT, p, e, input.substring(p, e), 0);
        }
        if (isDigit(c) || (c == '-' && p + 1 < input.length() && isDigit(input.charAt(p + 1)))) {
            int e = p + 1;
            while (e < input.length() && isDigit(input.charAt(e))) {
                e++;
            }
            checkNotOtherDigit(e);
            String text = input.substring(p, e);
            long value;
            try {
                value = Long.parseLong(text);
            } catch (NumberFormatException ex) {
                TextFormatException tooBig = new TextFormatException("integer " + text + " does not fit in 64 bits", input, p);
                tooBig.initCause(ex);
                throw tooBig;
            }
            return new Token(Kind.INT, p, e, text, value);
        }
        if (c == '<' && p + 1 < input.length() && input.charAt(p + 1) == '=') {
            return new Token(Kind.LEQ, p, p + 2, "<=", 0);
        }
        Kind k = switch (c) {
            case '[' -> Kind.LBRACKET;
            case ']' -> Kind.RBRACKET;
            case '{' -> Kind.LBRACE;
            case '}' -> Kind.RBRACE;
            case '(' -> Kind.LPAREN;
            case ')' -> Kind.RPAREN;
            case ',' -> Kind.COMMA;
            case ':' -> Kind.COLON;
            case '*' -> Kind.STAR;
            case '#' -> Kind.HASH;
            case '?' -> Kind.QUESTION;
            case '+' -> Kind.PLUS;
            case '~' -> Kind.TILDE;
            default -> Kind.OTHER;
        };
        int cp = input.codePointAt(p);
        return new Token(k, p, p + Character.charCount(cp), new String(Character.toChars(cp)), 0);
    }

    private int skipSpaceAndComments(int p) {
        while (p < input.length()) {
            char c = input.charAt(p);
            if (Character.isWhitespace(c)) {
                p++;
            } else if (input.startsWith("/*", p)) {
                int close = input.indexOf("*/", p + 2);
                if (close < 0) {
                    throw new TextFormatException("unterminated comment", input, p);
                }
                p = close + 2;
            } else if (input.startsWith("//", p)) {
                int nl = input.indexOf('\n', p);
                p = nl < 0 ? input.length() : nl + 1;
            } else {
                break;
            }
        }
        return p;
    }

    /** XLA reads ASCII digits only; {@code f32[３]} is refused naming the '３' rather than read as 3. */
    private void checkNotOtherDigit(int at) {
        AsciiDigits.require(input, at, Math.min(at + 1, input.length()),
                (problem, position) -> new TextFormatException(problem, input, position));
    }

    private static boolean isDigit(char c) {
        return AsciiDigits.isDigit(c);
    }

    private static boolean isIdentPart(char c) {
        return Character.isLetter(c) || isDigit(c) || c == '_';
    }
}
