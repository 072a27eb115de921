package dev.tensorbuf.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Checks on the paths a command is given, made before any work so that the message names the
 * path and what is actually wrong with it (the JDK reports a missing folder as the file missing,
 * and a directory as an unreadable file).
 *
 * {@snippet :
 * CliFiles.input(Path.of("/tmp"), null);          // throws: "/tmp is a directory, expected a file"
 * CliFiles.input(Path.of(""), null);              // throws: "the path is empty, expected a file"
 * CliFiles.outputFile(Path.of("/nope/o.npy"), null); // throws: "no such folder: /nope (for /nope/o.npy)"
 * }
 */
final class CliFiles {
    private CliFiles() {}

    /**
     * Checks that {@code file} is a regular file to read.
     *
     * @param role what names the file in the message, e.g. {@code "--arg p0"}, or null
     * @throws UsageException naming the file: empty, missing (or its folder), a directory, not a regular
     *     file, or what the system says (a name too long, a loop of links)
     */
    static void input(Path file, String role) {
        requireNonEmpty(file, role, "a file");
        refuseDash(file, role, "standard input, which only indexing reads (its module text); tensor files are mapped,"
                + " not streamed");
        BasicFileAttributes a = attributes(file, role);
        if (a != null && a.isRegularFile()) {
            return;
        }
        throw problem(role, a == null ? Failure.missing(file.toString())
                : a.isDirectory() ? file + " is a directory, expected a file"
                : file + " is not a regular file");
    }

    /**
     * Checks that {@code file} can be created or replaced: not a directory, in a folder that
     * exists. Existing devices and pipes ({@code /dev/stdout}) are allowed.
     *
     * @param role what names the file in the message, e.g. {@code "--out"}, or null
     * @throws UsageException naming the path and the problem
     */
    static void outputFile(Path file, String role) {
        requireNonEmpty(file, role, "a file name");
        refuseDash(file, role, "standard output, which a command writes only its report to (render's SVG: leave out"
                + " --out)");
        BasicFileAttributes a = attributes(file, role);
        if (a != null && a.isDirectory()) {
            throw problem(role, file + " is a directory, expected a file name");
        }
        Path parent = file.toAbsolutePath().getParent();
        if (a == null && parent != null) {
            BasicFileAttributes p = attributes(parent, role);
            if (p == null || !p.isDirectory()) {
                Path named = file.getParent() == null ? parent : file.getParent();
                throw problem(role, p == null ? "no such folder: " + named + " (for " + file + ")"
                        : named + " is not a folder (for " + file + ")");
            }
        }
    }

    /**
     * Makes sure {@code dir} is a folder: an existing one, or one made now in a folder that
     * exists. Only the last name is made, as {@code mkdir} makes it: a typo earlier in the path
     * ({@code --out /tmp/resluts/demo}) is refused, as {@link #outputFile} refuses it, rather than
     * creating a tree the user never asked for.
     *
     * @throws UsageException naming the path when it exists and is not a folder, or when its
     *     parent is missing or not a folder
     * @throws IOException if the system refuses to make it (permissions)
     */
    static void outputFolder(Path dir, String role) throws IOException {
        requireNonEmpty(dir, role, "a folder");
        refuseDash(dir, role, "standard output, which is not a folder");
        BasicFileAttributes a = attributes(dir, role);
        if (a != null) {
            if (!a.isDirectory()) {
                throw problem(role, dir + " is a file, expected a folder");
            }
            return;
        }
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null) {
            BasicFileAttributes p = attributes(parent, role);
            if (p == null || !p.isDirectory()) {
                Path named = dir.getParent() == null ? parent : dir.getParent();
                throw problem(role, p == null ? "no such folder: " + named + " (to make " + dir + " in)"
                        : named + " is not a folder (to make " + dir + " in)");
            }
        }
        Files.createDirectory(dir);
    }

    /**
     * Refuses an empty path: {@code Path.of("")} names the working directory, so without this an
     * empty argument reads as "is a directory", or writes into the working directory.
     *
     * @param expected what the path should have named, e.g. {@code "a file"}
     */
    static void requireNonEmpty(Path path, String role, String expected) {
        if (path.toString().isEmpty()) {
            throw problem(role, "the path is empty, expected " + expected);
        }
    }

    /**
     * Refuses {@code -}: by convention it is a stream, and taken as a path it read or wrote a file
     * named {@code -} while {@code indexing -} read standard input. {@code ./-} names such a file.
     *
     * @param stream what {@code -} would conventionally mean here, and why it does not
     */
    private static void refuseDash(Path path, String role, String stream) {
        if (path.toString().equals("-")) {
            throw problem(role, "'-' would be " + stream + "; give a path (./- for a file named -)");
        }
    }

    /** {@return the attributes of {@code path} (links followed), or null when there is nothing there} */
    private static BasicFileAttributes attributes(Path path, String role) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            // Files.exists would say "no" here; the system's reason ("File name too long") is the real one.
            // Uncut: a Failure's message is capped, and the cap would hide the path from the cut of long inputs.
            throw problem(role, Failure.describe(e));
        }
    }

    private static UsageException problem(String role, String message) {
        return new UsageException(role == null ? message : role + ": " + message);
    }

    /**
     * {@return the text of {@code file}, decoded as strict UTF-8}
     *
     * @throws IllegalArgumentException naming the file and the offset of the first byte that is not UTF-8
     */
    static String readUtf8(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length); // UTF-8 never decodes to more chars than bytes
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            throw new IllegalArgumentException(file + ": not valid UTF-8 text at byte " + in.position());
        }
        return out.flip().toString();
    }
}
