package dev.tensorbuf.net.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.testing.PythonPeer;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link XxHash} against the xxhash package, and the checksums of Zstandard and LZ4 frames that
 * carry them (python-zstandard's and python-lz4's), verified: a damaged byte that decodes to other
 * data, which the frames' structure cannot show, is refused.
 */
class ChecksummedFramesTest {
    @TempDir
    Path dir;

    private static byte[] pattern(int n) {
        byte[] data = new byte[n];
        for (int i = 0; i < n; i++) {
            data[i] = (byte) ((i * 37 + 11) % 256);
        }
        return data;
    }

    @Test
    void hashesTheSpecificationsVectors() {
        MemorySegment empty = MemorySegment.ofArray(new byte[0]);
        assertEquals(0x02CC5D05, XxHash.xxh32(empty, 0, 0, 0));
        assertEquals(0xEF46DB3751D8E999L, XxHash.xxh64(empty, 0, 0, 0));
        // One byte, 11, at an offset into a larger segment.
        MemorySegment one = MemorySegment.ofArray(new byte[] {7, 11, 7});
        assertEquals(0x3FE5A29D, XxHash.xxh32(one, 1, 1, 0));
        assertEquals(0xF592C0C7639C4CB6L, XxHash.xxh64(one, 1, 1, 0));
    }

    @Test
    void hashesAsTheXxhashPackageAtEveryTailLength() throws Exception {
        PythonPeer.assumeModules("xxhash", "zstandard", "lz4", "numpy");
        List<String> lines = PythonPeer.runScript("/peers/checksum_peer.py", dir, "hashes").lines().toList();
        assertEquals(2 * 82, lines.size());
        for (String line : lines) {
            String[] f = line.split(" ");
            int n = Integer.parseInt(f[0]);
            long seed = Long.parseLong(f[1]);
            MemorySegment data = MemorySegment.ofArray(pattern(n));
            assertEquals(f[2], String.format("%08x", XxHash.xxh32(data, 0, n, (int) seed)), line);
            assertEquals(f[3], String.format("%016x", XxHash.xxh64(data, 0, n, seed)), line);
        }
    }

    @Test
    void verifiesTheChecksumsFramesCarry() throws Exception {
        PythonPeer.assumeModules("xxhash", "zstandard", "lz4", "numpy");
        List<String> cases = PythonPeer.runScript("/peers/checksum_peer.py", dir, "write", dir.toString()).lines().toList();
        assertEquals(5, cases.size(), cases.toString());
        for (String c : cases) {
            byte[] raw = Files.readAllBytes(dir.resolve(c + ".raw"));
            byte[] zst = Files.readAllBytes(dir.resolve(c + ".zst"));
            byte[] lz4 = Files.readAllBytes(dir.resolve(c + ".lz4"));
            assertTrue((zst[4] & 0x04) != 0 && (lz4[4] & 0x14) == 0x14, c + ": the peer wrote no checksums");
            assertArrayEquals(raw, Frames.decode(BufferCodec.ZSTD, zst, raw.length), c);
            assertArrayEquals(raw, Frames.decode(BufferCodec.LZ4_FRAME, lz4, raw.length), c);

            assertTrue(refused(BufferCodec.ZSTD, zst, zst.length - 2, raw.length).startsWith("Zstandard frame's content checksum 0x"),
                    c);
            assertTrue(refused(BufferCodec.LZ4_FRAME, lz4, lz4.length - 2, raw.length).contains("is not that of the frame's "
                    + raw.length + " bytes of content"), c);
            int headerChecksum = (lz4[4] & 0x08) != 0 ? 14 : 6;   // after the content size, where the frame has one
            assertTrue(refused(BufferCodec.LZ4_FRAME, lz4, headerChecksum, raw.length).startsWith("the LZ4 frame's header checksum"), c);
        }
        // Random bytes are stored as they are in both formats: a damaged byte in the middle decodes
        // to other data, and only the checksums can tell.
        String c = "random-200KiB";
        byte[] raw = Files.readAllBytes(dir.resolve(c + ".raw"));
        byte[] zst = Files.readAllBytes(dir.resolve(c + ".zst"));
        assertTrue(refused(BufferCodec.ZSTD, zst, zst.length / 2, raw.length).contains("content checksum"));
        byte[] lz4 = Files.readAllBytes(dir.resolve(c + ".lz4"));
        String block = refused(BufferCodec.LZ4_FRAME, lz4, lz4.length / 2, raw.length);
        assertTrue(block.matches("the LZ4 checksum 0x\\p{XDigit}+ at byte \\d+ is not that of the block at byte \\d+ .*"), block);
    }

    /** {@return the message refusing {@code frame} with one bit of byte {@code at} flipped} */
    private static String refused(BufferCodec codec, byte[] frame, int at, int size) {
        byte[] damaged = frame.clone();
        damaged[at] ^= 0x10;
        return assertThrows(IllegalArgumentException.class, () -> Frames.decode(codec, damaged, size)).getMessage();
    }
}
