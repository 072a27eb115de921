package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.testing.NpyBytes;
import dev.tensorbuf.testing.Zips;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code .npz} archives through convert, inspect and run. Was: refused as "a zip archive ... extract
 * its .npy members". The archives here are zipped by the JDK as np.savez (stored) and
 * np.savez_compressed (deflated) lay them out; NumPy's own are read in interop's {@code NpyArchiveTest}.
 */
class NpzCommandsTest {
    @TempDir
    Path dir;

    /** {@return an archive of a = f32[3,5] 1..15 and b = s32[4] 0..3, members stored or deflated} */
    private Path archive(String name, boolean deflated) throws IOException {
        float[] a = new float[15];
        for (int i = 0; i < 15; i++) {
            a[i] = i + 1;
        }
        Npy.write(dir.resolve("a.npy"), new DenseTensor(DType.F32, List.of(3L, 5L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, a)));
        Npy.write(dir.resolve("b.npy"), new DenseTensor(DType.S32, List.of(4L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_INT, 0, 1, 2, 3)));
        return Zips.write(dir.resolve(name), !deflated, Zips.Member.of("a.npy", dir.resolve("a.npy")),
                Zips.Member.of("b.npy", dir.resolve("b.npy")));
    }

    @Test
    void convertTakesAnArrayOfAStoredOrDeflatedArchive() throws Exception {
        for (boolean deflated : List.of(false, true)) {
            Path npz = archive(deflated ? "wc.npz" : "w.npz", deflated);
            Path out = dir.resolve("t.safetensors");
            CliHarness r = CliHarness.run("convert", npz.toString(), out.toString(), "--tensor", "a", "--transpose", "1,0", "--quiet");
            assertEquals(0, r.code(), r.err());
            try (SafetensorsFile f = SafetensorsFile.open(out)) {
                assertEquals(List.of(5L, 3L), f.tensor("a").shape());
                assertArrayEquals(new double[] {1, 6, 11, 2, 7, 12, 3, 8, 13, 4, 9, 14, 5, 10, 15},
                        TensorElements.of(f.tensor("a").view()).toDoubleArray());
            }
            r = CliHarness.run("convert", npz.toString(), dir.resolve("x.npy").toString());
            assertEquals(2, r.code());
            assertEquals("tensorbuf convert: " + npz + " holds 2 arrays [a, b]; pick one with --tensor NAME\n", r.err());
            r = CliHarness.run("convert", npz.toString(), dir.resolve("x.npy").toString(), "--tensor", "c");
            assertEquals(2, r.code());
            assertTrue(r.err().contains("'c'") && r.err().contains("[a, b]"), r.err());
        }
        CliHarness r = CliHarness.run("convert", dir.resolve("a.npy").toString(), dir.resolve("out.npz").toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: " + dir.resolve("out.npz") + ": tensorbuf reads .npz archives but does not write them;"
                + " write a .npy, or a .safetensors file for several tensors\n", r.err());
    }

