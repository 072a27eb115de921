package dev.tensorbuf.cli;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.internal.Suggestions;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One {@code --batch} request, read strictly: every key must be one the command knows, and every
 * value must have the key's type, so a misspelt key or a mistyped value is an error naming it
 * instead of an answer to another question. JSON {@code null} is a value of the wrong type like
 * any other; a key left out gets its default. A wrongly typed value is quoted as the request
 * wrote it ({@code 2.0}, {@code 1e2}), not as JSON would normalise it.
 *
 * {@snippet :
 * BatchRequest.parse("{\"sizes\": [2, 3], \"stride\": [0, 1]}", List.of("dtype", "sizes", "strides"));
 * // throws: unknown request key 'stride' (did you mean strides?); keys: dtype, sizes, strides
 * BatchRequest r = BatchRequest.parse("{\"sizes\": [2.0], \"physical\": null}", List.of("sizes", "physical"));
 * r.longs("sizes");   // throws: request key "sizes" must be a list of 64-bit integers, got [2.0]
 * r.flag("physical"); // throws: request key "physical" must be true or false, got null (leave the key out for its default)
 * }
 */
final class BatchRequest {
    /** How much of a wrongly typed value a message quotes. */
    private static final int QUOTE_CHARS = 40;

    private final Map<String, Object> values;
    /** The request line, to quote values as written; null when built from parsed values. */
    private final String line;

    private BatchRequest(Map<String, Object> values, String line) {
        this.values = values;
        this.line = line;
    }

