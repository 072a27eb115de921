package dev.tensorbuf.cli.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.GgmlType;
import dev.tensorbuf.interop.GgufFile;
import dev.tensorbuf.interop.GgufValue;
import dev.tensorbuf.interop.GgufWriter;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.ops.shard.ShardedTensor;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the snippets of docs/sharding.md and the GGUF and checkpoint snippets of docs/files.md. */
class DocsShardingSnippetTest {
    @TempDir
    Path dir;

    @Test
    void sharding() {
        // snippet:sharding
        HloSharding s = HloSharding.parse("{devices=[2,2]<=[2,2]T(1,0)}");
        s.toString();                                     // "{devices=[2,2]<=[2,2]T(1,0)}", as XLA prints it
        ShardedTensor a = ShardedTensor.of(DType.F32, List.of(5L, 4L), s);
        a.box(1).orElseThrow().toString();                // "[3:5, 0:2]": ceil(5 / 2) rows, the last tile short
        ShardedTensor b = ShardedTensor.of(DType.F32, List.of(5L, 4L), HloSharding.parse("{devices=[4,1]<=[4]}"));
        try (Allocator arena = Allocators.confined()) {
            TensorView global = TensorView.of(arena.allocate(5 * 4 * 4), "f32[5,4]");
            TensorElements.of(global).copyFrom(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19});
            Map<Long, TensorView> from = new TreeMap<>();
            Map<Long, TensorView> to = new TreeMap<>();
            for (long d = 0; d < 4; d++) {
                from.put(d, a.shardOf(global, d));                // a slice of the global view: no byte moves
                to.put(d, b.allocateShard(d, arena));             // a buffer of its own, one per device
            }
            ShardedTensor.reshard(a, from, b, to, CopyEngine.defaults()); // each overlap copied by the engine
            to.get(3L).dims();                                // [0, 4]: 5 rows in tiles of 2 leave device 3 none
            TensorElements.of(to.get(2L)).getFloat(0, 1);                        // 17.0: global[4, 1]
            assertEquals(17f, TensorElements.of(to.get(2L)).getFloat(0, 1));
            assertEquals(List.of(0L, 4L), to.get(3L).dims());
        }
        // end-snippet:sharding
        assertEquals("{devices=[2,2]<=[2,2]T(1,0)}", s.toString());
        assertEquals("[3:5, 0:2]", a.box(1).orElseThrow().toString());
    }

    @Test
    void checkpointAndGguf() throws Exception {
        // snippet:checkpoint
        try (Allocator arena = Allocators.confined()) {
            TensorView w = TensorView.of(arena.allocate(64 * 4), "f32[2,32]");
            TensorElements.of(w).copyFrom(new float[64]);
            TensorElements.of(w).setDouble(0.5, 1, 3);
            Path index = SafetensorsFile.Checkpoint.write(dir, Map.of("a", DenseTensor.of(w), "b", DenseTensor.of(w)),
                    Map.of("format", "pt"), 300);             // at most 300 bytes a shard: two shards and an index
            try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(index)) {
                c.isSharded();                                // true: model.safetensors.index.json
                TensorElements.of(c.tensor("b").view()).getFloat(1, 3);          // 0.5
                assertTrue(c.isSharded());
                assertEquals(0.5f, TensorElements.of(c.tensor("b").view()).getFloat(1, 3));
            }
            MemoryBuffer q = arena.allocate(BlockType.Q8_0.byteSize(64));
            BlockTensor.of(q, BlockType.Q8_0, 2, 32).quantize(w);   // two Q8_0 blocks of 32 values, 68 bytes
            GgufWriter.write(dir.resolve("w.gguf"), Map.of("general.name", GgufValue.string("w")),
                    List.of(GgufWriter.tensor("w", GgmlType.Q8_0, List.of(2L, 32L), q.segment())));
            try (GgufFile f = GgufFile.open(dir.resolve("w.gguf"))) {
                TensorView out = TensorView.of(arena.allocate(64 * 2), "bf16[2,32]{0,1}"); // any layout the engine writes
                f.tensor("w").blocks().dequantize(out);
                TensorElements.of(out).getFloat(1, 3);                           // 0.5: 127 * scale, 0.49997 in f32, rounded to bf16
                assertEquals(0.5f, TensorElements.of(out).getFloat(1, 3));
            }
        }
        // end-snippet:checkpoint
        assertTrue(Files.exists(dir.resolve("model-00002-of-00002.safetensors")));
    }
}
