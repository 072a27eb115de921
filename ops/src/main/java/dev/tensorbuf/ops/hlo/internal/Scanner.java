package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.memory.internal.AsciiDigits;

/** Character-level helpers of the HLO reader: comments, strings, balanced brackets, value extents. */
final class Scanner {
    private Scanner() {
    }

    static boolean isNameChar(char c) {
        return Character.isLetter(c) || AsciiDigits.isDigit(c) || c == '_' || c == '.' || c == '-';
    }

    /**
     * {@return the text with every comment outside strings replaced by spaces (newlines kept)},
     * having refused any number character outside ASCII that is not in a string or comment
     */
    static String blankComments(String text, ErrorAt errors) {
        StringBuilder out = new StringBuilder(text);
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '"') {
                i = stringEnd(text, i, errors);
            } else if (text.startsWith("//", i)) {
                while (i < text.length() && text.charAt(i) != '\n') {
                    out.setCharAt(i++, ' ');
                }
            } else if (text.startsWith("/*", i)) {
                int end = text.indexOf("*/", i + 2);
                if (end < 0) {
                    throw errors.at("unterminated comment '/*'", i);
                }
                for (; i < end + 2; i++) {
                    if (text.charAt(i) != '\n') {
                        out.setCharAt(i, ' ');
                    }
                }
            } else if (AsciiDigits.isOtherDigit(text.codePointAt(i))) {
                // XLA reads ASCII digits only; strings and comments may hold any text.
                throw errors.at(AsciiDigits.notAsciiDigit(text, i), i);
            } else {
                i++;
            }
        }
        return out.toString();
    }

    /** {@return the position after the string that starts with the quote at {@code start}} */
    static int stringEnd(String text, int start, ErrorAt errors) {
        int i = start + 1;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\') {
                i += 2;
            } else if (c == '"') {
                return i + 1;
            } else {
                i++;
            }
        }
        throw errors.at("unterminated string", start);
    }

    /** {@return the position after the bracket that closes the one at {@code open}} */
    static int balancedEnd(String text, int open, ErrorAt errors) {
        StringBuilder stack = new StringBuilder();
        int i = open;
        while (i < text.length()) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> {
                    i = stringEnd(text, i, errors);
                    continue;
                }
                case '(', '{', '[' -> stack.append(c);
                case ')', '}', ']' -> {
                    char want = c == ')' ? '(' : c == '}' ? '{' : '[';
                    if (stack.isEmpty() || stack.charAt(stack.length() - 1) != want) {
                        throw errors.at("unbalanced '" + c + "'", i);
                    }
                    stack.setLength(stack.length() - 1);
                    if (stack.isEmpty()) {
                        return i + 1;
                    }
                }
                default -> { }
            }
            i++;
        }
        throw errors.at("unclosed '" + text.charAt(open) + "'", open);
    }

    /**
     * {@return the end of an attribute value starting at {@code start}: a balanced group, a string,
     * or a run of characters up to a top-level ',', ')', '}' or whitespace}
     */
    static int valueEnd(String text, int start, ErrorAt errors) {
        int i = start;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '{' || c == '(' || c == '[') {
                i = balancedEnd(text, i, errors);
            } else if (c == '"') {
                i = stringEnd(text, i, errors);
            } else if (Character.isWhitespace(c) && text.startsWith("mesh[", start)) {
                // jax 0.10's replica_groups=mesh['a'=2,'b'=2] {'a'}: the axes' braces follow a space.
                int j = i;
                while (j < text.length() && Character.isWhitespace(text.charAt(j))) {
                    j++;
                }
                return j < text.length() && text.charAt(j) == '{' ? balancedEnd(text, j, errors) : i;
            } else if (c == ',' || c == ')' || c == '}' || c == ']' || Character.isWhitespace(c)) {
                return i;
            } else {
                i++;
            }
        }
        return i;
    }
}
