package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tensorbuf inspect} of a sharded checkpoint's index: every shard's tensors, each with its shard. */
class InspectShardedCheckpointTest {
    @TempDir
    Path dir;

    static DenseTensor f32(float first, int count) {
        MemorySegment s = Arena.ofAuto().allocate(4L * count);
        for (int i = 0; i < count; i++) {
            s.setAtIndex(ValueLayout.JAVA_FLOAT, i, first + i);
        }
        return new DenseTensor(DType.F32, List.of((long) count), s);
    }

    /** embed (400 bytes) and proj (64) in the first shard, head (400) in the second, at a 500-byte limit. */
    static Path checkpoint(Path dir) throws IOException {
        Map<String, DenseTensor> state = new LinkedHashMap<>();
        state.put("embed", f32(0, 100));
        state.put("proj", f32(1000, 16));
        state.put("head", f32(-50, 100));
        return SafetensorsFile.Checkpoint.write(dir, state, Map.of("format", "pt"), 500);
    }

    private static long offset(Path index, String name) throws IOException {
        try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(index)) {
            SafetensorsFile.Tensor t = c.tensor(name);
            return t.fileOffset();
        }
    }

    @Test
    void listsEveryShardsTensorsWithItsShard() throws IOException {
        Path index = checkpoint(dir);
        CliHarness r = CliHarness.run("inspect", index.toString());
        assertEquals(0, r.code(), r.err());
        long embed = offset(index, "embed");
        long proj = offset(index, "proj");
        long head = offset(index, "head");
        assertEquals(index + ": sharded safetensors checkpoint, 2 shards, 3 tensors\n"
                + "  embed  f32 (F32)  [100]  model-00001-of-00002.safetensors bytes [" + embed + ", " + (embed + 400)
                + ")  400 bytes\n"
                + "  proj  f32 (F32)  [16]  model-00001-of-00002.safetensors bytes [" + proj + ", " + (proj + 64) + ")  64 bytes\n"
                + "  head  f32 (F32)  [100]  model-00002-of-00002.safetensors bytes [" + head + ", " + (head + 400)
                + ")  400 bytes\n"
                + "  metadata: total_size=864, format=pt\n", r.out());
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonNamesEachTensorsShardAndKeepsTheIndexMetadataTypes() throws IOException {
        Path index = checkpoint(dir);
        CliHarness r = CliHarness.run("inspect", index.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> out = Json.parseObject(r.out());
        assertEquals("safetensors", out.get("format"));
        assertEquals(Map.of("total_size", 864L, "format", "pt"), out.get("metadata"));
        List<Object> tensors = (List<Object>) out.get("tensors");
        assertEquals(List.of("model-00001-of-00002.safetensors", "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors"), tensors.stream().map(t -> ((Map<String, Object>) t).get("file")).toList());
        assertEquals(List.of(100L), ((Map<String, Object>) tensors.get(2)).get("shape"));
    }

    @Test
    void anIndexNamingAMissingShardExitsTwoNamingIt() throws IOException {
        Path index = checkpoint(dir);
        Files.delete(dir.resolve("model-00002-of-00002.safetensors"));
        CliHarness r = CliHarness.run("inspect", index.toString());
        assertEquals(2, r.code(), r.out());
        assertEquals("tensorbuf inspect: " + index + " maps tensor 'head' to model-00002-of-00002.safetensors, which does not"
                + " exist in " + dir + "\n", r.err());
    }
}
