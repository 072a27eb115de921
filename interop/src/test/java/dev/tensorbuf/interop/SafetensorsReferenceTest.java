package dev.tensorbuf.interop;

import dev.tensorbuf.testing.PythonPeer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference {@code safetensors} library (numpy API, with ml_dtypes for BF16 and F8) loads
 * what we write, writes the same bytes for the same tensors, and we load what it writes.
 */
class SafetensorsReferenceTest {
    private static final List<DType> TYPES = List.of(DType.PRED, DType.U8, DType.S8, DType.S16, DType.U16,
            DType.S32, DType.U32, DType.S64, DType.U64, DType.F16, DType.BF16, DType.F32, DType.F64,
            DType.F8E4M3FN, DType.F8E5M2);
    private static final List<List<Long>> SHAPES = List.of(List.of(2L, 3L), List.of(), List.of(0L, 2L), List.of(4L));

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("unchecked")
    void weLoadWhatTheReferenceWrites() throws IOException {
        PythonPeer.assumeModules("safetensors", "numpy", "ml_dtypes");
        String out = PythonPeer.runScript("/peers/safetensors_peer.py", dir, "write", dir.toString());
        assertTrue(out.contains("wrote 15"), out);
        Map<String, Object> manifest = Json.parseObject(Files.readString(dir.resolve("manifest.json")));
        Map<String, Object> entry = (Map<String, Object>) ((List<Object>) manifest.get("files")).getFirst();
        try (SafetensorsFile f = SafetensorsFile.open(dir.resolve((String) entry.get("file")))) {
            assertEquals(entry.get("metadata"), f.metadata());
            List<Object> tensors = (List<Object>) entry.get("tensors");
            assertEquals(tensors.size(), f.names().size());
            for (Object o : tensors) {
                Map<String, Object> t = (Map<String, Object>) o;
                SafetensorsFile.Tensor got = f.tensor((String) t.get("name"));
                assertEquals(DType.fromSafetensorsName((String) t.get("dtype")), got.dtype(), got.name());
                assertEquals(t.get("shape"), got.shape(), got.name());
                TensorValues.assertValues((List<?>) t.get("values"),
                        TensorValues.read(got.dtype(), NpyHeaderLayouts.cOrder(got.shape()), got.data().segment()),
                        got.name());
                TensorValues.assertValues((List<?>) t.get("values"), TensorValues.read(got.view()), "view of " + got.name());
                assertTrue(got.data().isReadOnly());
            }
        }
    }

    @Test
    void theReferenceLoadsWhatWeWriteAndWritesTheSameBytes() throws IOException {
        PythonPeer.assumeModules("safetensors", "numpy", "ml_dtypes");
        List<Object> files = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            // F8 gets a file of its own: safetensors.numpy.load_file cannot make F8 arrays.
            files.add(write("plain.safetensors", TYPES.stream().filter(t -> t.bitWidth() != 8 || t.kind() != DType.Kind.FLOAT).toList(),
                    Map.of("format", "np"), arena));
            files.add(write("all.safetensors", TYPES, Map.of(), arena));
            files.add(write("empty.safetensors", List.of(), Map.of("note", "no tensors"), arena));
        }
        Files.writeString(dir.resolve("manifest.json"), Json.write(Map.of("files", files)));
        String out = PythonPeer.runScript("/peers/safetensors_peer.py", dir, "check", dir.toString());
        assertTrue(out.contains("checked " + (TYPES.size() - 2 + TYPES.size())), out);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theReferenceReadsTheBytesOfPackedAndSixBitTensorsAsWritten() throws IOException {
        // tensorbuf convert copies these byte for byte (it does not unpack F6): the reference must take them as they are.
        PythonPeer.assumeModules("safetensors", "numpy");
        Map<String, DenseTensor> tensors = new LinkedHashMap<>();
        List<Object> listed = new ArrayList<>();
        Object[][] cases = {
            {"e2m3", DType.F6E2M3FN, List.of(2L, 4L), new byte[] {1, 2, 3, 4, 5, 6}},
            {"e3m2", DType.F6E3M2FN, List.of(4L), new byte[] {(byte) 0xff, 0, 0x7f}},
            {"f4", DType.F4E2M1FN, List.of(3L, 2L), new byte[] {0x10, 0x32, (byte) 0xfe}},
            {"scale", DType.F8E8M0FNU, List.of(2L), new byte[] {127, (byte) 0x80}},
        };
        for (Object[] c : cases) {
            byte[] bytes = (byte[]) c[3];
            DType t = (DType) c[1];
            tensors.put((String) c[0], new DenseTensor(t, (List<Long>) c[2], MemorySegment.ofArray(bytes)));
            listed.add(Map.of("name", c[0], "dtype", t.safetensorsName().orElseThrow(), "shape", c[2],
                    "hex", java.util.HexFormat.of().formatHex(bytes)));
        }
        SafetensorsFile.write(dir.resolve("packed.safetensors"), tensors, Map.of("format", "mx"));
        Files.writeString(dir.resolve("manifest.json"), Json.write(Map.of("files",
                List.of(Map.of("file", "packed.safetensors", "metadata", Map.of("format", "mx"), "tensors", listed)))));
        String out = PythonPeer.runScript("/peers/safetensors_peer.py", dir, "raw", dir.toString());
        assertTrue(out.contains("checked 4"), out);
    }

    private Map<String, Object> write(String name, List<DType> types, Map<String, String> metadata, Arena arena)
            throws IOException {
        Map<String, DenseTensor> tensors = new LinkedHashMap<>();
        List<Object> listed = new ArrayList<>();
        for (int k = 0; k < types.size(); k++) {
            DType t = types.get(k);
            List<Long> shape = SHAPES.get(k % SHAPES.size());
            String tensorName = "t_" + t.safetensorsName().orElseThrow().toLowerCase();
            DenseTensor tensor = TensorValues.tensor(t, shape, arena);
            tensors.put(tensorName, tensor);
            List<Object> values = new ArrayList<>();
            for (long i = 0; i < tensor.elementCount(); i++) {
                values.add(TensorValues.value(t, i));
            }
            listed.add(Map.of("name", tensorName, "dtype", t.safetensorsName().orElseThrow(), "shape", shape,
                    "values", values));
        }
        SafetensorsFile.write(dir.resolve(name), tensors, metadata);
        return Map.of("file", name, "metadata", metadata, "tensors", listed);
    }
}
