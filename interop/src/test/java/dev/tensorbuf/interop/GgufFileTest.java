package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class GgufFileTest {
    @TempDir
    Path dir;

    private static Map<String, GgufValue> everyValueType() {
        Map<String, GgufValue> m = new LinkedHashMap<>();
        m.put("general.architecture", GgufValue.string("llama"));
        m.put("u8", new GgufValue(GgufValue.Type.UINT8, 255));
        m.put("i8", new GgufValue(GgufValue.Type.INT8, -128));
        m.put("u16", new GgufValue(GgufValue.Type.UINT16, 65535));
        m.put("i16", new GgufValue(GgufValue.Type.INT16, -32768));
        m.put("u32", GgufValue.u32(0xFFFF_FFFFL));
        m.put("i32", GgufValue.i32(Integer.MIN_VALUE));
        m.put("f32", GgufValue.f32(-1.5f));
        m.put("bool", GgufValue.bool(true));
        m.put("str", GgufValue.string("héllo, wörld"));
        m.put("u64", GgufValue.u64(-1L));
        m.put("i64", new GgufValue(GgufValue.Type.INT64, Long.MIN_VALUE));
        m.put("f64", new GgufValue(GgufValue.Type.FLOAT64, Math.PI));
        m.put("tokens", GgufValue.array(GgufValue.Type.STRING, List.of("<s>", "</s>", "▁the")));
        m.put("scores", GgufValue.array(GgufValue.Type.FLOAT32, List.of(0f, -1f, 2.5f)));
        m.put("nested", GgufValue.array(GgufValue.Type.ARRAY, List.of(
                new GgufValue.Array(GgufValue.Type.INT32, List.of(1, 2)), new GgufValue.Array(GgufValue.Type.INT32, List.of()))));
        m.put("empty", GgufValue.array(GgufValue.Type.BOOL, List.of()));
        return m;
    }

    @Test
    void writtenFileReadsBackWithEveryValueTypeAndLogicalDims() throws IOException {
        Path file = dir.resolve("m.gguf");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment w = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
            MemorySegment q = arena.allocate(2 * 34);
            for (int i = 0; i < q.byteSize(); i++) {
                q.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            GgufWriter.write(file, everyValueType(), List.of(
                    GgufWriter.tensor("w", GgmlType.F32, List.of(2L, 3L), w),
                    GgufWriter.tensor("q", GgmlType.Q8_0, List.of(2L, 32L), q)));
            try (GgufFile f = GgufFile.open(file)) {
                assertEquals(3, f.version());
                assertEquals(everyValueType(), f.metadata());
                assertEquals(List.copyOf(everyValueType().keySet()), List.copyOf(f.metadata().keySet()));
                assertEquals(List.of("w", "q"), f.names());
                GgufTensor tw = f.tensor("w");
                assertEquals(List.of(2L, 3L), tw.dims());
                assertEquals(List.of(3L, 2L), tw.ggufDims());
                assertEquals(0, tw.offset());
                assertEquals(24, tw.byteSize());
                assertEquals(6f, TensorElements.of(tw.view()).getFloat(1, 2));
                assertEquals(0, tw.fileOffset() % 32);
                GgufTensor tq = f.tensor("q");
                assertEquals(GgmlType.Q8_0, tq.type());
                assertEquals(32, tq.offset(), "24 bytes of w padded to 32");
                assertArrayEquals(q.toArray(ValueLayout.JAVA_BYTE), tq.data().segment().toArray(ValueLayout.JAVA_BYTE));
                assertTrue(tq.data().isReadOnly());
                // Q8_0 rows of 32 values: an f16 scale (bytes 0, 1), then int8 codes; blocks() reads them.
                TensorView row = TensorView.of(Allocators.shared().allocate(2 * 32 * 4), "f32[2,32]");
                tq.blocks().dequantize(row);
                float scale = Float.float16ToFloat((short) ((q.get(ValueLayout.JAVA_BYTE, 1) << 8) | (q.get(ValueLayout.JAVA_BYTE, 0) & 0xff)));
                assertEquals(q.get(ValueLayout.JAVA_BYTE, 2 + 5) * scale, TensorElements.of(row).getFloat(0, 5));
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, tq::view);
                assertTrue(e.getMessage().contains("block-quantized"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> f.tensor("x"));
                assertEquals("no tensor 'x' in m.gguf; it has [w, q]", e.getMessage());
            }
            assertEquals(32 + 68 + 28, Files.size(file) - fileDataOffset(file), "each tensor padded to 32");
        }
    }

    private static long fileDataOffset(Path file) throws IOException {
        try (GgufFile f = GgufFile.open(file)) {
            return f.dataOffset();
        }
    }

    @Test
    void alignmentFromMetadataPlacesEveryTensor() throws IOException {
        Path file = dir.resolve("a.gguf");
        Map<String, GgufValue> meta = Map.of("general.alignment", GgufValue.u32(256));
        MemorySegment b = MemorySegment.ofArray(new byte[10]);
        GgufWriter.write(file, meta, List.of(GgufWriter.tensor("a", GgmlType.I8, List.of(10L), b),
                GgufWriter.tensor("b", GgmlType.I8, List.of(10L), b)));
        try (GgufFile f = GgufFile.open(file)) {
            assertEquals(256, f.alignment());
            assertEquals(0, f.dataOffset() % 256);
            assertEquals(256, f.tensor("b").offset());
        }
        assertEquals("general.alignment UINT32 48 is not a UINT32 power of two",
                assertThrows(IllegalArgumentException.class, () -> GgufWriter.write(file,
                        Map.of("general.alignment", GgufValue.u32(48)), List.of())).getMessage());
    }

    /**
     * A file may ask for any power of two up to 2^31 (fuzzing found one asking 2^30, which the
     * writer padded with one heap array of that size and ran out of memory): padding that long is
     * a hole, so this 4 GiB file takes a few blocks and no heap.
     */
    @Test
    @EnabledOnOs(value = OS.LINUX, disabledReason = "counts disk blocks with GNU stat")
    void theLargestAlignmentIsPaddedWithHoles() throws IOException {
        Path file = dir.resolve("wide.gguf");
        long alignment = 1L << 31;
        GgufWriter.write(file, Map.of("general.alignment", GgufValue.u32(alignment)),
                List.of(GgufWriter.tensor("t", GgmlType.I8, List.of(3L), MemorySegment.ofArray(new byte[] {1, 2, 3}))));
        assertEquals(2 * alignment, Files.size(file));
        assertTrue(diskBytes(file) < 1 << 20, "the padding takes " + diskBytes(file) + " bytes of disk");
        try (GgufFile f = GgufFile.open(file)) {
            assertEquals(alignment, f.dataOffset());
            assertArrayEquals(new byte[] {1, 2, 3}, f.tensor("t").data().segment().toArray(ValueLayout.JAVA_BYTE));
        }
        try (var channel = java.nio.channels.FileChannel.open(file)) {
            java.nio.ByteBuffer last = java.nio.ByteBuffer.allocate(2);
            channel.read(last, 2 * alignment - 2);
            assertArrayEquals(new byte[2], last.array());
        }
    }

    /** {@return the disk blocks {@code file} takes, in bytes, as {@code stat} counts them} */
    private static long diskBytes(Path file) throws IOException {
        Process stat = new ProcessBuilder("stat", "--format=%b %B", file.toString()).redirectErrorStream(true).start();
        String[] out = new String(stat.getInputStream().readAllBytes()).trim().split(" ");
        return Long.parseLong(out[0]) * Long.parseLong(out[1]);
    }

    @Test
    void versionTwoReadsAsVersionThree() throws IOException {
        Path file = GgufBytes.header(2, 1, 1).str("k").u32(8).str("v").info("t", 0, 0, 2).data(32, 8)
                .writeTo(dir.resolve("v2.gguf"));
        try (GgufFile f = GgufFile.open(file)) {
            assertEquals(2, f.version());
            assertEquals(GgufValue.string("v"), f.metadata().get("k"));
            assertEquals(List.of(2L), f.tensor("t").dims());
        }
    }

    @Test
    void largeDimsAndOffsetsAreLongs() {
        // 2^33 rows of Q8_0: past int counts and 4 GiB; refused only because the file lacks the bytes.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GgufFile.open(
                GgufBytes.header(3, 1, 0).info("big", 8, 0, 32, 1L << 33).data(32, 0).writeTo(dir.resolve("big.gguf"))));
        assertTrue(e.getMessage().contains("tensor 'big' (292057776128 bytes at data offset 0) runs past the end of the file"),
                e.getMessage());
    }

    private String refusal(GgufBytes bytes) throws IOException {
        Path file = bytes.writeTo(dir.resolve("bad.gguf"));
        return assertThrows(IllegalArgumentException.class, () -> GgufFile.open(file).close()).getMessage();
    }

    private static void assertContains(String expected, String message) {
        assertTrue(message.contains(expected), () -> "expected '" + expected + "' in: " + message);
    }

    @Test
    void badFilesAreRefusedNamingTheProblem() throws IOException {
        assertContains("not a GGUF file: it starts with bytes 47 47 4d 4c",
                refusal(new GgufBytes().bytes("GGML".getBytes()).u32(3).u64(0).u64(0)));
        assertContains("GGUF version 1 (32-bit counts) is not read", refusal(GgufBytes.header(1, 0, 0)));
        assertContains("big-endian GGUF (version 3 byte-swapped) is not read",
                refusal(GgufBytes.header(0x03000000, 0, 0)));
        assertContains("truncated: the value type of 'abcdefgh' at offset 40 needs 4 bytes, the file has 0 left (40 bytes)",
                refusal(GgufBytes.header(3, 0, 1).str("abcdefgh")));
        assertContains("string length 1000 of metadata key 0 at offset 24 runs past the end of the file",
                refusal(GgufBytes.header(3, 0, 1).u64(1000).bytes(new byte[20])));
        assertContains("string length 18446744073709551615 of metadata 'k'",
                refusal(GgufBytes.header(3, 0, 1).str("k").u32(8).u64(-1).bytes(new byte[8])));
        assertContains("4611686018427387904 items of INT64 in metadata 'a' at offset 41 need at least 8 bytes each",
                refusal(GgufBytes.header(3, 0, 1).str("a").u32(9).u32(11).u64(1L << 62).bytes(new byte[16])));
        assertContains("1000000 metadata key-values at offset 16 need at least 13 bytes each",
                refusal(GgufBytes.header(3, 0, 1_000_000)));
        assertContains("metadata 'k' at offset 33 has unknown GGUF value type id 13; expected 0 to 12",
                refusal(GgufBytes.header(3, 0, 1).str("k").u32(13).u64(0)));
        assertContains("metadata 'b' at offset 37 is BOOL byte 2, expected 0 or 1",
                refusal(GgufBytes.header(3, 0, 1).str("b").u32(7).u8(2).bytes(new byte[8])));
        assertContains("duplicate metadata key 'k' at offset",
                refusal(GgufBytes.header(3, 0, 2).str("k").u32(4).u32(1).str("k").u32(4).u32(2)));
        assertContains("general.alignment 12 is not a power of two",
                refusal(GgufBytes.header(3, 0, 1).str("general.alignment").u32(4).u32(12)));
        assertContains("general.alignment is INT32, expected UINT32",
                refusal(GgufBytes.header(3, 0, 1).str("general.alignment").u32(5).u32(32)));
        assertContains("tensor 't' has unknown ggml type id 99",
                refusal(GgufBytes.header(3, 1, 0).info("t", 99, 0, 4).data(32, 64)));
        assertContains("tensor 't' has unknown ggml type id 4 (Q4_2, removed from ggml)",
                refusal(GgufBytes.header(3, 1, 0).info("t", 4, 0, 32).data(32, 64)));
        assertContains("tensor 't' at offset 24 has 5 dims; ggml allows at most 4",
                refusal(GgufBytes.header(3, 1, 0).info("t", 0, 0, 1, 1, 1, 1, 1).data(32, 64)));
        assertContains("tensor 't' is Q8_0[2, 48]: its innermost dim 48 is not a multiple of the type's block of 32",
                refusal(GgufBytes.header(3, 1, 0).info("t", 8, 0, 48, 2).data(32, 256)));
        assertContains("tensor 't' (16 bytes at data offset 32) runs past the end of the file: the data section starts at 64 and holds 40 bytes",
                refusal(GgufBytes.header(3, 1, 0).info("t", 0, 32, 4).data(32, 40)));
        assertContains("tensor 't' has data offset 16, not a multiple of the alignment 32",
                refusal(GgufBytes.header(3, 1, 0).info("t", 0, 16, 4).data(32, 64)));
        assertContains("tensors 'a' (data bytes [0, 64)) and 'b' ([32, 48)) overlap",
                refusal(GgufBytes.header(3, 2, 0).info("a", 0, 0, 16).info("b", 0, 32, 4).data(32, 64)));
        assertContains("duplicate tensor name 'a'",
                refusal(GgufBytes.header(3, 2, 0).info("a", 0, 0, 4).info("a", 0, 32, 4).data(32, 64)));
        assertContains("shape [4611686018427387904, 4] overflows",
                refusal(GgufBytes.header(3, 1, 0).info("t", 0, 0, 4, 1L << 62).data(32, 64)));
        assertContains("bad.gguf: 10 bytes is too short for a GGUF file", refusal(new GgufBytes().bytes(new byte[10])));
    }

    @Test
    void writerRefusesWhatReadersRefuse() {
        MemorySegment b = MemorySegment.ofArray(new byte[40]);
        assertEquals("tensor 'q' Q8_0[40]: the innermost dim 40 is not a multiple of the type's block of 32 values",
                assertThrows(IllegalArgumentException.class,
                        () -> GgufWriter.tensor("q", GgmlType.Q8_0, List.of(40L), b)).getMessage());
        assertEquals("tensor 'w' F32[2, 4] needs 32 bytes, the data has 40", assertThrows(IllegalArgumentException.class,
                () -> GgufWriter.tensor("w", GgmlType.F32, List.of(2L, 4L), b)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GgufWriter.tensor("w", GgmlType.I8,
                List.of(1L, 1L, 1L, 1L, 40L), b)).getMessage().contains("has 5 dims"));
    }
}
