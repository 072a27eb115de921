package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.MapForms;
import dev.tensorbuf.views.internal.ViewReader;

/**
 * What a view computes from its map on first need, never when it is made: the simplified map,
 * its form, and the piece reader of a padded or concatenated view. (The compiled map that element
 * access of a one-buffer view without strides evaluates is a step further:
 * {@link TensorView#compiled()}, built only when an element is read that way, since compiling
 * defines a hidden class, about a hundred microseconds, which a view only copied never needs.)
 *
 * @param simplified the simplified map; {@link IndexingMap#undefined()} for several pieces
 * @param form strided, tiled or general, with the reason when not strided
 * @param reader the piece reader of a view of several pieces, else null
 */
record DerivedMap(IndexingMap simplified, MapForm form, ViewReader reader) {

    /**
     * {@return the derived map of a view over {@code map}}
     *
     * @param affine the view's strides as a layout, or null: an empty view's map is known empty
     *     and keeps no strides, so its strided form takes them from here
     */
    static DerivedMap of(ViewMap map, StridedLayout affine) {
        if (!(map instanceof ViewMap.Single single)) {
            String what = map instanceof ViewMap.Padded ? "a padded view: indices outside the data read the fill value"
                    : "a concatenation of " + map.pieces().size() + " pieces";
            return new DerivedMap(IndexingMap.undefined(), new MapForm.General(IndexingMap.undefined(), what),
                    ViewReader.of(map));
        }
        DerivedMap known = RECENT.get(single.map());
        if (known != null) {
            return known;
        }
        IndexingMap simplified = MapForms.simplified(single.map());
        if (simplified.isKnownEmpty() && affine != null && affine.elementCount() == 0) {
            return new DerivedMap(simplified, new MapForm.Strided(simplified, affine), null);
        }
        // The form, a tiled layout included, comes from the map alone: a view made from an XLA
        // shape and the same map made by ops classify alike.
        DerivedMap derived = new DerivedMap(simplified, MapForms.classify(simplified), null);
        if (RECENT.size() >= RECENT_LIMIT) {
            RECENT.clear();
        }
        RECENT.put(single.map(), derived);
        return derived;
    }

    /**
     * Recent maps' derivations, by the composed map: simplifying, classifying and recovering a
     * tiled layout are pure functions of it and take tens of microseconds to milliseconds, and a
     * program that makes its views per call ({@code TensorView.of} of one shape per copy,
     * materialize into a new buffer per op) asks for the same map again and again. Bounded by
     * clearing; a miss only derives again.
     */
    private static final java.util.Map<IndexingMap, DerivedMap> RECENT = new java.util.concurrent.ConcurrentHashMap<>();
    private static final int RECENT_LIMIT = 256;
}
