package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.testing.DamagedFiles;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.testing.Zips;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Npy.Archive} against the archives NumPy's {@code np.savez} and {@code np.savez_compressed} write. */
class NpyArchiveTest {
    @TempDir
    Path dir;

    private List<String> numpyArchives() throws IOException {
        PythonPeer.assumeModules("numpy");
        return PythonPeer.runScript("/peers/npz_peer.py", Files.createDirectory(dir.resolve("peer")), "write", dir.toString())
                .lines().toList();
    }

    @Test
    void readsWhatNumpyWritesStoredAndDeflated() throws Exception {
        List<String> names = numpyArchives();
        for (String archive : List.of("w.npz", "wc.npz")) {
            try (Npy.Archive npz = Npy.Archive.open(dir.resolve(archive))) {
                assertEquals(names, npz.names(), archive);
                for (Npy.Archive.Member m : npz.members()) {
                    assertEquals(archive.equals("wc.npz"), m.compressed(), archive + " " + m.name());
                }
                for (String name : names) {
                    try (Npy.Tensor want = Npy.map(dir.resolve(name + ".npy")); Npy.Tensor got = npz.tensor(name)) {
                        String what = archive + " " + name;
                        assertEquals(want.dtype(), got.dtype(), what);
                        assertEquals(want.shape(), got.shape(), what);
                        assertEquals(want.header().fortranOrder(), got.header().fortranOrder(), what);
                        assertEquals(want.header(), npz.header(name), what);
                        assertArrayEquals(TensorElements.of(want.view()).toDoubleArray(), TensorElements.of(got.view()).toDoubleArray(), what);
                        // A stored little-endian member is the archive's own bytes, as np.load(mmap_mode='r') would map them.
                        assertEquals(archive.equals("w.npz") && !name.equals("big_endian"), got.isMapped(), what);
                    }
                }
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> npz.tensor("nope"));
                assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains(archive), e.getMessage());
            }
        }
    }

    @Test
    void aDamagedArchiveIsReadAsWrittenOrRefusedByName() throws Exception {
        Map<String, double[]> written = new HashMap<>();
        for (String name : numpyArchives()) {
            try (Npy.Tensor t = Npy.map(dir.resolve(name + ".npy"))) {
                written.put(t.dtype() + " " + t.shape(), TensorElements.of(t.view()).toDoubleArray());   // each pair once
            }
        }
        Random random = DamagedFiles.random("NpyArchiveTest.aDamagedArchive");
        int[] refused = {0};
        int[] read = {0};
        for (String archive : List.of("w.npz", "wc.npz")) {
            DamagedFiles.each(dir.resolve(archive), 150, random, (damaged, trial) -> {
                try (Npy.Archive npz = Npy.Archive.open(damaged)) {
                    for (String name : npz.names()) {
                        try (Npy.Tensor t = npz.tensor(name)) {
                            double[] values = TensorElements.of(t.view()).toDoubleArray();   // a view past its member would throw
                            // What is read is what NumPy wrote: damage the CRC-32 does not see lies outside the
                            // arrays (a member's name may change: the array is found by its type and shape).
                            double[] want = written.get(t.dtype() + " " + t.shape());
                            assertTrue(want != null, "trial " + trial + ": read " + name + " " + t.dtype() + " " + t.shape());
                            assertArrayEquals(want, values, "trial " + trial + ": " + name);
                            read[0]++;
                        } catch (IllegalArgumentException e) {
                            assertTrue(e.getMessage().startsWith(damaged.toString()), "trial " + trial + ": " + e);
                            refused[0]++;
                        }
                    }
                } catch (IllegalArgumentException e) {
                    assertTrue(e.getMessage().startsWith(damaged.toString()), "trial " + trial + ": " + e);
                    refused[0]++;
                }
            });
        }
        assertTrue(refused[0] > 60 && read[0] > 60, refused[0] + " damaged archives or members refused, " + read[0] + " members read");
    }

    @Test
    void aMemberWhoseBytesMissTheirCrcIsRefused() throws Exception {
        Npy.write(dir.resolve("a.npy"), new DenseTensor(DType.F32, List.of(4L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4)));
        for (boolean stored : new boolean[] {true, false}) {
            Path npz = Zips.write(dir.resolve(stored ? "s.npz" : "d.npz"), stored, Zips.Member.of("a.npy", dir.resolve("a.npy")));
            byte[] bytes = Files.readAllBytes(npz);
            long crc;
            try (Npy.Archive archive = Npy.Archive.open(npz)) {
                Npy.Archive.Member m = archive.members().getFirst();
                crc = m.crc32();
                if (stored) {
                    bytes[(int) (m.dataOffset() + m.storedBytes() - 1)] ^= 0x40;   // 4.0f becomes 4.0000305f
                }
            }
            if (!stored) {
                // A deflated stream damaged yet inflating to the right size is rare; the directory's CRC-32 damaged is the same check.
                int central = indexOf(bytes, new byte[] {0x50, 0x4b, 0x01, 0x02});
                bytes[central + 16] ^= 1;
            }
            Path damaged = Files.write(dir.resolve("damaged-" + npz.getFileName()), bytes);
            try (Npy.Archive archive = Npy.Archive.open(damaged)) {
                assertEquals(List.of(4L), archive.header("a").shape());   // the directory and header still read
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> archive.tensor("a"));
                assertEquals(String.format("%s: member 'a.npy': its bytes do not match the CRC-32 the zip directory gives them"
                        + " (%08x, read %08x): the archive is damaged", damaged, stored ? crc : crc ^ 1,
                        stored ? crc32(member(bytes, archive.members().getFirst())) : crc), e.getMessage());
            }
        }
    }

    @Test
    void readsAZip64ArchiveWhoseMemberLiesPast4GiB() throws Exception {
        // np.savez writes ZIP64 records for archives past 4 GiB: here a second member behind a 4 GiB
        // hole (sparse on disk), so its offset and the directory's are in ZIP64 fields alone.
        Npy.write(dir.resolve("a.npy"), new DenseTensor(DType.F32, List.of(2L, 2L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1.5f, -2, 3, 4)));
        Npy.write(dir.resolve("b.npy"), new DenseTensor(DType.U8, List.of(3L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_BYTE, new byte[] {7, 8, 9})));
        byte[] a = Files.readAllBytes(dir.resolve("a.npy"));
        byte[] b = Files.readAllBytes(dir.resolve("b.npy"));
        long crcA = crc32(a);
        long crcB = crc32(b);
        long localA = (1L << 32) + 100;
        java.nio.ByteBuffer first = littleEndian();
        localHeader(first, "b.npy", crcB, b.length, false).put(b);
        java.nio.ByteBuffer last = littleEndian();
        localHeader(last, "a.npy", crcA, a.length, true).put(a);
        long directory = localA + last.position();
        centralEntry(last, "b.npy", crcB, b.length, 0).put("b.npy".getBytes(StandardCharsets.US_ASCII));
        centralEntry(last, "a.npy", crcA, a.length, -1).put("a.npy".getBytes(StandardCharsets.US_ASCII))
                .putShort((short) 1).putShort((short) 24).putLong(a.length).putLong(a.length).putLong(localA);
        long end64 = localA + last.position();
        last.putInt(0x06064b50).putLong(44).putShort((short) 45).putShort((short) 45).putInt(0).putInt(0).putLong(2).putLong(2)
                .putLong(end64 - directory).putLong(directory);
        last.putInt(0x07064b50).putInt(0).putLong(end64).putInt(1);
        last.putInt(0x06054b50).putShort((short) 0).putShort((short) 0).putShort((short) -1).putShort((short) -1).putInt(-1).putInt(-1)
                .putShort((short) 0);
        Path zip = dir.resolve("z64.npz");
        try (FileChannel out = FileChannel.open(zip,
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.SPARSE)) {
            out.write(first.flip(), 0);
            out.write(last.flip(), localA);
        }
        try (Npy.Archive npz = Npy.Archive.open(zip); Npy.Tensor ta = npz.tensor("a"); Npy.Tensor tb = npz.tensor("b")) {
            assertEquals(List.of(new Npy.Archive.Member("b", false, 35, b.length, b.length, crcB),
                    new Npy.Archive.Member("a", false, localA + 30 + 5 + 20, a.length, a.length, crcA)), npz.members());
            assertEquals(List.of(2L, 2L), ta.shape());
            assertArrayEquals(new double[] {1.5, -2, 3, 4}, TensorElements.of(ta.view()).toDoubleArray());
            assertArrayEquals(new double[] {7, 8, 9}, TensorElements.of(tb.view()).toDoubleArray());
        }
        // The archive is the format's, not ours alone: NumPy reads the same values from it.
        String numpyAbsent = PythonPeer.importProblem("numpy");
        if (numpyAbsent != null) {
            System.out.println("NpyArchiveTest: the ZIP64 archive not read by NumPy: " + numpyAbsent);
        } else {
            String read = PythonPeer.runScript("/peers/npz_peer.py", Files.createDirectory(dir.resolve("peer")), "read", zip.toString());
            assertEquals("b |u1 [3] [7, 8, 9]\na <f4 [2, 2] [1.5, -2.0, 3.0, 4.0]", read.strip());
        }
    }

    private static java.nio.ByteBuffer littleEndian() {
        return ByteBuffer.allocate(1024).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A stored member's local header; with {@code zip64} its sizes are in a ZIP64 extra field, as NumPy writes them. */
    private static java.nio.ByteBuffer localHeader(java.nio.ByteBuffer b, String name, long crc, int size, boolean zip64) {
        b.putInt(0x04034b50).putShort((short) 45).putShort((short) 0).putShort((short) 0).putShort((short) 0).putShort((short) 0x21)
                .putInt((int) crc).putInt(zip64 ? -1 : size).putInt(zip64 ? -1 : size).putShort((short) name.length())
                .putShort((short) (zip64 ? 20 : 0)).put(name.getBytes(StandardCharsets.US_ASCII));
        return zip64 ? b.putShort((short) 1).putShort((short) 16).putLong(size).putLong(size) : b;
    }

    /** A stored member's directory entry up to its name; an offset of -1 says it is in the ZIP64 extra field that follows. */
    private static java.nio.ByteBuffer centralEntry(java.nio.ByteBuffer b, String name, long crc, int size, int local) {
        return b.putInt(0x02014b50).putShort((short) 45).putShort((short) 45).putShort((short) 0).putShort((short) 0)
                .putShort((short) 0).putShort((short) 0x21).putInt((int) crc).putInt(local == -1 ? -1 : size)
                .putInt(local == -1 ? -1 : size).putShort((short) name.length()).putShort((short) (local == -1 ? 28 : 0))
                .putShort((short) 0).putShort((short) 0).putShort((short) 0).putInt(0).putInt(local);
    }

    private static long crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    private static byte[] member(byte[] zip, Npy.Archive.Member m) {
        return Arrays.copyOfRange(zip, (int) m.dataOffset(), (int) (m.dataOffset() + m.storedBytes()));
    }

    private static int indexOf(byte[] in, byte[] what) {
        for (int i = 0; i + what.length <= in.length; i++) {
            if (Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    @Test
    void exampleFromJavadoc() throws Exception {
        // np.savez("w.npz", a=np.arange(6, dtype="<f4").reshape(2, 3), b=np.ones(4)), zipped here by the JDK.
        Npy.write(dir.resolve("a.npy"), new DenseTensor(DType.F32, List.of(2L, 3L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 0, 1, 2, 3, 4, 5)));
        Npy.write(dir.resolve("b.npy"), new DenseTensor(DType.F64, List.of(4L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_DOUBLE, 1, 1, 1, 1)));
        Path w = Zips.write(dir.resolve("w.npz"), true,
                Zips.Member.of("a.npy", dir.resolve("a.npy")), Zips.Member.of("b.npy", dir.resolve("b.npy")));
        try (Npy.Archive npz = Npy.Archive.open(w)) {
            assertEquals(List.of("a", "b"), npz.names());
            try (Npy.Tensor a = npz.tensor("a")) {
                assertEquals(5.0, TensorElements.of(a.view()).getDouble(1, 2));
            }
        }
    }

    @Test
    void refusesAFileThatIsNotAZipByName() throws Exception {
        Path file = dir.resolve("x.npz");
        Files.write(file, new byte[100]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.Archive.open(file));
        assertEquals(file + ": not a zip archive (no end of central directory record)", e.getMessage());
    }
}
