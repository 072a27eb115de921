package dev.tensorbuf.net.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.testing.DamagedFiles;
import dev.tensorbuf.testing.PythonPeer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Lz4Frames} against the frames pyarrow's LZ4 codec writes, and against damaged ones. */
class Lz4FramesTest {
    @TempDir
    Path dir;

    private static byte[] decode(byte[] frame, int size) {
        return Frames.decode(BufferCodec.LZ4_FRAME, frame, size);
    }

    @Test
    void decodesWhatPyarrowEncodes() throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow");
        List<String> cases = PythonPeer.runScript("/peers/lz4_peer.py", dir, "write", dir.toString()).lines().toList();
        assertEquals(8, cases.size(), cases.toString());
        for (String c : cases) {
            byte[] raw = Files.readAllBytes(dir.resolve(c + ".raw"));
            byte[] frame = Files.readAllBytes(dir.resolve(c + ".lz4"));
            assertArrayEquals(raw, decode(frame, raw.length), c);
            if (raw.length > 0) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(frame, raw.length - 1), c);
                assertTrue(e.getMessage().startsWith("the LZ4 frame holds more than the " + (raw.length - 1) + " bytes expected")
                        || e.getMessage().startsWith("the LZ4 frame holds " + raw.length + " bytes"), c + ": " + e.getMessage());
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(frame, raw.length + 1), c);
            assertTrue(e.getMessage().contains(" bytes, " + (raw.length + 1) + " expected"), c + ": " + e.getMessage());
        }
        // Damaged frames decode to the size asked for or are refused, never read or write outside.
        Random random = DamagedFiles.random("Lz4FramesTest.damaged");
        for (String c : List.of("period-3", "text", "small-ints", "one-byte")) {
            byte[] raw = Files.readAllBytes(dir.resolve(c + ".raw"));
            Frames.damagedDecodeToSizeOrAreRefused(c, BufferCodec.LZ4_FRAME, Files.readAllBytes(dir.resolve(c + ".lz4")),
                    raw.length, random);
        }
    }

    @Test
    void refusesWhatIsNotAFrameByName() {
        assertEquals("an LZ4 frame starts with the magic 0x184D2204",
                assertThrows(IllegalArgumentException.class, () -> decode(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 4)).getMessage());
        // A hand-made frame: flags 0x60 (version 01, independent blocks), 64 KiB blocks, one block
        // stored as is ("abc"), the end mark; 0x82 is the header checksum of 0x60 0x40.
        byte[] stored = {0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, (byte) 0x82, 3, 0, 0, (byte) 0x80, 'a', 'b', 'c', 0, 0, 0, 0};
        assertArrayEquals(new byte[] {'a', 'b', 'c'}, decode(stored, 3));
        // A compressed block of one literal then a match reaching 2 bytes back with 1 written.
        byte[] early = {0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, (byte) 0x82, 4, 0, 0, 0, 0x10, 'a', 2, 0, 0, 0, 0, 0};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(early, 10));
        assertEquals("an LZ4 match at byte 13 reaches 2 bytes back, before the start of the output (1 bytes written)", e.getMessage());
    }
}
