package dev.tensorbuf.net.fuzz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.net.ArrowTensors;
import dev.tensorbuf.testing.FuzzChecks;
import dev.tensorbuf.views.TensorElements;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Fuzzes reading Arrow IPC files and streams ({@code tensorbuf convert}, {@code inspect} and
 * {@code serve} read them): every input is described and read, every element of every tensor
 * read, or it is refused with an {@link IOException} or {@link IllegalArgumentException} naming
 * the file (never an index error from inside Arrow, or an OutOfMemoryError for a length the file
 * does not hold). Arrow's own classes are instrumented too (net/pom.xml), so that the fuzzer finds
 * its way through the flatbuffers they parse. Seeds (files and streams of ours and pyarrow's, a
 * Feather file of LZ4 buffers) and findings:
 * {@code src/test/resources/dev/tensorbuf/net/fuzz/ArrowFileFuzzTestInputs/}.
 */
class ArrowFileFuzzTest {
    private static final Path FILE = file();

    private static Path file() {
        try {
            Path dir = Files.createTempDirectory("arrow-fuzz");
            dir.toFile().deleteOnExit();
            Path file = dir.resolve("in.arrow");
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest
    void arrowBytesAreReadOrRefusedCleanly(byte[] data) throws IOException {
        long t0 = System.nanoTime();
        Files.write(FILE, data);
        try {
            ArrowTensors.Header h = ArrowTensors.describe(FILE);
            assertFalse(h.columns().isEmpty(), "a header without tensor columns");
        } catch (IOException | IllegalArgumentException e) {
            assertNamed(e);
        }
        try (ArrowTensors.Tensors t = ArrowTensors.read(FILE)) {
            for (String name : t.names()) {
                // Every element read: a view reaching past the values the headers give throws here.
                TensorElements.of(t.view(name)).toDoubleArray();
            }
        } catch (IOException | IllegalArgumentException e) {
            assertNamed(e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(FuzzChecks.HANG) < 0, "took " + took);
    }

    private static void assertNamed(Exception e) {
        assertTrue(e.getMessage() != null && e.getMessage().startsWith(FILE.toString()), () -> "unnamed: " + e);
    }
}
