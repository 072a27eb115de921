package dev.tensorbuf.ops.indexing;

import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.List;
import java.util.Optional;

/**
 * One indexing map of an operand (or output), with what its runtime variables stand for and,
 * for collectives, the map to the replica that holds the element (XLA's {@code OperandIndexing}).
 *
 * {@snippet :
 * OperandIndexing o = new OperandIndexing(
 *         IndexingMap.parse("(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 3]"), List.of(), Optional.empty());
 * o.toString(); // "(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 3]"
 * }
 *
 * @param map the indexing map
 * @param runtimeVariables one entry per runtime variable of {@code map}, in order
 * @param replicaId for all-gather and fusions of it: output index to replica number
 */
public record OperandIndexing(IndexingMap map, List<RuntimeVariable> runtimeVariables, Optional<IndexingMap> replicaId) {

    public OperandIndexing {
        runtimeVariables = List.copyOf(runtimeVariables);
        if (!map.isUndefined() && !map.isKnownEmpty() && map.runtimeVars().size() != runtimeVariables.size()) {
            throw new IllegalArgumentException("map has " + map.runtimeVars().size() + " runtime variables but "
                    + runtimeVariables.size() + " are described: " + map);
        }
    }

    /** {@return an operand indexing with no runtime variables and no replica map} @param map the map */
    public static OperandIndexing of(IndexingMap map) {
        return new OperandIndexing(map, List.of(), Optional.empty());
    }

    /** {@return whether the indexing could not be computed ({@code unknown indexing})} */
    public boolean isUndefined() {
        return map.isUndefined();
    }

    /** Prints as XLA's {@code OperandIndexing::ToString()}: the map, runtime variables, replica id. */
    @Override
    public String toString() {
        return toText(IndexingMap.Notation.XLA);
    }

    /**
     * {@return the text in XLA's current spelling, or in the older MLIR spelling, which printed
     * neither runtime variables nor replica maps}
     *
     * @param style the spelling
     */
    public String toText(IndexingMap.Notation style) {
        if (map.isUndefined()) {
            return "unknown indexing";
        }
        StringBuilder out = new StringBuilder(map.toText(style));
        if (style == IndexingMap.Notation.MLIR) {
            return out.toString();
        }
        if (!runtimeVariables.isEmpty() && !map.isKnownEmpty()) {
            out.append("\nruntime variables:");
            for (int i = 0; i < runtimeVariables.size(); i++) {
                String name = map.runtimeVars().get(i).name();
                out.append("\n").append(name.isEmpty() ? "rt" + i : name).append(": ").append(runtimeVariables.get(i));
            }
        }
        replicaId.ifPresent(r -> out.append("\nreplica id:\n").append(r));
        return out.toString();
    }
}
