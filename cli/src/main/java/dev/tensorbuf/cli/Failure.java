package dev.tensorbuf.cli;

import dev.tensorbuf.memory.AllocationLimitException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * What a failed command (or one {@code --batch} request) tells the user: an exit code and one
 * line. {@link Main} and {@link Batch} both map exceptions here, so a failure reads the same
 * whether it ends the run or fills one batch line.
 *
 * {@snippet :
 * Failure.of(new IllegalArgumentException("index 7 out of bounds [0, 4)"));
 * // Failure[exitCode=2, message=index 7 out of bounds [0, 4)]
 * Failure.of(new OutOfMemoryError("cannot reserve 4000000000000 bytes ..."));
 * // Failure[exitCode=2, message=not enough memory: cannot reserve 4000000000000 bytes ...]
 * }
 *
 * @param exitCode 2 for bad input (including input too big or too deep to process), 1 for an internal error
 * @param message one line: no line breaks or other control characters, valid UTF-16
 */
record Failure(int exitCode, String message) {
    /** Exit code for input the command cannot use. */
    static final int BAD_INPUT = 2;
    /** Exit code for a defect in tensorbuf. */
    static final int INTERNAL = 1;

    Failure {
        message = oneLine(message);
    }

    /** {@return whether the failure is a defect in tensorbuf rather than bad input} */
    boolean internal() {
        return exitCode == INTERNAL;
    }

    /** {@return the failure {@code t} stands for} */
    static Failure of(Throwable t) {
        return switch (t) {
            case UsageException e -> bad(e.getMessage());
            // Checked before IllegalStateException would fall through to "internal": a pool limit is a resource limit.
            case AllocationLimitException e -> bad("not enough memory: " + e.getMessage());
            case IllegalArgumentException e -> bad(e.getMessage());
            case IndexOutOfBoundsException e -> bad(e.getMessage());
            // The allocator's message names the request ("cannot reserve N bytes ..."); asking for more than
            // the machine has is a property of the input, not a defect.
            case OutOfMemoryError e -> bad(e.getMessage() == null ? "not enough memory"
                    : "not enough memory: " + e.getMessage());
            // The parsers recurse per nesting level; input past what the thread's stack holds is too deep to process.
            case StackOverflowError e -> bad("input nested too deeply to process");
            case UncheckedIOException e -> of(e.getCause());
            case IOException e -> bad(describe(e));
            default -> new Failure(INTERNAL, "internal error: " + t
                    + (System.getenv("TENSORBUF_DEBUG") == null
                            ? " (rerun with TENSORBUF_DEBUG=1 for the stack trace, and please report it)" : ""));
        };
    }

    private static Failure bad(String message) {
        return new Failure(BAD_INPUT, message == null ? "bad input" : message);
    }

    /**
     * A path the user named that the system refuses is bad input; the message names the path and
     * what is wrong with it (the JDK's own messages are often the bare path).
     */
    private static String describe(IOException e) {
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

    /** Says which part of a missing path is missing: a whole folder, or the file in it. */
    static String missing(String file) {
        if (file == null) {
            return "no such file";
        }
        Path parent;
        try {
            parent = Path.of(file).toAbsolutePath().getParent();
        } catch (RuntimeException e) {
            return "no such file: " + file;
        }
        if (parent != null && !Files.isDirectory(parent)) {
            Path named = Path.of(file).getParent();
            return "no such folder: " + (named == null ? parent : named) + " (for " + file + ")";
        }
        return "no such file: " + file;
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
