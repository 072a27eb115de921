package dev.tensorbuf.interop.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.Npy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The preamble's edges, byte for byte: the lengths where one preamble field ends and the next
 * starts, the headers NumPy writes (committed from NumPy, so this runs without it), and a file
 * shorter than the size it was opened with. Mutation testing found each of these unpinned.
 */
class NpyCodecEdgesTest {

    @TempDir
    Path dir;

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};

    /** magic, version major.0, then the given bytes */
    private static byte[] file(int major, byte... rest) {
        byte[] out = Arrays.copyOf(MAGIC, 8 + rest.length);
        out[6] = (byte) major;
        System.arraycopy(rest, 0, out, 8, rest.length);
        return out;
    }

    private Npy.Header read(byte[] bytes, long claimedSize) throws IOException {
        Path p = dir.resolve("edge.npy");
        Files.write(p, bytes);
        try (FileChannel ch = FileChannel.open(p)) {
            return NpyCodec.read(ch, claimedSize, "edge.npy");
        }
    }

    private IllegalArgumentException refused(byte[] bytes) {
        return assertThrows(IllegalArgumentException.class, () -> read(bytes, bytes.length));
    }

    @Test
    void aTenByteVersionOneFileIsLongEnoughForItsPreambleAndFailsOnItsEmptyHeader() {
        IllegalArgumentException e = refused(file(1, (byte) 0, (byte) 0));
        assertTrue(!e.getMessage().contains("too short"), e.getMessage());
    }

    @Test
    void aTwelveByteVersionTwoFileReadsItsFourByteLength() {
        // Twelve bytes is exactly a version 2.0 preamble: the length must be read from all four.
        IllegalArgumentException e = refused(file(2, (byte) 0, (byte) 0, (byte) 0, (byte) 0));
        assertTrue(!e.getMessage().contains("too short"), e.getMessage());
        IllegalArgumentException past = refused(file(2, (byte) 1, (byte) 0, (byte) 1, (byte) 0));
        assertEquals("edge.npy: header length 65537 runs past the end of the file (12 bytes, header starts at 12)",
                past.getMessage());
    }

    @Test
    void anElevenByteVersionTwoFileIsTooShortForItsPreamble() {
        assertEquals("edge.npy: 11 bytes is too short for a version 2.0 preamble (12 bytes)",
                refused(file(2, (byte) 0, (byte) 0, (byte) 0)).getMessage());
        assertEquals("edge.npy: 9 bytes is too short for a .npy preamble (at least 10)",
                refused(file(1, (byte) 0)).getMessage());
    }

    @Test
    void aHeaderOfExactlyTheLimitIsReadAndOneMoreByteIsRefused() throws IOException {
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
        int limit = NpyCodec.MAX_HEADER_BYTES;
        byte[] atLimit = withHeader(dict, limit);
        byte[] bytes = Arrays.copyOf(atLimit, atLimit.length + 8);
        assertEquals(List.of(2L), read(bytes, bytes.length).shape());
        byte[] over = Arrays.copyOf(withHeader(dict, limit + 1), 12 + limit + 1 + 8);
        assertEquals("edge.npy: header length " + (limit + 1) + " exceeds the limit of " + limit + " bytes",
                refused(over).getMessage());
    }

    private static byte[] withHeader(String dict, int headerLength) {
        ByteBuffer b = ByteBuffer.allocate(12 + headerLength).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).put((byte) 2).put((byte) 0).putInt(headerLength).put(dict.getBytes(StandardCharsets.ISO_8859_1));
        while (b.remaining() > 1) {
            b.put((byte) ' ');
        }
        return b.put((byte) '\n').array();
    }

    @Test
    void dataOneByteShortIsRefusedWithBothCounts() {
        byte[] preamble = NpyCodec.preamble("<f4", false, List.of(3L), 1);
        byte[] bytes = Arrays.copyOf(preamble, preamble.length + 11);
        assertEquals("edge.npy: shape (3,) of <f4 needs 12 bytes of data but the file has 11 after the header"
                + " (file 139 bytes, data at 128)", refused(bytes).getMessage());
    }

    @Test
    void aFileShorterThanTheSizeItWasOpenedWithEndsTheReadWithAnIoError() {
        // The header claims 100 bytes; the file (grown shorter since its size was taken) holds 50 of them.
        byte[] bytes = Arrays.copyOf(file(1, (byte) 100, (byte) 0), 60);
        Arrays.fill(bytes, 10, 60, (byte) ' ');
        IOException e = assertThrows(IOException.class, () -> read(bytes, 1000));
        assertEquals("file ended after 60 bytes while reading 100 bytes at 10", e.getMessage());
    }

    @Test
    void aHeaderOfOnlyPaddingIsAParseErrorNotAnIndexError() {
        byte[] bytes = file(1, (byte) 4, (byte) 0, (byte) ' ', (byte) ' ', (byte) ' ', (byte) '\n');
        refused(bytes);
    }

    @Test
    void anotherFormatIsNamedByItsFirstSixBytes() {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
        assertEquals("edge.npy: not a .npy file: it starts with 89 50 4e 47 0d 0a, expected 93 4e 55 4d 50 59 (\\x93NUMPY)",
                refused(png).getMessage());
    }

    @Test
    void aFieldOfTheWrongKindIsNamedAsPythonWritesIt() {
        for (String value : List.of("True", "False")) {
            byte[] bytes = withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': " + value + ", }", 118);
            assertEquals("edge.npy: 'shape' is " + value + ", expected a tuple of ints", refused(bytes).getMessage());
        }
    }

    @Test
    void numpyRefusesPastSixtyFourDimsOrPastTheLargestIntp() {
        assertEquals(Optional.empty(), NpyCodec.whyNumpyRefuses(Collections.nCopies(64, 1L), 4));
        assertTrue(NpyCodec.whyNumpyRefuses(Collections.nCopies(65, 1L), 4).orElseThrow().startsWith("65 dimensions"));
        assertEquals(Optional.empty(), NpyCodec.whyNumpyRefuses(List.of(0L, 1L << 60), 4));
        assertTrue(NpyCodec.whyNumpyRefuses(List.of(0L, 1L << 62), 4).orElseThrow().contains("array is too big"));
    }

    @Test
    void preamblesAreTheBytesNumpyWrites() throws IOException {
        List<String> lines;
        try (InputStream in = getClass().getResourceAsStream("/npy/numpy-preambles.txt")) {
            lines = new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines().filter(l -> !l.startsWith("#")).toList();
        }
        // The last four cross a 64-byte line only when the growth axis is the right end's.
        assertEquals(298, lines.size());
        for (String line : lines) {
            String[] f = line.split(" ");
            List<Long> dims = new ArrayList<>();
            if (!f[2].equals("-")) {
                for (String d : f[2].split(",")) {
                    dims.add(Long.parseLong(d));
                }
            }
            byte[] expected = Base64.getDecoder().decode(f[3]);
            assertArrayEquals(expected, NpyCodec.preamble(f[1], f[0].equals("F"), dims, 0), line);
        }
    }

    @Test
    void versionsAreChosenAsNumpyChoosesAndRefusedOutsideOneToThree() {
        byte[] v3 = NpyCodec.preamble("<\u0100", false, List.of(1L), 0);
        assertEquals(3, v3[6], "a header past latin-1 needs version 3.0");
        assertEquals((byte) 0xc4, v3[24], "version 3.0 headers are UTF-8");
        assertEquals((byte) 0x80, v3[25]);
        byte[] v1 = NpyCodec.preamble("<\u00ff", false, List.of(1L), 0);
        assertEquals(1, v1[6]);
        assertEquals((byte) 0xff, v1[22], "version 1.0 headers are latin-1, a byte a character");
        assertEquals((byte) 0x27, v1[23]);
        assertEquals(2, NpyCodec.preamble("<f4", false, List.of(1L), 2)[6]);
        assertEquals(3, NpyCodec.preamble("<f4", false, List.of(1L), 3)[6]);
        assertEquals(".npy version 4.0 is not 1.0, 2.0 or 3.0",
                assertThrows(IllegalArgumentException.class, () -> NpyCodec.preamble("<f4", false, List.of(1L), 4)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> NpyCodec.preamble("<f4", false, List.of(1L), -1));
        assertThrows(IllegalArgumentException.class, () -> NpyCodec.preamble("<\u0100", false, List.of(1L), 2));
        String longDescr = "<" + "x".repeat(70_000);
        assertEquals(2, NpyCodec.preamble(longDescr, false, List.of(1L), 0)[6]);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NpyCodec.preamble(longDescr, false, List.of(1L), 1))
                .getMessage().contains("does not fit version 1.0"));
    }
}
