package dev.tensorbuf.ops.shard.internal;

import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.ops.shard.HloSharding.ShardGroup;
import dev.tensorbuf.ops.shard.HloSharding.SubgroupType;
import dev.tensorbuf.ops.shard.HloSharding.TileAssignment;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaShape.BufferShape;
import dev.tensorbuf.views.XlaShape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * XLA's normal forms of partially replicated and subgrouped shardings ({@code PartialTile} and
 * {@code Subgroup} of {@code hlo_sharding.cc}), which its parser builds and so its printer shows.
 *
 * <p>Not API.
 */
public final class Normalize {
    private Normalize() {
    }

    public static void requireGroup(ShardGroup group) {
        if (group == null) {
            throw new IllegalArgumentException("shard group is null (ShardGroup.NONE for none)");
        }
    }

    public static void checkShape(HloSharding sharding, XlaShape shape) {
        if (shape instanceof XlaShape.Tuple tuple) {
            List<XlaShape> leaves = new ArrayList<>();
            leaves(tuple, leaves);
            if (sharding instanceof HloSharding.Tuple t) {
                int want = Math.max(1, leaves.size());
                if (t.elements().size() != want) {
                    throw new IllegalArgumentException("tuple sharding " + sharding + " has " + t.elements().size()
                            + " element" + (t.elements().size() == 1 ? "" : "s") + " but " + shape + " has " + want
                            + (leaves.isEmpty() ? " (an empty tuple takes one)" : " leaves"));
                }
                for (int i = 0; i < leaves.size(); i++) {
                    checkShape(t.elements().get(i), leaves.get(i));
                }
            } else {
                for (XlaShape leaf : leaves) {
                    checkShape(sharding, leaf);
                }
            }
            return;
        }
        switch (sharding) {
            case HloSharding.Tuple t -> throw new IllegalArgumentException("tuple sharding " + sharding
                    + " for " + shape + ", which is no tuple");
            case HloSharding.Tiled t -> {
                int rank = shape instanceof ArrayShape a ? a.rank()
                        : shape instanceof BufferShape b ? b.array().rank() : -1;
                if (rank < 0) {
                    throw new IllegalArgumentException("sharding " + sharding + " tiles " + shape + ", which is no array");
                }
                if (t.dataRank() != rank) {
                    throw new IllegalArgumentException("sharding " + sharding + " tiles " + t.dataRank() + " dimension"
                            + (t.dataRank() == 1 ? "" : "s") + " but " + shape + " has " + rank);
                }
            }
            default -> { }
        }
    }

    private static void leaves(XlaShape.Tuple tuple, List<XlaShape> out) {
        for (XlaShape e : tuple.elements()) {
            if (e instanceof XlaShape.Tuple t) {
                leaves(t, out);
            } else {
                out.add(e);
            }
        }
    }

    public static HloSharding partialTile(TileAssignment tiles) {
        List<Long> dims = tiles.dims();
        long count = tiles.deviceCount();
        long group = dims.getLast();
        if (dims.size() == 1 || group == count) {
            return HloSharding.replicated();
        }
        if (group == 1) {
            return HloSharding.tile(tiles.reshape(dims.subList(0, dims.size() - 1)));
        }
        if (tiles instanceof TileAssignment.Iota iota) {
            // An iota's minor-most ids already ascend within each group when the group is its last dimension.
            if (iota.reshapeDims().get(iota.perm().getLast()) == group) {
                return new HloSharding.Tiled(tiles, true, List.of(), ShardGroup.NONE);
            }
            Optional<TileAssignment.Iota> sorted = IotaForms.groupMinorSorted(iota, group);
            if (sorted.isPresent()) {
                return new HloSharding.Tiled(sorted.get(), true, List.of(), ShardGroup.NONE);
            }
        }
        Long[] devices = tiles.devices().toArray(new Long[0]);
        for (int start = 0; start < devices.length; start += (int) group) {
            Arrays.sort(devices, start, start + (int) group);
        }
        return new HloSharding.Tiled(TileAssignment.listed(dims, List.of(devices)), true, List.of(), ShardGroup.NONE);
    }

