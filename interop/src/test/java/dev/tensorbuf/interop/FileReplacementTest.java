package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.tensorbuf.interop.internal.FileReplacement;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileReplacementTest {
    @TempDir
    Path dir;

    private static FileReplacement.Writer bytes(int... content) {
        byte[] b = new byte[content.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) content[i];
        }
        return where -> Files.write(where, b);
    }

    private List<String> leftovers(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".part")).toList();
        }
    }

    @Test
    void exampleFromJavadocReplacesTheContentWhole() throws IOException {
        Path file = dir.resolve("x.bin");
        Files.write(file, new byte[] {9, 9, 9, 9, 9});
        FileReplacement.write(file, bytes(1, 2, 3));
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(file));
        assertEquals(List.of(), leftovers(dir));
    }

    /**
     * The channel writers get leaves what is there: truncating even the empty .part file made ext4
     * write the whole file back as it closed. A file with bytes in it shows whether it truncates.
     */
    @Test
    void openForAWriterDoesNotTruncate() throws IOException {
        Path file = dir.resolve("kept.bin");
        Files.write(file, new byte[] {1, 2, 3});
        try (var channel = FileReplacement.open(file)) {
            assertEquals(3, channel.size());
            channel.write(java.nio.ByteBuffer.wrap(new byte[] {9}));
        }
        assertArrayEquals(new byte[] {9, 2, 3}, Files.readAllBytes(file));
    }

    @Test
    void aWriterThatFailsLeavesTheOldFileAndNoPartFile() throws IOException {
        Path file = dir.resolve("x.bin");
        Files.write(file, new byte[] {7, 7});
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> FileReplacement.write(file, where -> {
            Files.write(where, new byte[] {1});
            throw new IllegalStateException("Already closed");
        }));
        assertEquals("Already closed", closed.getMessage());
        assertArrayEquals(new byte[] {7, 7}, Files.readAllBytes(file));
        assertEquals(List.of(), leftovers(dir));

        // An I/O failure that names no file (a full disk) is reported against the file, not the .part file.
        FileSystemException full = assertThrows(FileSystemException.class, () -> FileReplacement.write(file, where -> {
            throw new IOException("No space left on device");
        }));
        assertEquals(file.toString(), full.getFile());
        assertEquals(file + ": No space left on device", full.getMessage());
        assertArrayEquals(new byte[] {7, 7}, Files.readAllBytes(file));
        assertEquals(List.of(), leftovers(dir));
    }

    @Test
    void aLinkIsWrittenThroughAndStaysALink() throws IOException {
        Path real = Files.createDirectory(dir.resolve("real"));
        Path target = real.resolve("t.bin");
        Files.write(target, new byte[] {1});
        Path links = Files.createDirectory(dir.resolve("links"));
        Path link = Files.createSymbolicLink(links.resolve("l.bin"), Path.of("../real/t.bin"));
        // A link to the link: the whole chain is followed.
        Path outer = Files.createSymbolicLink(dir.resolve("outer.bin"), link);
        Path[] seen = new Path[1];
        FileReplacement.write(outer, where -> {
            seen[0] = where;
            Files.write(where, new byte[] {4, 5});
        });
        assertTrue(Files.isSymbolicLink(outer) && Files.isSymbolicLink(link));
        assertArrayEquals(new byte[] {4, 5}, Files.readAllBytes(target));
        // Built beside the target, where the rename stays on one file system.
        assertEquals(real.toRealPath(), seen[0].getParent());
        assertTrue(seen[0].getFileName().toString().startsWith(".t.bin."), seen[0].toString());

        // A dangling link makes its target.
        Path dangling = Files.createSymbolicLink(dir.resolve("d.bin"), real.resolve("new.bin"));
        FileReplacement.write(dangling, bytes(6));
        assertTrue(Files.isSymbolicLink(dangling));
        assertArrayEquals(new byte[] {6}, Files.readAllBytes(real.resolve("new.bin")));
        assertEquals(List.of(), leftovers(real));
    }

    @Test
    void theExistingFilesPermissionsAreKeptAndANewFileGetsTheDefault() throws IOException {
        Path file = dir.resolve("m.bin");
        Files.write(file, new byte[] {1});
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        FileReplacement.write(file, bytes(2));
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));

        Path plain = Files.createFile(dir.resolve("plain.bin"));
        Path fresh = dir.resolve("fresh.bin");
        FileReplacement.write(fresh, bytes(3));
        assertEquals(Files.getPosixFilePermissions(plain), Files.getPosixFilePermissions(fresh),
                "a new file has the mode open(2) gives one under the umask, not a temporary file's 0600");
    }

    @Test
    void aWriteProtectedFileIsRefusedBeforeTheWriterRuns() throws IOException {
        Path file = dir.resolve("ro.bin");
        Files.write(file, new byte[] {1});
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
        assumeFalse(Files.isWritable(file), "this user (root?) may write a write-protected file, so nothing is refused");
        boolean[] ran = {false};
        AccessDeniedException e = assertThrows(AccessDeniedException.class, () -> FileReplacement.write(file, where -> {
            ran[0] = true;
        }));
        assertEquals(file.toString(), e.getFile());
        assertFalse(ran[0]);
        assertArrayEquals(new byte[] {1}, Files.readAllBytes(file));
    }

    @Test
    void failuresNameTheFileNotThePartFile() {
        Path missing = dir.resolve("nope/x.bin");
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> FileReplacement.write(missing, bytes(1)));
        assertEquals(missing.toString(), e.getFile());
        FileSystemException folder = assertThrows(FileSystemException.class, () -> FileReplacement.write(dir, bytes(1)));
        assertEquals(dir + ": Is a directory", folder.getMessage());
    }

    @Test
    void aNameAsLongAsTheFileSystemAllowsStillGetsItsPartFile() throws IOException {
        for (String name : List.of("x".repeat(255), "\u00e9".repeat(127))) {
            Path file = dir.resolve(name);
            FileReplacement.write(file, bytes(1));
            FileReplacement.write(file, bytes(2));
            assertArrayEquals(new byte[] {2}, Files.readAllBytes(file));
        }
        assertEquals(List.of(), leftovers(dir));
    }

    @Test
    void aDeviceIsWrittenDirectly() throws IOException {
        Path[] seen = new Path[1];
        FileReplacement.write(Path.of("/dev/null"), where -> {
            seen[0] = where;
            Files.write(where, new byte[] {1});
        });
        assertEquals(Path.of("/dev/null"), seen[0]);
        Path full = Path.of("/dev/full");
        if (Files.exists(full)) {
            FileSystemException e = assertThrows(FileSystemException.class, () -> FileReplacement.write(full, bytes(1)));
            assertInstanceOf(IOException.class, e.getCause());
            assertEquals("/dev/full: No space left on device", e.getMessage());
        }
    }
}
