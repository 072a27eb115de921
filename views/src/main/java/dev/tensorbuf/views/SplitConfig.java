package dev.tensorbuf.views;

import java.util.ArrayList;
import java.util.List;

/**
 * An XLA split config ({@code SC(d:i,j,...)}): the physical dimension {@code d}, counted from the
 * major end, is stored in pieces that start at the given split indices.
 * {@snippet :
 * SplitConfig sc = SplitConfig.of(1, 40, 130);
 * sc.toString(); // "(1:40,130)"
 * // in f32[150,200,100]{0,1,2:SC(1:40,130)} it splits logical dim 1 into 40, 90 and 70
 * }
 *
 * @param dimension the physical dimension, 0 = most major; {@code >= 0}
 * @param splitIndices where the pieces start, at least one
 */
public record SplitConfig(long dimension, List<Long> splitIndices) {
    /** @throws IllegalArgumentException if the dimension is negative or there is no split index */
    public SplitConfig {
        splitIndices = List.copyOf(splitIndices);
        if (dimension < 0) {
            throw new IllegalArgumentException("split config dimension " + dimension + " is negative");
        }
        if (splitIndices.isEmpty()) {
            throw new IllegalArgumentException("split config for dimension " + dimension + " has no split index");
        }
    }

    /** {@return a split config of physical dimension {@code dimension} at these indices} */
    public static SplitConfig of(long dimension, long... splitIndices) {
        List<Long> list = new ArrayList<>(splitIndices.length);
        for (long i : splitIndices) {
            list.add(i);
        }
        return new SplitConfig(dimension, list);
    }

    /** {@return the config as XLA prints it inside {@code SC}, e.g. {@code "(1:40,130)"}} */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("(").append(dimension).append(':');
        for (int i = 0; i < splitIndices.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(splitIndices.get(i));
        }
        return sb.append(')').toString();
    }
}
