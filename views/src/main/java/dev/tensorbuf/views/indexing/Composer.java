package dev.tensorbuf.views.indexing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Composition of maps, ordered as XLA's {@code ComposeIndexingMaps}. */
final class Composer {
    private Composer() {}

    static IndexingMap compose(IndexingMap bToC, IndexingMap aToB) {
        if (bToC.isUndefined() || aToB.isUndefined()) {
            return IndexingMap.undefined();
        }
        if (aToB.results().size() != bToC.dims().size()) {
            // "Applied first", not "the first map": compose(bToC, aToB) takes it as its second argument.
            throw new IllegalArgumentException("cannot compose: the map applied first, " + aToB + ", has "
                    + aToB.results().size() + " result(s) but the map applied second, " + bToC + ", has "
                    + bToC.dims().size() + " dimension(s); the counts must be equal");
        }
        try {
            return substituted(bToC, aToB);
        } catch (IllegalArgumentException e) {
            // Folding the substituted results can leave a long (d0 * 2^62 after d0 * 2): name both maps.
            throw new IllegalArgumentException("cannot compose " + bToC + " after " + aToB + ": " + e.getMessage(), e);
        }
    }

    private static IndexingMap substituted(IndexingMap bToC, IndexingMap aToB) {
        int nsB = bToC.rangeVars().size();
        int nrB = bToC.runtimeVars().size();
        List<AffineExpr> shiftSyms = new ArrayList<>();
        for (int i = 0; i < aToB.rangeVars().size(); i++) {
            shiftSyms.add(AffineExpr.sym(i + nsB));
        }
        List<AffineExpr> shiftRts = new ArrayList<>();
        for (int i = 0; i < aToB.runtimeVars().size(); i++) {
            shiftRts.add(AffineExpr.rt(i + nrB));
        }
        List<AffineExpr> inner = new ArrayList<>();
        for (AffineExpr e : aToB.results()) {
            inner.add(e.replace(null, shiftSyms, shiftRts));
        }
        List<Variable> dims = new ArrayList<>(aToB.dims());
        List<Variable> syms = new ArrayList<>(bToC.rangeVars());
        syms.addAll(aToB.rangeVars());
        List<Variable> rts = new ArrayList<>(bToC.runtimeVars());
        rts.addAll(aToB.runtimeVars());
        List<AffineExpr> results = new ArrayList<>();
        for (AffineExpr e : bToC.results()) {
            results.add(e.replace(inner, null, null));
        }
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>();
        boolean empty = bToC.isKnownEmpty() || aToB.isKnownEmpty();
        for (Map.Entry<AffineExpr, Interval> c : bToC.constraints().entrySet()) {
            empty |= IndexingMap.addConstraint(c.getKey().replace(inner, null, null), c.getValue(),
                    dims, syms, rts, cons);
        }
        for (Map.Entry<AffineExpr, Interval> c : aToB.constraints().entrySet()) {
            empty |= IndexingMap.addConstraint(c.getKey().replace(null, shiftSyms, shiftRts), c.getValue(),
                    dims, syms, rts, cons);
        }
        RangeEvaluator ranges = new RangeEvaluator(bounds(dims), bounds(syms), bounds(rts));
        for (int i = 0; i < inner.size(); i++) {
            Interval needed = bToC.dims().get(i).bounds();
            if (!needed.contains(ranges.range(inner.get(i)))) {
                empty |= IndexingMap.addConstraint(inner.get(i), needed, dims, syms, rts, cons);
            }
        }
        return IndexingMap.make(dims, syms, rts, results, cons, empty || anyEmpty(dims, syms, rts));
    }

    private static List<Interval> bounds(List<Variable> vars) {
        return vars.stream().map(Variable::bounds).toList();
    }

    private static boolean anyEmpty(List<Variable> d, List<Variable> s, List<Variable> r) {
        return d.stream().anyMatch(v -> v.bounds().isEmpty()) || s.stream().anyMatch(v -> v.bounds().isEmpty())
                || r.stream().anyMatch(v -> v.bounds().isEmpty());
    }
}
