package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.testing.DamagedFiles;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.testing.Zips;
import dev.tensorbuf.views.TensorElements;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
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
    void aDamagedArchiveIsReadOrRefusedByName() throws Exception {
        numpyArchives();
        Random random = DamagedFiles.random("NpyArchiveTest.aDamagedArchive");
        int[] refused = {0};
        for (String archive : List.of("w.npz", "wc.npz")) {
            DamagedFiles.each(dir.resolve(archive), 150, random, (damaged, trial) -> {
                try (Npy.Archive npz = Npy.Archive.open(damaged)) {
                    for (String name : npz.names()) {
                        try (Npy.Tensor t = npz.tensor(name)) {
                            TensorElements.of(t.view()).toDoubleArray();   // a view past its member would throw
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
        assertTrue(refused[0] > 60, refused[0] + " damaged archives or members refused");
    }

    @Test
    void exampleFromJavadoc() throws Exception {
        // np.savez("w.npz", a=np.arange(6, dtype="<f4").reshape(2, 3), b=np.ones(4)), zipped here by the JDK.
        Npy.write(dir.resolve("a.npy"), new DenseTensor(dev.tensorbuf.views.DType.F32, List.of(2L, 3L),
                java.lang.foreign.Arena.ofAuto().allocateFrom(java.lang.foreign.ValueLayout.JAVA_FLOAT, 0, 1, 2, 3, 4, 5)));
        Npy.write(dir.resolve("b.npy"), new DenseTensor(dev.tensorbuf.views.DType.F64, List.of(4L),
                java.lang.foreign.Arena.ofAuto().allocateFrom(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 1, 1, 1, 1)));
        Path w = Zips.write(dir.resolve("w.npz"), true,
                Zips.Member.of("a.npy", dir.resolve("a.npy")), Zips.Member.of("b.npy", dir.resolve("b.npy")));
        try (Npy.Archive npz = Npy.Archive.open(w)) {
            assertEquals(List.of("a", "b"), npz.names());
            try (Npy.Tensor a = npz.tensor("a")) {
                assertEquals(5.0, dev.tensorbuf.views.TensorElements.of(a.view()).getDouble(1, 2));
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
