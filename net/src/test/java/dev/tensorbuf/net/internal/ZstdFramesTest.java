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

/** {@link ZstdFrames} against the frames pyarrow's Zstandard codec writes, and against damaged ones. */
class ZstdFramesTest {
    @TempDir
    Path dir;

    private static byte[] decode(byte[] frame, int size) {
        return Frames.decode(BufferCodec.ZSTD, frame, size);
    }

    private static String raw(String c) {
        return c.substring(0, c.indexOf('.')) + ".raw";
    }

    @Test
    void decodesWhatPyarrowEncodesAtEveryLevel() throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow");
        List<String> cases = PythonPeer.runScript("/peers/zstd_peer.py", dir, "write", dir.toString()).lines().toList();
        assertEquals(55, cases.size(), cases.toString());
        for (String c : cases) {
            byte[] raw = Files.readAllBytes(dir.resolve(raw(c)));
            byte[] frame = Files.readAllBytes(dir.resolve(c + ".zst"));
            assertArrayEquals(raw, decode(frame, raw.length), c);
            if (raw.length > 0) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(frame, raw.length - 1), c);
                assertTrue(e.getMessage().contains("bytes, where " + (raw.length - 1) + " are left")
                        || e.getMessage().contains("more than the " + (raw.length - 1) + " bytes expected"), c + ": " + e.getMessage());
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(frame, raw.length + 1), c);
            assertTrue(e.getMessage().contains(" bytes, " + (raw.length + 1) + " expected"), c + ": " + e.getMessage());
        }
        // Damaged frames decode to the size asked for or are refused, never read or write outside.
        Random random = DamagedFiles.random("ZstdFramesTest.damaged");
        for (String c : List.of("text.3", "text.19", "f32-normal.9", "skewed.1", "period-3.-5", "one-byte.3", "drift.19")) {
            byte[] raw = Files.readAllBytes(dir.resolve(raw(c)));
            Frames.damagedDecodeToSizeOrAreRefused(c, BufferCodec.ZSTD, Files.readAllBytes(dir.resolve(c + ".zst")),
                    raw.length, random);
        }
    }

    @Test
    void refusesWhatIsNotAFrameByName() {
        assertEquals("a Zstandard frame starts with the magic 0xFD2FB528 (byte 0)",
                assertThrows(IllegalArgumentException.class, () -> decode(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 4)).getMessage());
        // Hand-made frames: single segment, content size 3 in one byte, one last block.
        byte[] raw = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0x20, 3, 0x19, 0, 0, 'a', 'b', 'c'};
        assertArrayEquals(new byte[] {'a', 'b', 'c'}, decode(raw, 3));
        byte[] rle = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0x20, 5, 0x2B, 0, 0, 'z'};
        assertArrayEquals("zzzzz".getBytes(), decode(rle, 5));
        // A skippable frame before it is passed over.
        byte[] skipped = new byte[8 + 2 + rle.length];
        System.arraycopy(new byte[] {0x50, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 9, 9}, 0, skipped, 0, 10);
        System.arraycopy(rle, 0, skipped, 10, rle.length);
        assertArrayEquals("zzzzz".getBytes(), decode(skipped, 5));
        byte[] reserved = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0x20, 3, 0x07, 0, 0};
        assertEquals("Zstandard block of the reserved type 3 (input byte 6)",
                assertThrows(IllegalArgumentException.class, () -> decode(reserved, 3)).getMessage());
        byte[] dictionary = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0x21, 7, 3, 0x19, 0, 0, 'a', 'b', 'c'};
        assertEquals("Zstandard frame needs dictionary 7, which Arrow never uses (input byte 5)",
                assertThrows(IllegalArgumentException.class, () -> decode(dictionary, 3)).getMessage());
    }
}
