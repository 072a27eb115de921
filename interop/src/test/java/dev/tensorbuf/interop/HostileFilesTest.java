package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.text.TextFormatException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed and lying files are refused with a message naming the file and the problem, before
 * anything is mapped or allocated.
 */
class HostileFilesTest {
    @TempDir
    Path dir;

    static Stream<Arguments> npyCases() {
        String ok = "'fortran_order': False, 'shape': (2,), }";
        return Stream.of(
                npy("empty file", new byte[0], "0 bytes is too short for a .npy preamble"),
                npy("wrong magic", "NUMPY\u0093\u0001\u0000xxxx".getBytes(StandardCharsets.ISO_8859_1), "not a .npy file: it starts with 4e 55"),
                npy("version 4.0", preamble(4, 4, "{}".getBytes()), "unsupported .npy version 4.0"),
                npy("header length past the end", lengthOnly(1, 65535, 20), "header length 65535 runs past the end of the file (20 bytes"),
                npy("huge v2 header length", lengthOnly(2, 0xffff_ffffL, 30), "header length 4294967295 exceeds the limit of 1048576"),
                npy("truncated data", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }", 8),
                        "shape (1000,) of <f8 needs 8000 bytes of data but the file has 8 after the header"),
                npy("shape product far beyond the file", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000, 1000000), }", 0),
                        "needs 8000000000000000000 bytes of data but the file has 0"),
                npy("shape product overflows", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", 0),
                        "element count of shape [1099511627776, 1099511627776] overflows a long"),
                npy("data bytes overflow", file(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (1152921504606846976,), }", 0),
                        "overflow a long byte size"),
                npy("negative dim", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", 0),
                        "dim 1 of 'shape' is negative (-1)"),
                npy("leading zero", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }", 8),
                        "an integer with a leading zero, which Python does not read (write 2, not 02) at position 51"),
                npy("dim beyond a long", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0),
                        "dim 0 of 'shape' is 99999999999999999999, beyond a long"),
                npy("unknown descr", file(1, "{'descr': '<x9', " + ok, 8), "unknown NumPy descr '<x9'"),
                npy("object dtype", file(1, "{'descr': '|O', " + ok, 16), "is an object array: its data are pickled Python objects"),
                npy("string dtype", file(1, "{'descr': '<U5', " + ok, 40), "'<U5' is a string type"),
                npy("void dtype", file(1, "{'descr': '|V2', " + ok, 4), "is a void type"),
                npy("datetime dtype", file(1, "{'descr': '<M8[s]', " + ok, 16), "'<M8[s]' is a datetime type"),
                npy("timedelta dtype", file(1, "{'descr': '<m8[s]', " + ok, 16), "'<m8[s]' is a timedelta type"),
                npy("structured dtype", file(1, "{'descr': [('a', '<f4')], " + ok, 8), "structured dtype with 1 field is not supported"),
                npy("missing key", file(1, "{'descr': '<f4', 'shape': (2,), }", 8),
                        "header has keys [descr, shape], expected exactly 'descr', 'fortran_order' and 'shape'"),
                npy("extra key", file(1, "{'descr': '<f4', 'x': 1, " + ok, 8), "header has keys [descr, x, fortran_order, shape]"),
                npy("fortran_order not a bool", file(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", 8),
                        "'fortran_order' is the int 0, expected True or False"),
                npy("shape as a list", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", 8),
                        "'shape' is a list, expected a tuple of ints"),
                npy("header not a dict", file(1, "('descr', '<f4')", 8), "header is a tuple, expected a dict"),
                npy("unclosed dict", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8),
                        "expected ',' or '}' at position 54"),
                npy("duplicate key", file(1, "{'descr': '<f4', 'descr': '<f4', " + ok, 8), "duplicate key 'descr' at position 17"),
                npy("float dim", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,), }", 8),
                        "expected an integer, found a float at position 52"),
                npy("deep nesting", file(1, "{'descr': " + "[".repeat(40) + "]".repeat(40) + "}", 0), "literal nested deeper than 16 levels"),
                npy("endless integer", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "9".repeat(5000) + ",), }", 0),
                        "integer longer than 40 digits"),
                npy("code in the header", file(1, "{'descr': __import__('os').system('true')}", 0),
                        "expected a value, found '_' at position 10"),
                npy("version 3.0 header not UTF-8", preamble(3, 4, new byte[] {'{', (byte) 0xff, '}', '\n'}), "version 3.0 header is not valid UTF-8: byte 0xff at offset 13 of the file (byte 1 of the version 3.0 header)"));
    }

    static Stream<Arguments> safetensorsCases() {
        return Stream.of(
                st("shorter than the length field", new byte[] {1, 2, 3}, "3 bytes is too short for a safetensors file"),
                st("huge header length", withLength(0x7fff_ffff_ffff_ffffL, "{}"), "header length 9223372036854775807 exceeds the limit of 100000000"),
                st("negative header length", withLength(-1L, "{}"), "header length 18446744073709551615 exceeds the limit"),
                st("header length past the end", withLength(1000, "{}"), "header length 1000 runs past the end of the file (10 bytes, so at most 2)"),
                st("header not an object", safetensors("[1, 2]", 0), "header must start with '{', found '[1, 2]'"),
                st("header not UTF-8", withBytes(new byte[] {'{', (byte) 0xc3, '}'}), "header is not valid UTF-8: byte 0xc3 at offset 9 of the file (byte 1 of the header)"),
                st("bad JSON", safetensors("{\"a\": {\"dtype\": \"F32\",}}", 0), "header is not valid JSON: expected a quoted object key at byte 22"),
                st("duplicate names", safetensors("{\"a\":" + entry("U8", "[1]", 0, 1) + ",\"a\":" + entry("U8", "[1]", 1, 2) + "}", 2),
                        "duplicate key \"a\""),
                st("overlapping offsets", safetensors("{\"a\":" + entry("F32", "[2]", 0, 8) + ",\"b\":" + entry("F32", "[2]", 4, 12) + "}", 12),
                        "tensor 'b' at data_offsets [4, 12] overlaps tensor 'a' ending at 8"),
                st("gap between tensors", safetensors("{\"a\":" + entry("F32", "[1]", 0, 4) + ",\"b\":" + entry("F32", "[1]", 8, 12) + "}", 12),
                        "tensor 'b' at data_offsets [8, 12] leaves a gap of 4 bytes after tensor 'a' ending at 4"),
                st("data not starting at 0", safetensors("{\"a\":" + entry("U8", "[2]", 8, 10) + "}", 10),
                        "leaves a gap of 8 bytes after the start of the data"),
                st("offsets past the end of the file", safetensors("{\"a\":" + entry("F32", "[4]", 0, 16) + "}", 8),
                        "tensors cover 16 bytes but the data section holds 8 (the last tensor runs past the end of the file)"),
                st("bytes after the last tensor", safetensors("{\"a\":" + entry("F32", "[1]", 0, 4) + "}", 12),
                        "tensors cover 4 bytes but the data section holds 12 (bytes after the last tensor)"),
                st("shape and offsets disagree", safetensors("{\"w\":" + entry("F32", "[2,3]", 0, 20) + "}", 20),
                        "tensor 'w': F32 [2, 3] is 24 bytes but data_offsets [0, 20] hold 20"),
                st("unknown dtype", safetensors("{\"w\":" + entry("F13", "[1]", 0, 2) + "}", 2), "tensor 'w': unknown safetensors dtype 'F13': expected one of BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2,"
                        + " F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64"),
                st("offsets reversed", safetensors("{\"w\":" + entry("U8", "[0]", 4, 0) + "}", 4), "data_offsets [4, 0] end before they begin"),
                st("negative dim", safetensors("{\"w\":" + entry("U8", "[-2]", 0, 0) + "}", 0), "shape [-2] holds the integer -2"),
                st("shape overflows", safetensors("{\"w\":" + entry("F64", "[4294967296,4294967296]", 0, 8) + "}", 8),
                        "element count of shape [4294967296, 4294967296] overflows a long"),
                st("three offsets", safetensors("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]}}", 1),
                        "data_offsets has 3 numbers, expected 2"),
                st("missing key in a tensor", safetensors("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"x\":[0,1]}}", 1),
                        "tensor 'w' has keys [dtype, shape, x], missing data_offsets (a tensor needs dtype, shape and data_offsets)"),
                st("metadata value not a string", safetensors("{\"__metadata__\":{\"epoch\":3}}", 0),
                        "metadata 'epoch' is the integer 3, but metadata values must be strings"),
                st("metadata not an object", safetensors("{\"__metadata__\":\"x\"}", 0), "'__metadata__' is the string \"x\""),
                st("tensor not an object", safetensors("{\"w\":[1]}", 0), "tensor 'w' is an array, expected an object"),
                st("sub-byte tensor of odd bits", safetensors("{\"w\":" + entry("F4", "[3]", 0, 1) + "}", 1),
                        "3 elements of f4e2m1fn are 12 bits, not a whole number of bytes"),
                st("fractional offsets", safetensors("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1.0]}}", 1),
                        "holds the number 1.0"),
                st("lone surrogate in a name", safetensors("{\"\\ud800\":" + entry("U8", "[1]", 0, 1) + "}", 1),
                        "unpaired surrogate \\ud800 in a string at byte 1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("npyCases")
    void npyReadersRefuseHostileFile(String name, byte[] content, String message) throws IOException {
        Path file = dir.resolve(name.replace(' ', '_') + ".npy");
        Files.write(file, content);
        for (Reader reader : new Reader[] {Npy::readHeader, Npy::map}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.read(file));
            assertTrue(e.getMessage().contains(message), () -> "expected '" + message + "' in: " + e.getMessage());
            assertTrue(e.getMessage().startsWith(file.toString()), e::getMessage);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("safetensorsCases")
    void safetensorsOpenRefusesHostileFile(String name, byte[] content, String message) throws IOException {
        Path file = dir.resolve(name.replace(' ', '_') + ".safetensors");
        Files.write(file, content);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.open(file));
        assertTrue(e.getMessage().contains(message), () -> "expected '" + message + "' in: " + e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e::getMessage);
    }

    @Test
    void npyAcceptsSpellingsNumpyReads() throws IOException {
        // '?' is bool, 1_0 is ten, a form feed is whitespace, and 00 is zero: np.load reads all four.
        Path file = dir.resolve("spellings.npy");
        Files.write(file, file(1, "{'descr': '|?',\f'fortran_order': False, 'shape': (1_0, 00), }", 0));
        Npy.Header h = Npy.readHeader(file);
        assertEquals(DType.PRED, h.dtype());
        assertEquals(java.util.List.of(10L, 0L), h.shape());
    }

    @Test
    void safetensorsAcceptsWhatTheReferenceReaderAccepts() throws IOException {
        // Leading JSON whitespace and a null __metadata__ (serde_json skips the one, reads the other as None).
        Path file = dir.resolve("lenient.safetensors");
        Files.write(file, safetensors(" \n{\"__metadata__\":null,\"a\":" + entry("U8", "[2]", 0, 2) + "}", 2));
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertEquals(java.util.Map.of(), f.metadata());
            assertEquals(java.util.List.of("a"), f.names());
        }
    }

    @Test
    void headerSyntaxErrorsCarryTheirPosition() throws IOException {
        Path file = dir.resolve("syntax.npy");
        Files.write(file, file(1, "{'descr' '<f4'}", 0));
        TextFormatException e = assertThrows(TextFormatException.class, () -> Npy.readHeader(file));
        assertTrue(e.getMessage().startsWith(file + ": expected ':', found '''"), e.getMessage());
        assertTrue(e.position() == 9, "position " + e.position());
    }

    @FunctionalInterface
    private interface Reader {
        Object read(Path file) throws IOException;
    }

    private static Arguments npy(String name, byte[] content, String message) {
        return Arguments.of(name, content, message);
    }

    private static Arguments st(String name, byte[] content, String message) {
        return Arguments.of(name, content, message);
    }

    private static byte[] preamble(int major, int lengthBytes, byte[] header) {
        ByteBuffer b = ByteBuffer.allocate(8 + lengthBytes + header.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', (byte) major, 0});
        if (lengthBytes == 2) {
            b.putShort((short) header.length);
        } else {
            b.putInt(header.length);
        }
        return b.put(header).array();
    }

    private static byte[] lengthOnly(int major, long length, int total) {
        ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', (byte) major, 0});
        if (major == 1) {
            b.putShort((short) length);
        } else {
            b.putInt((int) length);
        }
        return b.array();
    }

    private static byte[] file(int major, String header, int dataBytes) {
        byte[] p = preamble(major, major == 1 ? 2 : 4, (header + "\n").getBytes(StandardCharsets.ISO_8859_1));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(p);
        out.writeBytes(new byte[dataBytes]);
        return out.toByteArray();
    }

    private static String entry(String dtype, String shape, long begin, long end) {
        return "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + begin + "," + end + "]}";
    }

    private static byte[] safetensors(String header, int dataBytes) {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN).putLong(h.length).put(h).array();
    }

    private static byte[] withLength(long length, String rest) {
        byte[] r = rest.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + r.length).order(ByteOrder.LITTLE_ENDIAN).putLong(length).put(r).array();
    }

    private static byte[] withBytes(byte[] header) {
        return ByteBuffer.allocate(8 + header.length).order(ByteOrder.LITTLE_ENDIAN).putLong(header.length).put(header).array();
    }
}
