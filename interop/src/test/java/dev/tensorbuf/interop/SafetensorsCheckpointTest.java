package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.tensorbuf.views.TensorElements;

/**
 * Sharded safetensors checkpoints: Hugging Face's split, index and files, read and written, and
 * every index that must be refused.
 */
class SafetensorsCheckpointTest {
    @TempDir
    Path dir;

    private static DenseTensor f32(float first, int count) {
        MemorySegment s = Arena.ofAuto().allocate(4L * count);
        for (int i = 0; i < count; i++) {
            s.setAtIndex(ValueLayout.JAVA_FLOAT, i, first + i);
        }
        return new DenseTensor(DType.F32, List.of((long) count), s);
    }

    private static Map<String, Long> sizes(long... bytes) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < bytes.length; i++) {
            m.put(String.valueOf((char) ('a' + i)), bytes[i]);
        }
        return m;
    }

    @Test
    void exampleFromJavadoc() {
        long gb = 1_000_000_000L;
        Map<String, Long> sizes = sizes(6 * gb, 6 * gb, 2 * gb, 6 * gb, 2 * gb, 2 * gb);
        SafetensorsFile.Checkpoint.Split ten = SafetensorsFile.Checkpoint.Split.of(sizes, 10 * gb);
        assertEquals(List.of(List.of("a"), List.of("b", "c"), List.of("d", "e", "f")), ten.shards());
        assertEquals(24 * gb, ten.totalSize());
        assertEquals(List.of("model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
                "model-00003-of-00003.safetensors"), ten.fileNames());
        SafetensorsFile.Checkpoint.Split five = SafetensorsFile.Checkpoint.Split.of(sizes, 5 * gb);
        assertEquals(List.of(List.of("a"), List.of("b"), List.of("d"), List.of("c", "e"), List.of("f")), five.shards());
        assertEquals(List.of("model.safetensors"), SafetensorsFile.Checkpoint.Split.of(sizes, 100 * gb).fileNames());
    }

    @Test
    void splitRefusesWhatHasNoShards() {
        assertEquals("the largest shard must be > 0 bytes, got 0",
                assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.Checkpoint.Split.of(sizes(1), 0)).getMessage());
        assertEquals("a checkpoint needs at least one tensor",
                assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.Checkpoint.Split.of(Map.of(), 1)).getMessage());
    }

    @Test
    @SuppressWarnings("unchecked")
    void splitIsHuggingFacesOnRandomSizes() throws IOException {
        PythonPeer.assumeModules("huggingface_hub", "numpy");
        String out = PythonPeer.runScript("/peers/sharded_peer.py", dir, "splits", dir.toString());
        assertTrue(out.contains("split 200"), out);
        List<Object> cases = (List<Object>) Json.parse(Files.readString(dir.resolve("splits.json")));
        for (Object o : cases) {
            Map<String, Object> c = (Map<String, Object>) o;
            List<Object> list = (List<Object>) c.get("sizes");
            Map<String, Long> sizes = new LinkedHashMap<>();
            for (int i = 0; i < list.size(); i++) {
                sizes.put("t" + i, (Long) list.get(i));
            }
            SafetensorsFile.Checkpoint.Split split = SafetensorsFile.Checkpoint.Split.of(sizes, (Long) c.get("max"));
            Map<String, Object> ours = new LinkedHashMap<>();
            for (int i = 0; i < split.shards().size(); i++) {
                ours.put(split.fileNames().get(i), split.shards().get(i));
            }
            assertEquals(c.get("files"), ours, "sizes " + list + ", max " + c.get("max"));
            assertEquals(c.get("total_size"), split.totalSize());
        }
    }

    /** huggingface_hub saves, we open it, write the same state dict, and get the same bytes, file for file. */
    @Test
    @SuppressWarnings("unchecked")
    void huggingFacesCheckpointReadAndWrittenAgainByteForByte() throws IOException {
        PythonPeer.assumeModules("huggingface_hub", "safetensors", "numpy");
        String saved = PythonPeer.runScript("/peers/sharded_peer.py", dir, "save", dir.toString(), "1000");
        assertTrue(saved.contains("saved 8 tensors in 3 files"), saved);
        Map<String, Object> state = Json.parseObject(Files.readString(dir.resolve("state.json")));
        Path ours = Files.createDirectory(dir.resolve("ours"));
        try (SafetensorsFile.Checkpoint hf = SafetensorsFile.Checkpoint.open(dir.resolve("hf").resolve(SafetensorsFile.Checkpoint.INDEX_FILE))) {
            assertTrue(hf.isSharded());
            assertEquals(3, hf.files().size());
            assertEquals(Map.of("total_size", 2668L, "format", "pt"), hf.indexMetadata());
            assertEquals(Map.of("format", "pt"), hf.metadata());
            assertEquals(2668, hf.byteSize());
            assertEquals(dir.resolve("hf").resolve("model-00001-of-00003.safetensors"), hf.tensor("lm_head.weight").file());
            assertEquals(-4f, TensorElements.of(hf.tensor("lm_head.weight").view()).getFloat(3));
            assertEquals(3.25f, TensorElements.of(hf.tensor("model.scale").view()).getFloat());
            Map<String, DenseTensor> tensors = new LinkedHashMap<>();
            for (Object name : (List<Object>) state.get("order")) {
                tensors.put((String) name, hf.tensor((String) name).asDense());
            }
            assertEquals(ours.resolve(SafetensorsFile.Checkpoint.INDEX_FILE),
                    SafetensorsFile.Checkpoint.write(ours, tensors, Map.of("format", "pt"), 1000));
        }
        try (Stream<Path> files = Files.list(ours)) {
            assertEquals(state.get("files"), files.map(p -> p.getFileName().toString()).sorted().toList());
        }
        for (Object name : (List<Object>) state.get("files")) {
            assertArrayEquals(Files.readAllBytes(dir.resolve("hf").resolve((String) name)),
                    Files.readAllBytes(ours.resolve((String) name)), (String) name);
        }
        // runScript copies the script into the folder it is given: a second run needs a folder of its own.
        String checked = PythonPeer.runScript("/peers/sharded_peer.py", Files.createDirectory(dir.resolve("check")), "check",
                dir.toString());
        assertTrue(checked.contains("checked 8"), checked);
    }

    @Test
    void writtenCheckpointOpensAsOneSetOfTensors() throws IOException {
        Map<String, DenseTensor> state = new LinkedHashMap<>();
        state.put("embed", f32(0, 100));   // 400
        state.put("proj", f32(1000, 16));  // 64
        state.put("head", f32(-50, 100));  // 400
        Path index = SafetensorsFile.Checkpoint.write(dir, state, Map.of(), 500);
        assertEquals(dir.resolve("model.safetensors.index.json"), index);
        assertEquals("{\n  \"metadata\": {\n    \"total_size\": 864\n  },\n  \"weight_map\": {\n"
                + "    \"embed\": \"model-00001-of-00002.safetensors\",\n    \"proj\": \"model-00001-of-00002.safetensors\",\n"
                + "    \"head\": \"model-00002-of-00002.safetensors\"\n  }\n}", Files.readString(index));
        try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(index)) {
            assertEquals(List.of("embed", "proj", "head"), c.names());
            assertEquals(1005f, TensorElements.of(c.tensor("proj").view()).getFloat(5));
            assertEquals(-1f, TensorElements.of(c.tensor("head").view()).getFloat(49));
            assertEquals(Map.of(), c.metadata());
            assertEquals("no tensor 'x' in model.safetensors.index.json; it has [embed, proj, head]",
                    assertThrows(IllegalArgumentException.class, () -> c.tensor("x")).getMessage());
        }
    }

    @Test
    void aCheckpointThatFitsOneFileIsOneFileWithoutIndex() throws IOException {
        Path single = SafetensorsFile.Checkpoint.write(dir, Map.of("w", f32(1, 4)), Map.of("format", "pt"),
                SafetensorsFile.Checkpoint.DEFAULT_MAX_SHARD_BYTES);
        assertEquals(dir.resolve("model.safetensors"), single);
        assertFalse(Files.exists(dir.resolve(SafetensorsFile.Checkpoint.INDEX_FILE)));
        try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(single)) {
            assertFalse(c.isSharded());
            assertEquals(Map.of("format", "pt"), c.metadata());
            assertEquals(4f, TensorElements.of(c.tensor("w").view()).getFloat(3));
        }
    }

    /** A stale index beside a new single file would have loaders read the old shards. */
    @Test
    void aNewSaveRemovesTheFilesOfTheLastOneAndNothingElse() throws IOException {
        Map<String, DenseTensor> state = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            state.put("t" + i, f32(i, 100));
        }
        SafetensorsFile.Checkpoint.write(dir, state, Map.of(), 400);
        Files.writeString(dir.resolve("notes.txt"), "mine");
        Files.writeString(dir.resolve("model-1.safetensors"), "not a save's name");
        SafetensorsFile.Checkpoint.write(dir, state, Map.of(), 10_000);
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("model-1.safetensors", "model.safetensors", "notes.txt"),
                    files.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void metadataMayNotClaimTheTotalSize() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SafetensorsFile.Checkpoint.write(dir, Map.of("w", f32(0, 1)), Map.of("total_size", "1"), 100));
        assertEquals("metadata key 'total_size' is the index's own (the tensors' bytes)", e.getMessage());
    }

    // ---- refused indexes

    private Path index(String weightMap) throws IOException {
        return Files.writeString(dir.resolve(SafetensorsFile.Checkpoint.INDEX_FILE),
                "{\"metadata\": {\"total_size\": 8}, \"weight_map\": " + weightMap + "}");
    }

    private String refusal(Path index) {
        return assertThrows(IllegalArgumentException.class, () -> SafetensorsFile.Checkpoint.open(index).close()).getMessage();
    }

    @Test
    void indexNamingAMissingShardIsRefused() throws IOException {
        SafetensorsFile.write(dir.resolve("a.safetensors"), Map.of("w", f32(0, 2)));
        Path index = index("{\"w\": \"a.safetensors\", \"v\": \"b.safetensors\", \"u\": \"b.safetensors\"}");
        assertEquals(index + " maps tensor 'v' (and 1 more) to b.safetensors, which does not exist in " + dir,
                refusal(index));
    }

    @Test
    void tensorListedButAbsentFromItsShardIsRefused() throws IOException {
        SafetensorsFile.write(dir.resolve("a.safetensors"), Map.of("w", f32(0, 2)));
        Path index = index("{\"w\": \"a.safetensors\", \"gone\": \"a.safetensors\"}");
        assertEquals(index + " maps tensor 'gone' to a.safetensors, which does not hold it", refusal(index));
    }

    @Test
    void tensorInAShardButNotInTheIndexIsRefused() throws IOException {
        SafetensorsFile.write(dir.resolve("a.safetensors"), Map.of("w", f32(0, 2), "extra", f32(0, 1)));
        Path index = index("{\"w\": \"a.safetensors\"}");
        assertEquals(index + ": a.safetensors holds tensor 'extra', which the index does not list", refusal(index));
    }

    @Test
    void tensorInTheWrongShardIsRefused() throws IOException {
        SafetensorsFile.write(dir.resolve("a.safetensors"), Map.of("w", f32(0, 2)));
        SafetensorsFile.write(dir.resolve("b.safetensors"), Map.of("v", f32(0, 2)));
        Path index = index("{\"w\": \"b.safetensors\", \"v\": \"a.safetensors\"}");
        assertEquals(index + ": tensor 'v' is in b.safetensors, but the index maps it to a.safetensors", refusal(index));
    }

    @Test
    void tensorInTwoShardsIsRefused() throws IOException {
        SafetensorsFile.write(dir.resolve("a.safetensors"), Map.of("w", f32(0, 2)));
        SafetensorsFile.write(dir.resolve("b.safetensors"), Map.of("w", f32(5, 2), "v", f32(0, 1)));
        Path index = index("{\"w\": \"a.safetensors\", \"v\": \"b.safetensors\"}");
        assertEquals(index + ": tensor 'w' is in two shards, a.safetensors and b.safetensors; the index maps it to"
                + " a.safetensors", refusal(index));
    }

    @Test
    void shardNamesThatLeaveTheFolderAreRefused() throws IOException {
        Files.createDirectories(dir.resolve("sub"));
        SafetensorsFile.write(dir.resolve("x.safetensors"), Map.of("w", f32(0, 2)));
        Path inner = Files.writeString(dir.resolve("sub").resolve(SafetensorsFile.Checkpoint.INDEX_FILE),
                "{\"weight_map\": {\"w\": \"../x.safetensors\"}}");
        assertEquals(inner + ": shard file name '../x.safetensors' refused: a '..' in it leaves the index's folder;"
                + " shards are named relative to the index's folder, as model-00001-of-00002.safetensors", refusal(inner));
        for (String name : List.of("/etc/x.safetensors", "\\\\\\\\server\\\\x.safetensors", "C:\\\\x.safetensors")) {
            Path index = index("{\"w\": \"" + name + "\"}");
            assertTrue(refusal(index).contains("refused: it is an absolute path"), name);
        }
        assertTrue(refusal(index("{\"w\": \"a/../../x.safetensors\"}")).contains("a '..' in it leaves"));
        assertTrue(refusal(index("{\"w\": \"x.bin\"}")).contains("refused: a shard must be a .safetensors file"));
    }

    @Test
    void malformedIndexesAreRefusedNamingTheFile() throws IOException {
        Path index = dir.resolve(SafetensorsFile.Checkpoint.INDEX_FILE);
        Files.writeString(index, "{\"metadata\": {}}");
        assertEquals(index + ": a checkpoint index needs a \"weight_map\" object (tensor name to shard file), found none",
                refusal(index));
        Files.writeString(index, "{\"weight_map\": {}}");
        assertEquals(index + ": its \"weight_map\" is empty; a checkpoint index maps at least one tensor to its shard",
                refusal(index));
        Files.writeString(index, "{\"weight_map\": [\"a.safetensors\"]}");
        assertTrue(refusal(index).endsWith("found an array"));
        Files.writeString(index, "{\"weight_map\": {\"w\": 3}}");
        assertEquals(index + ": tensor 'w' maps to a number; each \"weight_map\" value must be a shard file name",
                refusal(index));
        Files.writeString(index, "{\"weight_map\": {\"w\": \"a.safetensors\", \"w\": \"b.safetensors\"}}");
        assertTrue(refusal(index).startsWith(index + ": not a checkpoint index: duplicate key \"w\""), refusal(index));
        Files.writeString(index, "[]");
        assertTrue(refusal(index).startsWith(index + ": not a checkpoint index: expected a JSON object"));
        try (RandomAccessFile f = new RandomAccessFile(index.toFile(), "rw")) {
            f.setLength(10L * 1024 * 1024 + 1);
        }
        assertEquals(index + ": an index of 10485761 bytes, more than the 10485760 a checkpoint index may have"
                + " (huggingface_hub's limit)", refusal(index));
    }

    @Test
    void namesOutsideAsciiAreEscapedAsPythonsJsonDumpEscapesThem() throws IOException {
        Map<String, DenseTensor> state = new LinkedHashMap<>();
        state.put("d\u00e9j\u00e0 \"vu\"\n", f32(0, 4));
        state.put("\uD83D\uDE00", f32(0, 4));
        Path index = SafetensorsFile.Checkpoint.write(dir, state, Map.of(), 16);
        String text = Files.readString(index);
        assertTrue(text.contains("\"d\\u00e9j\\u00e0 \\\"vu\\\"\\n\": \"model-00001-of-00002.safetensors\""), text);
        assertTrue(text.contains("\"\\ud83d\\ude00\": \"model-00002-of-00002.safetensors\""), text);
        try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(index)) {
            assertEquals(new ArrayList<>(state.keySet()), c.names());
        }
    }
}
