package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.tensorbuf.views.TensorElements;

class SafetensorsFileTest {
    @TempDir
    Path dir;

    @Test
    void exampleFromJavadoc() throws IOException {
        Path file = dir.resolve("m.safetensors");
        MemorySegment w = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
        MemorySegment ids = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_BYTE, (byte) 7, (byte) 9);
        SafetensorsFile.write(file, Map.of("w", new DenseTensor(DType.F32, List.of(2L, 3L), w),
                "ids", new DenseTensor(DType.S8, List.of(2L), ids)), Map.of("format", "np"));
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertEquals(List.of("w", "ids"), f.names());
            assertEquals(Map.of("format", "np"), f.metadata());
            assertEquals(List.of(2L), f.tensor("ids").shape());
            assertEquals(0, f.headerByteSize() % 8);
            SafetensorsFile.Tensor t = f.tensor("w");
            assertEquals(f.dataOffset(), t.fileOffset());
            assertEquals(24, t.byteSize());
            assertEquals(5f, t.data().segment().get(ValueLayout.JAVA_FLOAT_UNALIGNED, 16));
            assertEquals((byte) 9, f.tensor("ids").data().segment().get(ValueLayout.JAVA_BYTE, 1));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.tensor("x"));
            assertEquals("no tensor 'x' in m.safetensors; it has [w, ids]", e.getMessage());
        }
    }

    @Test
    void writingFromAClosedArenaLeavesThePreviousFileIntact() throws IOException {
        Path file = dir.resolve("keep.safetensors");
        SafetensorsFile.write(file, Map.of("w", new DenseTensor(DType.F32, List.of(2L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2))), Map.of("format", "np"));
        byte[] before = Files.readAllBytes(file);
        Arena arena = Arena.ofShared();
        DenseTensor dead = new DenseTensor(DType.F32, List.of(4L), arena.allocate(16));
        arena.close();
        assertThrows(IllegalStateException.class, () -> SafetensorsFile.write(file, Map.of(
                "a", new DenseTensor(DType.F64, List.of(1L), Arena.ofAuto().allocate(8)), "w", dead)));
        assertArrayEquals(before, Files.readAllBytes(file));
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertEquals(Map.of("format", "np"), f.metadata());
        }
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "no .part file is left behind");
        }
    }

    @Test
    void headerIsTheReferenceJsonPaddedWithSpaces() throws IOException {
        Path file = dir.resolve("h.safetensors");
        SafetensorsFile.write(file, Map.of("b", new DenseTensor(DType.U8, List.of(1L), MemorySegment.ofArray(new byte[] {5})),
                "a", new DenseTensor(DType.U8, List.of(), MemorySegment.ofArray(new byte[] {6}))));
        byte[] all = Files.readAllBytes(file);
        long n = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        String json = "{\"a\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[0,1]},"
                + "\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}";
        assertEquals(json.length(), 104);
        assertEquals(104, n);
        assertEquals(json, new String(all, 8, (int) n, StandardCharsets.UTF_8));
        assertEquals(6, all[8 + 104]);
        assertEquals(5, all[8 + 105]);
    }

    @Test
    void packedSubByteTensorsRoundTrip() throws IOException {
        Path file = dir.resolve("f4.safetensors");
        SafetensorsFile.write(file, Map.of("q", new DenseTensor(DType.F4E2M1FN, List.of(4L),
                MemorySegment.ofArray(new byte[] {0x21, 0x43}))));
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            SafetensorsFile.Tensor q = f.tensor("q");
            assertEquals(DType.F4E2M1FN, q.dtype());
            assertEquals(2, q.byteSize());
            assertEquals(0x43, q.data().segment().get(ValueLayout.JAVA_BYTE, 1));
        }
    }

    @Test
    void viewOfPackedF4TensorReadsTwoElementsToAByte() throws IOException {
        Path file = dir.resolve("q.safetensors");
        SafetensorsFile.write(file, Map.of("q", new DenseTensor(DType.F4E2M1FN, List.of(2L, 2L),
                        MemorySegment.ofArray(new byte[] {0x21, 0x43})),
                "w", new DenseTensor(DType.F32, List.of(2L), MemorySegment.ofArray(new float[] {1.5f, -2f})),
                "x", new DenseTensor(DType.F6E2M3FN, List.of(4L), MemorySegment.ofArray(new byte[3]))));
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertEquals(1.5, TensorElements.of(f.tensor("q").view()).getDouble(1, 0));
            assertArrayEquals(new double[] {0.5, 1, 1.5, 2}, TensorElements.of(f.tensor("q").view()).toDoubleArray());
            assertEquals(-2f, TensorElements.of(f.tensor("w").view()).getFloat(1));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.tensor("x").view());
            assertEquals("tensor 'x' is f6e2m3fn (F6_E2M3), packed four to three bytes in a bit order safetensors does not"
                    + " define: read its bytes, data()", e.getMessage());
        }
    }

    @Test
    void npyAndOtherFilesAreSaidPlainlyNotToBeSafetensors() throws IOException {
        Path npy = dir.resolve("x.npy");
        Npy.write(npy, new DenseTensor(DType.F32, List.of(35L), MemorySegment.ofArray(new float[35])));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.open(npy));
        assertEquals(npy + ": not a safetensors file: it starts with \\x93NUMPY, the magic of a .npy file (Npy.map"
                + " reads those)", e.getMessage());
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "just some text, no tensors here\n");
        e = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.open(text));
        assertTrue(e.getMessage().startsWith(text + ": not a safetensors file: header length "), e.getMessage());
        assertTrue(e.getMessage().endsWith(" exceeds the limit of 100000000 bytes"), e.getMessage());
    }

    @Test
    void closingUnmapsEveryTensor() throws IOException {
        Path file = dir.resolve("c.safetensors");
        SafetensorsFile.write(file, Map.of("x", new DenseTensor(DType.U8, List.of(1L), MemorySegment.ofArray(new byte[] {1}))));
        SafetensorsFile f = SafetensorsFile.open(file);
        SafetensorsFile.Tensor x = f.tensor("x");
        f.close();
        assertThrows(IllegalStateException.class, () -> x.data().segment());
        assertThrows(IllegalStateException.class, () -> f.tensor("x"));
    }

    /**
     * A tensor used after its file closed was named as the whole mapping ("buffer of 168 bytes from
     * foreign owner 'mapped m.safetensors' was closed"): now the tensor and its file are named, by
     * the tensor's methods and by its buffer, which a view made before the close reads.
     */
    @Test
    void aTensorUsedAfterItsFileClosedIsNamedWithItsFile() throws IOException {
        Path file = dir.resolve("m.safetensors");
        MemorySegment six = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
        SafetensorsFile.write(file, Map.of("w", new DenseTensor(DType.F32, List.of(2L, 3L), six),
                "b", new DenseTensor(DType.F32, List.of(6L), six)));
        SafetensorsFile f = SafetensorsFile.open(file);
        SafetensorsFile.Tensor w = f.tensor("w");
        dev.tensorbuf.views.TensorView before = w.view();
        assertEquals(2f, TensorElements.of(before).getFloat(0, 1));
        f.close();
        String said = "tensor 'w' of " + file + " (f32[2, 3], 24 bytes) cannot be read: its file was closed, which unmaps"
                + " every tensor; read it or copy it (DenseTensor.copyOf) before closing the file";
        assertEquals(said, assertThrows(IllegalStateException.class, w::view).getMessage());
        assertEquals(said, assertThrows(IllegalStateException.class, w::asDense).getMessage());
        String buffer = "buffer of 24 bytes from foreign owner 'tensor 'w' of m.safetensors' was closed";
        assertEquals(buffer, assertThrows(IllegalStateException.class, () -> w.data().segment()).getMessage());
        IllegalStateException read = assertThrows(IllegalStateException.class, () -> TensorElements.of(before).getFloat(0, 1));
        assertTrue(read.getMessage().contains(buffer), read.getMessage());
    }

    /** Each tensor holds the mapping: a copy holding one across the file's close reads the file to its end. */
    @Test
    void aHeldTensorKeepsTheFileMappedUntilTheHoldEnds() throws IOException {
        Path file = dir.resolve("h.safetensors");
        SafetensorsFile.write(file, Map.of("x", new DenseTensor(DType.U8, List.of(3L), MemorySegment.ofArray(new byte[] {7, 8, 9}))));
        SafetensorsFile f = SafetensorsFile.open(file);
        dev.tensorbuf.memory.MemoryBuffer x = f.tensor("x").data();
        MemorySegment bytes = x.segment();
        dev.tensorbuf.memory.MemoryBuffer.Hold hold = x.hold();
        f.close();
        assertFalse(x.isAlive());
        assertArrayEquals(new byte[] {7, 8, 9}, bytes.toArray(ValueLayout.JAVA_BYTE), "still mapped while held");
        hold.close();
        assertThrows(IllegalStateException.class, () -> bytes.get(ValueLayout.JAVA_BYTE, 0), "unmapped once the hold ended");
    }

    @Test
    void writerRefusesReservedNamesAndTypesWithoutSafetensorsNames() {
        MemorySegment one = MemorySegment.ofArray(new byte[] {1});
        IllegalArgumentException reserved = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.write(
                dir.resolve("r.safetensors"), Map.of("__metadata__", new DenseTensor(DType.U8, List.of(1L), one))));
        assertEquals("a tensor cannot be named __metadata__", reserved.getMessage());
        IllegalArgumentException s4 = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.write(
                dir.resolve("s.safetensors"), Map.of("q", new DenseTensor(DType.S4, List.of(2L), one))));
        assertEquals("safetensors has no dtype for s4 of tensor 'q'", s4.getMessage());
        // It used to be written as '?': a name UTF-8 cannot hold is refused, and no file is made.
        IllegalArgumentException surrogate = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.write(
                dir.resolve("u.safetensors"), Map.of("w\ud800", new DenseTensor(DType.U8, List.of(1L), one))));
        assertEquals("tensor name 'w\ud800' has an unpaired surrogate U+D800 at char 1, which UTF-8 cannot encode",
                surrogate.getMessage());
        assertFalse(java.nio.file.Files.exists(dir.resolve("u.safetensors")));
    }

    @Test
    void readTensorsWriteBackIdentically() throws IOException {
        Path first = dir.resolve("1.safetensors");
        SafetensorsFile.write(first, Map.of(
                "z", new DenseTensor(DType.BF16, List.of(2L), MemorySegment.ofArray(new byte[] {0, 0x3f, (byte) 0x80, 0x3f})),
                "y", new DenseTensor(DType.F64, List.of(), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_DOUBLE, -1.0))),
                Map.of("k", "v"));
        Path second = dir.resolve("2.safetensors");
        try (SafetensorsFile f = SafetensorsFile.open(first)) {
            java.util.Map<String, DenseTensor> back = new java.util.HashMap<>();
            for (SafetensorsFile.Tensor t : f.tensors()) {
                back.put(t.name(), t.asDense());
            }
            SafetensorsFile.write(second, back, f.metadata());
        }
        assertTrue(java.util.Arrays.equals(Files.readAllBytes(first), Files.readAllBytes(second)));
    }

    @Test
    void createdFileFilledInPlaceIsByteForByteWhatWriteWrites() throws IOException {
        // Types of every alignment, a packed 4-bit tensor, an empty one, and a name that sorts by bytes.
        java.util.Random rnd = new java.util.Random(7);
        Map<String, DenseTensor> tensors = new java.util.LinkedHashMap<>();
        tensors.put("w", random(rnd, DType.F32, 3, 5));
        tensors.put("b", random(rnd, DType.BF16, 5));
        tensors.put("ids", random(rnd, DType.S64, 2, 2));
        tensors.put("q", random(rnd, DType.F4E2M1FN, 3, 4));
        tensors.put("none", random(rnd, DType.U8, 0, 4));
        tensors.put("\u00e9t\u00e9", random(rnd, DType.S8, 7));
        Map<String, String> metadata = Map.of("format", "pt");
        Path written = dir.resolve("written.safetensors");
        SafetensorsFile.write(written, tensors, metadata);

        Path created = dir.resolve("created.safetensors");
        Files.write(created, new byte[100_000]); // a longer file there is replaced, not overwritten in part
        Map<String, dev.tensorbuf.views.ArrayShape> shapes = new java.util.LinkedHashMap<>();
        tensors.forEach((name, t) -> shapes.put(name,
                dev.tensorbuf.views.ArrayShape.of(t.dtype(), Extents.toArray(t.dims()))));
        SafetensorsFile out = SafetensorsFile.create(created, shapes, metadata);
        try (out) {
            assertEquals(metadata, out.metadata());
            for (SafetensorsFile.Tensor t : out.tensors()) {
                MemorySegment data = t.data().segment();
                assertEquals(tensors.get(t.name()).bytes().byteSize(), data.byteSize(), t.name());
                assertEquals(-1, data.mismatch(MemorySegment.ofArray(new byte[(int) data.byteSize()])), "zeros until filled");
                MemorySegment.copy(tensors.get(t.name()).bytes(), 0, data, 0, data.byteSize());
            }
        }
        assertEquals(-1, java.util.Arrays.mismatch(Files.readAllBytes(written), Files.readAllBytes(created)));
        out.close(); // twice: nothing
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> out.tensor("w"));
        assertEquals(created + " is closed", closed.getMessage());
        // The same checks as write, before the file is touched.
        Path bad = dir.resolve("bad.safetensors");
        IllegalArgumentException s4 = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.create(bad,
                Map.of("x", dev.tensorbuf.views.ArrayShape.of(DType.S4, 2)), Map.of()));
        assertEquals("safetensors has no dtype for s4 of tensor 'x'", s4.getMessage());
        assertFalse(Files.exists(bad));
        // Among many tensors, a size that cannot be written names its tensor, not just its shape.
        Map<String, dev.tensorbuf.views.ArrayShape> odd = new java.util.LinkedHashMap<>();
        odd.put("w", dev.tensorbuf.views.ArrayShape.of(DType.F4E2M1FN, 4));
        odd.put("f16", dev.tensorbuf.views.ArrayShape.of(DType.F4E2M1FN, 5));
        IllegalArgumentException bits = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.create(bad, odd, Map.of()));
        assertEquals("tensor 'f16': f4e2m1fn[5]: 5 elements of f4e2m1fn are 20 bits, not a whole number of bytes, which"
                + " safetensors requires (its reference reader refuses a sub-byte tensor that does not end on a byte)",
                bits.getMessage());
        // A DenseTensor may hold them (3 bytes, the last half used); write refuses it as create does.
        IllegalArgumentException dense = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.write(bad,
                Map.of("q", new DenseTensor(DType.F4E2M1FN, List.of(5L), MemorySegment.ofArray(new byte[3])))));
        assertEquals("tensor 'q': f4e2m1fn[5]: 5 elements of f4e2m1fn are 20 bits, not a whole number of bytes, which"
                + " safetensors requires (its reference reader refuses a sub-byte tensor that does not end on a byte)",
                dense.getMessage());
        // Asked before any work, the writer's refusals give the same reasons (the Javadoc's example).
        assertEquals(java.util.Optional.empty(), SafetensorsFile.whyNotWritable(dev.tensorbuf.views.ArrayShape.of(DType.F4E2M1FN, 4)));
        assertEquals(java.util.Optional.of("5 elements of f4e2m1fn are 20 bits, not a whole number of bytes, which"
                + " safetensors requires (its reference reader refuses a sub-byte tensor that does not end on a byte)"),
                SafetensorsFile.whyNotWritable(dev.tensorbuf.views.ArrayShape.of(DType.F4E2M1FN, 5)));
        assertEquals(java.util.Optional.of("safetensors has no dtype for s4"),
                SafetensorsFile.whyNotWritable(dev.tensorbuf.views.ArrayShape.of(DType.S4, 2)));
        Map<String, dev.tensorbuf.views.ArrayShape> huge = new java.util.LinkedHashMap<>();
        huge.put("a", dev.tensorbuf.views.ArrayShape.of(DType.U8, Long.MAX_VALUE / 2 + 1));
        huge.put("b", dev.tensorbuf.views.ArrayShape.of(DType.U8, Long.MAX_VALUE / 2 + 1));
        IllegalArgumentException past = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.create(bad, huge, Map.of()));
        assertEquals("tensor 'b' (4611686018427387904 bytes) takes the data past a long byte size: the tensors before it"
                + " hold 4611686018427387904", past.getMessage());
        assertFalse(Files.exists(bad));
    }

    private static DenseTensor random(java.util.Random rnd, DType dtype, long... dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        byte[] bytes = new byte[(int) ((n * dtype.bitWidth() + 7) / 8)];
        rnd.nextBytes(bytes);
        return new DenseTensor(dtype, java.util.Arrays.stream(dims).boxed().toList(), MemorySegment.ofArray(bytes));
    }
}
