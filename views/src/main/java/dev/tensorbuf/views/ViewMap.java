package dev.tensorbuf.views;

import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The map part of a {@link TensorView}: where each logical index reads. Almost every view is
 * one {@link Single}: a buffer plus a map from logical index to element offset. Two ops need
 * more, and are built from the same part: {@link Padded} reads its data where the data's domain
 * holds and otherwise a {@code Single} over a one-element buffer through a constant map (the
 * fill value, broadcast); {@link Concatenated} joins parts whose domains tile the view.
 *
 * <p>A {@code Single}'s map may have a smaller domain (bounds and constraints) than the view:
 * that is where it applies inside a {@code Padded} or {@code Concatenated} view. An op never
 * moves bytes: {@link #remap(IndexingMap)} composes the op's output-to-input map into every map.
 * A view made by an op builds its {@code ViewMap} this way when it is first asked for.
 * {@snippet :
 * ViewMap.Single m = new ViewMap.Single(buffer,
 *         IndexingMap.parse("(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]"));
 * m.remap(IndexingMap.parse("(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]")).map().toString();
 * // "(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]"
 * }
 */
public sealed interface ViewMap permits ViewMap.Single, ViewMap.Padded, ViewMap.Concatenated {

    /**
     * {@return this map read through {@code outputToThis}: {@code compose(this, outputToThis)} in
     * every part, not simplified}
     *
     * @param outputToThis from the new logical index to this map's logical index
     */
    ViewMap remap(IndexingMap outputToThis);

    /** {@return the single parts in lookup order: the first whose domain holds an index is read} */
    List<Single> pieces();

    /**
     * One buffer and one map from logical index to element offset in it.
     *
     * @param buffer the bytes
     * @param map logical index to element offset; one result, no range or runtime variables
     */
    record Single(Buffer buffer, IndexingMap map) implements ViewMap {
        /** @throws IllegalArgumentException if the map has not exactly one result, or has range or runtime variables */
        public Single {
            Objects.requireNonNull(buffer, "buffer");
            Objects.requireNonNull(map, "map");
            if (map.results().size() != 1 || !map.rangeVars().isEmpty() || !map.runtimeVars().isEmpty()) {
                throw new IllegalArgumentException("a view map has one result (the element offset) and no range or"
                        + " runtime variables: " + map);
            }
        }

        @Override
        public Single remap(IndexingMap outputToThis) {
            return new Single(buffer, IndexingMap.compose(map, outputToThis));
        }

        @Override
        public List<Single> pieces() {
            return List.of(this);
        }
    }

    /**
     * Data where its domain holds, the fill elsewhere; writes to the fill are refused.
     *
     * @param data the data parts
     * @param fill a one-element buffer read through a constant map over the whole view
     */
    record Padded(ViewMap data, Single fill) implements ViewMap {
        /** @throws NullPointerException for null parts */
        public Padded {
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(fill, "fill");
        }

        @Override
        public Padded remap(IndexingMap outputToThis) {
            return new Padded(data.remap(outputToThis), fill.remap(outputToThis));
        }

        @Override
        public List<Single> pieces() {
            List<Single> all = new ArrayList<>(data.pieces());
            all.add(fill);
            return List.copyOf(all);
        }
    }

    /**
     * Parts whose domains are disjoint and together cover the view, e.g. one slab each along the
     * concatenated dimension.
     *
     * @param parts the parts, in lookup order
     */
    record Concatenated(List<ViewMap> parts) implements ViewMap {
        /** @throws IllegalArgumentException when there are no parts */
        public Concatenated {
            parts = List.copyOf(parts);
            if (parts.isEmpty()) {
                throw Errors.noParts();
            }
        }

        @Override
        public Concatenated remap(IndexingMap outputToThis) {
            List<ViewMap> out = new ArrayList<>(parts.size());
            for (ViewMap p : parts) {
                out.add(p.remap(outputToThis));
            }
            return new Concatenated(out);
        }

        @Override
        public List<Single> pieces() {
            List<Single> all = new ArrayList<>();
            for (ViewMap p : parts) {
                all.addAll(p.pieces());
            }
            return List.copyOf(all);
        }
    }
}
