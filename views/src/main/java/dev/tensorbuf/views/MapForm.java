package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.MapForms;
import java.util.Objects;
import java.util.Optional;

/**
 * The form of a simplified map from logical index to element offset, which decides the fast
 * path of whoever reads it: {@link Strided} (affine with constant coefficients: exportable to
 * DLPack and NumPy, bulk copies), {@link Tiled} (floor division and modulo by constants:
 * tile-aware kernels) or {@link General} (evaluated). The form is recognised from the map's
 * expressions, never from the op that made it; every form but {@code Strided} says why it is not
 * strided, naming the dimensions and the steps that break a single stride.
 * {@snippet :
 * MapForm.of(IndexingMap.parse("(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]"));
 * // a Strided form: layout() is sizes [3, 2] strides [1, 3]
 * MapForm f = MapForm.of(IndexingMap.parse("(d0) -> ((d0 mod 4) * 6 + d0 / 4), domain: d0 in [0, 23]"));
 * f.whyNotStrided();
 * // Optional["dim 0 (size 24) steps by 6 from 0 to 1 but by -17 from 3 to 4"]
 * }
 */
public sealed interface MapForm permits MapForm.Strided, MapForm.Tiled, MapForm.General {

    /** {@return the simplified map this form describes} */
    IndexingMap map();

    /** {@return why the map is not strided; empty for {@link Strided}} */
    Optional<String> whyNotStrided();

    /**
     * Element offset {@code offset + sum(stride_i * d_i)}.
     *
     * @param map the map
     * @param layout the same map as sizes, strides and offset
     */
    record Strided(IndexingMap map, StridedLayout layout) implements MapForm {
        /** @throws NullPointerException for null parts */
        public Strided {
            Objects.requireNonNull(map, "map");
            Objects.requireNonNull(layout, "layout");
        }

        @Override
        public Optional<String> whyNotStrided() {
            return Optional.empty();
        }
    }

    /**
     * Floor division and modulo by positive constants over an affine core (XLA tiling, reshapes
     * that split or merge dimensions of a non-packed view).
     *
     * @param map the map
     * @param xlaShape the XLA shape whose layout lowers to exactly this map, when one is known
     * @param reason why the map is not strided
     */
    record Tiled(IndexingMap map, Optional<ArrayShape> xlaShape, String reason) implements MapForm {
        /** @throws NullPointerException for null parts */
        public Tiled {
            Objects.requireNonNull(map, "map");
            Objects.requireNonNull(xlaShape, "xlaShape");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public Optional<String> whyNotStrided() {
            return Optional.of(reason);
        }
    }

    /**
     * Anything else: several results, range variables, constraints, a domain not starting at 0,
     * a view over several buffers or with padding.
     *
     * @param map the map ({@link IndexingMap#undefined()} for views made of several pieces)
     * @param reason why the map is not strided
     */
    record General(IndexingMap map, String reason) implements MapForm {
        /** @throws NullPointerException for null parts */
        public General {
            Objects.requireNonNull(map, "map");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public Optional<String> whyNotStrided() {
            return Optional.of(reason);
        }
    }

    /** {@return the form of {@code map}, simplified first} @param map a map from logical index to element offset */
    static MapForm of(IndexingMap map) {
        return MapForms.classify(MapForms.simplified(map));
    }
}
