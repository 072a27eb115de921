package dev.tensorbuf.views.indexing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Variable bookkeeping on maps: removing, converting and rescaling variables. */
final class MapOps {
    private MapOps() {}

    /** Which variables an expression uses: [kind][index]. */
    private static boolean[][] used(IndexingMap m) {
        return new boolean[][] {new boolean[m.dims().size()], new boolean[m.rangeVars().size()],
                new boolean[m.runtimeVars().size()]};
    }

    static IndexingMap removeUnused(IndexingMap m, boolean includeDims) {
        if (m.isUndefined()) {
            return m;
        }
        boolean[][] used = used(m);
        for (AffineExpr e : m.results()) {
            Exprs.forEachVar(e, (k, i) -> used[k][i] = true);
        }
        if (!includeDims) {
            java.util.Arrays.fill(used[0], true);
        }
        // A constraint stays when it touches a used variable; its variables then count as used.
        Map<AffineExpr, Interval> kept = new LinkedHashMap<>();
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Map.Entry<AffineExpr, Interval> c : m.constraints().entrySet()) {
                if (kept.containsKey(c.getKey())) {
                    continue;
                }
                boolean[] touches = {false};
                Exprs.forEachVar(c.getKey(), (k, i) -> touches[0] |= used[k][i]);
                if (touches[0]) {
                    kept.put(c.getKey(), c.getValue());
                    Exprs.forEachVar(c.getKey(), (k, i) -> used[k][i] = true);
                    changed = true;
                }
            }
        }
        List<List<Variable>> vars = List.of(m.dims(), m.rangeVars(), m.runtimeVars());
        List<List<Variable>> out = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        List<List<AffineExpr>> repl = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < vars.get(k).size(); i++) {
                if (used[k][i]) {
                    repl.get(k).add(var(k, out.get(k).size()));
                    out.get(k).add(vars.get(k).get(i));
                } else {
                    repl.get(k).add(AffineExpr.constant(0));
                }
            }
        }
        List<AffineExpr> results = m.results().stream().map(e -> e.replace(repl.get(0), repl.get(1), repl.get(2)))
                .toList();
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>();
        kept.forEach((e, in) -> cons.put(e.replace(repl.get(0), repl.get(1), repl.get(2)), in));
        return IndexingMap.make(out.get(0), out.get(1), out.get(2), results, cons, m.isKnownEmpty());
    }

    private static AffineExpr var(int kind, int i) {
        return kind == 0 ? AffineExpr.dim(i) : kind == 1 ? AffineExpr.sym(i) : AffineExpr.rt(i);
    }

    static IndexingMap convertSymbolsToDimensions(IndexingMap m) {
        int nd = m.dims().size();
        int ns = m.rangeVars().size();
        List<AffineExpr> syms = new ArrayList<>();
        for (int i = 0; i < ns; i++) {
            syms.add(AffineExpr.dim(nd + i));
        }
        List<AffineExpr> rts = new ArrayList<>();
        for (int i = 0; i < m.runtimeVars().size(); i++) {
            rts.add(AffineExpr.dim(nd + ns + i));
        }
        List<Variable> dims = new ArrayList<>(m.dims());
        dims.addAll(m.rangeVars());
        dims.addAll(m.runtimeVars());
        return rebuild(m, dims, List.of(), List.of(), null, syms, rts);
    }

    static IndexingMap convertRangeVariablesToDimensions(IndexingMap m, List<Integer> indices) {
        List<Variable> dims = new ArrayList<>(m.dims());
        List<Variable> syms = new ArrayList<>();
        AffineExpr[] repl = new AffineExpr[m.rangeVars().size()];
        for (int idx : indices) {
            if (idx < 0 || idx >= repl.length || repl[idx] != null) {
                throw new IndexOutOfBoundsException("range variable index " + idx + " out of bounds [0, "
                        + repl.length + ") or repeated in " + indices);
            }
            repl[idx] = AffineExpr.dim(dims.size());
            dims.add(m.rangeVars().get(idx));
        }
        for (int i = 0; i < repl.length; i++) {
            if (repl[i] == null) {
                repl[i] = AffineExpr.sym(syms.size());
                syms.add(m.rangeVars().get(i));
            }
        }
        return rebuild(m, dims, syms, m.runtimeVars(), null, List.of(repl), null);
    }

    private static IndexingMap rebuild(IndexingMap m, List<Variable> dims, List<Variable> syms, List<Variable> rts,
                                       List<AffineExpr> dimRepl, List<AffineExpr> symRepl, List<AffineExpr> rtRepl) {
        List<AffineExpr> results = m.results().stream().map(e -> e.replace(dimRepl, symRepl, rtRepl)).toList();
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>();
        m.constraints().forEach((e, in) -> cons.put(e.replace(dimRepl, symRepl, rtRepl), in));
        return IndexingMap.of(dims, syms, rts, results, cons).withKnownEmpty(m.isKnownEmpty());
    }

    static IndexingMap rescaleSymbols(IndexingMap m) {
        if (m.isKnownEmpty() || m.isUndefined()) {
            return m;
        }
        return Rescaler.rescale(m);
    }
}
