package dev.tensorbuf.interop.internal;

import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.views.text.TextFormatException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the Python literal of a {@code .npy} header: dicts, tuples, lists, strings,
 * {@code True}/{@code False}/{@code None} and integers (Python 2's {@code 2L} too), what
 * {@code ast.literal_eval} accepts of that subset. Dicts read as {@code LinkedHashMap}, tuples as
 * {@link Tuple}, lists as {@code List}, integers as {@code Long} or {@code BigInteger}.
 *
 * <p>One pass over the text, nesting at most {@value #MAX_DEPTH} levels and integers of at most
 * {@value #MAX_DIGITS} digits, so a hostile header costs time linear in its length.
 */
public final class PyLiteral {
    /** The deepest nesting accepted. */
    public static final int MAX_DEPTH = 16;
    /** The longest integer accepted, in digits. */
    public static final int MAX_DIGITS = 40;

    /** A Python tuple, kept apart from a list because {@code shape} must be a tuple. */
    public record Tuple(List<Object> items) {
        /** Copies the items (nulls allowed: Python's None). */
        public Tuple {
            items = java.util.Collections.unmodifiableList(new ArrayList<>(items));
        }
    }

    private final String text;
    private final String context;
    private int pos;

    private PyLiteral(String text, String context) {
        this.text = text;
        this.context = context;
    }

    /**
     * Reads one literal spanning the whole text (surrounding whitespace allowed).
     *
     * @param context names the source in messages, e.g. the file name
     * @throws TextFormatException naming the problem and its position
     */
    public static Object parse(String text, String context) {
        PyLiteral p = new PyLiteral(text, context);
        p.skipSpace();
        Object value = p.value(0);
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the header's literal");
        }
        return value;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("literal nested deeper than " + MAX_DEPTH + " levels");
        }
        if (pos >= text.length()) {
            throw error("expected a value, found the end of the header");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> dict(depth);
            case '(' -> tuple(depth);
            case '[' -> list(depth);
            case '\'', '"' -> string();
            case 'u' -> {
                pos++;
                if (pos < text.length() && (text.charAt(pos) == '\'' || text.charAt(pos) == '"')) {
                    yield string();
                }
                pos--;
                throw error("expected a value, found 'u'");
            }
            case 'T' -> word("True", Boolean.TRUE);
            case 'F' -> word("False", Boolean.FALSE);
            case 'N' -> word("None", null);
            default -> {
                if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
                    yield integer();
                }
                checkNotOtherDigit();
                throw error("expected a value, found '" + c + "'");
            }
        };
    }

    private Map<Object, Object> dict(int depth) {
        pos++;
        Map<Object, Object> map = new LinkedHashMap<>();
        skipSpace();
        while (!peek('}')) {
            int keyAt = pos;
            Object key = value(depth + 1);
            if (!(key instanceof String)) {
                pos = keyAt;
                throw error("expected a string key");
            }
            skipSpace();
            expect(':');
            skipSpace();
            Object v = value(depth + 1);
            if (map.containsKey(key)) {
                pos = keyAt;
                throw error("duplicate key '" + key + "'");
            }
            map.put(key, v);
            skipSpace();
            if (peek(',')) {
                pos++;
                skipSpace();
            } else if (!peek('}')) {
                throw error("expected ',' or '}'");
            }
        }
        pos++;
        return map;
    }

    private Object tuple(int depth) {
        pos++;
        List<Object> items = new ArrayList<>();
        boolean sawComma = false;
        skipSpace();
        while (!peek(')')) {
            items.add(value(depth + 1));
            skipSpace();
            if (peek(',')) {
                sawComma = true;
                pos++;
                skipSpace();
            } else if (!peek(')')) {
                throw error("expected ',' or ')'");
            }
        }
        pos++;
        // "(7)" is 7 in parentheses, not a tuple, as in Python.
        return items.size() == 1 && !sawComma ? items.getFirst() : new Tuple(items);
    }

    private List<Object> list(int depth) {
        pos++;
        List<Object> items = new ArrayList<>();
        skipSpace();
        while (!peek(']')) {
            items.add(value(depth + 1));
            skipSpace();
            if (peek(',')) {
                pos++;
                skipSpace();
            } else if (!peek(']')) {
                throw error("expected ',' or ']'");
            }
        }
        pos++;
        return items;
    }

    private String string() {
        char quote = text.charAt(pos++);
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos);
            if (c == quote) {
                pos++;
                return sb.toString();
            }
            if (c == '\n' || c == '\r') {
                throw error("line break inside a string");
            }
            if (c != '\\') {
                sb.append(c);
                pos++;
                continue;
            }
            if (pos + 1 >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(pos + 1);
            pos += 2;
            switch (e) {
                case '\\', '\'', '"' -> sb.append(e);
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case '0' -> sb.append('\0');
                case 'x' -> sb.append((char) hex(2));
                case 'u' -> sb.append((char) hex(4));
                default -> {
                    pos -= 2;
                    throw error("unsupported escape '\\" + e + "'");
                }
            }
        }
    }

    private int hex(int digits) {
        if (pos + digits > text.length()) {
            throw error("expected " + digits + " hex digits");
        }
        int v = 0;
        for (int i = 0; i < digits; i++) {
            char c = text.charAt(pos);
            // Python's escapes take ASCII hex digits only; Character.digit takes fullwidth ones too.
            int d = AsciiDigits.isDigit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                throw error("expected a hex digit, found '" + text.charAt(pos) + "'");
            }
            v = v * 16 + d;
            pos++;
        }
        return v;
    }

    private Object word(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("expected a value, found '" + text.charAt(pos) + "'");
        }
        pos += word.length();
        return value;
    }

    private Object integer() {
        int start = pos;
        if (peek('-') || peek('+')) {
            pos++;
        }
        int digitsAt = pos;
        while (pos < text.length() && (isDigit(pos)
                || text.charAt(pos) == '_' && pos > digitsAt && isDigit(pos - 1) && pos + 1 < text.length() && isDigit(pos + 1))) {
            pos++; // Python allows one underscore between digits: 1_000
            if (pos - digitsAt > MAX_DIGITS) {
                throw error("integer longer than " + MAX_DIGITS + " digits");
            }
        }
        checkNotOtherDigit();
        if (pos == digitsAt) {
            throw error("expected a digit");
        }
        if (pos < text.length() && (text.charAt(pos) == '.' || text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            throw error("expected an integer, found a float");
        }
        String unsigned = text.substring(digitsAt, pos).replace("_", "");
        String digits = text.substring(start, digitsAt) + unsigned;
        if (unsigned.length() > 1 && unsigned.charAt(0) == '0' && unsigned.chars().anyMatch(c -> c != '0')) {
            pos = digitsAt;
            throw error("an integer with a leading zero, which Python does not read (write 2, not 02)");
        }
        if (peek('L') || peek('l')) {
            pos++;
        }
        BigInteger big = new BigInteger(digits.startsWith("+") ? digits.substring(1) : digits);
        return big.bitLength() < 64 ? (Object) big.longValueExact() : big;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error(pos < text.length() ? "expected '" + c + "', found '" + text.charAt(pos) + "'"
                    : "expected '" + c + "', found the end of the header");
        }
        pos++;
    }

    private boolean isDigit(int at) {
        return AsciiDigits.isDigit(text.charAt(at));
    }

    /** Python's integer literals are ASCII: {@code literal_eval} refuses '３' and '²', and so do we, naming it. */
    private void checkNotOtherDigit() {
        if (pos < text.length() && AsciiDigits.isOtherDigit(text.codePointAt(pos))) {
            throw error(AsciiDigits.notAsciiDigit(text, pos));
        }
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
                return;
            }
            pos++;
        }
    }

    private TextFormatException error(String problem) {
        return new TextFormatException(context + ": " + problem, text, pos);
    }
}
