package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys of a tensor's entry besides dtype, shape and data_offsets, which writers other than the
 * reference add: read, as the reference reader reads them. Duplicate names stay refused.
 */
class SafetensorsEntryKeysTest {
    @TempDir
    Path dir;

    private Path file(String header, float... values) throws IOException {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + h.length + 4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(h.length).put(h);
        for (float v : values) {
            b.putFloat(v);
        }
        Path file = dir.resolve("t.safetensors");
        Files.write(file, b.array());
        return file;
    }

    private static final String EXTRA = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"quantization\":"
            + "{\"bits\":8},\"x\":1},\"v\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12],\"note\":\"kept\"}}";

    @Test
    void anEntryKeyWeDoNotKnowIsReadPast() throws IOException {
        try (SafetensorsFile f = SafetensorsFile.open(file(EXTRA, 1.5f, -2f, 3f))) {
            assertEquals(List.of("v", "w"), f.names().stream().sorted().toList());
            SafetensorsFile.Tensor w = f.tensor("w");
            assertEquals(DType.F32, w.view().dtype());
            TensorValues.assertValues(List.of(1.5, -2.0), TensorValues.read(w.view()), "w");
            TensorValues.assertValues(List.of(3.0), TensorValues.read(f.tensor("v").view()), "v");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theReferenceReadsTheSameFileToTheSameValues() throws IOException {
        PythonPeer.assumeModules("numpy", "safetensors");
        Path file = file(EXTRA, 1.5f, -2f, 3f);
        List<String> lines = PythonPeer.runScript("/peers/load_peer.py", dir, "safetensors", file.toString()).lines()
                .filter(l -> l.startsWith("{")).toList();
        assertEquals(2, lines.size(), String.join("\n", lines));
        Map<String, Object> v = Json.parseObject(lines.get(0));
        Map<String, Object> w = Json.parseObject(lines.get(1));
        assertEquals("v", v.get("name"));
        assertEquals("w", w.get("name"));
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            TensorValues.assertValues((List<Object>) w.get("values"), TensorValues.read(f.tensor("w").view()), "w");
            TensorValues.assertValues((List<Object>) v.get("values"), TensorValues.read(f.tensor("v").view()), "v");
        }
    }

    @Test
    void aDuplicateNameIsRefusedNamingIt() throws IOException {
        Path file = file("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                + "\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 1f, 2f);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.open(file));
        assertTrue(e.getMessage().contains("duplicate key \"w\""), e.getMessage());
    }

    @Test
    void aMissingKeyIsStillRefusedNamingIt() throws IOException {
        Path file = file("{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4],\"x\":[1]}}", 1f);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.open(file));
        assertTrue(e.getMessage().endsWith("tensor 'w' has keys [dtype, data_offsets, x], missing shape (a tensor needs"
                + " dtype, shape and data_offsets)"), e.getMessage());
    }
}
