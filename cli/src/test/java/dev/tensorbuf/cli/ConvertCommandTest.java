package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

class ConvertCommandTest {
    /** Figure 1 of the XLA tiled layout docs: f32[3,5] with values 1..15 under T(2,2), padding 0. */
    private static final float[] FIGURE_1 = {1, 2, 6, 7, 3, 4, 8, 9, 5, 0, 10, 0, 11, 12, 0, 0, 13, 14, 0, 0, 15, 0, 0, 0};

    @TempDir
    Path dir;

    private Path oneToFifteen() throws IOException {
        Path file = dir.resolve("x.npy");
        float[] values = new float[15];
        for (int i = 0; i < 15; i++) {
            values[i] = i + 1;
        }
        Npy.write(file, new DenseTensor(DType.F32, List.of(3L, 5L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, values)));
        return file;
    }

    private static float[] floats(Path file) throws IOException {
        return MemorySegment.ofArray(Files.readAllBytes(file)).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
    }

    @Test
    void exampleFromHelpWritesFigureOneBytesWithZeroPadding() throws IOException {
        Path out = dir.resolve("x.bin");
        CliHarness r = CliHarness.run("convert", oneToFifteen().toString(), out.toString(), "--layout", "f32[3,5]{1,0:T(2,2)}");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(dir.resolve("x.npy") + " -> " + out + ": f32[3,5]{1,0:T(2,2)}, 96 bytes (raw) in "), r.out());
        assertArrayEquals(FIGURE_1, floats(out));
    }

    @Test
    void complexTensorsWidenIntoTiledRawBytesAndRefuseToDropImaginaryParts() throws IOException {
        // c64 (1+2i, 3-4i) as NumPy's '<c8' .npy; widened into c128 tiles of 2, the second tile padded.
        Path in = dir.resolve("z.npy");
        Npy.write(in, new DenseTensor(DType.C64, List.of(3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT,
                1, 2, 3, -4, -0.5f, 0)));
        Path out = dir.resolve("z.bin");
        CliHarness r = CliHarness.run("convert", in.toString(), out.toString(), "--layout", "c128[3]{0:T(2)}");
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(new double[] {1, 2, 3, -4, -0.5, 0, 0, 0},
                MemorySegment.ofArray(Files.readAllBytes(out)).toArray(ValueLayout.JAVA_DOUBLE_UNALIGNED));
        Path real = dir.resolve("real.npy");
        r = CliHarness.run("convert", in.toString(), real.toString(), "--dtype", "f32");
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: cannot convert c64 to f32: the imaginary parts would be lost; complex values"
                + " copy to c64 and c128 only\n", r.err());
        assertFalse(Files.exists(real));
    }

    @Test
    void packedFourBitTensorsConvertBothWaysThroughSafetensors() throws IOException {
        // Every f4e2m1fn value once: safetensors' F4 packs two per byte, the first in the low nibble.
        float[] values = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
        Path in = dir.resolve("all.npy");
        Npy.write(in, new DenseTensor(DType.F32, List.of(4L, 4L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, values)));
        Path packed = dir.resolve("all.safetensors");
        CliHarness r = CliHarness.run("convert", in.toString(), packed.toString(), "--dtype", "f4e2m1fn");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("f4e2m1fn[4,4]{1,0:E(4)}"), r.out());
        try (SafetensorsFile f = SafetensorsFile.open(packed)) {
            assertArrayEquals(new byte[] {0x10, 0x32, 0x54, 0x76, (byte) 0x98, (byte) 0xba, (byte) 0xdc, (byte) 0xfe},
                    f.tensor("all").data().segment().toArray(ValueLayout.JAVA_BYTE));
        }
        Path back = dir.resolve("back.npy");
        r = CliHarness.run("convert", packed.toString(), back.toString(), "--dtype", "f32");
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor a = Npy.map(back)) {
            assertArrayEquals(values, a.data().segment().toArray(ValueLayout.JAVA_FLOAT));
        }
        // NumPy has no 4-bit type: written as np.save writes ml_dtypes' float4_e2m1fn, '<V1', one to a byte.
        Path npy = dir.resolve("all4.npy");
        r = CliHarness.run("convert", packed.toString(), npy.toString());
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor a = Npy.map(npy, DType.F4E2M1FN)) {
            assertEquals("<V1", a.header().descr());
            assertArrayEquals(new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                    a.data().segment().toArray(ValueLayout.JAVA_BYTE));
        }
        // s4 has no safetensors dtype: refused by name, before anything is copied or written.
        Path no = dir.resolve("no.safetensors");
        r = CliHarness.run("convert", packed.toString(), no.toString(), "--tensor", "all", "--dtype", "s4");
        assertEquals("tensorbuf convert: the output is s4, which safetensors has no dtype for; write raw bytes instead"
                + " (OUT with any other extension)\n", r.err());
        assertFalse(Files.exists(no));
    }

    @Test
    void aSubByteNpyOutputIsReportedOneToAByteAndADeviceGetsTheBytesWrittenNotItsSize() throws IOException {
        Path in = dir.resolve("five.npy");
        Npy.write(in, new DenseTensor(DType.F32, List.of(5L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, -8, -1, 0, 1, 7)));
        Path out = dir.resolve("five4.npy");
        CliHarness r = CliHarness.run("convert", in.toString(), out.toString(), "--dtype", "s4");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(in + " -> " + out + ": s4[5]{0}, 133 bytes (npy)"), r.out());
        Path devNull = Path.of("/dev/null");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(devNull) && !Files.isRegularFile(devNull), "no /dev/null here");
        r = CliHarness.run("convert", in.toString(), devNull.toString(), "--dtype", "s4");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(in + " -> /dev/null: s4[5]{0:E(4)}, 3 bytes (raw)"), r.out());
        r = CliHarness.run("convert", in.toString(), devNull.toString(), "--dtype", "f32", "--json");
        assertTrue(r.out().contains("\"bytes_written\":20"), r.out());
    }

    @Test
    void anOddCountOfFourBitElementsIsRefusedForSafetensorsBeforeTheCopy() throws IOException {
        Path in = dir.resolve("three.npy");
        Npy.write(in, new DenseTensor(DType.F32, List.of(3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3)));
        Path out = dir.resolve("three.safetensors");
        CliHarness r = CliHarness.run("convert", in.toString(), out.toString(), "--dtype", "f4e2m1fn");
        assertEquals(2, r.code());
        // "the output is" is the up-front check's wording; the writer's own refusal, after the copy, names the tensor.
        assertEquals("tensorbuf convert: the output is f4e2m1fn[3]: 3 elements of f4e2m1fn are 12 bits, not a whole number"
                + " of bytes, which safetensors requires (its reference reader refuses a sub-byte tensor that does not end"
                + " on a byte); write raw bytes instead (OUT with any other extension)\n", r.err());
        assertFalse(Files.exists(out));
        // An even count packs: [4] is two bytes, the first element in the low nibble.
        Path four = dir.resolve("four.npy");
        Npy.write(four, new DenseTensor(DType.F32, List.of(4L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4)));
        r = CliHarness.run("convert", four.toString(), out.toString(), "--dtype", "f4e2m1fn");
        assertEquals(0, r.code(), r.err());
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertArrayEquals(new byte[] {0x42, 0x65}, f.tensor("four").data().segment().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    /**
     * bf16, the f8 types but e5m2 and the 1-, 2- and 4-bit types go to .npy as np.save writes
     * ml_dtypes arrays: NumPy loads them as voids, {@code .view(ml_dtypes.T)} gives the values, and
     * {@code --from-dtype T} reads them back. Seven elements: an odd count, so s4 packs into 4 bytes.
     */
    @Test
    void npyOutputOfMlDtypesTypesIsWhatNumpyLoadsAsThemAndWhatWeReadBack() throws IOException {
        float[] floats = {1, -2, 0.5f, 3, -1.5f, 0, 2};
        Map<DType, float[]> cases = new java.util.LinkedHashMap<>();
        for (DType t : List.of(DType.BF16, DType.F8E4M3FN, DType.F8E4M3, DType.F8E3M4, DType.F8E4M3B11FNUZ,
                DType.F8E5M2FNUZ, DType.F8E4M3FNUZ, DType.F4E2M1FN)) {
            cases.put(t, floats);
        }
        cases.put(DType.F8E8M0FNU, new float[] {1, 2, 0.5f, 4, 0.25f, 8, 0.125f}); // powers of two only
        cases.put(DType.S4, new float[] {-8, -2, 7, 0, -1, 3, 5});
        cases.put(DType.U4, new float[] {0, 15, 8, 1, 2, 3, 9});
        cases.put(DType.S2, new float[] {-2, -1, 0, 1, 1, -2, 0});
        cases.put(DType.U2, new float[] {0, 3, 2, 1, 0, 1, 3});
        cases.put(DType.S1, new float[] {-1, 0, -1, 0, 0, -1, 0});
        cases.put(DType.U1, new float[] {1, 0, 1, 1, 0, 0, 1});
        Map<Path, DType> written = new java.util.LinkedHashMap<>();
        for (Map.Entry<DType, float[]> c : cases.entrySet()) {
            DType t = c.getKey();
            Path in = dir.resolve("in_" + t + ".npy");
            Npy.write(in, new DenseTensor(DType.F32, List.of(7L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT,
                    c.getValue())));
            Path out = dir.resolve(t + ".npy");
            CliHarness r = CliHarness.run("convert", in.toString(), out.toString(), "--dtype", t.xlaName());
            assertEquals(0, r.code(), t + ": " + r.err());
            written.put(out, t);
            // Our own reader, told the type: the same values.
            Path back = dir.resolve(t + ".f32.npy");
            r = CliHarness.run("convert", out.toString(), back.toString(), "--from-dtype", t.xlaName(), "--dtype", "f32");
            assertEquals(0, r.code(), t + ": " + r.err());
            try (Npy.Tensor a = Npy.map(back)) {
                assertArrayEquals(c.getValue(), a.data().segment().toArray(ValueLayout.JAVA_FLOAT), t.toString());
            }
        }
        List<MlDtypesNpy.Loaded> loaded = MlDtypesNpy.load(dir, written);
        int k = 0;
        for (Map.Entry<Path, DType> w : written.entrySet()) {
            DType t = w.getValue();
            MlDtypesNpy.Loaded l = loaded.get(k++);
            assertEquals(t == DType.BF16 ? "|V2" : "|V1", l.descr(), t.toString());
            assertEquals(List.of(7L), l.shape(), t.toString());
            float[] want = cases.get(t);
            for (int i = 0; i < want.length; i++) {
                assertEquals(want[i], l.values().get(i), 0, t + " element " + i);
            }
        }
    }

    @Test
    void voidNpyOfMlDtypesConvertsOnceItsTypeIsNamed() throws IOException {
        Path bf = dir.resolve("bf.npy");
        RunCommandTest.writeVoidBf16(bf, new long[] {3}, (short) 0x3f80, (short) 0xc020, (short) 0x7f80);
        Path out = dir.resolve("f.npy");
        CliHarness r = CliHarness.run("convert", bf.toString(), out.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("name the type (tensorbuf convert --from-dtype bf16"), r.err());
        r = CliHarness.run("convert", bf.toString(), out.toString(), "--from-dtype", "bf16", "--dtype", "f32");
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor a = Npy.map(out)) {
            assertArrayEquals(new float[] {1, -2.5f, Float.POSITIVE_INFINITY}, a.data().segment().toArray(ValueLayout.JAVA_FLOAT));
        }
        r = CliHarness.run("convert", oneToFifteen().toString(), out.toString(), "--from-dtype", "bf16");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("says its own type, f32 ('<f4'); the option names the type of void ('<V2', '<V1')"
                + " files"), r.err());
    }

    /** What np.save writes for an ml_dtypes type of one byte per element (int4, float8_e4m3fn...): '<V1' and the bytes. */
    private Path void1(String name, int... bytes) throws IOException {
        byte[] data = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            data[i] = (byte) bytes[i];
        }
        return NpyBytes.write(dir.resolve(name), "<V1", List.of((long) bytes.length), data);
    }

    @Test
    void mlDtypesSubByteNpyConvertsOnceItsTypeIsNamed() throws IOException {
        // np.save('i4.npy', np.array([-8, -1, 0, 7], ml_dtypes.int4)): '<V1', one element per byte in the low nibble.
        Path i4 = void1("i4.npy", 0x08, 0x0f, 0x00, 0x07);
        Path raw = dir.resolve("o.raw");
        CliHarness r = CliHarness.run("convert", i4.toString(), raw.toString(), "--from-dtype", "s4");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("s4[4]{0:E(4)}, 2 bytes (raw)"), r.out());
        // Raw output packs two to a byte, the first element in the low nibble: -8 -1 | 0 7.
        assertArrayEquals(new byte[] {(byte) 0xf8, 0x70}, Files.readAllBytes(raw));
        Path wide = dir.resolve("w.npy");
        r = CliHarness.run("convert", i4.toString(), wide.toString(), "--from-dtype", "s4", "--dtype", "s32");
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor a = Npy.map(wide)) {
            assertArrayEquals(new int[] {-8, -1, 0, 7}, a.data().segment().toArray(ValueLayout.JAVA_INT));
        }
        // float6_e2m3fn [-1, 0.5, 7.5]: read one to a byte, as ml_dtypes saves them.
        Path f6 = void1("f6.npy", 0x28, 0x04, 0x1f);
        Path f32 = dir.resolve("f6.npy.f32.npy");
        r = CliHarness.run("convert", f6.toString(), f32.toString(), "--from-dtype", "f6e2m3fn", "--dtype", "f32");
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor a = Npy.map(f32)) {
            assertArrayEquals(new float[] {-1, 0.5f, 7.5f}, a.data().segment().toArray(ValueLayout.JAVA_FLOAT));
        }
        // Packed 6-bit output has no defined bit order; one to a byte it has, and the message says how.
        r = CliHarness.run("convert", f6.toString(), dir.resolve("f6.raw").toString(), "--from-dtype", "f6e2m3fn",
                "--layout", "f6e2m3fn[3]{0:E(6)}");
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: the output is f6e2m3fn[3]{0:E(6)}: 6-bit elements do not pack evenly into bytes,"
                + " and tensorbuf writes them only one to a byte, as ml_dtypes holds them: give --layout"
                + " 'f6e2m3fn[3]{0}' (raw output)\n", r.err());
        r = CliHarness.run("convert", f6.toString(), dir.resolve("f6.raw").toString(), "--from-dtype", "f6e2m3fn",
                "--layout", "f6e2m3fn[3]{0}");
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(new byte[] {0x28, 0x04, 0x1f}, Files.readAllBytes(dir.resolve("f6.raw")));
    }

    @Test
    void sixBitOutputDefaultsToOneElementToAByte() throws IOException {
        // The default was the packed {0:E(6)}, which the command then refused, recommending {0}.
        Path f32 = dir.resolve("p.npy");
        Npy.write(f32, new DenseTensor(DType.F32, List.of(3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, -1, 0.5f, 7.5f)));
        Path raw = dir.resolve("p.bin");
        CliHarness r = CliHarness.run("convert", f32.toString(), raw.toString(), "--dtype", "f6e2m3fn");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(f32 + " -> " + raw + ": f6e2m3fn[3]{0}, 3 bytes (raw) in "), r.out());
        assertArrayEquals(new byte[] {0x28, 0x04, 0x1f}, Files.readAllBytes(raw));
        // Neither file format holds them one to a byte: their own refusal, not one about --layout.
        r = CliHarness.run("convert", f32.toString(), dir.resolve("p6.npy").toString(), "--dtype", "f6e2m3fn");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf convert: the output is f6e2m3fn, which tensorbuf does not write to .npy"
                + " (its 6-bit elements are packed four to three bytes in a bit order no format defines"), r.err());
    }

    @Test
    void zipArchivesAreNamedWithWhatToDoInstead() throws IOException {
        // np.savez and torch.save write zip archives; read as raw or safetensors they made no sense.
        // An .npz is read as one (Npy.Archive): this one, cut after its first local header, is refused as a zip.
        Path npz = dir.resolve("arrs.npz");
        Files.write(npz, new byte[] {'P', 'K', 3, 4, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        String archive = " is a zip archive (.npz or torch.save): tensorbuf reads an .npz named so; save a torch.save"
                + " model with safetensors\n";
        CliHarness r = CliHarness.run("convert", npz.toString(), dir.resolve("a.npy").toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: " + npz + ": not a zip archive (no end of central directory record)\n", r.err());
        Path pt = dir.resolve("model.safetensors");
        Files.copy(npz, pt);
        r = CliHarness.run("convert", pt.toString(), dir.resolve("b.safetensors").toString());
        assertEquals("tensorbuf convert: " + pt + archive, r.err());
        // Raw bytes of a declared layout may start with the magic by chance: only an archive's name is refused.
        Path bin = dir.resolve("x.bin");
        Files.copy(npz, bin);
        r = CliHarness.run("convert", bin.toString(), dir.resolve("x.npy").toString(), "--from-layout", "u8[16]{0}");
        assertEquals(0, r.code(), r.err());
        Path zip = dir.resolve("arrs.zip");
        Files.copy(npz, zip);
        r = CliHarness.run("convert", zip.toString(), dir.resolve("y.npy").toString(), "--from-layout", "u8[16]{0}");
        assertEquals("tensorbuf convert: " + zip + archive, r.err());
    }

    @Test
    void singleDashArgumentsAreUnknownOptionsNotFileNames() throws IOException {
        Path in = oneToFifteen();
        Path out = dir.resolve("o.npy");
        CliHarness r = CliHarness.run("convert", "-q", in.toString(), out.toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: unknown option -q (did you mean --quiet?); options start with --, and a file"
                + " whose name starts with '-' is given as ./-q\n", r.err());
        // Was: no hint, as --offset starts with o too; -o is output almost everywhere.
        r = CliHarness.run("render", "f32[3,5]{1,0:T(2,2)}", "-o", dir.resolve("f.svg").toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf render: unknown option -o (did you mean --out?); options start with --, and a file"
                + " whose name starts with '-' is given as ./-o\n", r.err());
        r = CliHarness.run("convert", in.toString(), "-o.npy");
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: unknown option -o.npy; options start with --, and a file whose name starts"
                + " with '-' is given as ./-o.npy\n", r.err());
        r = CliHarness.run("convert", in.toString(), "-");
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: '-' would be standard output, which a command writes only its report to"
                + " (render's SVG: leave out --out); give a path (./- for a file named -)\n", r.err());
        r = CliHarness.run("convert", "-", out.toString(), "--from-layout", "f32[15]{0}");
        assertEquals("tensorbuf convert: '-' would be standard input, which only indexing reads (its module text);"
                + " tensor files are mapped, not streamed; give a path (./- for a file named -)\n", r.err());
        assertFalse(Files.exists(out) || Files.exists(Path.of("-o.npy")) || Files.exists(Path.of("-")));
    }

    @Test
    void aOneByteOutputIsOneByte() throws IOException {
        Path in = NpyBytes.write(dir.resolve("u.npy"), "|u1", List.of(1L), new byte[] {7});
        CliHarness r = CliHarness.run("convert", in.toString(), dir.resolve("u.bin").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains(": u8[1]{0}, 1 byte (raw) in "), r.out());
    }

    @Test
    void unwritableWholeFileTypeNamesTheOutputTypeOnce() throws IOException {
        // Was "--dtype f8e4m3 is f8e4m3, which safetensors has no dtype for".
        Path in = dir.resolve("w.safetensors");
        SafetensorsFile.write(in, Map.of("w", new DenseTensor(DType.F32, List.of(1L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1))));
        CliHarness r = CliHarness.run("convert", in.toString(), dir.resolve("o.safetensors").toString(), "--dtype", "f8e4m3");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf convert: the output type is f8e4m3, which safetensors has no dtype for"),
                r.err());
    }

    @Test
    void float8E5m2NpyMayNameItsOwnType() throws IOException {
        // ml_dtypes saves float8_e5m2 as '<f1', not void: naming that type is not a contradiction.
        Path file = NpyBytes.write(dir.resolve("e5.npy"), "<f1", List.of(2L), new byte[] {0x3e, (byte) 0xc0}); // 1.5, -2
        Path out = dir.resolve("e5.f32.npy");
        CliHarness r = CliHarness.run("convert", file.toString(), out.toString(), "--from-dtype", "f8e5m2", "--dtype", "f32");
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor a = Npy.map(out)) {
            assertArrayEquals(new float[] {1.5f, -2}, a.data().segment().toArray(ValueLayout.JAVA_FLOAT));
        }
        r = CliHarness.run("convert", file.toString(), out.toString(), "--from-dtype", "bf16");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("says its own type, f8e5m2 ('<f1')"), r.err());
        r = CliHarness.run("convert", file.toString(), dir.resolve("back.npy").toString());
        assertEquals("tensorbuf convert: the output is f8e5m2, which tensorbuf does not write to .npy (ml_dtypes saves"
                + " float8_e5m2 as '<f1', which np.load cannot read); write " + dir.resolve("back.safetensors") + " instead, which"
                + " holds f8e5m2\n", r.err());
    }

    @Test
    void jsonHasTheFixedKeys() throws IOException {
        Path out = dir.resolve("x.raw");
        CliHarness r = CliHarness.run("convert", oneToFifteen().toString(), out.toString(), "--layout", "f32[3,5]{1,0:T(2,2)}",
                "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> json = Json.parseObject(r.out().strip());
        assertEquals(List.of("in", "out", "shape", "dtype", "bytes_written", "seconds"), List.copyOf(json.keySet()));
        assertEquals("f32[3,5]{1,0:T(2,2)}", json.get("shape"));
        assertEquals("f32", json.get("dtype"));
        assertEquals(96L, ((Number) json.get("bytes_written")).longValue());
    }

    @Test
    void rawInputWithItsLayoutComesBackAsTheOriginalArray() throws IOException {
        Path raw = dir.resolve("fig1.bin");
        Files.write(raw, MemorySegment.ofArray(FIGURE_1).toArray(ValueLayout.JAVA_BYTE));
        Path out = dir.resolve("back.npy");
        CliHarness r = CliHarness.run("convert", raw.toString(), out.toString(), "--from-layout", "f32[3,5]{1,0:T(2,2)}",
                "--dtype", "f64");
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor a = Npy.map(out)) {
            assertEquals(DType.F64, a.dtype());
            assertEquals(List.of(3L, 5L), a.shape());
            double[] values = a.data().segment().toArray(ValueLayout.JAVA_DOUBLE);
            for (int i = 0; i < 15; i++) {
                assertEquals(i + 1, values[i]);
            }
        }
    }

    @Test
    void rawInputOfTheWrongSizeOrWithoutItsLayoutIsRefused() throws IOException {
        Path raw = dir.resolve("short.bin");
        Files.write(raw, new byte[90]);
        CliHarness wrong = CliHarness.run("convert", raw.toString(), dir.resolve("o.npy").toString(), "--from-layout",
                "f32[3,5]{1,0:T(2,2)}");
        assertEquals(2, wrong.code());
        assertTrue(wrong.err().contains("has 90 bytes but f32[3,5]{1,0:T(2,2)} needs 96"), wrong.err());
        CliHarness missing = CliHarness.run("convert", raw.toString(), dir.resolve("o.npy").toString());
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("needs --from-layout SHAPE"), missing.err());
    }

    @Test
    void safetensorsWithSeveralTensorsNeedsTensorAndConvertsTheChosenOne() throws IOException {
        Path in = dir.resolve("m.safetensors");
        SafetensorsFile.write(in, Map.of(
                "w", new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6)),
                "ids", new DenseTensor(DType.S8, List.of(2L), MemorySegment.ofArray(new byte[] {7, 9}))));
        CliHarness none = CliHarness.run("convert", in.toString(), dir.resolve("o.npy").toString());
        assertEquals(2, none.code());
        assertTrue(none.err().contains("holds 2 tensors [w, ids]; pick one with --tensor NAME"), none.err());

        Path out = dir.resolve("w.safetensors");
        CliHarness r = CliHarness.run("convert", in.toString(), out.toString(), "--tensor", "w", "--dtype", "bf16");
        assertEquals(0, r.code(), r.err());
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertEquals(List.of("w"), f.names());
            assertEquals(DType.BF16, f.tensor("w").dtype());
            short[] bits = f.tensor("w").data().segment().toArray(ValueLayout.JAVA_SHORT_UNALIGNED);
            assertEquals(6f, Float.intBitsToFloat((bits[5] & 0xffff) << 16));
        }
        // Written over its own file, one tensor would drop the other: refused, the file untouched.
        byte[] before = Files.readAllBytes(in);
        CliHarness over = CliHarness.run("convert", in.toString(), in.toString(), "--tensor", "w");
        assertEquals(2, over.code());
        assertTrue(over.err().contains("is the input, which holds 2 tensors: writing --tensor w over it would drop the"
                + " other 1; write to another file, or leave out --tensor"), over.err());
        assertArrayEquals(before, Files.readAllBytes(in));
    }

    @Test
    void npyOutputRefusesATiledLayout() throws IOException {
        CliHarness r = CliHarness.run("convert", oneToFifteen().toString(), dir.resolve("t.npy").toString(), "--layout",
                "f32[3,5]{1,0:T(2,2)}");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("a .npy file holds row-major (C order) data, f32[3,5]{1,0}; --layout f32[3,5]{1,0:T(2,2)} is for raw output"),
                r.err());
    }

    @Test
    void integerTargetRefusesNaN() throws IOException {
        Path in = dir.resolve("nan.npy");
        Npy.write(in, new DenseTensor(DType.F32, List.of(2L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, Float.NaN)));
        CliHarness r = CliHarness.run("convert", in.toString(), dir.resolve("o.bin").toString(), "--dtype", "s32");
        assertEquals(2, r.code(), r.err());
        assertEquals("tensorbuf convert: value NaN at index [1] of f32[2] strides [1] out of range [-2147483648,"
                + " 2147483647] for s32: NaN has no integer value\n", r.err());
    }

    /** A copy above 64 MiB goes in pieces along dim 0 (for the progress bar); the index is still the tensor's. */
    @Test
    void aLargeConversionNamesTheIndexInTheTensorNotInItsPiece() throws IOException {
        long cols = (32L << 20) + 1; // s16 output of 2 rows: just over 64 MiB, so one row a piece
        MemorySegment data = Arena.ofAuto().allocate(2 * 2 * cols);
        data.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, cols + 5, (short) 40000);
        Path in = dir.resolve("wide.npy");
        Npy.write(in, new DenseTensor(DType.U16, List.of(2L, cols), data));
        CliHarness r = CliHarness.run("convert", in.toString(), dir.resolve("o.bin").toString(), "--dtype", "s16");
        assertEquals(2, r.code(), r.err());
        assertEquals("tensorbuf convert: value 40000 at index [1, 5] of u16[2," + cols + "] strides [" + cols
                + ", 1] out of range [-32768, 32767] for s16\n", r.err());
    }

    /** Review: the range error named the value but not where it was. */
    @Test
    void integerTargetNamesTheIndexOfTheFirstValueItCannotHold() throws IOException {
        Path in = dir.resolve("big.npy");
        Npy.write(in, new DenseTensor(DType.F32, List.of(2L, 3L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 0, 1, 2, 3, 4, 300)));
        CliHarness r = CliHarness.run("convert", in.toString(), dir.resolve("o.npy").toString(), "--dtype", "u8");
        assertEquals(2, r.code(), r.err());
        assertEquals("tensorbuf convert: value 300.0 at index [1, 2] of f32[2,3] strides [3, 1] out of range"
                + " [0, 255] for u8\n", r.err());
        r = CliHarness.run("convert", in.toString(), dir.resolve("o.npy").toString(), "--dtype", "u8", "--json");
        assertEquals(2, r.code(), r.err());
        assertEquals("{\"error\":\"value 300.0 at index [1, 2] of f32[2,3] strides [3, 1] out of range [0, 255] for"
                + " u8\",\"exit_code\":2}\n", r.out());
    }

    @Test
    @ResourceLock("system-properties")
    void progressBarIsDrawnWhenForcedAndSilencedByQuiet() throws IOException {
        Path in = oneToFifteen();
        System.setProperty("tensorbuf.progress", "always");
        System.setProperty("tensorbuf.progress.delayMillis", "0");
        try {
            CliHarness r = CliHarness.run("convert", in.toString(), dir.resolve("p.bin").toString());
            assertEquals(0, r.code(), r.err());
            assertTrue(r.err().contains("\r[====================] 100% "), r.err());
            assertTrue(r.err().endsWith("B/s\n"), r.err());
            CliHarness quiet = CliHarness.run("convert", in.toString(), dir.resolve("q.bin").toString(), "--quiet");
            assertEquals("", quiet.err());
        } finally {
            System.clearProperty("tensorbuf.progress");
            System.clearProperty("tensorbuf.progress.delayMillis");
        }
        CliHarness notATerminal = CliHarness.run("convert", in.toString(), dir.resolve("n.bin").toString());
        assertFalse(notATerminal.err().contains("%"), notATerminal.err());
    }

    @Test
    @ResourceLock("system-properties")
    void progressBarOfAFailedConversionStopsWhereItFailedNotAtOneHundredPercent() throws IOException {
        Path in = dir.resolve("nan.npy");
        Npy.write(in, new DenseTensor(DType.F32, List.of(2L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, Float.NaN)));
        System.setProperty("tensorbuf.progress", "always");
        System.setProperty("tensorbuf.progress.delayMillis", "0");
        try {
            CliHarness r = CliHarness.run("convert", in.toString(), dir.resolve("o.bin").toString(), "--dtype", "s32");
            assertEquals(2, r.code(), r.err());
            assertTrue(r.err().startsWith("\r[                    ] 0% "), r.err());
            assertFalse(r.err().contains("100%"), r.err());
            assertTrue(r.err().contains("B/s\ntensorbuf convert: "), r.err());
        } finally {
            System.clearProperty("tensorbuf.progress");
            System.clearProperty("tensorbuf.progress.delayMillis");
        }
    }

    @Test
    void layoutNeedingMoreMemoryThanExistsIsBadInputNotAnInternalError() throws IOException {
        // 2^48 slots of f32 (2^50 bytes): beyond any machine, and beyond the 2^47-byte user address space.
        CliHarness r = CliHarness.run("convert", oneToFifteen().toString(), dir.resolve("huge.raw").toString(),
                "--layout", "f32[3,5]{1,0:T(16777216,16777216)}", "--json");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("tensorbuf convert: not enough memory: cannot reserve 1125899906842624 bytes"), r.err());
        assertTrue(r.out().startsWith("{\"error\":\"not enough memory: cannot reserve"), r.out());
        assertFalse(Files.exists(dir.resolve("huge.raw")));
    }

    @Test
    void outputPathProblemsNameThePathAndTheProblem() throws IOException {
        Path in = oneToFifteen();
        CliHarness noFolder = CliHarness.run("convert", in.toString(), dir.resolve("nope/o.npy").toString());
        assertEquals(2, noFolder.code());
        assertEquals("tensorbuf convert: no such folder: " + dir.resolve("nope") + " (for " + dir.resolve("nope/o.npy") + ")\n",
                noFolder.err());
        Path folder = Files.createDirectory(dir.resolve("d.npy"));
        CliHarness isFolder = CliHarness.run("convert", in.toString(), folder.toString());
        assertEquals(2, isFolder.code());
        assertEquals("tensorbuf convert: " + folder + " is a directory, expected a file name\n", isFolder.err());
        CliHarness parentIsFile = CliHarness.run("convert", in.toString(), in.resolve("o.npy").toString());
        assertEquals("tensorbuf convert: " + in + " is not a folder (for " + in.resolve("o.npy") + ")\n", parentIsFile.err());
        // A link to a file in a missing folder exists, so "no such file" would name the wrong thing.
        Path link = Files.createSymbolicLink(dir.resolve("link.npy"), Path.of("sub/deeper/t.npy"));
        CliHarness dangling = CliHarness.run("convert", in.toString(), link.toString());
        assertEquals(2, dangling.code());
        assertEquals("tensorbuf convert: no such folder: " + dir.resolve("sub/deeper") + " (for " + link + ", a link to "
                + dir.resolve("sub/deeper/t.npy") + ")\n", dangling.err());
        Path toMissingFile = Files.createSymbolicLink(dir.resolve("gone.npy"), Path.of("missing.npy"));
        CliHarness danglingIn = CliHarness.run("convert", toMissingFile.toString(), dir.resolve("o.npy").toString());
        assertEquals("tensorbuf convert: no such file: " + dir.resolve("missing.npy") + " (" + toMissingFile
                + " is a link to it)\n", danglingIn.err());
        // A name longer than the system takes is quoted cut, like any long input.
        String longName = dir.resolve("a".repeat(5000) + ".npy").toString();
        CliHarness tooLong = CliHarness.run("convert", in.toString(), longName);
        assertEquals(2, tooLong.code());
        assertTrue(tooLong.err().startsWith("tensorbuf convert: " + longName.substring(0, 200) + "... ("
                + (longName.length() - 200) + " more characters)"), tooLong.err());
        assertTrue(tooLong.err().length() < 400, tooLong.err());
    }

    @Test
    void theSummaryLineEscapesControlCharactersInFileNames() throws IOException {
        Path in = Files.copy(oneToFifteen(), dir.resolve("a\nb\u001b[31m.npy"));
        CliHarness r = CliHarness.run("convert", in.toString(), dir.resolve("o\t\n.npy").toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(1, r.out().lines().count(), r.out());
        assertTrue(r.out().startsWith(dir + "/a\\nb\\u001b[31m.npy -> " + dir + "/o\t\\n.npy: f32[3,5]{1,0}, "), r.out());
    }

    @Test
    void dtypeTakesTheSameNamesAsStrides() throws IOException {
        for (String name : List.of("FLOAT16", "f16", "F16")) {
            Path out = dir.resolve("h.npy");
            CliHarness r = CliHarness.run("convert", oneToFifteen().toString(), out.toString(), "--dtype", name, "--json");
            assertEquals(0, r.code(), name + ": " + r.err());
            assertEquals("f16", Json.parseObject(r.out()).get("dtype"), name);
        }
        CliHarness bad = CliHarness.run("convert", oneToFifteen().toString(), dir.resolve("o.npy").toString(), "--dtype", "f99");
        assertEquals(2, bad.code());
        assertTrue(bad.err().startsWith("tensorbuf convert: --dtype: unknown element type 'f99'; expected an XLA name (pred,"),
                bad.err());
    }

    @Test
    void wholeSafetensorsFileConvertsItsFloatTensorsAndKeepsTheOthers() throws IOException {
        Path model = dir.resolve("model.safetensors");
        // 1 + 2^-8 is halfway between two bf16 values: rounds to even (1.0); 1 + 3 * 2^-8 rounds up.
        float halfway = 1 + 0x1p-8f;
        float up = 1 + 3 * 0x1p-8f;
        SafetensorsFile.write(model, Map.of(
                "w", new DenseTensor(DType.F32, List.of(2L, 2L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, halfway, up, -2, 0.5f)),
                "h", new DenseTensor(DType.F16, List.of(1L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_SHORT, (short) 0x3c00)),
                "ids", new DenseTensor(DType.S64, List.of(3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_LONG, 7, -1, 1L << 40))),
                Map.of("format", "pt"));
        Path out = dir.resolve("bf16.safetensors");
        CliHarness r = CliHarness.run("convert", model.toString(), out.toString(), "--dtype", "bf16");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(model + " -> " + out + ": 3 tensors (2 to bf16, 1 kept), "), r.out());
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertEquals(Map.of("format", "pt"), f.metadata());
            assertEquals(DType.BF16, f.tensor("w").dtype());
            assertEquals(List.of(2L, 2L), f.tensor("w").shape());
            assertArrayEquals(new short[] {0x3f80, 0x3f82, (short) 0xc000, 0x3f00},
                    f.tensor("w").data().segment().toArray(ValueLayout.JAVA_SHORT_UNALIGNED));
            assertArrayEquals(new short[] {0x3f80}, f.tensor("h").data().segment().toArray(ValueLayout.JAVA_SHORT_UNALIGNED));
            assertEquals(DType.S64, f.tensor("ids").dtype());
            assertArrayEquals(new long[] {7, -1, 1L << 40}, f.tensor("ids").data().segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED));
        }
        // In place: built beside the input and moved over it, nothing left behind.
        r = CliHarness.run("convert", out.toString(), out.toString(), "--dtype", "f32", "--json");
        assertEquals(0, r.code(), r.err());
        // In the input's data order: s64 first (the writers' order puts wider types first), then by name.
        assertEquals(List.of(Map.of("name", "ids", "shape", "s64[3]{0}"), Map.of("name", "h", "shape", "f32[1]{0}"),
                Map.of("name", "w", "shape", "f32[2,2]{1,0}")), Json.parseObject(r.out().strip()).get("tensors"));
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertArrayEquals(new float[] {1, 1 + 0x1p-6f, -2, 0.5f}, f.tensor("w").data().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        }
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString().endsWith(".part")).toList());
        }
    }

    @Test
    void wholeFileConversionRefusesWhatFitsOneTensorOnly() throws IOException {
        Path model = dir.resolve("m.safetensors");
        SafetensorsFile.write(model, Map.of(
                "a", new DenseTensor(DType.F32, List.of(2L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2)),
                "b", new DenseTensor(DType.F32, List.of(1L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 3))));
        Path out = dir.resolve("o.safetensors");
        assertEquals("tensorbuf convert: --layout describes one tensor, and " + model + " holds 2 tensors, converted whole"
                + " into a .safetensors OUT: pick one with --tensor NAME\n", CliHarness.run("convert", model.toString(), out.toString(), "--layout", "f32[2]{0}").err());
        assertEquals("tensorbuf convert: --dtype s8: converting all 2 tensors of " + model + " changes the floating-point"
                + " ones, so the type must be floating-point; pick one tensor with --tensor NAME to make it s8\n",
                CliHarness.run("convert", model.toString(), out.toString(), "--dtype", "s8").err());
        assertEquals("tensorbuf convert: " + model + " holds 2 tensors [a, b]; pick one with --tensor NAME (or convert"
                + " them all, to a .safetensors OUT)\n", CliHarness.run("convert", model.toString(), dir.resolve("o.npy").toString()).err());
        assertFalse(Files.exists(out));
        // --tensor still picks one.
        CliHarness one = CliHarness.run("convert", model.toString(), out.toString(), "--tensor", "b", "--dtype", "s8");
        assertEquals(0, one.code(), one.err());
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertEquals(List.of("b"), f.names());
            assertEquals(DType.S8, f.tensor("b").dtype());
        }
    }

    @Test
    void aFileOfOneTensorConvertsWholeByTheSameRulesAsSeveral() throws IOException {
        // save_file({'ids': np.arange(10)}, 'one.safetensors', metadata={'format': 'np'})
        Path one = dir.resolve("one.safetensors");
        SafetensorsFile.write(one, Map.of("ids", new DenseTensor(DType.S64, List.of(10L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_LONG, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9))), Map.of("format", "np"));
        Path bf16 = dir.resolve("o1.safetensors");
        CliHarness r = CliHarness.run("convert", one.toString(), bf16.toString(), "--dtype", "bf16");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(one + " -> " + bf16 + ": 1 tensor (0 to bf16, 1 kept), "), r.out());
        try (SafetensorsFile f = SafetensorsFile.open(bf16)) {
            assertEquals(Map.of("format", "np"), f.metadata());
            assertEquals(DType.S64, f.tensor("ids").dtype());
            assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
                    f.tensor("ids").data().segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED));
        }
        // A plain copy is the same file, metadata and all.
        Path copy = dir.resolve("copy.safetensors");
        r = CliHarness.run("convert", one.toString(), copy.toString());
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(Files.readAllBytes(one), Files.readAllBytes(copy));
        // Whole-file rules, worded for one tensor; --tensor still converts that tensor alone.
        assertEquals("tensorbuf convert: --dtype s8: converting " + one + " (1 tensor) whole changes the floating-point"
                + " ones, so the type must be floating-point; pick one tensor with --tensor NAME to make it s8\n",
                CliHarness.run("convert", one.toString(), copy.toString(), "--dtype", "s8").err());
        assertEquals("tensorbuf convert: --layout describes one tensor, and " + one + " holds 1 tensor, converted whole"
                + " into a .safetensors OUT: pick one with --tensor NAME\n",
                CliHarness.run("convert", one.toString(), copy.toString(), "--layout", "s64[10]{0}").err());
        Path alone = dir.resolve("alone.safetensors");
        r = CliHarness.run("convert", one.toString(), alone.toString(), "--tensor", "ids", "--dtype", "s8");
        assertEquals(0, r.code(), r.err());
        try (SafetensorsFile f = SafetensorsFile.open(alone)) {
            assertEquals(Map.of(), f.metadata());
            assertEquals(DType.S8, f.tensor("ids").dtype());
        }
        // Other outputs take the one tensor, in any layout, as before.
        Path raw = dir.resolve("ids.raw");
        r = CliHarness.run("convert", one.toString(), raw.toString(), "--layout", "s32[10]{0:T(4)}");
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0},
                MemorySegment.ofArray(Files.readAllBytes(raw)).toArray(ValueLayout.JAVA_INT_UNALIGNED));
    }

    @Test
    void aFileOfNoTensorsConvertsWholeAndKeepsItsMetadata() throws IOException {
        Path none = dir.resolve("none.safetensors");
        SafetensorsFile.write(none, Map.of(), Map.of("note", "no tensors"));
        Path out = dir.resolve("none2.safetensors");
        CliHarness r = CliHarness.run("convert", none.toString(), out.toString(), "--dtype", "bf16");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(none + " -> " + out + ": 0 tensors (0 to bf16, 0 kept), "), r.out());
        assertArrayEquals(Files.readAllBytes(none), Files.readAllBytes(out));
        r = CliHarness.run("convert", none.toString(), dir.resolve("none.npy").toString());
        assertEquals("tensorbuf convert: " + none + " holds no tensors\n", r.err());
    }

    @Test
    void sixBitTensorsAreCopiedWholeButNotConverted() throws IOException {
        // Safetensors packs F6_E2M3 four to three bytes; the bits of these three are copied, never interpreted.
        Path f6 = dir.resolve("f6.safetensors");
        SafetensorsFile.write(f6, Map.of(
                "w", new DenseTensor(DType.F32, List.of(2L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2)),
                "x", new DenseTensor(DType.F6E2M3FN, List.of(4L), MemorySegment.ofArray(new byte[] {1, 2, 3}))),
                Map.of("k", "v"));
        Path copy = dir.resolve("copy.safetensors");
        CliHarness r = CliHarness.run("convert", f6.toString(), copy.toString());
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(Files.readAllBytes(f6), Files.readAllBytes(copy));

        String refusal = f6 + ": tensor 'x' is f6e2m3fn (F6_E2M3), which safetensors packs four to three bytes in a bit"
                + " order neither safetensors nor ml_dtypes defines, so tensorbuf does not unpack or pack them; its bytes"
                + " are copied unchanged only when a whole file converts into a .safetensors file without changing its type";
        Path out = dir.resolve("f6.f32.npy");
        r = CliHarness.run("convert", f6.toString(), out.toString(), "--tensor", "x", "--dtype", "f32");
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: " + refusal + "\n", r.err());
        r = CliHarness.run("convert", f6.toString(), dir.resolve("bf.safetensors").toString(), "--dtype", "bf16");
        assertEquals("tensorbuf convert: " + refusal + "\n", r.err());
        assertFalse(Files.exists(out) || Files.exists(dir.resolve("bf.safetensors")));
        r = CliHarness.run("convert", f6.toString(), dir.resolve("to6.safetensors").toString(), "--tensor", "w", "--dtype",
                "f6e2m3fn");
        assertEquals("tensorbuf convert: the output is f6e2m3fn, which safetensors (F6_E2M3) packs four to three bytes"
                + " in a bit order neither safetensors nor ml_dtypes defines, so tensorbuf does not unpack or pack them;"
                + " write raw bytes instead (OUT with any other extension)\n", r.err());
    }

    @Test
    void outputIsWrittenThroughLinksKeepsItsModeAndIsReplacedOnlyWhole() throws IOException {
        Path model = dir.resolve("m.safetensors");
        SafetensorsFile.write(model, Map.of("w", new DenseTensor(DType.F32, List.of(2L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2)),
                "ids", new DenseTensor(DType.S8, List.of(1L), MemorySegment.ofArray(new byte[] {5}))), Map.of("format", "pt"));
        Path real = Files.createDirectory(dir.resolve("real"));
        Path target = real.resolve("t.safetensors");
        Files.write(target, new byte[] {1, 2, 3});
        Files.setPosixFilePermissions(target, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
        Path link = Files.createSymbolicLink(dir.resolve("link.safetensors"), target);
        for (String[] extra : List.of(new String[0], new String[] {"--tensor", "w"})) {
            List<String> args = new java.util.ArrayList<>(List.of("convert", model.toString(), link.toString(), "--dtype", "bf16"));
            args.addAll(List.of(extra));
            CliHarness r = CliHarness.run(args.toArray(String[]::new));
            assertEquals(0, r.code(), r.err());
            assertTrue(Files.isSymbolicLink(link), "the link stays a link");
            try (SafetensorsFile f = SafetensorsFile.open(target)) {
                assertEquals(DType.BF16, f.tensor("w").dtype());
                assertEquals(extra.length == 0 ? Map.of("format", "pt") : Map.of(), f.metadata());
            }
            assertEquals("rw-r-----", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
            try (java.util.stream.Stream<Path> files = Stream.concat(Files.list(dir), Files.list(real))) {
                assertEquals(List.of(), files.filter(p -> p.getFileName().toString().endsWith(".part")).toList());
            }
        }
        // A full device names itself, not a hidden file, and is written directly.
        if (Files.exists(Path.of("/dev/full"))) {
            CliHarness r = CliHarness.run("convert", oneToFifteen().toString(), "/dev/full");
            assertEquals(2, r.code());
            assertEquals("tensorbuf convert: /dev/full: No space left on device\n", r.err());
        }
    }

    @Test
    void aWriteProtectedOutputIsRefusedInEveryMode() throws IOException {
        Path model = dir.resolve("m.safetensors");
        SafetensorsFile.write(model, Map.of("w", new DenseTensor(DType.F32, List.of(1L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1)),
                "ids", new DenseTensor(DType.S8, List.of(1L), MemorySegment.ofArray(new byte[] {5}))));
        Path ro = dir.resolve("ro.safetensors");
        Files.write(ro, new byte[] {9});
        Files.setPosixFilePermissions(ro, java.nio.file.attribute.PosixFilePermissions.fromString("r--r--r--"));
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.isWritable(ro),
                "this user (root?) may write a write-protected file, so nothing is refused");
        for (List<String> extra : List.of(List.<String>of(), List.of("--tensor", "w"))) {
            List<String> args = new java.util.ArrayList<>(List.of("convert", model.toString(), ro.toString()));
            args.addAll(extra);
            CliHarness r = CliHarness.run(args.toArray(String[]::new));
            assertEquals(2, r.code());
            assertEquals("tensorbuf convert: permission denied: " + ro + "\n", r.err());
            assertArrayEquals(new byte[] {9}, Files.readAllBytes(ro));
        }
    }
}
