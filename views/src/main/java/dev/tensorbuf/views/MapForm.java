package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.MapForms;
import dev.tensorbuf.views.internal.TiledRecovery;
import java.util.List;
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
     * @param layout the XLA tiled layout the map is, recovered from the map and checked against
     *     it, when there is one
     * @param reason why the map is not strided
     */
    record Tiled(IndexingMap map, Optional<Layout> layout, String reason) implements MapForm {
        /** @throws NullPointerException for null parts */
        public Tiled {
            Objects.requireNonNull(map, "map");
            Objects.requireNonNull(layout, "layout");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public Optional<String> whyNotStrided() {
            return Optional.of(reason);
        }

        /**
         * {@return the XLA shape of {@code dtype} whose layout lowers to exactly this map (the
         * view is that whole layout, maybe transposed, from element 0), when there is one}
         *
         * @param dtype the element type of the shape
         */
        public Optional<ArrayShape> xlaShape(DType dtype) {
            return layout.filter(l -> l.isWhole(map)).map(l -> l.shape(dtype));
        }

        /**
         * An XLA layout as a map reads it: the offset of logical index {@code d} is
         * {@code offset + linear index of (d + start)} in an array of {@code dims} laid out by
         * {@code layout}. The dimensions are the map's own, in its order: a transpose of a tiled
         * view is the same layout with the minor-to-major order permuted, as XLA's transposes
         * that are bitcasts. A slice of one keeps the whole array's dims and starts at its corner.
         * {@snippet :
         * MapForm.Tiled t = (MapForm.Tiled) MapForm.of(ArrayShape.parse("f32[3,5]{1,0:T(2,2)}").toIndexingMap());
         * t.layout().orElseThrow(); // Layout[layout={1,0:T(2,2)}, dims=[3, 5], start=[0, 0], offset=0]
         * }
         *
         * @param layout the minor-to-major order and tiles (no element size, padding or memory space:
         *     those are no part of a map)
         * @param dims the sizes of the whole laid-out array
         * @param start where the map's index 0 lies in it
         * @param offset elements before the array's first slot
         */
        public record Layout(XlaLayout layout, List<Long> dims, List<Long> start, long offset) {
            /** @throws IllegalArgumentException if the parts disagree in rank or a start or the offset is negative */
            public Layout {
                Objects.requireNonNull(layout, "layout");
                dims = List.copyOf(dims);
                start = List.copyOf(start);
                if (layout.rank() != dims.size() || start.size() != dims.size()) {
                    throw new IllegalArgumentException("a layout of rank " + layout.rank() + ", dims " + dims
                            + " and start " + start + " disagree in rank");
                }
                if (offset < 0 || start.stream().anyMatch(s -> s < 0)) {
                    throw new IllegalArgumentException("negative start " + start + " or offset " + offset);
                }
            }

            /** {@return whether a map over {@code map}'s domain reads this whole layout from element 0} @param map the map */
            public boolean isWhole(IndexingMap map) {
                if (offset != 0 || start.stream().anyMatch(s -> s != 0) || map.dims().size() != dims.size()) {
                    return false;
                }
                for (int i = 0; i < dims.size(); i++) {
                    if (map.dims().get(i).bounds().hi() + 1 != dims.get(i)) {
                        return false;
                    }
                }
                return true;
            }

            /** {@return the whole array as an XLA shape of {@code dtype}} @param dtype the element type */
            public ArrayShape shape(DType dtype) {
                return new ArrayShape(dtype, dims, java.util.Collections.nCopies(dims.size(), false), Optional.of(layout));
            }

            /** {@return the map this layout reads over {@code [0, sizes_i)}, not simplified} @param sizes the box's sizes */
            public IndexingMap toIndexingMap(long[] sizes) {
                return TiledRecovery.toIndexingMap(this, sizes);
            }
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
