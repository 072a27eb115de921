package dev.tensorbuf.ops.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Device boxes by XLA's rule, shards as views and buffers, and resharding checked element by element. */
class ShardedTensorTest {
    private static final CopyEngine ENGINE = CopyEngine.defaults();
    @ArenaPerTest
    private Allocator arena;

    private static IndexBox box(long s0, long s1, long l0, long l1) {
        return IndexBox.of(List.of(s0, s1), List.of(l0, l1));
    }

    /** hlo_sharding_test.cc PassesValidationAndMatchesTileInfo: u32[4,5], {devices=[2,2]0,3,2,1}. */
    @Test
    void boxesAsXlaTileOffsetAndLimit() {
        ShardedTensor t = ShardedTensor.of(DType.U32, List.of(4L, 5L), HloSharding.parse("{devices=[2,2]0,3,2,1}"));
        assertEquals(box(0, 0, 2, 3), t.box(0).orElseThrow());
        assertEquals(box(0, 3, 2, 5), t.box(3).orElseThrow());
        assertEquals(box(2, 0, 4, 3), t.box(2).orElseThrow());
        assertEquals(box(2, 3, 4, 5), t.box(1).orElseThrow());
    }

    /** hlo_sharding_test.cc EachTile: 6 tiles of 11 rows are 2 rows each, the last one row; 2x3 replicated groups. */
    @Test
    void unevenTilesAndReplicasAsXlaEachTile() {
        ShardedTensor t = ShardedTensor.of(DType.U32, List.of(11L, 20L), HloSharding.parse("{devices=[6,1]<=[6]}"));
        assertEquals(box(0, 0, 2, 20), t.box(0).orElseThrow());
        assertEquals(box(8, 0, 10, 20), t.box(4).orElseThrow());
        assertEquals(box(10, 0, 11, 20), t.box(5).orElseThrow());
        ShardedTensor p = ShardedTensor.of(DType.U32, List.of(10L, 20L),
                HloSharding.parse("{devices=[2,1,3]<=[6] last_tile_dim_replicate}"));
        for (long d = 0; d < 6; d++) {
            assertEquals(d < 3 ? box(0, 0, 5, 20) : box(5, 0, 10, 20), p.box(d).orElseThrow(), "device " + d);
        }
        // 4 tiles of 5: ceil(5/4) = 2, so [0:2] [2:4] [4:5] and an empty [5:5].
        ShardedTensor e = ShardedTensor.of(DType.F32, List.of(5L), HloSharding.parse("{devices=[4]<=[4]}"));
        assertEquals(IndexBox.of(List.of(5L), List.of(5L)), e.box(3).orElseThrow());
        assertTrue(e.box(3).orElseThrow().isEmpty());
    }

