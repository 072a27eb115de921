package dev.tensorbuf.cli;

import dev.tensorbuf.interop.json.Json;

/**
 * The source text of a top-level value in a JSON object that has already been read, so messages
 * quote a value as the user wrote it: {@link Json} keeps only the parsed value, and a double such
 * as {@code 2.0} or {@code 1e2} writes back as {@code 2} or {@code 100}.
 *
 * {@snippet :
 * RawJson.valueOf("{\"sizes\": [2.0, 1e2], \"dtype\": \"f32\"}", "sizes"); // "[2.0, 1e2]"
 * RawJson.valueOf("{\"dtype\": \"f32\"}", "sizes");                         // null
 * }
 */
final class RawJson {
    private RawJson() {}

    /**
     * {@return the text of the value under {@code key} in {@code object}, or null when the key is
     * absent} {@code object} must be one valid JSON object (it was parsed before), so this only
     * finds boundaries.
     */
    static String valueOf(String object, String key) {
        int i = space(object, 0) + 1; // past '{'
        while (true) {
            i = space(object, i);
            if (i >= object.length() || object.charAt(i) != '"') {
                return null; // '}': not there
            }
            int keyEnd = string(object, i);
            // Keys may hold escapes ("\u0073izes"): compare them decoded, as the parsed map has them.
            boolean match = key.equals(Json.parse(object.substring(i, keyEnd)));
            i = space(object, keyEnd) + 1; // past ':'
            int start = space(object, i);
            int end = value(object, start);
            if (match) {
                return object.substring(start, end);
            }
            i = space(object, end) + 1; // past ',' or '}'
        }
    }

    private static int space(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n' || s.charAt(i) == '\r')) {
            i++;
        }
        return i;
    }

    /** {@return the index after the string that starts with the quote at {@code i}} */
    private static int string(String s, int i) {
        i++;
        while (s.charAt(i) != '"') {
            i += s.charAt(i) == '\\' ? 2 : 1;
        }
        return i + 1;
    }

    /** {@return the index after the value that starts at {@code i}} */
    private static int value(String s, int i) {
        char c = s.charAt(i);
        if (c == '"') {
            return string(s, i);
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            while (true) {
                c = s.charAt(i);
                if (c == '"') {
                    i = string(s, i);
                    continue;
                }
                if (c == '{' || c == '[') {
                    depth++;
                } else if ((c == '}' || c == ']') && --depth == 0) {
                    return i + 1;
                }
                i++;
            }
        }
        while (i < s.length() && ",}] \t\n\r".indexOf(s.charAt(i)) < 0) {
            i++;
        }
        return i;
    }
}
