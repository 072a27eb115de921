package dev.tensorbuf.ops.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.peers.PeerScripts;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resharded shards against NumPy: for random shapes and pairs of shardings, every destination
 * shard after {@link ShardedTensor#reshard} holds NumPy's {@code g[start:stop, ...]} of the global
 * array, byte for byte ({@code numpy_shard_slices.py}). Skipped, saying why, without NumPy.
 */
class ShardedTensorNumpyTest {
    @TempDir
    Path dir;

    @Test
    void reshardedShardsAreNumpySlices() throws Exception {
        String problem = PeerScripts.importProblem("numpy", "pip install numpy");
        assumeTrue(problem == null, problem + ": skipping the NumPy comparison");
        Random r = new Random(4042);
        CopyEngine engine = CopyEngine.defaults();
        List<String> cases = new ArrayList<>();
        List<Map<Long, TensorView>> results = new ArrayList<>();
        try (Allocator arena = Allocators.shared()) {
            for (int k = 0; k < 60; k++) {
                int rank = 1 + r.nextInt(3);
                List<Long> dims = new ArrayList<>();
                long n = 1;
                for (int i = 0; i < rank; i++) {
                    dims.add(1L + r.nextInt(9));
                    n *= dims.getLast();
                }
                HloSharding sa = HloSharding.parse(RandomShardings.text(rank, r));
                HloSharding sb = HloSharding.parse(RandomShardings.text(rank, r));
                ShardedTensor a = new ShardedTensor(DType.S32, dims, sa, count(sa, 4));
                ShardedTensor b = new ShardedTensor(DType.S32, dims, sb, count(sb, 3));
                TensorView global = TensorView.of(arena.allocate(4 * n), "s32" + dims.toString().replace(" ", ""));
                long[] values = new long[(int) n];
                for (int i = 0; i < n; i++) {
                    values[i] = i * 7L + 3;
                }
                TensorElements.of(global).copyFrom(values);
                Map<Long, TensorView> aShards = new HashMap<>();
                a.shards().forEach(s -> aShards.put(s.device(), a.allocateShard(s.device(), arena)));
                a.scatter(global, aShards, engine);
                Map<Long, TensorView> bShards = new HashMap<>();
                b.shards().forEach(s -> bShards.put(s.device(), b.allocateShard(s.device(), arena)));
                ShardedTensor.reshard(a, aShards, b, bShards, engine);
                StringJoiner boxes = new StringJoiner(" ");
                for (ShardedTensor.Shard s : b.shards()) {
                    StringJoiner ranges = new StringJoiner("/");
                    for (int i = 0; i < rank; i++) {
                        ranges.add(s.box().start().get(i) + "-" + s.box().limit().get(i));
                    }
                    boxes.add(s.device() + ":" + ranges);
                }
                cases.add(dims.toString().replaceAll("[\\[\\] ]", "") + "\t" + boxes);
                results.add(bShards);
            }
            Files.writeString(dir.resolve("cases.txt"), String.join("\n", cases) + "\n", StandardCharsets.UTF_8);
            PeerScripts.run(dir, "numpy_shard_slices.py");
            for (int k = 0; k < cases.size(); k++) {
                for (Map.Entry<Long, TensorView> e : results.get(k).entrySet()) {
                    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("case" + k + "_dev" + e.getKey() + ".bin")))
                            .order(ByteOrder.LITTLE_ENDIAN);
                    long[] expected = new long[bytes.remaining() / 4];
                    for (int i = 0; i < expected.length; i++) {
                        expected[i] = bytes.getInt();
                    }
                    assertArrayEquals(expected, TensorElements.of(e.getValue()).toLongArray(), "case " + cases.get(k) + " device " + e.getKey());
                }
            }
        }
    }

    private static int count(HloSharding s, int fallback) {
        return switch (s) {
            case HloSharding.Tiled t -> (int) t.tiles().deviceCount();
            case HloSharding.Maximal m -> (int) m.device() + 1;
            default -> fallback;
        };
    }
}
