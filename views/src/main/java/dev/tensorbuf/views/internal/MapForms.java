package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Recognises the form of a map from logical index to element offset, with the reason when not strided. */
public final class MapForms {
    /** Steps along one dimension examined for a reason; a change of step within them is reported. */
    static final int STEPS_EXAMINED = 4096;

    private MapForms() {
    }

    /**
     * {@return the map simplified}; views call this on first need, never when they are made, so
     * making a view costs a composition only (the simplifier takes microseconds)
     */
    public static IndexingMap simplified(IndexingMap map) {
        if (map.isUndefined() || map.isKnownEmpty()) {
            return map;
        }
        return map.simplify();
    }

    /** {@return the form of an already simplified map} */
    public static MapForm classify(IndexingMap map) {
        Optional<String> structural = structuralReason(map);
        if (structural.isPresent()) {
            return new MapForm.General(map, structural.get());
        }
        int rank = map.dims().size();
        AffineExpr e = map.results().getFirst();
        long[] coefficients = new long[rank];
        long[] constant = new long[1];
        if (Linear.extract(e, coefficients, constant)) {
            long[] sizes = sizes(map);
            try {
                return new MapForm.Strided(map, StridedLayout.of(sizes, coefficients, constant[0]));
            } catch (IllegalArgumentException negative) {
                return new MapForm.General(map, "affine, but " + negative.getMessage());
            }
        }
        String reason = stepReason(map);
        if (Linear.isQuasiAffine(e)) {
            // The layout is recovered from the map alone, once per view (forms are derived lazily).
            return new MapForm.Tiled(map, TiledRecovery.recover(map), reason);
        }
        return new MapForm.General(map, reason);
    }

    private static Optional<String> structuralReason(IndexingMap map) {
        if (map.isUndefined()) {
            return Optional.of("the map is undefined");
        }
        if (map.isKnownEmpty() && !(map.constraints().isEmpty() && hasEmptyDim(map))) {
            // Empty from a constraint that cannot hold: the affine result describes no element.
            // Empty from a zero-size dimension: the result still places the others, as NumPy's
            // strides do for an empty array, so such a map stays strided.
            return Optional.of("the map is known empty");
        }
        if (map.results().size() != 1) {
            return Optional.of("the map has " + map.results().size() + " results, not one element offset");
        }
        if (!map.rangeVars().isEmpty() || !map.runtimeVars().isEmpty()) {
            return Optional.of("the map has " + map.rangeVars().size() + " range and " + map.runtimeVars().size()
                    + " runtime variable(s)");
        }
        if (!map.constraints().isEmpty()) {
            return Optional.of("the map has constraints " + map.constraints().keySet() + " restricting its domain");
        }
        for (int i = 0; i < map.dims().size(); i++) {
            Interval b = map.dims().get(i).bounds();
            if (b.lo() != 0) {
                return Optional.of("dim " + i + " has bounds " + b + ", which do not start at 0");
            }
        }
        return Optional.empty();
    }

    private static boolean hasEmptyDim(IndexingMap map) {
        return map.dims().stream().anyMatch(d -> d.bounds().hi() < d.bounds().lo());
    }

    private static long[] sizes(IndexingMap map) {
        long[] sizes = new long[map.dims().size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = map.dims().get(i).bounds().hi() + 1;
        }
        return sizes;
    }

    /**
     * Names each dimension whose step changes, from the origin along that dimension: the first
     * step and the first different one. Bounded by {@link #STEPS_EXAMINED} per dimension.
     */
    static String stepReason(IndexingMap map) {
        AffineExpr e = map.results().getFirst();
        long[] sizes = sizes(map);
        long[] point = new long[sizes.length];
        long[] none = new long[0];
        List<String> parts = new ArrayList<>();
        for (int d = 0; d < sizes.length; d++) {
            long steps = Math.min(sizes[d] - 1, STEPS_EXAMINED);
            java.util.Arrays.fill(point, 0);
            long previous = e.evaluate(point, none, none);
            Long first = null;
            for (long k = 0; k < steps; k++) {
                point[d] = k + 1;
                long next = e.evaluate(point, none, none);
                long step = next - previous;
                if (first == null) {
                    first = step;
                } else if (step != first) {
                    parts.add("dim " + d + " (size " + sizes[d] + ") steps by " + first + " from 0 to 1 but by "
                            + step + " from " + k + " to " + (k + 1));
                    break;
                }
                previous = next;
            }
        }
        if (parts.isEmpty()) {
            return "the offset " + e + " is not affine in the dimensions (no change of step found within "
                    + STEPS_EXAMINED + " steps from the origin along each dimension)";
        }
        return String.join("; ", parts);
    }
}
