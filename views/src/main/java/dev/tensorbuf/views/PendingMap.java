package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;
import dev.tensorbuf.views.internal.Linear;
import java.util.ArrayList;
import java.util.List;

/**
 * How a view's {@link ViewMap} is built when it is first asked for: the op as its description
 * (strides, an XLA layout, a {@link Remap}, a {@link Remap.Pad}, parts side by side), validated
 * when the view was made. Building composes the same maps, in the same order, as composing
 * them when the view is made would: the result does not depend on when it is built.
 */
sealed interface PendingMap {

    /** {@return the map of {@code view}, composed now; not simplified} */
    ViewMap build(TensorView view);

    /**
     * The view's own strides: {@code base + sum(strides_i * d_i)} over {@code [0, dims_i)}.
     *
     * @param whole the view whose whole layout these strides read, every slot of it once (a
     *     transpose or reverse of it, made by stride arithmetic), so the map owns that layout's
     *     padding as the view's does ({@link ViewMap.Single#wholeLayout()}); null when they read
     *     part of a layout or no layout
     */
    record Strided(TensorView whole) implements PendingMap {
        /** Strides that own no slot they do not reach. */
        static final Strided PART = new Strided(null);

        @Override
        public ViewMap build(TensorView view) {
            IndexingMap map = Linear.toMap(view.dimsArray(), view.stridesArray(), view.base());
            return whole == null ? new ViewMap.Single(view.buffer(), map)
                    : new ViewMap.Single(view.buffer(), map, true, whole.wholeLayoutBytes());
        }
    }

    /** The map of the view's XLA layout ({@link ArrayShape#toIndexingMap()}). */
    record Layout() implements PendingMap {
        @Override
        public ViewMap build(TensorView view) {
            return new ViewMap.Single(view.buffer(), view.shape().toIndexingMap(), true,
                    ViewFactory.layoutBytes(view.shape(), view.buffer()));
        }
    }

    /** The source read through a total op map. */
    record Remapped(TensorView source, Remap op) implements PendingMap {
        @Override
        public ViewMap build(TensorView view) {
            return source.map().remap(op.toIndexingMap());
        }
    }

    /** The source read through a pad's windows, the fill elsewhere. */
    record Padded(TensorView source, Remap.Pad pad, TensorView fill) implements PendingMap {
        @Override
        public ViewMap build(TensorView view) {
            ViewMap.Single fillMap = (ViewMap.Single) fill.map();
            return new ViewMap.Padded(source.map().remap(pad.toIndexingMap()), fillMap.remap(toScalar(view.dimsArray())));
        }

        /** {@return {@code (d0, ..., dn) -> ()} over the output box: every index reads the fill's one element} */
        static IndexingMap toScalar(long[] dims) {
            List<Variable> box = new ArrayList<>(dims.length);
            for (long d : dims) {
                box.add(Variable.of(0, d - 1));
            }
            return IndexingMap.of(box, List.of(), List.of());
        }
    }

    /** Non-empty parts side by side, each placed on its slab by a pad without interior padding. */
    record Joined(List<TensorView> parts, List<Remap.Pad> places) implements PendingMap {
        @Override
        public ViewMap build(TensorView view) {
            List<ViewMap> pieces = new ArrayList<>(parts.size());
            for (int k = 0; k < parts.size(); k++) {
                pieces.add(parts.get(k).map().remap(places.get(k).toIndexingMap()));
            }
            return new ViewMap.Concatenated(pieces);
        }
    }
}