    /**
     * {@return the request on one input line, its keys checked against {@code keys}}
     *
     * @throws IllegalArgumentException when the line is not JSON or not an object (naming the
     *         position), or naming the first unknown key, the closest known one, and the known keys
     */
    static BatchRequest parse(String line, List<String> keys) {
        Object parsed;
        try {
            parsed = Json.parse(line);
        } catch (TextFormatException e) {
            throw notJson(e);
        }
        if (!(parsed instanceof Map)) {
            throw new TextFormatException("expected a JSON request object, found " + Json.kind(parsed), line,
                    line.length() - line.stripLeading().length());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> request = (Map<String, Object>) parsed;
        return checked(request, keys, line);
    }

    /**
     * {@return the request, its keys checked against {@code keys}}
     *
     * @throws IllegalArgumentException naming the first unknown key, the closest known one, and the known keys
     */
    static BatchRequest of(Map<String, Object> request, List<String> keys) {
        return checked(request, keys, null);
    }

    private static BatchRequest checked(Map<String, Object> request, List<String> keys, String line) {
        for (String key : request.keySet()) {
            if (!keys.contains(key)) {
                throw new IllegalArgumentException("unknown request key '" + key + "'" + didYouMean(key, keys)
                        + "; keys: " + String.join(", ", keys));
            }
        }
        return new BatchRequest(request, line);
    }

    private static TextFormatException notJson(TextFormatException e) {
        return new TextFormatException("line is not JSON: " + e.problem(), e.input(), e.position());
    }

    private static String didYouMean(String key, List<String> keys) {
        String hint = Suggestions.didYouMean(key, keys, "");
        if (!hint.isEmpty()) {
            return hint;
        }
        // The options are singular (--index, --offset) where the keys are plural (indices, offsets).
        for (String plural : List.of(key + "s", key + "es", key.replaceFirst("ex$", "ices"))) {
            if (keys.contains(plural)) {
                return " (did you mean " + plural + "?)";
            }
        }
        return "";
    }

    /**
     * {@return the value under {@code key}, or null when the key is absent}
     *
     * @param hasDefault whether leaving the key out asks for a default; a required key's caller
     *     says so when it is absent, and the hint to leave it out would only lead there
     * @throws IllegalArgumentException when the value is JSON null: absent is the only way to ask for a default
     */
    private Object present(String key, String expected, boolean hasDefault) {
        Object v = values.get(key);
        if (v == null && values.containsKey(key)) {
            throw new IllegalArgumentException(wrongType(key, expected, null).getMessage()
                    + (hasDefault ? " (leave the key out for its default)" : ""));
        }
        return v;
    }

    private Object present(String key, String expected) {
        return present(key, expected, true);
    }

    /** {@return the string under {@code key}, or null when absent} */
    String string(String key) {
        return string(key, true);
    }

    private String string(String key, boolean hasDefault) {
        Object v = present(key, "a string", hasDefault);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw wrongType(key, "a string", v);
    }

    /**
     * {@return the string under {@code key}}
     *
     * @param what says what the string holds, e.g. {@code "the shape text"}
     */
    String requiredString(String key, String what) {
        String s = string(key, false);
        if (s == null) {
            throw Errors.requestNeeds(key, what);
        }
        return s;
    }

    /** {@return the 32-bit integer under {@code key}, or null when absent} */
    Integer integer(String key) {
        Object v = present(key, "a 32-bit integer");
        if (v == null) {
            return null;
        }
        if (v instanceof Long l && l == l.intValue()) {
            return l.intValue();
        }
        throw wrongType(key, "a 32-bit integer", v);
    }

    /** {@return the 64-bit integer under {@code key}, or null when absent} */
    Long longValue(String key) {
        Object v = present(key, "a 64-bit integer");
        if (v == null || v instanceof Long) {
            return (Long) v;
        }
        throw wrongType(key, "a 64-bit integer", v);
    }

    /** {@return the boolean under {@code key}; false when absent} */
    boolean flag(String key) {
        Object v = present(key, "true or false");
        if (v == null || v instanceof Boolean) {
            return Boolean.TRUE.equals(v);
        }
        throw wrongType(key, "true or false", v);
    }

    /** {@return the list of 64-bit integers under {@code key}, or null when absent} */
    long[] longs(String key) {
        return longs(key, true);
    }

    /**
     * {@return the list of 64-bit integers under {@code key}}
     *
     * @param what says what the list holds, e.g. {@code "a list of integers"}
     */
    long[] requiredLongs(String key, String what) {
        long[] r = longs(key, false);
        if (r == null) {
            throw Errors.requestNeeds(key, what);
        }
        return r;
    }

    private long[] longs(String key, boolean hasDefault) {
        Object v = present(key, "a list of 64-bit integers", hasDefault);
        if (v == null) {
            return null;
        }
        long[] r = longsOrNull(v);
        if (r == null) {
            throw wrongType(key, "a list of 64-bit integers", v);
        }
        return r;
    }

    /** {@return the list of lists of 64-bit integers under {@code key}; empty when absent} */
    List<long[]> longLists(String key) {
        Object v = present(key, "a list of lists of 64-bit integers");
        if (v == null) {
            return List.of();
        }
        List<long[]> r = new ArrayList<>();
        if (v instanceof List<?> list) {
            for (Object entry : list) {
                long[] longs = longsOrNull(entry);
                if (longs == null) {
                    throw wrongType(key, "a list of lists of 64-bit integers", v);
                }
                r.add(longs);
            }
            return r;
        }
        throw wrongType(key, "a list of lists of 64-bit integers", v);
    }

    /** {@return the values, or null when {@code v} is not a list of integers that fit 64 bits} */
    private static long[] longsOrNull(Object v) {
        if (!(v instanceof List<?> list)) {
            return null;
        }
        long[] r = new long[list.size()];
        for (int i = 0; i < r.length; i++) {
            if (!(list.get(i) instanceof Long l)) {
                return null;
            }
            r[i] = l;
        }
        return r;
    }

    private IllegalArgumentException wrongType(String key, String expected, Object got) {
        // As written: JSON reads 2.0 and 1e2 as doubles that print as 2 and 100, which look valid.
        String text = line == null ? null : RawJson.valueOf(line, key);
        if (text == null) {
            text = Json.write(got);
        }
        if (text.length() > QUOTE_CHARS) {
            text = text.substring(0, QUOTE_CHARS) + "...";
        }
        return new IllegalArgumentException("request key \"" + key + "\" must be " + expected + ", got " + text);
    }
}
