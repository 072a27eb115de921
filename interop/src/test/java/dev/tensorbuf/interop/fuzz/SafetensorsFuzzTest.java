package dev.tensorbuf.interop.fuzz;

import dev.tensorbuf.testing.FuzzChecks;
import static dev.tensorbuf.testing.FuzzChecks.assertRoundTrip;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptionsIo;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.SafetensorsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes safetensors files: the bytes are written to a file and opened. A file that opens is
 * written again by the library's writer and must open with the same names, dtypes, shapes,
 * metadata and data. Seeds and findings:
 * {@code src/test/resources/dev/tensorbuf/interop/fuzz/SafetensorsFuzzTestInputs/}.
 */
class SafetensorsFuzzTest {
    private static final Path FILE = FuzzChecks.scratch("fuzz.safetensors");
    private static final Path AGAIN = FuzzChecks.scratch("again.safetensors");

    @FuzzTest
    void safetensorsBytesOpenOrFailCleanly(byte[] data) {
        String input = HexFormat.of().formatHex(data, 0, Math.min(data.length, 256));
        try {
            Files.write(FILE, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        expectOnlyDocumentedExceptionsIo(input, () -> {
            try (SafetensorsFile file = SafetensorsFile.open(FILE)) {
                Map<String, DenseTensor> tensors = new LinkedHashMap<>();
                for (SafetensorsFile.Tensor t : file.tensors()) {
                    tensors.put(t.name(), t.asDense());
                }
                SafetensorsFile.write(AGAIN, tensors, file.metadata());
                try (SafetensorsFile again = SafetensorsFile.open(AGAIN)) {
                    assertRoundTrip(summary(file), input, summary(again));
                }
            }
        });
    }

    /** Everything a reader sees, in name order, with the data as bytes. */
    private static List<Object> summary(SafetensorsFile file) {
        List<Object> all = new ArrayList<>();
        all.add(file.metadata());
        file.tensors().stream().sorted(java.util.Comparator.comparing(SafetensorsFile.Tensor::name)).forEach(t -> {
            all.add(t.name());
            all.add(t.dtype());
            all.add(t.shape());
            all.add(Arrays.toString(t.data().segment().toArray(ValueLayout.JAVA_BYTE)));
        });
        return all;
    }
}
