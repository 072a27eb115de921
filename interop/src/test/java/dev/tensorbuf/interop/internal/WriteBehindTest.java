package dev.tensorbuf.interop.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replacing a large file starts its write-back while it is written (Linux, native access granted,
 * as the tests run); what the file holds afterwards is exactly what the writer wrote, whether the
 * write-behind ran or not, and a failed writer still leaves the old file.
 */
class WriteBehindTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    /** Writes {@code mib} MiB, byte {@code i} of MiB {@code m} being {@code (m * 7 + i) & 0xff}, pausing so a write-behind gets turns. */
    private static FileReplacement.Writer pattern(int mib) {
        return where -> {
            try (FileChannel out = FileReplacement.open(where)) {
                ByteBuffer chunk = ByteBuffer.allocateDirect(MIB);
                for (int m = 0; m < mib; m++) {
                    chunk.clear();
                    for (int i = 0; i < MIB; i++) {
                        chunk.put((byte) (m * 7 + i));
                    }
                    chunk.flip();
                    while (chunk.hasRemaining()) {
                        out.write(chunk);
                    }
                    if (m % 8 == 7) {
                        sleep(10);
                    }
                }
            }
        };
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void assertPattern(Path file, int mib) throws IOException {
        assertEquals((long) mib * MIB, Files.size(file));
        try (FileChannel in = FileChannel.open(file)) {
            ByteBuffer chunk = ByteBuffer.allocate(MIB);
            for (int m = 0; m < mib; m++) {
                chunk.clear();
                while (chunk.hasRemaining() && in.read(chunk) > 0) {
                    // read the whole MiB
                }
                for (int i = 0; i < MIB; i += 4093) {
                    assertEquals((byte) (m * 7 + i), chunk.get(i), "byte " + i + " of MiB " + m);
                }
            }
        }
    }

    private List<String> leftovers() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".part")).toList();
        }
    }

    @Test
    void aLargeFileReplacedIsWrittenBackWhileItIsWritten() throws IOException {
        assumeTrue(WriteBehind.enabled(), "write-behind needs Linux and native access for interop");
        Path file = dir.resolve("weights.bin");
        Files.write(file, new byte[(int) WriteBehind.MIN_REPLACED_BYTES]);
        long before = WriteBehind.callsMade();
        FileReplacement.write(file, pattern(64));
        assertPattern(file, 64);
        assertTrue(WriteBehind.callsMade() > before, "no write-back was started during 64 MiB of writes");
        assertEquals(List.of(), leftovers());
    }

    @Test
    void newAndSmallFilesAreLeftToTheRename() {
        Path part = dir.resolve("x.part");
        try (WriteBehind none = WriteBehind.start(part, -1)) {
            assertFalse(none.running());
        }
        try (WriteBehind small = WriteBehind.start(part, WriteBehind.MIN_REPLACED_BYTES - 1)) {
            assertFalse(small.running());
        }
    }

    @Test
    void aWriterFailingWhileWrittenBehindLeavesTheOldFile() throws IOException {
        Path file = dir.resolve("old.bin");
        byte[] old = new byte[(int) WriteBehind.MIN_REPLACED_BYTES];
        old[12345] = 42;
        Files.write(file, old);
        IOException thrown = assertThrows(IOException.class, () -> FileReplacement.write(file, where -> {
            pattern(40).write(where);
            throw new IOException("disk unplugged");
        }));
        assertEquals(file + ": disk unplugged", thrown.getMessage());
        assertArrayEquals(old, Files.readAllBytes(file));
        assertEquals(List.of(), leftovers());
    }

    @Test
    void aPartFileThatIsGoneEndsTheThreadQuietly() throws InterruptedException {
        assumeTrue(WriteBehind.enabled(), "write-behind needs Linux and native access for interop");
        try (WriteBehind gone = WriteBehind.start(dir.resolve("never-made.part"), Long.MAX_VALUE)) {
            assertTrue(gone.running());
            for (int i = 0; i < 500 && !gone.gaveUp(); i++) {
                Thread.sleep(10);
            }
            assertTrue(gone.gaveUp(), "the thread kept going without a file to open");
        }
    }
}
