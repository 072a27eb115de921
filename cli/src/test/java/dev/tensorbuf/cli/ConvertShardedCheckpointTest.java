package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tensorbuf convert} from and to a sharded checkpoint's index. */
class ConvertShardedCheckpointTest {
    @TempDir
    Path dir;

    private static float[] floats(TensorView v) {
        return TensorElements.of(v).toFloatArray();
    }

    @Test
    void anIndexConvertsWholeIntoOneSafetensorsFile() throws IOException {
        Path index = InspectShardedCheckpointTest.checkpoint(Files.createDirectory(dir.resolve("in")));
        Path out = dir.resolve("all.safetensors");
        CliHarness r = CliHarness.run("convert", index.toString(), out.toString(), "--dtype", "bf16");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(index + " -> " + out + ": 3 tensors (3 to bf16, 0 kept), "), r.out());
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertEquals(List.of("embed", "head", "proj"), f.names());
            assertEquals(Map.of("format", "pt"), f.metadata());
            assertEquals(1000f, TensorElements.of(f.tensor("proj").view()).getFloat(0));   // exact in bf16, as is -1
            assertEquals(-1f, TensorElements.of(f.tensor("head").view()).getFloat(49));
        }
    }

    @Test
    void oneTensorOfAnIndexConvertsToNpy() throws IOException {
        Path index = InspectShardedCheckpointTest.checkpoint(dir);
        Path out = dir.resolve("head.npy");
        CliHarness r = CliHarness.run("convert", index.toString(), out.toString(), "--tensor", "head");
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor a = Npy.map(out, null)) {
            float[] values = floats(TensorView.strided(a.data(), a.dtype(), a.layout()));
            assertEquals(100, values.length);
            assertEquals(-50f, values[0]);
            assertEquals(49f, values[99]);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aSafetensorsFileConvertsIntoShardsAtTheSizeGiven() throws IOException {
        Map<String, DenseTensor> state = new LinkedHashMap<>();
        state.put("a", InspectShardedCheckpointTest.f32(0, 100));
        state.put("b", InspectShardedCheckpointTest.f32(100, 100));
        state.put("c", InspectShardedCheckpointTest.f32(200, 100));
        Path in = dir.resolve("m.safetensors");
        SafetensorsFile.write(in, state, Map.of("format", "pt"));
        Path folder = Files.createDirectory(dir.resolve("sharded"));
        Path index = folder.resolve(SafetensorsFile.Checkpoint.INDEX_FILE);
        CliHarness r = CliHarness.run("convert", in.toString(), index.toString(), "--max-shard-size", "0.8KB", "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> json = Json.parseObject(r.out());
        assertEquals(index.toString(), json.get("out"));
        long files = Files.size(index) + Files.size(folder.resolve("model-00001-of-00002.safetensors"))
                + Files.size(folder.resolve("model-00002-of-00002.safetensors"));
        assertEquals(files, json.get("bytes_written"));
        try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(index)) {
            assertEquals(2, c.files().size());
            assertEquals(Map.of("total_size", 1200L, "format", "pt"), c.indexMetadata());
            assertEquals(List.of("a", "b"), c.files().get(0).names());
            float[] c200 = new float[100];
            for (int i = 0; i < 100; i++) {
                c200[i] = 200 + i;
            }
            assertArrayEquals(c200, floats(c.tensor("c").view()));
            assertEquals(299f, TensorElements.of(c.tensor("c").view()).getFloat(99));
        }
        // The same into one shard: model.safetensors, and the index and shards of the last save are gone.
        CliHarness one = CliHarness.run("convert", in.toString(), index.toString());
        assertEquals(0, one.code(), one.err());
        assertTrue(one.out().startsWith(in + " -> " + folder.resolve("model.safetensors") + ": 3 tensors"), one.out());
        assertFalse(Files.exists(index));
        assertFalse(Files.exists(folder.resolve("model-00001-of-00002.safetensors")));
    }

    private static Invocation invocation(String... args) {
        return Invocation.parse(new ConvertCommand(), List.of(args).subList(1, args.length), null, System.out, System.err);
    }

    @Test
    void shardSizesAreReadAsHuggingFaceReadsThem() {
        Path out = dir.resolve(SafetensorsFile.Checkpoint.INDEX_FILE);
        assertEquals(5_000_000_000L, ConvertCommand.maxShardBytes(invocation("convert", "a", out.toString()), out));
        assertEquals(500_000_000L, ConvertCommand.maxShardBytes(
                invocation("convert", "a", out.toString(), "--max-shard-size", "0.5GB"), out));
        assertEquals(1234L, ConvertCommand.maxShardBytes(
                invocation("convert", "a", out.toString(), "--max-shard-size", "1234"), out));
        assertEquals(2_000_000L, ConvertCommand.maxShardBytes(
                invocation("convert", "a", out.toString(), "--max-shard-size", " 2 mb"), out));
    }

    @Test
    void badShardSizesAndOutputNamesExitTwo() throws IOException {
        Path index = InspectShardedCheckpointTest.checkpoint(Files.createDirectory(dir.resolve("in")));
        CliHarness notIndex = CliHarness.run("convert", index.toString(), dir.resolve("o.safetensors").toString(),
                "--max-shard-size", "5GB");
        assertEquals(2, notIndex.code());
        assertEquals("tensorbuf convert: --max-shard-size splits a sharded OUT, model.safetensors.index.json; "
                + dir.resolve("o.safetensors") + " is one file\n", notIndex.err());
        Path out = dir.resolve(SafetensorsFile.Checkpoint.INDEX_FILE);
        CliHarness badUnit = CliHarness.run("convert", index.toString(), out.toString(), "--max-shard-size", "5XB");
        assertEquals(2, badUnit.code());
        assertEquals("tensorbuf convert: --max-shard-size 5XB: expected bytes (1000000) or a number with TB, GB, MB or KB"
                + " (5GB, 0.5GB)\n", badUnit.err());
        CliHarness tiny = CliHarness.run("convert", index.toString(), out.toString(), "--max-shard-size", "0.0001KB");
        assertEquals(2, tiny.code());
        assertTrue(tiny.err().contains("a shard must hold at least 1 byte"), tiny.err());
        Path other = dir.resolve("weights.safetensors.index.json");
        CliHarness named = CliHarness.run("convert", index.toString(), other.toString());
        assertEquals(2, named.code());
        assertEquals("tensorbuf convert: " + other + ": a sharded checkpoint written here is named"
                + " model.safetensors.index.json, beside its shards model-00001-of-0000N.safetensors, as Hugging Face"
                + " names them; write " + dir.resolve(SafetensorsFile.Checkpoint.INDEX_FILE) + "\n", named.err());
        assertFalse(Files.exists(other));
    }
}