    public static HloSharding subgroup(TileAssignment tiles, List<SubgroupType> types) {
        if (types.isEmpty()) {
            return HloSharding.tile(tiles);
        }
        List<Long> dims = tiles.dims();
        int dataDims = dims.size() - types.size();
        if (dataDims < 0) {
            throw new IllegalArgumentException(types.size() + " subgroup types but the grid " + dims + " has only "
                    + dims.size() + " dimensions");
        }
        long dataTiles = 1;
        for (int i = 0; i < dataDims; i++) {
            dataTiles *= dims.get(i);
        }
        if (dataTiles == 1 && types.stream().allMatch(t -> t == types.getFirst())) {
            switch (types.getFirst()) {
                case MANUAL -> {
                    return HloSharding.manual();
                }
                case REPLICATED -> {
                    return HloSharding.replicated();
                }
                case UNREDUCED -> {
                    return new HloSharding.Unreduced(ShardGroup.NONE);
                }
                case MAXIMAL -> { }
            }
        }
        List<Integer> perm = new ArrayList<>();
        for (int i = 0; i < dataDims; i++) {
            perm.add(i);
        }
        Map<SubgroupType, List<Integer>> byType = new EnumMap<>(SubgroupType.class);
        List<Integer> removed = new ArrayList<>();
        boolean merge = false;
        for (int i = 0; i < types.size(); i++) {
            int d = i + dataDims;
            if (dims.get(d) == 1) {
                removed.add(d);
                merge = true;
                continue;
            }
            List<Integer> of = byType.computeIfAbsent(types.get(i), t -> new ArrayList<>());
            merge |= !of.isEmpty();
            of.add(d);
        }
        merge |= byType.size() > 1;
        if (!merge) {
            return create(tiles, types);
        }
        List<Long> merged = new ArrayList<>(dims.subList(0, dataDims));
        List<Long> transposed = new ArrayList<>(merged);
        List<SubgroupType> mergedTypes = new ArrayList<>();
        for (Map.Entry<SubgroupType, List<Integer>> e : byType.entrySet()) {
            long size = 1;
            for (int d : e.getValue()) {
                perm.add(d);
                size *= dims.get(d);
                transposed.add(dims.get(d));
            }
            merged.add(size);
            mergedTypes.add(e.getKey());
        }
        TileAssignment result = null;
        if (tiles instanceof TileAssignment.Iota iota) {
            List<Integer> full = new ArrayList<>(perm);
            full.addAll(removed);
            Optional<TileAssignment.Iota> t = IotaForms.transpose(iota, full.stream().mapToInt(Integer::intValue).toArray());
            if (t.isPresent()) {
                result = TileAssignment.iota(merged, t.get().reshapeDims(), t.get().perm());
            }
        }
        if (result == null) {
            List<Long> devices = transposeDevices(tiles, perm, transposed);
            // XLA's transpose of an iota, where its shortcut above does not apply, regroups the
            // iota's dimensions by their factors; whatever it finds is the one canonical iota of
            // these ids, which detect() finds directly.
            result = tiles instanceof TileAssignment.Iota
                    ? IotaForms.detect(merged, devices).<TileAssignment>map(i -> i).orElse(null) : null;
            if (result == null) {
                result = TileAssignment.listed(merged, devices);
            }
        }
        return create(result, mergedTypes);
    }

    /** The devices of {@code tiles} at the grid transposed by {@code perm} (dimensions left out are of size 1). */
    private static List<Long> transposeDevices(TileAssignment tiles, List<Integer> perm, List<Long> transposedDims) {
        List<Long> src = tiles.devices();
        List<Long> dims = tiles.dims();
        long[] stride = new long[dims.size()];
        long s = 1;
        for (int i = dims.size() - 1; i >= 0; i--) {
            stride[i] = s;
            s *= dims.get(i);
        }
        int n = 1;
        for (long d : transposedDims) {
            n *= (int) d;
        }
        List<Long> out = new ArrayList<>(n);
        long[] idx = new long[transposedDims.size()];
        for (int k = 0; k < n; k++) {
            long at = 0;
            for (int i = 0; i < idx.length; i++) {
                at += idx[i] * stride[perm.get(i)];
            }
            out.add(src.get((int) at));
            for (int i = idx.length - 1; i >= 0; i--) {
                if (++idx[i] < transposedDims.get(i)) {
                    break;
                }
                idx[i] = 0;
            }
        }
        return out;
    }

    private static HloSharding create(TileAssignment tiles, List<SubgroupType> types) {
        if (types.size() == 1 && types.getFirst() == SubgroupType.REPLICATED) {
            return partialTile(tiles);
        }
        if (types.size() == 1 && types.getFirst() == SubgroupType.MANUAL && tiles.deviceCount() == tiles.dims().getLast()) {
            return HloSharding.manual();
        }
        if (!types.isEmpty() && types.getLast() == SubgroupType.REPLICATED) {
            // Sort each replication group as a partial tile would, then name the subgroups.
            HloSharding partial = partialTile(tiles);
            if (partial instanceof HloSharding.Tiled t) {
                return new HloSharding.Tiled(t.tiles(), false, types, ShardGroup.NONE);
            }
            return partial;
        }
        return new HloSharding.Tiled(tiles, false, types, ShardGroup.NONE);
    }
}
