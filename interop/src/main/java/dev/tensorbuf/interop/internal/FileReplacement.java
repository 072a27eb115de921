package dev.tensorbuf.interop.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a file so that it holds either its old content or the complete new one, never a part:
 * the new content goes into a hidden {@code .NAME.*.part} file beside the file and is renamed over
 * it once written. A writer that fails half-way (a closed arena, a full disk) leaves the old file
 * as it was and no {@code .part} file behind. {@link dev.tensorbuf.interop.Npy#write}, {@link dev.tensorbuf.interop.SafetensorsFile#write} and
 * {@code tensorbuf convert} all write through here.
 *
 * <p>What the old file was is kept: a symbolic link is written through (the link stays, its
 * target gets the new content; the {@code .part} file is made beside the target, so the rename
 * stays within one file system), the existing file's permission bits carry over (a new file gets
 * the default mode, as {@code open(2)} would give it), and a file the caller may not write is
 * refused with {@link AccessDeniedException} before anything is written, as opening it for
 * writing would be. The folder must be writable too, as for creating the file. Other names of a
 * hard-linked file keep the old content. A path that exists and is neither a regular file nor a
 * directory ({@code /dev/null}, a pipe) cannot be renamed over, so it is written directly.
 *
 * <p>Replacing a file of at least 32 MiB, its write-back starts while the new one is written
 * ({@link WriteBehind}): ext4 would otherwise do it all in the rename.
 *
 * <p>Failures name the path the caller gave, never the {@code .part} file: a
 * {@link FileSystemException} whose {@code getFile()} is that path, e.g.
 * {@code "/dev/full: No space left on device"}.
 * {@snippet :
 * FileReplacement.write(Path.of("x.bin"), where -> {
 *     try (FileChannel out = FileReplacement.open(where)) {
 *         out.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
 *     }
 * });   // x.bin now holds 1 2 3; had the writer thrown, x.bin would be as before
 * }
 */
public final class FileReplacement {
    /** Linux gives up on a chain of more links than this (ELOOP); so do we. */
    private static final int MAX_LINKS = 40;
    /** Keeps the hidden name within the 255 bytes most file systems allow for a name. */
    private static final int MAX_NAME_BYTES = 200;

    private FileReplacement() {
    }

    /** Writes the new content of a file. */
    @FunctionalInterface
    public interface Writer {
        /**
         * Writes the whole content to {@code where}, which exists (empty, or the device itself),
         * and returns once it is complete; {@link FileReplacement#open} opens it.
         *
         * @param where the file to write: the hidden {@code .part} file, or the device or pipe itself
         */
        void write(Path where) throws IOException;
    }

    /**
     * {@return a channel writing {@code where}, the file a {@link Writer} is handed} It is opened
     * for writing alone, not truncated: the {@code .part} file is new and empty (a device or pipe
     * has nothing to truncate), and truncating it makes ext4 write the whole file back as it is
     * closed (its {@code auto_da_alloc} for truncated files), 30-86 ms of the caller's time for
     * 200 MB (bench/RESULTS.md, "Convert end to end").
     */
    public static FileChannel open(Path where) throws IOException {
        return FileChannel.open(where, StandardOpenOption.WRITE);
    }

    /**
     * Readies, off the caller's thread, what replacing {@code file} will use, when {@code file} is
     * large enough to be written behind (see {@link #write}): a command that knows its output
     * before it has read its input calls this first. Does nothing for a missing or small file.
     */
    public static void prepare(Path file) {
        try {
            if (Files.isRegularFile(file) && Files.size(file) >= WriteBehind.MIN_REPLACED_BYTES) {
                WriteBehind.prepare();
            }
        } catch (IOException | SecurityException e) {
            // Nothing to prepare for: writing will say what is wrong with the file.
        }
    }

