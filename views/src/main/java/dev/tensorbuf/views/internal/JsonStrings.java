package dev.tensorbuf.views.internal;

/**
 * The one escaping of a Java string as a JSON string, for every module that writes JSON: the
 * reader/writer in {@code interop.json} and the copy engine's plan explanations in {@code ops},
 * which cannot see {@code interop}. Quotes, backslashes and control characters are escaped;
 * everything else is written as it is. A caller that must refuse unpaired surrogates (which
 * UTF-8 cannot encode) checks before calling.
 */
public final class JsonStrings {
    private JsonStrings() {
    }

    /** Appends {@code s} to {@code sb} as a JSON string, quotes included. */
    public static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