    @Test
    void maximalAndReplicated() {
        ShardedTensor m = new ShardedTensor(DType.F32, List.of(3L), HloSharding.maximal(2), 4);
        assertEquals(List.of(new ShardedTensor.Shard(2, IndexBox.whole(List.of(3L)))), m.shards());
        assertTrue(m.box(0).isEmpty());
        ShardedTensor r = new ShardedTensor(DType.F32, List.of(3L), HloSharding.replicated(), 3);
        assertEquals(3, r.shards().size());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShardedTensor.of(DType.F32, List.of(3L), HloSharding.replicated()));
        assertTrue(e.getMessage().contains("give the device count"), e.getMessage());
    }

    @Test
    void refusals() {
        assertRefused("{manual}", List.of(4L), "partitioned itself");
        assertRefused("{devices=[2,2]<=[4] last_tile_dims={manual}}", List.of(4L), "manual subgroup");
        assertRefused("{devices=[2,2]<=[4]}", List.of(4L), "tiles 2 dimensions but the shape [4] has 1");
        assertRefused("{{replicated}}", List.of(4L), "tuple");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ShardedTensor(DType.F32, List.of(4L), HloSharding.parse("{devices=[2]0,5}"), 2));
        assertTrue(e.getMessage().contains("names device 5 of 2 devices"), e.getMessage());
    }

    private static void assertRefused(String sharding, List<Long> dims, String words) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShardedTensor.of(DType.F32, dims, HloSharding.parse(sharding)));
        assertTrue(e.getMessage().contains(words), e.getMessage());
    }

    private TensorView iotaGlobal(List<Long> dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        TensorView g = TensorView.of(arena.allocate(Math.max(4, 4 * n)), "s32" + dims.toString().replace(" ", ""));
        long[] values = new long[(int) n];
        for (int i = 0; i < n; i++) {
            values[i] = i * 7 + 3;
        }
        TensorElements.of(g).copyFrom(values);
        return g;
    }

    private static long globalValue(List<Long> dims, long[] index) {
        long linear = 0;
        for (int i = 0; i < index.length; i++) {
            linear = linear * dims.get(i) + index[i];
        }
        return linear * 7 + 3;
    }

    /** Every element of {@code local} is the global element at {@code box.start + index}, as NumPy's {@code g[box]}. */
    private static void assertHolds(List<Long> dims, IndexBox box, TensorView local, String what) {
        List<Long> sizes = box.sizes();
        assertEquals(sizes, local.dims(), what);
        long count = box.elementCount();
        long[] idx = new long[sizes.size()];
        long[] global = new long[sizes.size()];
        for (long k = 0; k < count; k++) {
            for (int i = 0; i < idx.length; i++) {
                global[i] = box.start().get(i) + idx[i];
            }
            assertEquals(globalValue(dims, global), TensorElements.of(local).getLong(idx), what + " at " + java.util.Arrays.toString(idx));
            for (int i = idx.length - 1; i >= 0; i--) {
                if (++idx[i] < sizes.get(i)) {
                    break;
                }
                idx[i] = 0;
            }
        }
    }

    private static int deviceCountFor(HloSharding s, Random r) {
        return switch (s) {
            case HloSharding.Tiled t -> (int) t.tiles().deviceCount();
            case HloSharding.Maximal m -> (int) m.device() + 1 + r.nextInt(3);
            default -> 1 + r.nextInt(4);
        };
    }

    /**
     * Random shapes and shardings (uneven tiles, empty last tiles, replication, listed, iota and
     * transposed iota devices): the boxes of distinct tiles cover every element exactly once;
     * scattering the global tensor into shard buffers, resharding them into another random
     * sharding and gathering back give NumPy's slices and the original, element by element.
     */
    @Test
    void reshardPutsEveryElementWhereSlicingSays() {
        Random r = new Random(4040);
        for (int trial = 0; trial < 300; trial++) {
            int rank = r.nextInt(4);
            List<Long> dims = new ArrayList<>();
            for (int i = 0; i < rank; i++) {
                dims.add((long) r.nextInt(8));
            }
            HloSharding sa = HloSharding.parse(RandomShardings.text(rank, r));
            HloSharding sb = HloSharding.parse(RandomShardings.text(rank, r));
            ShardedTensor a = new ShardedTensor(DType.S32, dims, sa, deviceCountFor(sa, r));
            ShardedTensor b = new ShardedTensor(DType.S32, dims, sb, deviceCountFor(sb, r));
            String what = "trial " + trial + ": " + dims + " " + sa + " -> " + sb;
            assertCoverage(a, what);
            TensorView global = iotaGlobal(dims);
            Map<Long, TensorView> aShards = new HashMap<>();
            for (ShardedTensor.Shard s : a.shards()) {
                aShards.put(s.device(), a.allocateShard(s.device(), arena));
                assertHolds(dims, s.box(), a.shardOf(global, s.device()), what + " view of device " + s.device());
            }
            a.scatter(global, aShards, ENGINE);
            for (ShardedTensor.Shard s : a.shards()) {
                assertHolds(dims, s.box(), aShards.get(s.device()), what + " scattered to device " + s.device());
            }
            Map<Long, TensorView> bShards = new HashMap<>();
            for (ShardedTensor.Shard s : b.shards()) {
                bShards.put(s.device(), b.allocateShard(s.device(), arena));
            }
            ShardedTensor.reshard(a, aShards, b, bShards, ENGINE);
            for (ShardedTensor.Shard s : b.shards()) {
                assertHolds(dims, s.box(), bShards.get(s.device()), what + " resharded to device " + s.device());
            }
            TensorView back = TensorView.of(arena.allocate(Math.max(4, 4 * IndexBox.whole(dims).elementCount())),
                    "s32" + dims.toString().replace(" ", ""));
            b.gather(bShards, back, ENGINE);
            assertHolds(dims, IndexBox.whole(dims), back, what + " gathered");
        }
    }

    /** Each element is in exactly as many shards as there are replicas of it, counted index by index. */
    private static void assertCoverage(ShardedTensor t, String what) {
        long replicas = switch (t.sharding()) {
            case HloSharding.Tiled tiled -> tiled.replicateOnLastTileDim() ? tiled.tiles().dims().getLast() : 1;
            case HloSharding.Replicated rep -> t.deviceCount();
            default -> 1;
        };
        IndexBox whole = IndexBox.whole(t.dims());
        long count = whole.elementCount();
        long[] idx = new long[t.dims().size()];
        for (long k = 0; k < count; k++) {
            int holders = 0;
            for (ShardedTensor.Shard s : t.shards()) {
                boolean in = true;
                for (int i = 0; i < idx.length; i++) {
                    in &= idx[i] >= s.box().start().get(i) && idx[i] < s.box().limit().get(i);
                }
                holders += in ? 1 : 0;
            }
            assertEquals(replicas, holders, what + " element " + java.util.Arrays.toString(idx));
            for (int i = idx.length - 1; i >= 0; i--) {
                if (++idx[i] < t.dims().get(i)) {
                    break;
                }
                idx[i] = 0;
            }
        }
    }

    /** The example: {devices=[2,2]<=[4]} into {devices=[4,1]<=[4]}, with the transfers it takes. */
    @Test
    void twoByTwoIntoFourRows() {
        List<Long> dims = List.of(8L, 6L);
        ShardedTensor a = ShardedTensor.of(DType.S32, dims, HloSharding.parse("{devices=[2,2]<=[4]}"));
        ShardedTensor b = ShardedTensor.of(DType.S32, dims, HloSharding.parse("{devices=[4,1]<=[4]}"));
        List<ShardedTensor.Transfer> transfers = ShardedTensor.transfers(a, b);
        assertEquals(List.of(
                new ShardedTensor.Transfer(0, 0, box(0, 0, 2, 3)), new ShardedTensor.Transfer(1, 0, box(0, 3, 2, 6)),
                new ShardedTensor.Transfer(0, 1, box(2, 0, 4, 3)), new ShardedTensor.Transfer(1, 1, box(2, 3, 4, 6)),
                new ShardedTensor.Transfer(2, 2, box(4, 0, 6, 3)), new ShardedTensor.Transfer(3, 2, box(4, 3, 6, 6)),
                new ShardedTensor.Transfer(2, 3, box(6, 0, 8, 3)), new ShardedTensor.Transfer(3, 3, box(6, 3, 8, 6))),
                transfers);
    }
}
