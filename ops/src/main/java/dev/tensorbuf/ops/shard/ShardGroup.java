package dev.tensorbuf.ops.shard;

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
