package dev.tensorbuf.interop.fuzz;

import static dev.tensorbuf.testing.FuzzChecks.assertRoundTrip;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptionsIo;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.interop.GgufFile;
import dev.tensorbuf.interop.GgufTensor;
import dev.tensorbuf.interop.GgufWriter;
import dev.tensorbuf.testing.FuzzChecks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Fuzzes GGUF files: the bytes are written to a file and opened. A file that opens is written
 * again by {@link GgufWriter} and must open with the same metadata (in order), tensor names,
 * types, dims and data. Seeds and findings:
 * {@code src/test/resources/dev/tensorbuf/interop/fuzz/GgufFuzzTestInputs/}.
 */
class GgufFuzzTest {
    private static final Path FILE = FuzzChecks.scratch("fuzz.gguf");
    private static final Path AGAIN = FuzzChecks.scratch("again.gguf");

    @FuzzTest
    void ggufBytesOpenOrFailCleanly(byte[] data) {
        String input = HexFormat.of().formatHex(data, 0, Math.min(data.length, 256));
        try {
            Files.write(FILE, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        expectOnlyDocumentedExceptionsIo(input, () -> {
            try (GgufFile file = GgufFile.open(FILE)) {
                List<GgufWriter.Tensor> tensors = new ArrayList<>();
                for (GgufTensor t : file.tensors()) {
                    tensors.add(GgufWriter.tensor(t.name(), t.type(), t.dims(), t.data().segment()));
                }
                GgufWriter.write(AGAIN, file.metadata(), tensors);
                try (GgufFile again = GgufFile.open(AGAIN)) {
                    assertRoundTrip(summary(file), input, summary(again));
                }
            }
        });
    }

    /** Everything a reader sees, in file order, with the data as bytes. */
    private static List<Object> summary(GgufFile file) {
        List<Object> all = new ArrayList<>();
        all.add(new ArrayList<>(file.metadata().entrySet()));
        for (GgufTensor t : file.tensors()) {
            all.add(t.name());
            all.add(t.type());
            all.add(t.dims());
            all.add(Arrays.toString(t.data().segment().toArray(ValueLayout.JAVA_BYTE)));
        }
        return all;
    }
}
