package dev.tensorbuf.ops.shard;

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
