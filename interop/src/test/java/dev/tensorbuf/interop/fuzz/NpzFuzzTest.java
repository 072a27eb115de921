package dev.tensorbuf.interop.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.testing.FuzzChecks;
import dev.tensorbuf.views.TensorElements;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Fuzzes {@code .npz} archives ({@link Npy.Archive}): the bytes are written to a file, opened as
 * an archive, and every array's header read and every element read, or the archive or member is
 * refused with an {@link IllegalArgumentException} naming the file (never an index error, an
 * allocation the file cannot back, or a hang). Seeds (np.savez and np.savez_compressed of three
 * small arrays) and findings: {@code src/test/resources/dev/tensorbuf/interop/fuzz/NpzFuzzTestInputs/}.
 */
class NpzFuzzTest {
    private static final Path FILE = FuzzChecks.scratch("fuzz.npz");

    @FuzzTest
    void npzBytesReadOrFailCleanly(byte[] data) {
        long t0 = System.nanoTime();
        try {
            Files.write(FILE, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Npy.Archive npz = Npy.Archive.open(FILE)) {
            for (String name : npz.names()) {
                try {
                    Npy.Header h = npz.header(name);
                    try (Npy.Tensor t = npz.tensor(name)) {
                        if (!h.equals(t.header())) {
                            throw new AssertionError(name + ": header " + h + " but the tensor read " + t.header());
                        }
                        TensorElements.of(t.view()).toDoubleArray();   // a view past its member throws here
                    }
                } catch (IllegalArgumentException e) {
                    named(e);
                }
            }
        } catch (IllegalArgumentException e) {
            named(e);
        } catch (IOException e) {
            throw new AssertionError("I/O error on a readable file", e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        if (took.compareTo(FuzzChecks.HANG) > 0) {
            throw new AssertionError("took " + took);
        }
    }

    private static void named(IllegalArgumentException e) {
        if (e.getMessage() == null || !e.getMessage().startsWith(FILE.toString())) {
            throw new AssertionError("a refusal that does not name the file", e);
        }
    }
}