    /**
     * Runs {@code writer} on a hidden file beside {@code file} (or beside the target of the link
     * {@code file} is) and renames the result over it; see the class description.
     *
     * @throws AccessDeniedException naming {@code file} when it exists and may not be written
     * @throws FileSystemException naming {@code file} for any other failure to write it
     * @throws IOException as the writer throws, renamed to {@code file}
     */
    public static void write(Path file, Writer writer) throws IOException {
        Objects.requireNonNull(writer, "writer");
        BasicFileAttributes existing = attributes(file);
        if (existing != null && existing.isDirectory()) {
            throw new FileSystemException(file.toString(), null, "Is a directory");
        }
        if (existing != null && !existing.isRegularFile()) {
            // A device or pipe has nothing to rename over: its content is what is written to it.
            try {
                writer.write(file);
            } catch (IOException e) {
                throw named(e, file);
            }
            return;
        }
        Path target = resolveLinks(file);
        if (existing != null && !Files.isWritable(target)) {
            throw new AccessDeniedException(file.toString());
        }
        Path part = createPart(target, file);
        // A failure about the target (the rename) or the .part file is the caller's file's failure.
        try {
            // Over a large file, the rename would write back the whole new one in this thread.
            try (WriteBehind _ = WriteBehind.start(part, existing == null ? -1 : existing.size())) {
                writer.write(part);
            }
            if (existing != null) {
                keepPermissions(target, part);
            }
            Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw named(e, file, part, target);
        } finally {
            try {
                Files.deleteIfExists(part);
            } catch (IOException ignored) {
                // The failure that got us here, if any, says more than a .part file left behind.
            }
        }
    }

    /** {@return the file's attributes, links followed, or null when nothing is there (a dangling link included)} */
    private static BasicFileAttributes attributes(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw named(e, file);
        }
    }

    /**
     * {@return the path the content ends up at: {@code file} with every symbolic link of the chain
     * followed, absolute} A dangling link resolves to where it points, which writing creates.
     */
    private static Path resolveLinks(Path file) throws IOException {
        Path at = file.toAbsolutePath();
        for (int i = 0; i <= MAX_LINKS; i++) {
            Path folder = at.getParent();
            if (folder == null || !Files.isDirectory(folder)) {
                return at; // nothing to resolve; creating the .part file will say what is missing
            }
            // The folder's real path: a link's relative target, "../x" included, starts there, and the
            // .part file must sit on the target's file system for the rename.
            folder = folder.toRealPath();
            at = folder.resolve(at.getFileName());
            if (!Files.isSymbolicLink(at)) {
                return at;
            }
            at = folder.resolve(Files.readSymbolicLink(at));
        }
        throw new FileSystemException(file.toString(), null, "Too many levels of symbolic links");
    }

    /** Creates the empty hidden file beside {@code target}, with the mode a new file gets by default. */
    private static Path createPart(Path target, Path named) throws IOException {
        String name = target.getFileName().toString();
        int end = 0;
        for (int bytes = 0; end < name.length(); ) {
            int c = name.codePointAt(end);
            bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
            if (bytes > MAX_NAME_BYTES) {
                break;
            }
            end += Character.charCount(c);
        }
        String stem = "." + name.substring(0, end) + "." + ProcessHandle.current().pid() + ".";
        for (int attempt = 0; ; attempt++) {
            // The name needs no secret: CREATE_NEW refuses any file or link already there, and the
            // file is ours once made. A SecureRandom's first use cost 80 ms to 0.9 s in a fresh JVM
            // (its providers and seeding), more than a small convert's copy.
            Path part = target.resolveSibling(stem + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".part");
            try {
                Files.newByteChannel(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
                return part;
            } catch (FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw named(e, named, part);
                }
            } catch (IOException e) {
                throw named(e, named, part);
            }
        }
    }

    private static void keepPermissions(Path target, Path part) throws IOException {
        Set<PosixFilePermission> mode;
        try {
            mode = Files.getPosixFilePermissions(target);
        } catch (UnsupportedOperationException e) {
            return; // not a POSIX file system: there are no mode bits to keep
        } catch (NoSuchFileException e) {
            return; // removed while we wrote: the new file keeps the default mode
        }
        Files.setPosixFilePermissions(part, mode);
    }

    /**
     * {@return {@code e} as the caller sees it: about {@code file}} A failure about one of the
     * paths used on the way ({@code .part} file, link target), or one naming no file at all
     * ("No space left on device"), names {@code file} instead.
     */
    private static IOException named(IOException e, Path file, Path... internal) {
        String reason;
        if (e instanceof FileSystemException f) {
            boolean ours = f.getFile() == null || f.getFile().equals(file.toString())
                    || Arrays.stream(internal).anyMatch(p -> f.getFile().equals(p.toString()));
            if (!ours) {
                return e; // about another file altogether
            }
            reason = f.getReason();
        } else {
            reason = e.getMessage();
        }
        FileSystemException renamed = switch (e) {
            case AccessDeniedException a -> new AccessDeniedException(file.toString(), null, reason);
            case NoSuchFileException n -> new NoSuchFileException(file.toString(), null, reason);
            default -> new FileSystemException(file.toString(), null, reason == null ? e.getClass().getSimpleName() : reason);
        };
        renamed.initCause(e);
        return renamed;
    }
}
