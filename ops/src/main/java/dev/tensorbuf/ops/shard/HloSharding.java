package dev.tensorbuf.ops.shard;

import dev.tensorbuf.ops.shard.internal.IotaForms;
import dev.tensorbuf.ops.shard.internal.Normalize;
import dev.tensorbuf.ops.shard.internal.ShardingParser;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

/**
 * How XLA splits a tensor across devices: its {@code HloSharding}, read from and printed as XLA's
 * text ({@code sharding={devices=[2,2]<=[4]}} in HLO). Every form XLA prints is one record here:
 * {@link Replicated}, {@link Maximal} (one device holds all), {@link Manual}, {@link Unknown},
 * {@link Unreduced}, {@link Tiled} (a tile grid with its devices, optionally with trailing
 * replicated or manual subgroup dimensions), and {@link Tuple} for tuple-shaped values.
 *
 * {@snippet :
 * HloSharding s = HloSharding.parse("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
 * s.toString();          // "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
 * HloSharding.parse("{devices=[2,2]<=[2,2]T(0,1)}").toString();   // "{devices=[2,2]<=[4]}"
 * HloSharding.parse("{devices=[1,4]3,1,0,2 last_tile_dim_replicate}").toString(); // "{replicated}"
 * HloSharding.parse("{{replicated}, {maximal device=1}}").getClass(); // HloSharding.Tuple
 * }
 *
 * <p>Parsing builds the sharding as XLA's parser does, through the same normalisations
 * ({@link #partialTile}, {@link #subgroup}), so {@link #toString()} is XLA's
 * {@code HloSharding::ToString()} of the same text: a replicated last dimension of size 1 goes,
 * a grid that is all replication is {@code {replicated}}, the devices of each replication group
 * are sorted, subgroup dimensions of size 1 go and those of one type merge, iota forms are kept in
 * XLA's canonical reshape. A listed grid stays listed even when its ids are an iota, as in XLA.
 *
 * <p>{@code metadata={...}} is read (braces and strings balanced) and dropped: XLA's default
 * {@code ToString()} leaves it out and its equality ignores it. XLA's named shardings
 * ({@code {mesh[...], ...}}) are refused by name.
 */
