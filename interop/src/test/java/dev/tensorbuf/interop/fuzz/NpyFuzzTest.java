package dev.tensorbuf.interop.fuzz;

import dev.tensorbuf.testing.FuzzChecks;
import static dev.tensorbuf.testing.FuzzChecks.assertRoundTrip;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptionsIo;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.internal.NpyCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

/**
 * Fuzzes {@code .npy} files: the bytes are written to a file, whose header is read and whose data
 * are mapped. A header that reads is written again by the library's own writer and must read back
 * the same. Seeds and findings: {@code src/test/resources/dev/tensorbuf/interop/fuzz/NpyFuzzTestInputs/}.
 */
class NpyFuzzTest {
    private static final Path FILE = FuzzChecks.scratch("fuzz.npy");
    private static final Path AGAIN = FuzzChecks.scratch("again.npy");

    @FuzzTest
    void npyBytesReadOrFailCleanly(byte[] data) {
        String input = HexFormat.of().formatHex(data, 0, Math.min(data.length, 256));
        write(FILE, data);
        expectOnlyDocumentedExceptionsIo(input, () -> {
            Npy.Header header = Npy.readHeader(FILE);
            try (Npy.Tensor array = Npy.map(FILE)) {
                assertRoundTrip(header, header.toString(), array.header());
                array.layout();
            }
            byte[] preamble = NpyCodec.preamble(header.descr(), header.fortranOrder(), header.shape(),
                    header.majorVersion());
            write(AGAIN, preamble);
            Npy.Header again = Npy.readHeader(withData(AGAIN, header.dataByteSize()));
            assertRoundTrip(List.of(header.dtype(), header.byteOrder(), header.fortranOrder(), header.shape()),
                    new String(preamble, java.nio.charset.StandardCharsets.ISO_8859_1),
                    List.of(again.dtype(), again.byteOrder(), again.fortranOrder(), again.shape()));
        });
    }

    /** Sizes the file to hold the data, sparse where the file system allows, so large shapes stay cheap. */
    private static Path withData(Path file, long dataBytes) throws IOException {
        try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            long end = Math.addExact(channel.size(), dataBytes);
            if (end > channel.size()) {
                channel.write(java.nio.ByteBuffer.allocate(1), end - 1);
            }
        }
        return file;
    }

    private static void write(Path file, byte[] bytes) {
        try {
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
