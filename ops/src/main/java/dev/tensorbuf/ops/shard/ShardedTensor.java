package dev.tensorbuf.ops.shard;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.shard.HloSharding.SubgroupType;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A global tensor shape split across devices by an {@link HloSharding}: which box of the global
 * index space each device holds, by XLA's rule ({@code HloSharding::TileOffsetForDevice} and
 * {@code TileLimitForDevice}): along a dimension of size {@code n} cut into {@code t} tiles,
 * tile {@code k} is {@code [min(k*c, n), min((k+1)*c, n))} with {@code c = ceil(n/t)}, so the
 * last tiles are smaller or empty. Devices of one replication group hold the same box; a
 * {@code maximal} sharding's device holds everything and the others nothing; a replicated
 * one's devices each hold everything.
 *
 * {@snippet :
 * ShardedTensor t = ShardedTensor.of(DType.F32, List.of(5L, 4L), HloSharding.parse("{devices=[2,2]<=[4]}"));
 * t.box(0);   // Optional[[0:3, 0:2]]
 * t.box(3);   // Optional[[3:5, 2:4]]
 * TensorView shard = t.shardOf(global, 1); // global[0:3, 2:4], a view: no bytes move
 * // Move device shards from one sharding to another, each overlap copied by the engine:
 * ShardedTensor.reshard(t, srcShards, t2, dstShards, CopyEngine.defaults());
 * }
 *
 * <p>Shardings that say nothing about where global elements are ({@code manual},
 * {@code unknown}, {@code unreduced}, tuples, and tiles with manual or unreduced subgroups) are
 * refused. A tiled sharding's devices must be {@code 0..n-1} for its {@code n} tiles, as XLA's
 * {@code HloSharding::Validate} asks.
 *
 * @param dtype the element type
 * @param dims the global dims
 * @param sharding how the tensor is split
 * @param deviceCount the devices of the program, {@code 0..deviceCount-1}
 */
public record ShardedTensor(DType dtype, List<Long> dims, HloSharding sharding, int deviceCount) {
    /** @throws IllegalArgumentException if the sharding cannot place this shape's elements on these devices */
    public ShardedTensor {
        if (dtype == null || sharding == null) {
            throw new IllegalArgumentException("dtype and sharding must not be null");
        }
        dims = List.copyOf(dims);
        for (long d : dims) {
            if (d < 0) {
                throw new IllegalArgumentException("dims " + dims + " have a negative size");
            }
        }
        if (deviceCount < 1) {
            throw new IllegalArgumentException("device count " + deviceCount + " must be >= 1");
        }
        switch (sharding) {
            case HloSharding.Replicated r -> { }
            case HloSharding.Maximal m -> {
                if (m.device() >= deviceCount) {
                    throw new IllegalArgumentException(sharding + " names device " + m.device() + " of " + deviceCount
                            + " devices");
                }
            }
            case HloSharding.Tiled t -> checkTiled(t, dims, deviceCount);
            case HloSharding.Manual m -> throw unplaced(sharding, "its devices hold data the program partitioned itself");
            case HloSharding.Unknown u -> throw unplaced(sharding, "it is not decided yet");
            case HloSharding.Unreduced u -> throw unplaced(sharding, "its devices hold partial values, not parts");
            case HloSharding.Tuple t -> throw unplaced(sharding, "it is a tuple's; give one leaf's sharding");
        }
    }

    private static IllegalArgumentException unplaced(HloSharding s, String why) {
        return new IllegalArgumentException("sharding " + s + " does not place a global tensor's elements on devices: " + why);
    }

    private static void checkTiled(HloSharding.Tiled t, List<Long> dims, int deviceCount) {
        for (SubgroupType type : t.lastTileDims()) {
            if (type != SubgroupType.REPLICATED) {
                throw unplaced(t, "its " + type.xlaName() + " subgroup's devices do not hold parts of the global tensor");
            }
        }
        if (t.dataRank() != dims.size()) {
            throw new IllegalArgumentException("sharding " + t + " tiles " + t.dataRank() + " dimension"
                    + (t.dataRank() == 1 ? "" : "s") + " but the shape " + dims + " has " + dims.size());
        }
        long tiles = t.tiles().deviceCount();
        if (tiles != deviceCount) {
            throw new IllegalArgumentException("sharding " + t + " has " + tiles + " tiles for " + deviceCount
                    + " devices; each device holds one tile");
        }
        for (long d : t.tiles().devices()) {
            if (d >= deviceCount) {
                throw new IllegalArgumentException("sharding " + t + " names device " + d + " of " + deviceCount + " devices");
            }
        }
    }

