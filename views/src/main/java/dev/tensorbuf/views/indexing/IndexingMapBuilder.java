package dev.tensorbuf.views.indexing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects the parts of an {@link IndexingMap}; {@link #build()} checks them once.
 *
 * {@snippet :
 * IndexingMap m = IndexingMap.builder()
 *         .dim(0, 1).dim(0, 2)
 *         .result(AffineExpr.dim(0).times(3).plus(AffineExpr.dim(1)))
 *         .build();
 * m.toString(); // "(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]"
 * }
 */
public final class IndexingMapBuilder {
    private final List<Variable> dims = new ArrayList<>();
    private final List<Variable> rangeVars = new ArrayList<>();
    private final List<Variable> runtimeVars = new ArrayList<>();
    private final List<AffineExpr> results = new ArrayList<>();
    private final Map<AffineExpr, Interval> constraints = new LinkedHashMap<>();

    IndexingMapBuilder() {}

    /** Adds dimension {@code d<i>} in {@code [lo, hi]}. @param lo lower bound @param hi upper bound @return this */
    public IndexingMapBuilder dim(long lo, long hi) {
        dims.add(Variable.of(lo, hi));
        return this;
    }

    /** Adds a named dimension. @param name its name @param lo lower bound @param hi upper bound @return this */
    public IndexingMapBuilder dim(String name, long lo, long hi) {
        dims.add(new Variable(name, new Interval(lo, hi)));
        return this;
    }

    /** Adds range variable {@code s<i>}. @param lo lower bound @param hi upper bound @return this */
    public IndexingMapBuilder rangeVar(long lo, long hi) {
        rangeVars.add(Variable.of(lo, hi));
        return this;
    }

    /** Adds a named range variable. @param name its name @param lo lower bound @param hi upper bound @return this */
    public IndexingMapBuilder rangeVar(String name, long lo, long hi) {
        rangeVars.add(new Variable(name, new Interval(lo, hi)));
        return this;
    }

    /** Adds runtime variable {@code rt<i>}. @param lo lower bound @param hi upper bound @return this */
    public IndexingMapBuilder runtimeVar(long lo, long hi) {
        runtimeVars.add(Variable.of(lo, hi));
        return this;
    }

    /** Adds a named runtime variable. @param name its name @param lo lower bound @param hi upper bound @return this */
    public IndexingMapBuilder runtimeVar(String name, long lo, long hi) {
        runtimeVars.add(new Variable(name, new Interval(lo, hi)));
        return this;
    }

    /** Adds result expressions. @param exprs the results, in order @return this */
    public IndexingMapBuilder result(AffineExpr... exprs) {
        results.addAll(List.of(exprs));
        return this;
    }

    /** Adds a constraint. @param e the expression @param lo lower bound @param hi upper bound @return this */
    public IndexingMapBuilder constraint(AffineExpr e, long lo, long hi) {
        constraints.merge(e, new Interval(lo, hi), Interval::intersect);
        return this;
    }

    /** {@return the map} @throws IllegalArgumentException when an expression uses a missing variable */
    public IndexingMap build() {
        return IndexingMap.of(dims, rangeVars, runtimeVars, results, constraints);
    }
}
