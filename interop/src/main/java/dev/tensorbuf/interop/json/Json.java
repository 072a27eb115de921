package dev.tensorbuf.interop.json;

import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.views.internal.JsonStrings;
import dev.tensorbuf.views.text.TextFormatException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer for headers (safetensors) and the command line's {@code --json}
 * and {@code --batch} lines. Objects read as {@code LinkedHashMap} (key order kept), arrays as
 * {@code List}, integers as {@code Long} (or {@code BigInteger} past 64 bits), other numbers as
 * {@code Double}.
 *
 * {@snippet :
 * Object v = Json.parse("{\"shape\": [2, 3], \"dtype\": \"F32\"}");
 * Json.write(v); // {"shape":[2,3],"dtype":"F32"}
 * }
 *
 * <p>Reading is linear in the input and nests at most {@value #MAX_DEPTH} levels, so hostile
 * headers cannot exhaust the stack. Duplicate object keys are an error, as safetensors requires.
 */
public final class Json {
    /** The deepest nesting accepted. */
    public static final int MAX_DEPTH = 64;

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /**
     * Reads one JSON value that spans the whole text (surrounding whitespace allowed).
     *
     * @throws TextFormatException naming the problem and its position
     */
    public static Object parse(String text) {
        Json p = new Json(text);
        p.skipSpace();
        Object v = p.value(0);
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the JSON value");
        }
        return v;
    }

    /** Reads a JSON object; anything else is an error naming what was found. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) {
            throw new TextFormatException("expected a JSON object, found " + kind(v), text, 0);
        }
        return (Map<String, Object>) v;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("JSON nested deeper than " + MAX_DEPTH + " levels");
        }
        if (pos >= text.length()) {
            throw error("expected a JSON value, found the end of the text");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield number();
                }
                checkNotOtherDigit();
                throw error("expected a JSON value, found '" + c + "'");
            }
        };
    }

    private Map<String, Object> object(int depth) {
        pos++;
        Map<String, Object> map = new LinkedHashMap<>();
        skipSpace();
        if (peek() == '}') {
            pos++;
            return map;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                throw error("expected a quoted object key");
            }
            int keyPos = pos;
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            Object v = value(depth + 1);
            if (map.containsKey(key)) {
                throw new TextFormatException("duplicate key \"" + key + "\"", text, keyPos);
            }
            map.put(key, v);
            skipSpace();
            char c = peek();
            pos++;
            if (c == '}') {
                return map;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or '}' in an object");
            }
        }
    }

    private List<Object> array(int depth) {
        pos++;
        List<Object> list = new ArrayList<>();
        skipSpace();
        if (peek() == ']') {
            pos++;
            return list;
        }
        while (true) {
            skipSpace();
            list.add(value(depth + 1));
            skipSpace();
            char c = peek();
            pos++;
            if (c == ']') {
                return list;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or ']' in an array");
            }
        }
    }

    private String string() {
        int start = pos;
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                int bad = unpairedSurrogate(sb);
                if (bad >= 0) {
                    // A \uD800 escape alone names no character; safetensors' own reader refuses it too.
                    pos = start;
                    throw error(String.format("unpaired surrogate \\u%04x in a string", (int) sb.charAt(bad)));
                }
                return sb.toString();
            }
            if (c < 0x20) {
                pos--;
                throw error("control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    int cp = 0;
                    for (int i = 0; i < 4; i++) {
                        int d = hexDigit(text.charAt(pos++));
                        if (d < 0) {
                            pos--;
                            throw error("bad hex digit in \\u escape");
                        }
                        cp = cp * 16 + d;
                    }
                    sb.append((char) cp);
                }
                default -> {
                    pos--;
                    throw error("unknown escape '\\" + e + "'");
                }
            }
        }
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        int firstDigit = pos;
        if (!digits()) {
            throw error("expected digits in a number");
        }
        if (text.charAt(firstDigit) == '0' && pos - firstDigit > 1) {
            pos = firstDigit;
            throw error("a number may not start with 0 followed by digits");
        }
        boolean integral = true;
        if (peek() == '.') {
            integral = false;
            pos++;
            if (!digits()) {
                throw error("expected digits after '.'");
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!digits()) {
                throw error("expected digits in an exponent");
            }
        }
        String s = text.substring(start, pos);
        if (integral) {
            BigInteger big = new BigInteger(s);
            return big.bitLength() < 64 ? (Object) big.longValue() : big;
        }
        try {
            double d = new BigDecimal(s).doubleValue();
            // BigDecimal has no negative zero, and Python writes -0.0 for it (the sign of a float's zero is data).
            return d == 0 && s.charAt(0) == '-' ? -0.0 : d;
        } catch (NumberFormatException e) {
            // BigDecimal keeps its exponent in an int: 1e99999999999 is valid JSON it cannot hold.
            pos = start;
            throw error("number " + s + " has an exponent beyond " + Integer.MAX_VALUE);
        }
    }

    private boolean digits() {
        int start = pos;
        while (pos < text.length() && AsciiDigits.isDigit(text.charAt(pos))) {
            pos++;
        }
        checkNotOtherDigit();
        return pos > start;
    }

    /** JSON's digits are ASCII: name a '３' or '٣' where a number goes rather than "expected digits". */
    private void checkNotOtherDigit() {
        if (pos < text.length() && AsciiDigits.isOtherDigit(text.codePointAt(pos))) {
            throw error(AsciiDigits.notAsciiDigit(text, pos));
        }
    }

    /** {@return the value of an ASCII hex digit, or -1}: {@link Character#digit} takes fullwidth ones too */
    private static int hexDigit(char c) {
        if (AsciiDigits.isDigit(c)) {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    private Object literal(String word, Object v) {
        if (!text.startsWith(word, pos)) {
            // "nul" is a cut-off null; "not json" is no misspelt null, just not JSON.
            int end = pos;
            while (end < text.length() && end - pos < 20 && Character.isLetterOrDigit(text.charAt(end))) {
                end++;
            }
            String found = text.substring(pos, Math.max(end, pos + 1));
            throw error(word.startsWith(found) ? "expected '" + word + "'"
                    : "expected a JSON value, found '" + found + "'");
        }
        pos += word.length();
        return v;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private TextFormatException error(String problem) {
        return new TextFormatException(problem, text, pos);
    }

    /** {@return what a parsed value is, for messages: "an object", "an array", "a string", "a number", ...} */
    public static String kind(Object v) {
        return switch (v) {
            case null -> "null";
            case Map<?, ?> m -> "an object";
            case List<?> l -> "an array";
            case String s -> "a string";
            case Boolean b -> "a boolean";
            default -> "a number";
        };
    }

    /**
     * Writes a value as compact JSON: maps (string keys), lists, {@code long[]}/{@code int[]},
     * strings, numbers, booleans and null. Non-finite doubles are written as null.
     *
     * @throws IllegalArgumentException for any other type
     */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object v) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> quote(sb, s);
            case Boolean b -> sb.append(b);
            case Double d -> sb.append(d.isNaN() || d.isInfinite() ? "null" : numberText(d));
            case Float f -> sb.append(f.isNaN() || f.isInfinite() ? "null" : numberText(f.doubleValue()));
            case Number n -> sb.append(n);
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    quote(sb, String.valueOf(e.getKey()));
                    sb.append(':');
                    write(sb, e.getValue());
                }
                sb.append('}');
            }
            case List<?> l -> {
                sb.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    write(sb, l.get(i));
                }
                sb.append(']');
            }
            case long[] a -> {
                sb.append('[');
                for (int i = 0; i < a.length; i++) {
                    sb.append(i > 0 ? "," : "").append(a[i]);
                }
                sb.append(']');
            }
            case int[] a -> {
                sb.append('[');
                for (int i = 0; i < a.length; i++) {
                    sb.append(i > 0 ? "," : "").append(a[i]);
                }
                sb.append(']');
            }
            default -> throw new IllegalArgumentException("cannot write " + v.getClass().getName() + " as JSON");
        }
    }

    private static String numberText(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    /**
     * {@return the index of the first surrogate that is not half of a pair, or -1} Such a string
     * has no UTF-8 encoding, so it cannot be written as JSON.
     */
    public static int unpairedSurrogate(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    private static void quote(StringBuilder sb, String s) {
        int bad = unpairedSurrogate(s);
        if (bad >= 0) {
            throw new IllegalArgumentException(String.format("cannot write a string with an unpaired surrogate U+%04X"
                    + " at char %d as JSON: UTF-8 has no encoding for it", (int) s.charAt(bad), bad));
        }
        JsonStrings.quote(sb, s);
    }

}
