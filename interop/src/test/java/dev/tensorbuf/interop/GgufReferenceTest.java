package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.testing.PythonPeer;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gguf-py's {@code GGUFReader} reads what {@link GgufWriter} writes, and {@link GgufFile} reads what {@code GGUFWriter} writes. */
class GgufReferenceTest {
    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("unchecked")
    void theReferenceReadsWhatWeWrite() throws IOException {
        PythonPeer.assumeModules("gguf", "numpy");
        Map<String, GgufValue> meta = new LinkedHashMap<>();
        meta.put("general.architecture", GgufValue.string("llama"));
        meta.put("general.alignment", GgufValue.u32(64));
        meta.put("u8", new GgufValue(GgufValue.Type.UINT8, 255));
        meta.put("i8", new GgufValue(GgufValue.Type.INT8, -128));
        meta.put("u16", new GgufValue(GgufValue.Type.UINT16, 65535));
        meta.put("i16", new GgufValue(GgufValue.Type.INT16, -32768));
        meta.put("u32", GgufValue.u32(0xFFFF_FFFFL));
        meta.put("i32", GgufValue.i32(Integer.MIN_VALUE));
        meta.put("f32", GgufValue.f32(0.1f));
        meta.put("bool", GgufValue.bool(false));
        meta.put("str", GgufValue.string("héllo ▁wörld"));
        meta.put("u64", GgufValue.u64(-2L));
        meta.put("i64", new GgufValue(GgufValue.Type.INT64, Long.MIN_VALUE));
        meta.put("f64", new GgufValue(GgufValue.Type.FLOAT64, 0.1));
        meta.put("tokens", GgufValue.array(GgufValue.Type.STRING, List.of("<s>", "</s>", "▁the")));
        meta.put("scores", GgufValue.array(GgufValue.Type.FLOAT32, List.of(0f, -1f, 2.5f)));
        meta.put("u64s", GgufValue.array(GgufValue.Type.UINT64, List.of(1L, -1L)));
        meta.put("nested", GgufValue.array(GgufValue.Type.ARRAY,
                List.of(new GgufValue.Array(GgufValue.Type.INT32, List.of(1, 2)))));
        Random random = new Random(38);
        List<GgufWriter.Tensor> tensors = new ArrayList<>();
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        Object[][] specs = {{"f32", GgmlType.F32, List.of(3L, 5L)}, {"f16", GgmlType.F16, List.of(4L)},
            {"bf16", GgmlType.BF16, List.of(2L, 2L, 3L)}, {"q8_0", GgmlType.Q8_0, List.of(2L, 64L)},
            {"q4_0", GgmlType.Q4_0, List.of(3L, 32L)}, {"q4_k", GgmlType.Q4_K, List.of(1L, 2L, 256L)},
            {"i32", GgmlType.I32, List.of(7L)}};
        for (Object[] s : specs) {
            List<Long> dims = (List<Long>) s[2];
            byte[] b = new byte[(int) GgufWriter.byteSize((String) s[0], (GgmlType) s[1], dims)];
            random.nextBytes(b);
            bytes.put((String) s[0], b);
            tensors.add(GgufWriter.tensor((String) s[0], (GgmlType) s[1], dims, MemorySegment.ofArray(b)));
        }
        Path file = dir.resolve("ours.gguf");
        GgufWriter.write(file, meta, tensors);
        String out = PythonPeer.runScript("/peers/gguf_peer.py", dir, "read", file.toString(), dir.resolve("r.json").toString());
        assertTrue(out.contains("read 18 fields 7 tensors"), out);
        Map<String, Object> read = Json.parseObject(Files.readString(dir.resolve("r.json")));
        try (GgufFile f = GgufFile.open(file)) {
            assertEquals(canonical(f.metadata()), read.get("fields"));
            assertEquals(64L, read.get("alignment"));
            assertEquals(f.dataOffset(), read.get("data_offset"));
            List<Object> theirs = (List<Object>) read.get("tensors");
            assertEquals(specs.length, theirs.size());
            for (int i = 0; i < specs.length; i++) {
                Map<String, Object> t = (Map<String, Object>) theirs.get(i);
                GgufTensor ours = f.tensor((String) specs[i][0]);
                assertEquals(ours.name(), t.get("name"));
                assertEquals(ours.type().name(), t.get("type"));
                assertEquals(ours.dims(), t.get("dims"), "gguf-py's shape reversed is our logical dims");
                assertEquals(ours.byteSize(), t.get("n_bytes"));
                assertEquals(ours.fileOffset(), t.get("data_offset"));
                assertEquals(HexFormat.of().formatHex(bytes.get(ours.name())), t.get("hex"), ours.name());
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void weReadWhatTheReferenceWrites() throws IOException {
        PythonPeer.assumeModules("gguf", "numpy");
        Path file = dir.resolve("theirs.gguf");
        String out = PythonPeer.runScript("/peers/gguf_peer.py", dir, "write", file.toString(), dir.resolve("w.json").toString());
        assertTrue(out.contains("wrote 5 tensors"), out);
        // runScript copies the script into its directory, which already holds it.
        PythonPeer.runScript("/peers/gguf_peer.py", Files.createDirectory(dir.resolve("again")), "read", file.toString(), dir.resolve("r.json").toString());
        Map<String, Object> read = Json.parseObject(Files.readString(dir.resolve("r.json")));
        Map<String, Object> written = Json.parseObject(Files.readString(dir.resolve("w.json")));
        try (GgufFile f = GgufFile.open(file)) {
            assertEquals(64, f.alignment());
            assertEquals(read.get("fields"), canonical(f.metadata()));
            assertEquals(List.of("f32", "f16", "bf16", "q8_0", "q4_0"), f.names());
            assertEquals(List.of(3L, 64L), f.tensor("f32").dims());
            assertEquals(GgmlType.Q4_0, f.tensor("q4_0").type());
            assertEquals(List.of(4L, 64L), f.tensor("q4_0").dims());
            for (Object o : (List<Object>) written.get("tensors")) {
                Map<String, Object> t = (Map<String, Object>) o;
                GgufTensor ours = f.tensor((String) t.get("name"));
                assertEquals(t.get("hex"), HexFormat.of().formatHex(ours.data().segment().toArray(ValueLayout.JAVA_BYTE)),
                        ours.name());
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void typeIdsAndBlockSizesAreGgufPys() throws IOException {
        PythonPeer.assumeModules("gguf", "numpy");
        String out = PythonPeer.runScript("/peers/gguf_peer.py", dir, "types", dir.resolve("t.json").toString(), "-");
        assertTrue(out.contains("types"), out);
        Map<String, Object> theirs = Json.parseObject(Files.readString(dir.resolve("t.json")));
        Map<String, Object> ours = new LinkedHashMap<>();
        for (GgmlType t : GgmlType.values()) {
            ours.put(t.name(), List.of((long) t.id(), (long) t.blockValues(), (long) t.blockBytes()));
        }
        assertEquals(theirs, ours);
    }

    /** The peer's canonical form: numbers as integers, floats as their bits, arrays as lists. */
    static Map<String, Object> canonical(Map<String, GgufValue> metadata) {
        Map<String, Object> out = new LinkedHashMap<>();
        metadata.forEach((k, v) -> {
            Map<String, Object> field = new LinkedHashMap<>();
            if (v.value() instanceof GgufValue.Array a && a.elementType() == GgufValue.Type.ARRAY) {
                field.put("types", List.of("ARRAY", "ARRAY"));
            } else if (v.value() instanceof GgufValue.Array a) {
                field.put("types", List.of("ARRAY", a.elementType().name()));
                field.put("value", a.items().stream().map(x -> canonical(a.elementType(), x)).toList());
            } else {
                field.put("types", List.of(v.type().name()));
                field.put("value", canonical(v.type(), v.value()));
            }
            out.put(k, field);
        });
        return Json.parseObject(Json.write(out));
    }

    private static Object canonical(GgufValue.Type type, Object v) {
        return switch (type) {
            case FLOAT32 -> (long) Float.floatToRawIntBits((Float) v) & 0xFFFF_FFFFL;
            case FLOAT64 -> new BigInteger(Long.toUnsignedString(Double.doubleToRawLongBits((Double) v)));
            case UINT64 -> new BigInteger(Long.toUnsignedString((Long) v));
            default -> v;
        };
    }
}
