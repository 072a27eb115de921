package dev.tensorbuf.cli;

import dev.tensorbuf.memory.AllocationLimitException;
import dev.tensorbuf.ops.hlo.internal.HloSyntaxException;
import dev.tensorbuf.views.text.TextFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * What a failed command (or one {@code --batch} request) tells the user: an exit code and one
 * line. {@link Main} and {@link Batch} both map exceptions here, so a failure reads the same
 * whether it ends the run or fills one batch line.
 *
 * <p>Messages quote the input they are about, which may be a 40 KB map or module. Here, and only
 * here, such echoes are cut to {@value #ECHO_CHARS} characters, saying how many were left out:
 * text a parser quotes ({@link TextFormatException}, the line of an {@link HloSyntaxException})
 * is shown around the position named, so the pointer still points somewhere visible; the
 * command's own arguments and request strings are cut wherever they appear. What is wrong and
 * where is never cut. A message that is still over {@value #MAX_CHARS} characters (an echo
 * that is not the input as written, e.g. a normalised map) keeps its start and its end.
 *
 * {@snippet :
 * Failure.of(new IllegalArgumentException("index 7 out of bounds [0, 4)"));
 * // Failure[exitCode=2, message=index 7 out of bounds [0, 4)]
 * Failure.of(new OutOfMemoryError("cannot reserve 4000000000000 bytes ..."));
 * // Failure[exitCode=2, message=not enough memory: cannot reserve 4000000000000 bytes ...]
 * Failure.of(new TextFormatException("expected ')'", "(d0" + ", d0".repeat(10_000), 40_003)).message();
 * // "expected ')' at position 40003 of '(39803 characters before) ..., d0, d0, ..., d0'": the last 200 characters
 * Failure.of(new UsageException("unexpected argument '" + "x".repeat(300) + "'"), List.of("x".repeat(300))).message();
 * // "unexpected argument 'xxx...x... (100 more characters)'" (200 x's kept)
 * }
 *
 * @param exitCode 2 for bad input (including input too big or too deep to process), 1 for an internal error
 * @param message one line: no line breaks or other control characters, valid UTF-16, at most
 *        {@value #MAX_CHARS} characters and a note of what was left out
 */
record Failure(int exitCode, String message) {
    /** Exit code for input the command cannot use. */
    static final int BAD_INPUT = 2;
    /** Exit code for a defect in tensorbuf. */
    static final int INTERNAL = 1;
    /** The most characters of one echoed input a message shows. */
    static final int ECHO_CHARS = 200;
    /** The most characters of a whole message, left out in the middle when longer. */
    static final int MAX_CHARS = 1000;

    Failure {
        message = capped(oneLine(message));
    }

    /** {@return whether the failure is a defect in tensorbuf rather than bad input} */
    boolean internal() {
        return exitCode == INTERNAL;
    }

    /** {@return the failure {@code t} stands for} */
    static Failure of(Throwable t) {
        return of(t, List.of());
    }

    /**
     * {@return the failure {@code t} stands for, each of {@code inputs} (what the user typed:
     * arguments, request strings) cut to {@value #ECHO_CHARS} characters where the message quotes it}
     */
    static Failure of(Throwable t, Collection<String> inputs) {
        String m = t.getMessage() == null ? null : echoesCut(t, t.getMessage(), inputs);
        return switch (t) {
            case UsageException e -> bad(m);
            // Checked before IllegalStateException would fall through to "internal": a pool limit is a resource limit.
            case AllocationLimitException e -> bad("not enough memory: " + m);
            case IllegalArgumentException e -> bad(m);
            case IndexOutOfBoundsException e -> bad(m);
            // The allocator's message names the request ("cannot reserve N bytes ..."); asking for more than
            // the machine has is a property of the input, not a defect.
            case OutOfMemoryError e -> bad(m == null ? "not enough memory" : "not enough memory: " + m);
            // The parsers recurse per nesting level; input past what the thread's stack holds is too deep to process.
            case StackOverflowError e -> bad("input nested too deeply to process");
            case UncheckedIOException e -> of(e.getCause(), inputs);
            case IOException e -> bad(echoesCut(e, describe(e), inputs));
            default -> new Failure(INTERNAL, "internal error: " + echoesCut(t, t.toString(), inputs)
                    + (System.getenv("TENSORBUF_DEBUG") == null
                            ? " (rerun with TENSORBUF_DEBUG=1 for the stack trace, and please report it)" : ""));
        };
    }

    /**
     * {@return {@code message} with the input it quotes cut down} A parser's own quote of its
     * input is cut around the position it names; then every long one of {@code inputs} is cut to
     * its start wherever it appears.
     */
    static String echoesCut(Throwable t, String message, Collection<String> inputs) {
        if (t instanceof TextFormatException e && e.input() != null) {
            String input = e.input();
            int at = Math.clamp(e.position(), 0, input.length());
            // The whole input (TextFormatException's own message) or the line holding the
            // position (HloSyntaxException's), whichever the message quotes.
            int lineStart = input.lastIndexOf('\n', at - 1) + 1;
            int lineEnd = input.indexOf('\n', lineStart);
            int[][] spans = {{0, input.length()}, {lineStart, lineEnd < 0 ? input.length() : lineEnd}};
            for (int[] span : spans) {
                String quoted = "'" + input.substring(span[0], span[1]) + "'";
                int q = message.lastIndexOf(quoted);
                if (q >= 0) {
                    message = message.substring(0, q) + "'" + around(input.substring(span[0], span[1]), at - span[0])
                            + "'" + message.substring(q + quoted.length());
                    break;
                }
            }
        }
        List<String> longest = inputs.stream().filter(in -> in.length() > ECHO_CHARS)
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
        for (String input : longest) {
            message = message.replace(input, clip(input));
        }
        return message;
    }

    /** {@return {@code text} cut to its first {@value #ECHO_CHARS} characters, saying how many more there were} */
    static String clip(String text) {
        if (text.length() <= ECHO_CHARS) {
            return text;
        }
        int end = cutPoint(text, ECHO_CHARS);
        return text.substring(0, end) + "... (" + (text.length() - end) + " more characters)";
    }

    /**
     * {@return {@code text} cut to {@value #ECHO_CHARS} characters that show position {@code at}}
     * The start when {@code at} is near it, else a window with {@code at} in its middle, saying
     * how many characters come before and after it.
     */
    static String around(String text, int at) {
        if (text.length() <= ECHO_CHARS || at < ECHO_CHARS * 3 / 4) {
            return clip(text);
        }
        int from = cutPoint(text, Math.min(at - ECHO_CHARS / 2, text.length() - ECHO_CHARS));
        int to = cutPoint(text, from + ECHO_CHARS);
        return "(" + from + " characters before) ..." + text.substring(from, to)
                + (to < text.length() ? "... (" + (text.length() - to) + " more characters)" : "");
    }

    /** {@return {@code i}, or one less when it would split a surrogate pair} */
    private static int cutPoint(String text, int i) {
        return i > 0 && i < text.length() && Character.isLowSurrogate(text.charAt(i))
                && Character.isHighSurrogate(text.charAt(i - 1)) ? i - 1 : i;
    }

    /** The last resort for echoes not cut above: keep the start (what is wrong) and the end. */
    private static String capped(String message) {
        if (message.length() <= MAX_CHARS) {
            return message;
        }
        int head = cutPoint(message, MAX_CHARS * 6 / 10);
        int tail = cutPoint(message, message.length() - MAX_CHARS * 3 / 10);
        return message.substring(0, head) + " ... (" + (tail - head) + " characters left out) ... "
                + message.substring(tail);
    }

    private static Failure bad(String message) {
        return new Failure(BAD_INPUT, message == null ? "bad input" : message);
    }

    /**
     * A path the user named that the system refuses is bad input; the message names the path and
     * what is wrong with it (the JDK's own messages are often the bare path). Uncut, so that
     * {@link #of(Throwable, Collection)} finds the path as typed and cuts it like any input.
     */
    static String describe(IOException e) {
        return switch (e) {
            case NoSuchFileException n -> missing(n.getFile());
            case AccessDeniedException a -> "permission denied: " + a.getFile();
            case FileAlreadyExistsException x -> x.getFile() + " already exists";
            // "FILE: reason", e.g. "x.npy: Is a directory" or "xxx...: File name too long".
            case FileSystemException f -> f.getReason() == null ? "cannot use " + f.getFile() : f.getMessage();
            case CharacterCodingException c -> "not valid UTF-8 text";
            default -> "I/O error: " + e.getMessage();
        };
    }

    /**
     * Says which part of a missing path is missing: a whole folder, or the file in it. A dangling
     * link is followed, so the message names what its target lacks and the link it came through.
     */
    static String missing(String file) {
        if (file == null) {
            return "no such file";
        }
        try {
            Path path = Path.of(file);
            Path target = path;
            // At most 40 links, as Linux follows; a loop fails earlier, as "too many levels of symbolic links".
            for (int i = 0; i < 40 && Files.isSymbolicLink(target); i++) {
                target = target.resolveSibling(Files.readSymbolicLink(target));
            }
            if (!target.equals(path)) {
                return missingAt(target.toString(), file + ", a link to " + target, file + " is a link to it");
            }
        } catch (IOException | RuntimeException e) {
            // Unreadable link, or a name the file system cannot hold: say what we can of the name itself.
        }
        return missingAt(file, file, null);
    }

    /** @param folderFor what a missing folder is for; @param fileNote said after a missing file, or null */
    private static String missingAt(String file, String folderFor, String fileNote) {
        Path parent;
        try {
            parent = Path.of(file).toAbsolutePath().getParent();
        } catch (RuntimeException e) {
            return "no such file: " + file;
        }
        if (parent != null && !Files.isDirectory(parent)) {
            Path named = Path.of(file).getParent();
            return "no such folder: " + (named == null ? parent : named) + " (for " + folderFor + ")";
        }
        return "no such file: " + file + (fileNote == null ? "" : " (" + fileNote + ")");
    }

    /**
     * {@return {@code text} on one line} Line breaks and other control characters (quoted file
     * headers carry them) are escaped as in JSON, so a message never spans lines or moves the
     * terminal's cursor: C0 but tab, DEL, and C1 (U+0080 to U+009F, which some terminals take as
     * escape sequences: U+009B is CSI); a lone surrogate, which has no UTF-8 form, becomes U+FFFD.
     * {@code inspect} prints file-supplied names through it too.
     */
    static String oneLine(String text) {
        StringBuilder sb = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                sb.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                sb.append('\uFFFD');
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if ((c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
