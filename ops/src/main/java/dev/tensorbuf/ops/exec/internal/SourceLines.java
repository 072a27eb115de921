package dev.tensorbuf.ops.exec.internal;

import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * Finds the line an instruction is defined on, for error messages: the parsed module keeps no
 * positions, so the text is searched for {@code [ROOT] [%]name =}, in the ENTRY computation first.
 */
public final class SourceLines {
    private static final SourceLines NONE = new SourceLines(null);

    private final String[] lines;
    private final int entryLine;

    private SourceLines(String text) {
        this.lines = text == null ? new String[0] : text.split("\n", -1);
        int entry = 0;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].stripLeading().startsWith("ENTRY")) {
                entry = i;
                break;
            }
        }
        this.entryLine = entry;
    }

    /** {@return the lines of {@code text}} */
    public static SourceLines of(String text) {
        return new SourceLines(text);
    }

    /** {@return lines for a module given without its text: every lookup is empty} */
    public static SourceLines none() {
        return NONE;
    }

    /**
     * {@return the 1-based line defining {@code name} inside computation {@code computation}, if
     * found} Names are unique per computation only: a called computation may reuse an entry name.
     */
    public OptionalInt lineOf(String computation, String name) {
        Pattern header = Pattern.compile("^\\s*(?:ENTRY\\s+)?%?" + Pattern.quote(computation) + "[\\s({]");
        Pattern p = Pattern.compile("^\\s*(?:ROOT\\s+)?%?" + Pattern.quote(name) + "\\s*=");
        for (int i = 0; i < lines.length; i++) {
            if (header.matcher(lines[i]).find()) {
                for (int k = i + 1; k < lines.length && !lines[k].strip().equals("}"); k++) {
                    if (p.matcher(lines[k]).find()) {
                        return OptionalInt.of(k + 1);
                    }
                }
            }
        }
        return lineOf(name);
    }

    /** {@return the 1-based line defining {@code name}, if found} */
    public OptionalInt lineOf(String name) {
        Pattern p = Pattern.compile("^\\s*(?:ROOT\\s+)?%?" + Pattern.quote(name) + "\\s*=");
        for (int pass = 0; pass < 2; pass++) {
            for (int i = pass == 0 ? entryLine : 0; i < lines.length; i++) {
                if (p.matcher(lines[i]).find()) {
                    return OptionalInt.of(i + 1);
                }
            }
        }
        return OptionalInt.empty();
    }
}
