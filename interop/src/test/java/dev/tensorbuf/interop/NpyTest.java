package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.NpyCodec;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.tensorbuf.views.TensorElements;

class NpyTest {
    @TempDir
    Path dir;

    @Test
    void exampleFromJavadoc() throws IOException {
        Path file = dir.resolve("x.npy");
        MemorySegment bytes = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
        Npy.write(file, new DenseTensor(DType.F32, List.of(2L, 3L), bytes));
        Npy.Header h = Npy.readHeader(file);
        assertEquals("<f4", h.descr());
        assertEquals(128, h.dataOffset());
        assertEquals(152, Files.size(file));
        String text = new String(Files.readAllBytes(file), 10, 118, StandardCharsets.ISO_8859_1);
        assertEquals("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + " ".repeat(58) + "\n", text);
        try (Npy.Tensor a = Npy.map(file)) {
            assertEquals(6.0f, a.data().segment().get(ValueLayout.JAVA_FLOAT_UNALIGNED, 20));
            assertTrue(a.isMapped());
        }
    }

    @Test
    void bigEndianFortranFileReadsAsLittleEndianColumnMajor() throws IOException {
        // np.save of np.arange(6, dtype='>i4').reshape(2, 3, order='F'): column-major bytes 0..5, big-endian
        Path file = dir.resolve("f.npy");
        String header = "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }";
        byte[] pre = preamble(header);
        java.nio.ByteBuffer data = java.nio.ByteBuffer.allocate(24).order(ByteOrder.BIG_ENDIAN);
        for (int v = 0; v < 6; v++) {
            data.putInt(v);
        }
        Files.write(file, concat(pre, data.array()));
        try (Npy.Tensor a = Npy.map(file)) {
            assertEquals(ByteOrder.BIG_ENDIAN, a.header().byteOrder());
            assertEquals(List.of(1L, 2L), a.layout().strides());
            ElementAccess s32 = ElementAccess.of(DType.S32);
            // element (1, 2) is the 6th in column-major order: 1 + 2 * 2 = 5
            assertEquals(5, s32.getLong(a.data().segment(), a.layout().offsetOf(1, 2)));
            assertEquals(2, s32.getLong(a.data().segment(), a.layout().offsetOf(0, 1)));
        }
    }

    @Test
    void viewOfFortranOrderFileReadsByLogicalIndex() throws IOException {
        // np.save of np.asfortranarray(np.arange(6, dtype='<i4').reshape(2, 3)): bytes 0 3 1 4 2 5
        Path file = dir.resolve("f.npy");
        java.nio.ByteBuffer data = java.nio.ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : new int[] {0, 3, 1, 4, 2, 5}) {
            data.putInt(v);
        }
        Files.write(file, concat(preamble("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }"), data.array()));
        try (Npy.Tensor a = Npy.map(file)) {
            assertEquals(3, TensorElements.of(a.view()).getLong(1, 0));
            assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5}, TensorElements.of(a.view()).toLongArray());
            assertTrue(a.view().buffer().isReadOnly());
        }
    }

    @Test
    void readIntoPooledBufferAndCloseGivesItBack() throws IOException {
        Path file = dir.resolve("p.npy");
        MemorySegment bytes = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_SHORT, (short) 7, (short) -8);
        Npy.write(file, new DenseTensor(DType.S16, List.of(2L), bytes));
        try (PooledAllocator pool = PooledAllocator.builder().name("npy").build()) {
            Npy.Tensor a = Npy.read(file, pool);
            assertEquals(-8, ElementAccess.of(DType.S16).getLong(a.data().segment(), 1));
            assertFalse(a.isMapped());
            a.close();
            assertThrows(IllegalStateException.class, () -> a.data().segment());
        }
    }

    @Test
    void closedMappingRefusesAccess() throws IOException {
        Path file = dir.resolve("c.npy");
        Npy.write(file, new DenseTensor(DType.U8, List.of(3L), MemorySegment.ofArray(new byte[] {1, 2, 3})));
        Npy.Tensor a = Npy.map(file);
        a.close();
        a.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.data().segment());
        assertTrue(e.getMessage().contains("mapped c.npy"), e.getMessage());
    }

    @Test
    void versions2And3AreWrittenOnRequestAndReadBack() throws IOException {
        // With at most 64 dims a numeric header always fits version 1.0, which is what numpy.save picks too.
        for (int version : new int[] {2, 3}) {
            Path file = dir.resolve("v" + version + ".npy");
            Npy.write(file, new DenseTensor(DType.F64, List.of(2L, 1L), Arena.ofAuto().allocate(16)), version);
            Npy.Header h = Npy.readHeader(file);
            assertEquals(version, h.majorVersion());
            assertEquals(List.of(2L, 1L), h.shape());
            assertEquals(0, h.dataOffset() % 64);
        }
        List<Long> deepest = new ArrayList<>(Collections.nCopies(64, 1L));
        deepest.set(0, 1_000_000_000_000L);
        assertEquals(1, NpyCodec.preamble("<f8", false, deepest, 0)[6], "64 dims of 13 digits fit version 1.0");
    }

    @Test
    void zeroDimAndEmptyArraysRoundTrip() throws IOException {
        Path scalar = dir.resolve("s.npy");
        Npy.write(scalar, new DenseTensor(DType.F64, List.of(), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_DOUBLE, 2.5)));
        try (Npy.Tensor a = Npy.map(scalar)) {
            assertEquals(List.of(), a.shape());
            assertEquals(2.5, a.data().segment().get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
        }
        Path empty = dir.resolve("e.npy");
        Npy.write(empty, new DenseTensor(DType.C64, List.of(0L, 3L), MemorySegment.NULL));
        try (Npy.Tensor a = Npy.map(empty)) {
            assertEquals(0, a.data().byteSize());
            assertEquals(List.of(0L, 3L), a.shape());
        }
    }

    @Test
    void typesNumpyLacksAreWrittenAsTheVoidsMlDtypesSaves() throws IOException {
        Path bf = dir.resolve("b.npy");
        Npy.write(bf, new DenseTensor(DType.BF16, List.of(2L), MemorySegment.ofArray(new short[] {0x3f80, (short) 0xc020})));
        try (Npy.Tensor a = Npy.map(bf, DType.BF16)) {
            assertEquals("<V2", a.header().descr());
            assertArrayEquals(new double[] {1, -2.5}, TensorElements.of(a.view()).toDoubleArray());
        }
        // The Javadoc's example: int4 [1, -2, 3, 0] packed is e1 03; ml_dtypes holds one to a byte, 01 0e 03 00.
        Path q = dir.resolve("q.npy");
        Npy.write(q, new DenseTensor(DType.S4, List.of(4L), MemorySegment.ofArray(new byte[] {(byte) 0xe1, 0x03})));
        byte[] all = Files.readAllBytes(q);
        assertArrayEquals(new byte[] {0x01, 0x0e, 0x03, 0x00}, java.util.Arrays.copyOfRange(all, all.length - 4, all.length));
        try (Npy.Tensor a = Npy.map(q, DType.S4)) {
            assertEquals("<V1", a.header().descr());
            assertArrayEquals(new long[] {1, -2, 3, 0}, TensorElements.of(a.view()).toLongArray());
        }
        Path u2 = dir.resolve("u2.npy");
        Npy.write(u2, new DenseTensor(DType.U2, List.of(2L, 2L), MemorySegment.ofArray(new byte[] {(byte) 0xe4})));
        try (Npy.Tensor a = Npy.map(u2, DType.U2)) {
            assertArrayEquals(new long[] {0, 1, 2, 3}, TensorElements.of(a.view()).toLongArray());
        }
    }

    /**
     * The copy engine unpacks sub-byte data for the writer: its one-to-a-byte store must be
     * ml_dtypes' byte, the element's low bits with the rest zero (int4 -2 is 0x0e, never the
     * sign-extended 0xfe), for every 1-, 2- and 4-bit type, across pieces of the write.
     */
    @Test
    void subByteElementsAreWrittenOneToAByteInTheirLowBitsOnly() throws IOException {
        java.util.Random random = new java.util.Random(7);
        for (DType type : List.of(DType.S4, DType.U4, DType.S2, DType.U2, DType.S1, DType.U1, DType.F4E2M1FN)) {
            int bits = type.bitWidth();
            long count = (1 << 20) + 13; // past one piece of the write, the last byte partly used
            byte[] packed = new byte[(int) Math.ceilDiv(count * bits, 8)];
            random.nextBytes(packed); // the unused bits of the last byte too: they are not written
            Path file = dir.resolve(type + ".npy");
            Npy.write(file, new DenseTensor(type, List.of(count), MemorySegment.ofArray(packed)));
            byte[] all = Files.readAllBytes(file);
            int data = all.length - (int) count;
            for (int i = 0; i < count; i++) {
                int want = (packed[i * bits / 8] >>> (i * bits % 8)) & ((1 << bits) - 1);
                if (all[data + i] != want) {
                    throw new AssertionError(type + " element " + i + ": wrote " + String.format("0x%02x", all[data + i])
                            + ", ml_dtypes writes " + String.format("0x%02x", want));
                }
            }
        }
        // The signed values themselves: s4 -8 -2 -1 7, s2 -2 -1, s1 -1 are their low bits.
        Path s4 = dir.resolve("s4.npy");
        Npy.write(s4, new DenseTensor(DType.S4, List.of(4L), MemorySegment.ofArray(new byte[] {(byte) 0xe8, 0x7f})));
        byte[] all = Files.readAllBytes(s4);
        assertArrayEquals(new byte[] {0x08, 0x0e, 0x0f, 0x07}, java.util.Arrays.copyOfRange(all, all.length - 4, all.length));
        Path s2 = dir.resolve("s2.npy");
        Npy.write(s2, new DenseTensor(DType.S2, List.of(4L), MemorySegment.ofArray(new byte[] {(byte) 0x1e})));
        all = Files.readAllBytes(s2);
        assertArrayEquals(new byte[] {0x02, 0x03, 0x01, 0x00}, java.util.Arrays.copyOfRange(all, all.length - 4, all.length));
        try (Npy.Tensor a = Npy.map(s2, DType.S2)) {
            assertArrayEquals(new long[] {-2, -1, 1, 0}, TensorElements.of(a.view()).toLongArray());
        }
    }

    @Test
    void sixBitTypesAreRefusedOnWriteForTheirUndefinedPacking() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.write(dir.resolve("f6.npy"),
                new DenseTensor(DType.F6E2M3FN, List.of(4L), Arena.ofAuto().allocate(3))));
        assertEquals("cannot write f6e2m3fn[4] (3 bytes) to " + dir.resolve("f6.npy") + ": its 6-bit elements are packed"
                + " four to three bytes in a bit order no format defines, and ml_dtypes' float6_e2m3fn .npy holds one to a"
                + " byte; tensorbuf does not unpack them", e.getMessage());
    }

    /** A file as np.save writes ml_dtypes' bfloat16: descr '<V2', the bf16 bits as data. */
    private Path voidBf16(String name, short... bits) throws IOException {
        return npyOf(name, "<V2", List.of((long) bits.length),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_SHORT, bits).toArray(ValueLayout.JAVA_BYTE));
    }

    /** A .npy of any descr (what np.save writes for types we cannot write): the header, then {@code data}. */
    private Path npyOf(String name, String descr, List<Long> shape, byte[] data) throws IOException {
        byte[] preamble = NpyCodec.preamble(descr, false, shape, 0);
        byte[] all = java.util.Arrays.copyOf(preamble, preamble.length + data.length);
        System.arraycopy(data, 0, all, preamble.length, data.length);
        Path file = dir.resolve(name);
        Files.write(file, all);
        return file;
    }

    @Test
    void voidFilesOfMlDtypesAreReadAsTheTypeTheCallerNames() throws IOException {
        // bf16 1.0 = 0x3f80, -2.5 = 0xc020
        Path file = voidBf16("bf.npy", (short) 0x3f80, (short) 0xc020);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.map(file));
        assertTrue(e.getMessage().contains("descr '<V2' is a void type (2 bytes each): ml_dtypes saves bf16 that way"
                + " without saying so; name the type (tensorbuf convert --from-dtype bf16, Npy.map(file, DType.BF16))"),
                e.getMessage());
        try (Npy.Tensor a = Npy.map(file, DType.BF16)) {
            assertEquals(DType.BF16, a.dtype());
            assertEquals("<V2", a.header().descr());
            assertArrayEquals(new double[] {1.0, -2.5},
                    TensorElements.of(dev.tensorbuf.views.TensorView.strided(a.data(), a.dtype(), a.layout())).toDoubleArray());
        }
        IllegalArgumentException width = assertThrows(IllegalArgumentException.class, () -> Npy.map(file, DType.F8E4M3FN));
        assertTrue(width.getMessage().endsWith("descr '<V2' holds 2-byte elements; f8e4m3fn elements take 1 byte"),
                width.getMessage());
        IllegalArgumentException native_ = assertThrows(IllegalArgumentException.class, () -> Npy.map(file, DType.F16));
        assertTrue(native_.getMessage().endsWith("f16 has a NumPy descr of its own, '<f2'"), native_.getMessage());
        // A typed file is read as its own type whatever is named for void ones.
        Path f32 = dir.resolve("f.npy");
        Npy.write(f32, new DenseTensor(DType.F32, List.of(1L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 2f)));
        try (Npy.Tensor a = Npy.map(f32, DType.BF16)) {
            assertEquals(DType.F32, a.dtype());
        }
    }

    /** A file as np.save writes an ml_dtypes type of one byte per element: descr '<V1', the bytes as data. */
    private Path void1(String name, int... bytes) throws IOException {
        byte[] data = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            data[i] = (byte) bytes[i];
        }
        return npyOf(name, "<V1", List.of((long) bytes.length), data);
    }

    @Test
    void subByteVoidFilesOfMlDtypesHoldOneElementPerByte() throws IOException {
        // np.save(f, np.array([-8, -1, 0, 7], ml_dtypes.int4)): descr '<V1', bytes 08 0f 00 07 (low nibble, no sign extension).
        Path int4 = void1("i4.npy", 0x08, 0x0f, 0x00, 0x07);
        try (Npy.Tensor a = Npy.map(int4, DType.S4)) {
            assertEquals(DType.S4, a.dtype());
            assertEquals(4, a.header().dataByteSize());
            assertArrayEquals(new double[] {-8, -1, 0, 7},
                    TensorElements.of(dev.tensorbuf.views.TensorView.strided(a.data(), a.dtype(), a.layout())).toDoubleArray());
            assertEquals(-1, ElementAccess.of(DType.S4).getLong(a.data().segment(), 1));
        }
        try (Npy.Tensor a = Npy.map(int4, DType.U4)) {
            assertArrayEquals(new double[] {8, 15, 0, 7},
                    TensorElements.of(dev.tensorbuf.views.TensorView.strided(a.data(), a.dtype(), a.layout())).toDoubleArray());
        }
        // float4_e2m1fn [-1, 0.5, 6] is 0x0a 0x01 0x07; float6_e2m3fn [-1, 0.5, 7.5] is 0x28 0x04 0x1f.
        try (Npy.Tensor a = Npy.map(void1("f4.npy", 0x0a, 0x01, 0x07), DType.F4E2M1FN)) {
            assertArrayEquals(new double[] {-1, 0.5, 6},
                    TensorElements.of(dev.tensorbuf.views.TensorView.strided(a.data(), a.dtype(), a.layout())).toDoubleArray());
        }
        try (Npy.Tensor a = Npy.map(void1("f6.npy", 0x28, 0x04, 0x1f), DType.F6E2M3FN)) {
            assertArrayEquals(new double[] {-1, 0.5, 7.5},
                    TensorElements.of(dev.tensorbuf.views.TensorView.strided(a.data(), a.dtype(), a.layout())).toDoubleArray());
        }
        // ml_dtypes never sets the high bits (int4 -1 is 0x0f): 0xff was read as -1, 0x38 as -8.
        Path mistyped = void1("bad4.npy", 0x08, 0xff, 0x00, 0x0f);
        IllegalArgumentException high = assertThrows(IllegalArgumentException.class, () -> Npy.map(mistyped, DType.S4));
        assertTrue(high.getMessage().endsWith("bad4.npy: element 1 is the byte 0xff, which ml_dtypes never writes for s4"
                + " (one element to a byte, in its low 4 bits, the rest zero): the file does not hold s4"), high.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Npy.map(void1("bad4u.npy", 0x38), DType.U4));
        IllegalArgumentException six = assertThrows(IllegalArgumentException.class,
                () -> Npy.map(void1("bad6.npy", 0x3f, 0x40), DType.F6E2M3FN));
        assertTrue(six.getMessage().contains("element 1 is the byte 0x40"), six.getMessage());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.map(int4));
        assertTrue(e.getMessage().endsWith("descr '<V1' is a void type (1 byte each): ml_dtypes saves its f8 types (but"
                + " float8_e5m2) and its sub-byte types (int4, float4_e2m1fn..., one to a byte) that way without saying"
                + " which; name the type (tensorbuf convert --from-dtype f8e4m3fn, Npy.map(file, DType.F8E4M3FN))"),
                e.getMessage());
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class, () -> Npy.map(int4, DType.BF16));
        assertTrue(wide.getMessage().endsWith("descr '<V1' holds 1-byte elements; bf16 elements take 2 bytes"), wide.getMessage());
    }

    @Test
    void voidTypesNoMlDtypesTypeFitsGetNoHintAboutThem() throws IOException {
        for (String descr : List.of("|V0", "<V4")) {
            Path file = npyOf("v.npy", descr, List.of(2L), new byte[8]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.map(file));
            String width = descr.equals("|V0") ? "0 bytes" : "4 bytes";
            assertEquals(file + ": descr '" + descr + "' is a void type (" + width + " each): raw bytes of no numeric type,"
                    + " which are not read", e.getMessage());
        }
    }

    @Test
    void writingFromAClosedArenaLeavesThePreviousFileIntact() throws IOException {
        Path file = dir.resolve("keep.npy");
        Npy.write(file, new DenseTensor(DType.F32, List.of(2L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2)));
        byte[] before = Files.readAllBytes(file);
        Arena arena = Arena.ofShared();
        DenseTensor dead = new DenseTensor(DType.F32, List.of(4L), arena.allocate(16));
        arena.close();
        assertThrows(IllegalStateException.class, () -> Npy.write(file, dead));
        assertArrayEquals(before, Files.readAllBytes(file));
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "no .part file is left behind");
        }
    }

    @Test
    void float8E5m2IsRefusedOnWriteForWhatMlDtypesReallyWrites() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.write(dir.resolve("e5.npy"),
                new DenseTensor(DType.F8E5M2, List.of(1L), Arena.ofAuto().allocate(1))));
        assertEquals("cannot write f8e5m2[1] (1 bytes) to " + dir.resolve("e5.npy") + ": ml_dtypes saves float8_e5m2 as"
                + " '<f1', which np.load cannot read; write a .safetensors file (F8_E5M2) instead", e.getMessage());
    }

    @Test
    void mlDtypesFloat8E5m2FilesSayF1AndAreReadAsF8e5m2() throws IOException {
        // np.save(f, np.array([1.5, -2], ml_dtypes.float8_e5m2)) writes descr '<f1': e5m2 1.5 = 0x3e, -2 = 0xc0.
        Path file = dir.resolve("e5.npy");
        byte[] preamble = NpyCodec.preamble("<f1", false, List.of(2L), 0);
        byte[] all = java.util.Arrays.copyOf(preamble, preamble.length + 2);
        all[preamble.length] = 0x3e;
        all[preamble.length + 1] = (byte) 0xc0;
        Files.write(file, all);
        for (DType named : java.util.Arrays.asList(null, DType.F8E5M2, DType.BF16)) {
            try (Npy.Tensor a = Npy.map(file, named)) {
                assertEquals(DType.F8E5M2, a.dtype());
                assertArrayEquals(new double[] {1.5, -2},
                        TensorElements.of(dev.tensorbuf.views.TensorView.strided(a.data(), a.dtype(), a.layout())).toDoubleArray());
            }
        }
    }

    @Test
    void moreDimensionsThanNumpyReadsAreRefusedBeforeTheFileIsTouched() throws IOException {
        Path file = dir.resolve("deep.npy");
        Files.write(file, new byte[] {42});
        List<Long> dims = java.util.Collections.nCopies(65, 1L);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Npy.write(file, new DenseTensor(DType.U8, dims, Arena.ofAuto().allocate(1))));
        assertEquals("65 dimensions: NumPy reads arrays of at most 64 (NPY_MAXDIMS), so it could not load this file",
                e.getMessage());
        assertArrayEquals(new byte[] {42}, Files.readAllBytes(file));
    }

    @Test
    void denseTensorChecksItsSize() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DenseTensor(DType.F32,
                List.of(2L, 2L), Arena.ofAuto().allocate(24)));
        assertEquals("f32[2, 2] needs 16 bytes, the data has 24", e.getMessage());
    }

    private static byte[] preamble(String header) {
        int total = 10 + header.length() + 1;
        int padded = (total + 63) / 64 * 64;
        String h = header + " ".repeat(padded - total) + "\n";
        byte[] out = new byte[10 + h.length()];
        byte[] magic = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) h.length(), (byte) (h.length() >> 8)};
        System.arraycopy(magic, 0, out, 0, 10);
        System.arraycopy(h.getBytes(StandardCharsets.ISO_8859_1), 0, out, 10, h.length());
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