    @Test
    void convertTurnsAWholeArchiveIntoSafetensors() throws Exception {
        for (boolean deflated : List.of(false, true)) {
            Path npz = archive(deflated ? "wc.npz" : "w.npz", deflated);
            Path out = dir.resolve("all.safetensors");
            CliHarness r = CliHarness.run("convert", npz.toString(), out.toString(), "--quiet");
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().startsWith(npz + " -> " + out + ": 2 arrays, "), r.out());
            try (SafetensorsFile f = SafetensorsFile.open(out)) {
                assertEquals(List.of("a", "b"), f.names());
                assertEquals(DType.F32, f.tensor("a").dtype());
                assertEquals(15.0, TensorElements.of(f.tensor("a").view()).getDouble(2, 4));
                assertArrayEquals(new long[] {0, 1, 2, 3}, TensorElements.of(f.tensor("b").view()).toLongArray());
            }
            // --dtype changes the floating-point arrays and keeps the others, as for a safetensors IN.
            r = CliHarness.run("convert", npz.toString(), out.toString(), "--dtype", "bf16", "--quiet");
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().contains(": 2 arrays (1 to bf16, 1 kept)"), r.out());
            try (SafetensorsFile f = SafetensorsFile.open(out)) {
                assertEquals(DType.BF16, f.tensor("a").dtype());
                assertEquals(DType.S32, f.tensor("b").dtype());
                assertEquals(7.0, TensorElements.of(f.tensor("a").view()).getDouble(1, 1));
            }
            r = CliHarness.run("convert", npz.toString(), out.toString(), "--transpose", "1,0");
            assertEquals(2, r.code());
            assertEquals("tensorbuf convert: " + npz + " holds 2 arrays, converted whole into a .safetensors OUT: pick one"
                    + " with --tensor NAME to reorder it\n", r.err());
        }
        // A Fortran-order array goes into the safetensors file in C order, as np.load reads it.
        byte[] preamble = dev.tensorbuf.interop.internal.NpyCodec.preamble("<i4", true, List.of(2L, 3L), 0);
        java.nio.ByteBuffer f = java.nio.ByteBuffer.allocate(preamble.length + 24).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        f.put(preamble);
        for (int v : new int[] {0, 3, 1, 4, 2, 5}) {   // [[0, 1, 2], [3, 4, 5]] column by column
            f.putInt(v);
        }
        Path npz = dir.resolve("fortran.npz");
        Zips.write(npz, false, new Zips.Member("f.npy", f.array()));
        Path out = dir.resolve("f.safetensors");
        CliHarness r = CliHarness.run("convert", npz.toString(), out.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        try (SafetensorsFile s = SafetensorsFile.open(out)) {
            assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, s.tensor("f").data().segment().toArray(ValueLayout.JAVA_INT_UNALIGNED));
        }
    }

    @Test
    void inspectListsTheMembersWithTheByteRangesOfStoredOnes() throws Exception {
        Path npz = archive("w.npz", false);
        CliHarness r = CliHarness.run("inspect", npz.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(npz + ": npz archive, stored (np.savez), 2 tensors", lines.get(0));
        assertTrue(lines.get(1).startsWith("  a  f32 (<f4)  [3, 5]  bytes ["), lines.get(1));
        // The range printed holds the values: 1..15 as little-endian f32.
        String line = lines.get(1);
        String range = line.substring(line.indexOf("bytes [") + "bytes [".length(), line.lastIndexOf(')'));
        long start = Long.parseLong(range.split(", ")[0]);
        byte[] all = Files.readAllBytes(npz);
        assertEquals(1.0f, Float.intBitsToFloat(java.nio.ByteBuffer.wrap(all, (int) start, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt()));
        assertEquals(15.0f, Float.intBitsToFloat(java.nio.ByteBuffer.wrap(all, (int) start + 56, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt()));
        Path compressed = archive("wc.npz", true);
        r = CliHarness.run("inspect", compressed.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(compressed + ": npz archive, deflated (np.savez_compressed), 2 tensors",
                "  a  f32 (<f4)  [3, 5]  deflated  60 bytes", "  b  s32 (<i4)  [4]  deflated  16 bytes"), r.out().lines().toList());
    }

    /**
     * np.savez stores strings, records and pickled objects too: inspect lists the arrays it reads
     * and names the others with why; a whole convert names the one it cannot write and the way
     * round. Was: inspect refused the whole archive over one string array.
     */
    @Test
    void inspectNamesTheArraysItCannotReadAndListsTheRest() throws Exception {
        java.nio.ByteBuffer strings = java.nio.ByteBuffer.allocate(24).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int c : new int[] {'a', 'b', 0, 'c', 'd', 'e'}) {
            strings.putInt(c);   // UTF-32, as NumPy stores '<U3'
        }
        byte[] npy = NpyBytes.of(1, "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", strings.array());
        archive("ab.npz", false);
        Path npz = Zips.write(dir.resolve("mixed.npz"), true, Zips.Member.of("a.npy", dir.resolve("a.npy")),
                new Zips.Member("s.npy", npy), Zips.Member.of("b.npy", dir.resolve("b.npy")));
        CliHarness r = CliHarness.run("inspect", npz.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(npz + ": npz archive, stored (np.savez), 2 tensors, 1 array not read", lines.get(0));
        assertTrue(lines.get(1).startsWith("  a  f32 (<f4)  [3, 5]  bytes [") && lines.get(2).startsWith("  b  s32 (<i4)  [4]  bytes ["),
                r.out());
        assertEquals("  s  not read: descr '<U3' is a string type: only numeric dtypes are supported", lines.get(3));
        CliHarness json = CliHarness.run("inspect", npz.toString(), "--json");
        assertTrue(json.out().contains(",\"not_read\":{\"s\":\"descr '<U3' is a string type: only numeric dtypes are supported\"},"),
                json.out());

        CliHarness whole = CliHarness.run("convert", npz.toString(), dir.resolve("mixed.safetensors").toString());
        assertEquals(2, whole.code(), whole.err());
        assertEquals("tensorbuf convert: " + npz + ": member 's.npy': descr '<U3' is a string type: only numeric dtypes are"
                + " supported; convert the others one by one with --tensor NAME", whole.err().strip());
        assertTrue(Files.notExists(dir.resolve("mixed.safetensors")));
        CliHarness one = CliHarness.run("convert", npz.toString(), dir.resolve("b.out.npy").toString(), "--tensor", "b", "--quiet");
        assertEquals(0, one.code(), one.err());
    }
}