public sealed interface HloSharding permits HloSharding.Replicated, HloSharding.Maximal, HloSharding.Manual,
        HloSharding.Unknown, HloSharding.Unreduced, HloSharding.Tiled, HloSharding.Tuple {

    /**
     * {@return the sharding XLA's text describes}
     *
     * @param text e.g. {@code "{devices=[2,2]<=[4]}"} or {@code "{{replicated}, {maximal device=0}}"}
     * @throws dev.tensorbuf.views.text.TextFormatException naming the problem and its position
     */
    static HloSharding parse(String text) {
        return ShardingParser.parse(text);
    }

    /** {@return the shard group, {@link ShardGroup#NONE} if none (and for tuples)} */
    ShardGroup shardGroup();

    /** {@return XLA's text of this sharding, as {@code HloSharding::ToString()} prints it} */
    @Override
    String toString();

    /**
     * Checks that this sharding can describe a value of {@code shape}, as XLA's verifier does: a
     * tiled sharding tiles exactly the array's rank; a tuple sharding has one element per leaf
     * array of a tuple shape (one for an empty tuple); any other sharding of a tuple applies to
     * each leaf.
     *
     * {@snippet :
     * HloSharding.parse("{devices=[2,2]<=[4]}").checkShape(XlaShape.parse("f32[8]"));
     * // IllegalArgumentException: sharding {devices=[2,2]<=[4]} tiles 2 dimensions but f32[8] has 1
     * }
     *
     * @param shape the value's shape
     * @throws IllegalArgumentException naming the mismatch
     */
    default void checkShape(dev.tensorbuf.views.XlaShape shape) {
        Normalize.checkShape(this, shape);
    }

    /** {@return {@code {replicated}}} */
    static HloSharding replicated() {
        return new Replicated(ShardGroup.NONE);
    }

    /** {@return {@code {maximal device=N}}} @param device the device holding the whole tensor */
    static HloSharding maximal(long device) {
        return new Maximal(device, ShardGroup.NONE);
    }

    /** {@return {@code {manual}}} */
    static HloSharding manual() {
        return new Manual(ShardGroup.NONE);
    }

    /** {@return a tiled sharding, each tile on its device} @param tiles the grid and its devices */
    static HloSharding tile(TileAssignment tiles) {
        return new Tiled(tiles, false, List.of(), ShardGroup.NONE);
    }

    /**
     * {@return a tiled sharding whose last grid dimension replicates, normalised as XLA's
     * {@code HloSharding::PartialTile}} ({@code {replicated}} when that dimension holds every
     * device, the dimension dropped when it is 1, each group's devices sorted)
     *
     * @param tiles the grid, its last dimension the replication groups
     */
    static HloSharding partialTile(TileAssignment tiles) {
        return Normalize.partialTile(tiles);
    }

    /**
     * {@return a tiled sharding with trailing subgroup dimensions, normalised as XLA's
     * {@code HloSharding::Subgroup}} (dimensions of size 1 dropped, dimensions of one type merged,
     * types in XLA's order, a grid without data tiling made {@code {manual}} or
     * {@code {replicated}})
     *
     * @param tiles the grid: data dimensions, then one dimension per type
     * @param types the type of each trailing dimension
     */
    static HloSharding subgroup(TileAssignment tiles, List<SubgroupType> types) {
        return Normalize.subgroup(tiles, types);
    }

    /** {@return a tuple sharding} @param elements one sharding per leaf, none a tuple */
    static HloSharding tuple(List<HloSharding> elements) {
        return new Tuple(elements);
    }

    /** {@return this sharding with that shard group} @param group the group @throws IllegalArgumentException for a tuple */
    default HloSharding withShardGroup(ShardGroup group) {
        return switch (this) {
            case Replicated r -> new Replicated(group);
            case Maximal m -> new Maximal(m.device(), group);
            case Manual m -> new Manual(group);
            case Unknown u -> new Unknown(group);
            case Unreduced u -> new Unreduced(group);
            case Tiled t -> new Tiled(t.tiles(), t.replicateOnLastTileDim(), t.lastTileDims(), group);
            case Tuple t -> throw new IllegalArgumentException("a tuple sharding has no shard group of its own");
        };
    }

    private static String close(String body, ShardGroup group) {
        return group.kind() == ShardGroup.Kind.NONE ? "{" + body + "}" : "{" + body + " " + group + "}";
    }

    /** Every device holds the whole tensor. @param shardGroup the shard group */
    record Replicated(ShardGroup shardGroup) implements HloSharding {
        /** @throws IllegalArgumentException for a null group */
        public Replicated {
            Normalize.requireGroup(shardGroup);
        }

        @Override
        public String toString() {
            return close("replicated", shardGroup);
        }
    }

    /**
     * One device holds the whole tensor, {@code {maximal device=3}}.
     *
     * @param device the device, {@code >= 0}
     * @param shardGroup the shard group
     */
    record Maximal(long device, ShardGroup shardGroup) implements HloSharding {
        /** @throws IllegalArgumentException for a negative device */
        public Maximal {
            if (device < 0) {
                throw new IllegalArgumentException("device id " + device + " is negative");
            }
            Normalize.requireGroup(shardGroup);
        }

        @Override
        public String toString() {
            return close("maximal device=" + device, shardGroup);
        }
    }

    /** The program partitions the tensor itself, {@code {manual}}. @param shardGroup the shard group */
    record Manual(ShardGroup shardGroup) implements HloSharding {
        /** @throws IllegalArgumentException for a null group */
        public Manual {
            Normalize.requireGroup(shardGroup);
        }

        @Override
        public String toString() {
            return close("manual", shardGroup);
        }
    }

    /** Not yet decided, {@code {unknown}}. @param shardGroup the shard group */
    record Unknown(ShardGroup shardGroup) implements HloSharding {
        /** @throws IllegalArgumentException for a null group */
        public Unknown {
            Normalize.requireGroup(shardGroup);
        }

        @Override
        public String toString() {
            return close("unknown", shardGroup);
        }
    }

    /** Every device holds a partial value still to be reduced, {@code {unreduced}}. @param shardGroup the shard group */
    record Unreduced(ShardGroup shardGroup) implements HloSharding {
        /** @throws IllegalArgumentException for a null group */
        public Unreduced {
            Normalize.requireGroup(shardGroup);
        }

        @Override
        public String toString() {
            return close("unreduced", shardGroup);
        }
    }

    /**
     * A tile grid: the tensor's dimension {@code i} is cut into {@code tiles.dims()[i]} tiles of
     * {@code ceil(size / tiles)} elements (the last ones smaller or empty), tile {@code t} held by
     * {@code tiles.deviceAt(t)}. Trailing grid dimensions past the tensor's rank are subgroups:
     * one replication dimension ({@code last_tile_dim_replicate}) or one per type
     * ({@code last_tile_dims={manual, replicated}}).
     *
     * <p>The record holds what it is given; {@link HloSharding#parse}, {@link #partialTile} and
     * {@link #subgroup} normalise as XLA does.
     *
     * @param tiles the grid and its devices
     * @param replicateOnLastTileDim whether the last grid dimension replicates
     * @param lastTileDims the types of the trailing subgroup dimensions (empty with
     *     {@code replicateOnLastTileDim})
     * @param shardGroup the shard group
     */
    record Tiled(TileAssignment tiles, boolean replicateOnLastTileDim, List<SubgroupType> lastTileDims,
                 ShardGroup shardGroup) implements HloSharding {
        /** @throws IllegalArgumentException if both subgroup forms are given or there are more subgroups than grid dimensions */
        public Tiled {
            if (tiles == null) {
                throw new IllegalArgumentException("tile assignment is null");
            }
            lastTileDims = List.copyOf(lastTileDims);
            Normalize.requireGroup(shardGroup);
            if (replicateOnLastTileDim && !lastTileDims.isEmpty()) {
                throw new IllegalArgumentException("last_tile_dim_replicate and last_tile_dims=" + lastTileDims
                        + " together: one names the subgroup dimensions");
            }
            int subgroups = replicateOnLastTileDim ? 1 : lastTileDims.size();
            if (subgroups > tiles.dims().size()) {
                throw new IllegalArgumentException(subgroups + " subgroup dimensions but the grid " + tiles.dims()
                        + " has " + tiles.dims().size());
            }
        }

        /** {@return the number of grid dimensions that cut the tensor (the tensor's rank)} */
        public int dataRank() {
            return tiles.dims().size() - (replicateOnLastTileDim ? 1 : lastTileDims.size());
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(tiles.toString());
            if (replicateOnLastTileDim) {
                s.append(" last_tile_dim_replicate");
            }
            if (!lastTileDims.isEmpty()) {
                StringJoiner j = new StringJoiner(", ", " last_tile_dims={", "}");
                lastTileDims.forEach(t -> j.add(t.xlaName()));
                s.append(j);
            }
            return close(s.toString(), shardGroup);
        }
    }

    /**
     * One sharding per leaf of a tuple-shaped value, flat as XLA keeps them:
     * {@code {{replicated}, {devices=[2]0,1}}}. XLA prints <code>&#47;*index=5*&#47;</code>
     * before every fifth element after the first, and so does this.
     *
     * @param elements the leaves' shardings, none a tuple
     */
    record Tuple(List<HloSharding> elements) implements HloSharding {
        /** @throws IllegalArgumentException if an element is a tuple */
        public Tuple {
            elements = List.copyOf(elements);
            for (HloSharding e : elements) {
                if (e instanceof Tuple) {
                    throw new IllegalArgumentException("a tuple sharding's elements are leaves; XLA flattens nested tuples");
                }
            }
        }

        @Override
        public ShardGroup shardGroup() {
            return ShardGroup.NONE;
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder("{");
            for (int i = 0; i < elements.size(); i++) {
                if (i > 0) {
                    s.append(i % 5 == 0 ? ", /*index=" + i + "*/" : ", ");
                }
                s.append(elements.get(i));
            }
            return s.append('}').toString();
        }
    }

    /**
     * XLA's shard group of a sharding, {@code shard_as 1} or {@code shard_like 1}: instructions of
     * one group are to be sharded the same way ({@code shard_as}) or alike ({@code shard_like}) by
     * the partitioner. It changes nothing about where a tensor's elements are.
     *
     * {@snippet :
     * HloSharding.parse("{manual shard_as 1}").shardGroup(); // ShardGroup[kind=AS, id=1]
     * ShardGroup.NONE.toString();                            // ""
     * }
     *
     * @param kind {@code AS}, {@code LIKE}, or {@code NONE}
     * @param id the group id, {@code >= 0}; {@code -1} for {@code NONE}
     */
    public record ShardGroup(Kind kind, long id) {
        /** No shard group. */
        public static final ShardGroup NONE = new ShardGroup(Kind.NONE, -1);

        /** The two kinds of group, and none. */
        public enum Kind {
            /** No group. */
            NONE,
            /** {@code shard_as}: sharded exactly as the others of the group. */
            AS,
            /** {@code shard_like}: sharded like the others of the group. */
            LIKE
        }

        /** @throws IllegalArgumentException for a negative id of a group, or NONE with an id */
        public ShardGroup {
            if (kind == null) {
                throw new IllegalArgumentException("shard group kind is null");
            }
            if (kind == Kind.NONE ? id != -1 : id < 0) {
                throw new IllegalArgumentException("shard group " + kind + " with id " + id
                        + ": a group's id is >= 0, NONE's is -1");
            }
        }

        /** {@return XLA's text: {@code "shard_as 1"}, {@code "shard_like 1"}, or empty for none} */
        @Override
        public String toString() {
            return switch (kind) {
                case NONE -> "";
                case AS -> "shard_as " + id;
                case LIKE -> "shard_like " + id;
            };
        }
    }

    /**
     * What the trailing subgroup dimensions of a tile grid mean, as XLA's {@code last_tile_dims}
     * lists them: {@code {devices=[2,2,2]<=[8] last_tile_dims={manual}}}. Declared in the order XLA
     * sorts merged subgroups (its {@code OpSharding} type order with {@code REPLICATED} moved last).
     *
     * {@snippet :
     * SubgroupType.forXlaName("replicated"); // REPLICATED
     * SubgroupType.MANUAL.xlaName();         // "manual"
     * }
     */
    public enum SubgroupType {
        /** The devices along the dimension each hold one whole copy ({@code maximal}). */
        MAXIMAL("maximal"),
        /** The devices along the dimension hold data partitioned by the program itself. */
        MANUAL("manual"),
        /** The devices along the dimension hold partial sums still to be reduced. */
        UNREDUCED("unreduced"),
        /** The devices along the dimension hold the same tile. */
        REPLICATED("replicated");

        private final String xlaName;

        SubgroupType(String xlaName) {
            this.xlaName = xlaName;
        }

        /** {@return the name in XLA's text} */
        public String xlaName() {
            return xlaName;
        }

        /** {@return the type of that XLA name, or null} @param name e.g. {@code "manual"} */
        public static SubgroupType forXlaNameOrNull(String name) {
            for (SubgroupType t : values()) {
                if (t.xlaName.equals(name)) {
                    return t;
                }
            }
            return null;
        }

        /**
         * {@return the type of that XLA name}
         *
         * @param name e.g. {@code "manual"}
         * @throws IllegalArgumentException naming the names there are
         */
        public static SubgroupType forXlaName(String name) {
            SubgroupType t = forXlaNameOrNull(name);
            if (t == null) {
                throw new IllegalArgumentException("unknown subgroup type '" + name
                        + "': expected maximal, manual, unreduced or replicated");
            }
            return t;
        }
    }

    /**
     * Which device holds each tile of a tiled {@link HloSharding}: an array of device ids whose
     * shape is the tile grid. XLA writes it in two forms, kept apart because XLA prints each as it
     * was made: a list ({@code devices=[2,2]0,2,1,3}) and an iota
     * ({@code devices=[2,2]<=[2,2]T(1,0)}: the ids 0..n-1 reshaped to {@code [2,2]}, transposed by
     * {@code (1,0)}, then read as the grid {@code [2,2]}).
     *
     * {@snippet :
     * TileAssignment t = TileAssignment.iota(List.of(2L, 2L), List.of(2L, 2L), List.of(1, 0));
     * t.devices();   // [0, 2, 1, 3]
     * t.deviceAt(0, 1); // 2
     * TileAssignment.iota(List.of(4L, 1L), List.of(2L, 2L), List.of(0, 1)).toString(); // "devices=[4,1]<=[4]"
     * }
     *
     * <p>Two assignments with the same grid and ids but different forms are different values (they
     * print differently); {@link #sameDevices} compares what they assign, as XLA's {@code ==} does.
     */
    public sealed interface TileAssignment permits TileAssignment.Listed, TileAssignment.Iota {
        /**
         * The most devices a tile grid may hold. Device arrays are materialised for boxes and
         * printing; XLA's own meshes are far smaller.
         */
        long MAX_DEVICES = 1L << 20;

        /** {@return the tile grid's dimensions} */
        List<Long> dims();

        /** {@return the number of tiles (product of {@link #dims()})} */
        default long deviceCount() {
            long n = 1;
            for (long d : dims()) {
                n *= d;
            }
            return n;
        }

        /** {@return the device ids in row-major order of the grid} */
        List<Long> devices();

        /** {@return the device of the tile at {@code index}} @param index one index per grid dimension */
        default long deviceAt(long... index) {
            List<Long> dims = dims();
            if (index.length != dims.size()) {
                throw new IllegalArgumentException("tile index " + Arrays.toString(index) + " has " + index.length
                        + " entries, the grid " + dims + " has " + dims.size() + " dimensions");
            }
            long linear = 0;
            for (int i = 0; i < index.length; i++) {
                if (index[i] < 0 || index[i] >= dims.get(i)) {
                    throw new IndexOutOfBoundsException("tile index " + Arrays.toString(index) + " out of bounds for grid " + dims);
                }
                linear = linear * dims.get(i) + index[i];
            }
            return devices().get((int) linear);
        }

        /** {@return whether {@code other} has the same grid and the same device in every tile} @param other another assignment */
        default boolean sameDevices(TileAssignment other) {
            return dims().equals(other.dims()) && devices().equals(other.devices());
        }

        /** {@return the same devices read as another grid of the same count} @param newDims the new grid */
        TileAssignment reshape(List<Long> newDims);

        /** {@return XLA's text, {@code devices=[2,2]0,1,2,3} or {@code devices=[2,2]<=[4]}} */
        @Override
        String toString();

        /** {@return a listed assignment} @param dims the grid @param devices ids in row-major order */
        static TileAssignment listed(List<Long> dims, List<Long> devices) {
            return new Listed(dims, devices);
        }

        /** {@return the iota {@code [0..n)} read as the grid {@code dims}} @param dims the grid */
        static TileAssignment iota(List<Long> dims) {
            return new Iota(dims, List.of(IotaForms.product(dims, "grid")), List.of(0));
        }

        /**
         * {@return the iota {@code [0..n)} reshaped to {@code reshapeDims}, transposed by
         * {@code perm}, read as the grid {@code dims}}, in XLA's canonical form (dimensions of size 1
         * dropped, runs kept in order merged)
         *
         * @param dims the grid
         * @param reshapeDims the shape the ids are first laid out in
         * @param perm the transpose of that shape, a permutation of its dimensions
         */
        static TileAssignment iota(List<Long> dims, List<Long> reshapeDims, List<Integer> perm) {
            return new Iota(dims, reshapeDims, perm);
        }

        /**
         * Device ids listed one by one, {@code devices=[2,1,2]2,3,5,7}.
         *
         * @param dims the tile grid, each {@code >= 1}
         * @param devices one id per tile, row-major, each {@code >= 0}, no id twice
         */
        record Listed(List<Long> dims, List<Long> devices) implements TileAssignment {
            /** @throws IllegalArgumentException if the counts differ, an id repeats or is negative */
            public Listed {
                dims = List.copyOf(dims);
                devices = List.copyOf(devices);
                long n = IotaForms.product(dims, "grid");
                if (devices.size() != n) {
                    throw new IllegalArgumentException("the grid " + dims + " has " + n + " tiles but " + devices.size()
                            + " devices are listed");
                }
                IotaForms.checkDistinct(devices);
            }

            @Override
            public TileAssignment reshape(List<Long> newDims) {
                return new Listed(newDims, devices);
            }

            @Override
            public String toString() {
                return "devices=" + IotaForms.join(dims, "[", "]") + IotaForms.join(devices, "", "");
            }
        }

        /**
         * The ids {@code 0..n-1} laid out as {@code reshapeDims}, transposed by {@code perm}, read
         * as the grid {@code dims}: XLA's {@code IotaTileAssignment}. The constructor brings
         * {@code reshapeDims} and {@code perm} to XLA's canonical form, so
         * {@code [4,1]<=[2,2]T(0,1)} is kept as {@code [4,1]<=[4]}.
         *
         * @param dims the tile grid
         * @param reshapeDims canonical: no dimension of size 1 unless it is the only one
         * @param perm canonical: no run {@code i, i+1} kept in order
         */
        record Iota(List<Long> dims, List<Long> reshapeDims, List<Integer> perm) implements TileAssignment {
            /** @throws IllegalArgumentException if the counts differ or {@code perm} is not a permutation */
            public Iota {
                dims = List.copyOf(dims);
                long n = IotaForms.product(dims, "grid");
                long m = IotaForms.product(reshapeDims, "iota reshape");
                if (n != m) {
                    throw new IllegalArgumentException("the grid " + dims + " has " + n + " tiles but the iota "
                            + reshapeDims + " has " + m + " devices");
                }
                IotaForms.checkPermutation(perm, reshapeDims.size());
                List<Long> r = new ArrayList<>(reshapeDims);
                List<Integer> p = new ArrayList<>(perm);
                IotaForms.canonicalize(r, p);
                reshapeDims = List.copyOf(r);
                perm = List.copyOf(p);
            }

            @Override
            public List<Long> devices() {
                return IotaForms.materialize(dims, reshapeDims, perm);
            }

            @Override
            public TileAssignment reshape(List<Long> newDims) {
                return new Iota(newDims, reshapeDims, perm);
            }

            @Override
            public String toString() {
                String s = "devices=" + IotaForms.join(dims, "[", "]") + "<=" + IotaForms.join(reshapeDims, "[", "]");
                return reshapeDims.size() > 1 ? s + IotaForms.join(perm, "T(", ")") : s;
            }
        }
    }
}
