package dev.tensorbuf.views.indexing;

import dev.tensorbuf.views.indexing.AffineExpr.Const;
import dev.tensorbuf.views.indexing.AffineExpr.Mod;
import dev.tensorbuf.views.indexing.AffineExpr.Sym;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replaces a range variable {@code s} constrained by {@code s mod m in [r, r]} with
 * {@code s * m + r} and bounds {@code [ceil((lo - r) / m), floor((hi - r) / m)]}, as XLA's
 * {@code RescaleSymbols}. Two such constraints with residue 0 merge into one with the least
 * common multiple; otherwise the first is used and the others stay, rewritten.
 */
final class Rescaler {
    private Rescaler() {}

    static IndexingMap rescale(IndexingMap m) {
        List<Variable> syms = new ArrayList<>(m.rangeVars());
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>(m.constraints());
        List<AffineExpr> results = new ArrayList<>(m.results());
        for (int i = 0; i < syms.size(); i++) {
            long modulus = 0;
            long residue = 0;
            for (Map.Entry<AffineExpr, Interval> c : List.copyOf(cons.entrySet())) {
                if (!(c.getKey() instanceof Mod(Sym(int k), Const(long mm))) || k != i || mm <= 0
                        || !c.getValue().isPoint() || c.getValue().lo() < 0 || c.getValue().lo() >= mm) {
                    continue;
                }
                long r = c.getValue().lo();
                if (modulus == 0) {
                    modulus = mm;
                    residue = r;
                } else if (residue == 0 && r == 0) {
                    modulus = modulus / ExprSimplifier.gcd(modulus, mm) * mm;
                } else {
                    continue;
                }
                cons.remove(c.getKey());
            }
            if (modulus == 0) {
                continue;
            }
            AffineExpr repl = AffineExpr.sym(i).times(modulus).plus(residue);
            List<AffineExpr> with = new ArrayList<>();
            for (int k = 0; k < syms.size(); k++) {
                with.add(k == i ? repl : null);
            }
            results.replaceAll(e -> e.replace(null, with, null));
            Map<AffineExpr, Interval> next = new LinkedHashMap<>();
            cons.forEach((e, in) -> next.merge(e.replace(null, with, null), in, Interval::intersect));
            cons = next;
            Interval b = syms.get(i).bounds();
            syms.set(i, syms.get(i).withBounds(new Interval(Exprs.ceilDiv(b.lo() - residue, modulus),
                    Math.floorDiv(b.hi() - residue, modulus))));
        }
        return IndexingMap.of(m.dims(), syms, m.runtimeVars(), results, cons);
    }
}