    /**
     * {@return the sharded shape on the devices the sharding names}: a tiled sharding's tile
     * count, a maximal one's device plus one
     *
     * @param dtype the element type
     * @param dims the global dims
     * @param sharding the sharding, not replicated (which names no devices)
     * @throws IllegalArgumentException for a replicated sharding, or as the constructor
     */
    public static ShardedTensor of(DType dtype, List<Long> dims, HloSharding sharding) {
        long count = switch (sharding) {
            case HloSharding.Tiled t -> t.tiles().deviceCount();
            case HloSharding.Maximal m -> m.device() + 1;
            case HloSharding.Replicated r -> throw new IllegalArgumentException(
                    "a replicated sharding names no devices: give the device count");
            default -> 1;
        };
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("sharding " + sharding + " needs " + count + " devices");
        }
        return new ShardedTensor(dtype, dims, sharding, (int) count);
    }

    /** {@return the global shape, row-major} */
    public ArrayShape globalShape() {
        return ArrayShape.of(dtype, dims.stream().mapToLong(Long::longValue).toArray());
    }

    /**
     * One device's part: its box of the global index space.
     *
     * @param device the device
     * @param box the global indices it holds (possibly empty: a last tile past the end)
     */
    public record Shard(long device, IndexBox box) {
    }

    /** {@return the shard of every device that holds one, by device} */
    public List<Shard> shards() {
        List<Shard> out = new ArrayList<>();
        switch (sharding) {
            case HloSharding.Replicated r -> {
                for (int d = 0; d < deviceCount; d++) {
                    out.add(new Shard(d, IndexBox.whole(dims)));
                }
            }
            case HloSharding.Maximal m -> out.add(new Shard(m.device(), IndexBox.whole(dims)));
            case HloSharding.Tiled t -> {
                List<Long> grid = t.tiles().dims();
                List<Long> devices = t.tiles().devices();
                long[] index = new long[grid.size()];
                for (long device : devices) {
                    List<Long> start = new ArrayList<>();
                    List<Long> limit = new ArrayList<>();
                    for (int i = 0; i < dims.size(); i++) {
                        long n = dims.get(i);
                        long c = ceilDiv(n, grid.get(i));
                        start.add(Math.min(index[i] * c, n));
                        limit.add(Math.min((index[i] + 1) * c, n));
                    }
                    out.add(new Shard(device, new IndexBox(start, limit)));
                    for (int i = grid.size() - 1; i >= 0; i--) {
                        if (++index[i] < grid.get(i)) {
                            break;
                        }
                        index[i] = 0;
                    }
                }
                out.sort((a, b) -> Long.compare(a.device(), b.device()));
            }
            default -> throw new AssertionError(sharding);
        }
        return out;
    }

    private static long ceilDiv(long n, long t) {
        return n == 0 ? 0 : (n - 1) / t + 1;
    }

    /** {@return the box device {@code device} holds, empty if it holds none} @param device a device */
    public Optional<IndexBox> box(long device) {
        if (device < 0 || device >= deviceCount) {
            throw new IndexOutOfBoundsException("device " + device + " out of bounds [0, " + deviceCount + ")");
        }
        for (Shard s : shards()) {
            if (s.device() == device) {
                return Optional.of(s.box());
            }
        }
        return Optional.empty();
    }

    private IndexBox requireBox(long device) {
        return box(device).orElseThrow(() -> new IllegalArgumentException("device " + device
                + " holds no part of a tensor sharded " + sharding));
    }

    /**
     * {@return device {@code device}'s shard as a view of {@code global}}: a slice, no bytes move
     *
     * @param global the whole tensor, of this shape's dtype and dims
     * @param device a device holding a shard
     */
    public TensorView shardOf(TensorView global, long device) {
        checkGlobal(global);
        return slice(global, requireBox(device));
    }

    /**
     * {@return a new row-major buffer for device {@code device}'s shard}, zeroed
     *
     * @param device a device holding a shard
     * @param allocator where the bytes come from
     */
    public TensorView allocateShard(long device, Allocator allocator) {
        IndexBox box = requireBox(device);
        ArrayShape shape = ArrayShape.of(dtype, box.sizes().stream().mapToLong(Long::longValue).toArray());
        var buffer = allocator.allocate(Math.max(1, shape.arraySize()));
        buffer.segment().fill((byte) 0);
        return TensorView.of(buffer, shape);
    }

    /**
     * Copies each device's shard out of {@code global} into its buffer in {@code shards}.
     *
     * @param global the whole tensor
     * @param shards one view per device that holds a shard, of that shard's dims
     * @param engine the copy engine
     */
    public void scatter(TensorView global, Map<Long, TensorView> shards, CopyEngine engine) {
        checkGlobal(global);
        for (Shard s : shards()) {
            TensorView dst = shardView(shards, s, "destination");
            if (!s.box().isEmpty()) {
                engine.copy(slice(global, s.box()), dst);
            }
        }
    }

    /**
     * Copies the shards back into {@code global}, each box once (from the lowest device of a
     * replication group).
     *
     * @param shards one view per device that holds a shard
     * @param global the whole tensor, written
     * @param engine the copy engine
     */
    public void gather(Map<Long, TensorView> shards, TensorView global, CopyEngine engine) {
        checkGlobal(global);
        for (Map.Entry<IndexBox, List<Long>> e : holders().entrySet()) {
            if (!e.getKey().isEmpty()) {
                long device = e.getValue().getFirst();
                engine.copy(shardView(shards, new Shard(device, e.getKey()), "source"), slice(global, e.getKey()));
            }
        }
    }

    /** Each distinct box and the devices holding it, ascending. */
    private Map<IndexBox, List<Long>> holders() {
        Map<IndexBox, List<Long>> out = new LinkedHashMap<>();
        for (Shard s : shards()) {
            out.computeIfAbsent(s.box(), b -> new ArrayList<>()).add(s.device());
        }
        return out;
    }

    /**
     * One copy of a reshard: the elements of {@code box} (global indices) go from
     * {@code fromDevice}'s shard to {@code toDevice}'s.
     *
     * @param fromDevice the source device
     * @param toDevice the destination device
     * @param box the global indices moved
     */
    public record Transfer(long fromDevice, long toDevice, IndexBox box) {
    }

    /**
     * {@return the copies that turn shards of {@code from} into shards of {@code to}}: for each
     * destination shard, its overlap with each distinct source box, taken from the destination
     * device itself when it holds that box, else from the lowest device holding it
     *
     * @param from the source sharding of the tensor
     * @param to the destination sharding of the same dtype and dims
     */
    public static List<Transfer> transfers(ShardedTensor from, ShardedTensor to) {
        if (from.dtype != to.dtype || !from.dims.equals(to.dims)) {
            throw new IllegalArgumentException("reshard from " + from.dtype + from.dims + " to " + to.dtype + to.dims
                    + ": dtype and dims must match");
        }
        Map<IndexBox, List<Long>> sources = from.holders();
        List<Transfer> out = new ArrayList<>();
        for (Shard d : to.shards()) {
            for (Map.Entry<IndexBox, List<Long>> e : sources.entrySet()) {
                Optional<IndexBox> overlap = e.getKey().intersect(d.box());
                if (overlap.isPresent()) {
                    long src = e.getValue().contains(d.device()) ? d.device() : e.getValue().getFirst();
                    out.add(new Transfer(src, d.device(), overlap.get()));
                }
            }
        }
        return out;
    }

    /**
     * Moves a tensor's shards from one sharding to another: each {@link #transfers transfer}
     * copies a slice of a source shard into a slice of a destination shard with the engine.
     * Source and destination buffers must not overlap.
     *
     * {@snippet :
     * ShardedTensor a = ShardedTensor.of(DType.F32, List.of(8L, 8L), HloSharding.parse("{devices=[2,2]<=[4]}"));
     * ShardedTensor b = ShardedTensor.of(DType.F32, List.of(8L, 8L), HloSharding.parse("{devices=[4,1]<=[4]}"));
     * ShardedTensor.reshard(a, aShards, b, bShards, CopyEngine.defaults());
     * // bShards.get(1L) now holds global[2:4, 0:8]
     * }
     *
     * @param from the source sharding
     * @param src one view per source device holding a shard, of that shard's dims
     * @param to the destination sharding
     * @param dst one view per destination device holding a shard, written
     * @param engine the copy engine
     */
    public static void reshard(ShardedTensor from, Map<Long, TensorView> src, ShardedTensor to,
                               Map<Long, TensorView> dst, CopyEngine engine) {
        Map<Long, IndexBox> fromBoxes = new TreeMap<>();
        for (Shard s : from.shards()) {
            fromBoxes.put(s.device(), s.box());
            from.shardView(src, s, "source");
        }
        Map<Long, IndexBox> toBoxes = new TreeMap<>();
        for (Shard s : to.shards()) {
            toBoxes.put(s.device(), s.box());
            to.shardView(dst, s, "destination");
        }
        for (Transfer t : transfers(from, to)) {
            TensorView s = slice(src.get(t.fromDevice()), t.box().relativeTo(fromBoxes.get(t.fromDevice())));
            TensorView d = slice(dst.get(t.toDevice()), t.box().relativeTo(toBoxes.get(t.toDevice())));
            engine.copy(s, d);
        }
    }

    private TensorView shardView(Map<Long, TensorView> shards, Shard s, String side) {
        TensorView v = shards.get(s.device());
        if (v == null) {
            throw new IllegalArgumentException("no " + side + " view for device " + s.device() + ", which holds "
                    + s.box() + " of " + sharding + "; views are given for devices " + new TreeMap<>(shards).keySet());
        }
        if (v.dtype() != dtype || !v.dims().equals(s.box().sizes())) {
            throw new IllegalArgumentException(side + " view of device " + s.device() + " is " + v.dtype() + v.dims()
                    + ", its shard " + s.box() + " is " + dtype + s.box().sizes());
        }
        return v;
    }

    private void checkGlobal(TensorView global) {
        if (global.dtype() != dtype || !global.dims().equals(dims)) {
            throw new IllegalArgumentException("global view is " + global.dtype() + global.dims() + ", the sharded tensor is "
                    + dtype + dims);
        }
    }

    private static TensorView slice(TensorView v, IndexBox box) {
        long[] start = box.start().stream().mapToLong(Long::longValue).toArray();
        long[] limit = box.limit().stream().mapToLong(Long::longValue).toArray();
        long[] stride = new long[start.length];
        Arrays.fill(stride, 1);
        return start.length == 0 ? v : Ops.slice(v, start, limit, stride);
    }

}
