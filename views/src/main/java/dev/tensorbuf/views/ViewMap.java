package dev.tensorbuf.views;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.Linear;
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
     * <p>{@code wholeLayout} says the map is the whole of the layout the buffer was laid out by
     * ({@link TensorView#of} of an XLA shape): slots of the buffer the map never reaches, such as
     * tile padding, are this view's own, and a copy into it writes them as zero. A map cannot say
     * this by itself: rows {@code [0, 5)} of {@code f32[6,5]{1,0:T(2,2)}} read exactly like a
     * whole {@code f32[5,5]{1,0:T(2,2)}}, whose padding row is the bigger array's row 5. It
     * survives {@link #remap} only through a map that reads every index of this one once (a
     * transpose, a reverse, a slice of all of it); any other op's view reads part of the layout
     * and owns no padding.
     *
     * <p>{@code layoutBytes} says where that layout ends: the bytes from the buffer's start it
     * takes, tile and tail padding included. A map cannot say this either: in
     * {@code bf16[3,9]{1,0:T(8,128)(2,1)}} (2,048 bytes) the three rows read exactly like
     * {@code T(4,128)(2,1)} (1,024 bytes), and a buffer may be longer than its layout; the bytes
     * past {@code layoutBytes} are not the view's.
     *
     * @param buffer the bytes
     * @param map logical index to element offset; one result, no range or runtime variables
     * @param wholeLayout whether the map is the buffer's whole layout, owning the slots it does not reach
     * @param layoutBytes the bytes of that layout from the buffer's start when {@code wholeLayout}
     *     (at most the buffer's size); 0 when not
     */
    record Single(MemoryBuffer buffer, IndexingMap map, boolean wholeLayout, long layoutBytes) implements ViewMap {
        /**
         * @throws IllegalArgumentException if the map has not exactly one result, or has range or
         *     runtime variables, or a whole layout's bytes are negative or more than the buffer's
         */
        public Single {
            Objects.requireNonNull(buffer, "buffer");
            Objects.requireNonNull(map, "map");
            if (map.results().size() != 1 || !map.rangeVars().isEmpty() || !map.runtimeVars().isEmpty()) {
                throw new IllegalArgumentException("a view map has one result (the element offset) and no range or"
                        + " runtime variables: " + map);
            }
            if (!wholeLayout) {
                layoutBytes = 0;
            } else if (layoutBytes < 0 || layoutBytes > buffer.byteSize()) {
                throw new IllegalArgumentException("a whole layout of " + layoutBytes + " bytes does not fit its buffer of "
                        + buffer.byteSize() + " bytes");
            }
        }

        /**
         * A map that owns, when {@code wholeLayout}, every slot of its buffer it does not reach.
         *
         * @throws IllegalArgumentException as the canonical constructor
         */
        public Single(MemoryBuffer buffer, IndexingMap map, boolean wholeLayout) {
            this(buffer, map, wholeLayout, wholeLayout ? buffer.byteSize() : 0);
        }

        /**
         * A map that owns no slots beyond those it reaches.
         *
         * @throws IllegalArgumentException if the map has not exactly one result, or has range or runtime variables
         */
        public Single(MemoryBuffer buffer, IndexingMap map) {
            this(buffer, map, false, 0);
        }

        @Override
        public Single remap(IndexingMap outputToThis) {
            return new Single(buffer, IndexingMap.compose(map, outputToThis),
                    wholeLayout && readsEveryIndexOnce(outputToThis, map.dimBounds()), layoutBytes);
        }

        @Override
        public List<Single> pieces() {
            return List.of(this);
        }

        /**
         * {@return whether {@code outputToThis} maps its whole domain onto {@code bounds} one to
         * one by a signed permutation of the dims: each result {@code d_j} or {@code n - 1 - d_j}}
         */
        static boolean readsEveryIndexOnce(IndexingMap outputToThis, List<Interval> bounds) {
            int rank = outputToThis.dims().size();
            List<AffineExpr> results = outputToThis.results();
            if (results.size() != rank || bounds.size() != rank || !outputToThis.constraints().isEmpty()
                    || !outputToThis.rangeVars().isEmpty() || !outputToThis.runtimeVars().isEmpty()) {
                return false;
            }
            List<Interval> from = outputToThis.dimBounds();
            boolean[] used = new boolean[rank];
            long[] coefficients = new long[rank];
            long[] constant = new long[1];
            for (int i = 0; i < rank; i++) {
                if (!Linear.extract(results.get(i), coefficients, constant)) {
                    return false;
                }
                int dim = -1;
                for (int j = 0; j < rank; j++) {
                    if (coefficients[j] != 0) {
                        if (dim >= 0 || Math.abs(coefficients[j]) != 1) {
                            return false;
                        }
                        dim = j;
                    }
                }
                if (dim < 0 || used[dim]) {
                    return false;
                }
                used[dim] = true;
                Interval in = from.get(dim);
                Interval to = bounds.get(i);
                long lo = coefficients[dim] > 0 ? in.lo() + constant[0] : constant[0] - in.hi();
                long hi = coefficients[dim] > 0 ? in.hi() + constant[0] : constant[0] - in.lo();
                if (lo != to.lo() || hi != to.hi()) {
                    return false;
                }
            }
            return true;
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
