package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Composition of operand indexings through a chain of instructions, keeping runtime variables bound. */
final class Composition {
    private Composition() {
    }

    /**
     * {@return the indexing from the consumer's domain to the producer's operand: {@code producer}
     * applied after {@code consumer}}, simplified, with known runtime variables replaced and
     * unused range variables dropped
     *
     * @param consumer from the start's output to the producer's output
     * @param producer from the producer's output to one of its operands
     */
    static OperandIndexing compose(OperandIndexing consumer, OperandIndexing producer) {
        if (consumer.isUndefined() || producer.isUndefined()
                || consumer.replicaId().isPresent() && producer.replicaId().isPresent()) {
            return OperandIndexing.of(IndexingMap.undefined());
        }
        IndexingMap map = IndexingMap.compose(producer.map(), consumer.map());
        List<RuntimeVariable> bindings = new ArrayList<>();
        // IndexingMap.compose lists the runtime variables of its first argument first.
        for (RuntimeVariable rv : producer.runtimeVariables()) {
            bindings.add(new RuntimeVariable(rv.instruction(), runtimeMap(rv.map(), consumer.map())));
        }
        bindings.addAll(consumer.runtimeVariables());
        Optional<IndexingMap> replica = consumer.replicaId()
                .or(() -> producer.replicaId().map(r -> IndexingMap.compose(r, consumer.map()).simplify()));
        return finish(new OperandIndexing(map, bindings, replica));
    }

    /**
     * {@return a runtime variable's map seen from the consumer's domain} As XLA's composition,
     * it keeps each bound of the producer's dimensions as a constraint on the consumer's result
     * expression ({@code d0 + rt0 in [0, 49]}), even where the bounds already imply it: XLA does
     * not simplify runtime-variable maps, and we print them as it does.
     */
    private static IndexingMap runtimeMap(IndexingMap rvMap, IndexingMap consumer) {
        IndexingMap map = IndexingMap.compose(rvMap, consumer);
        if (map.isKnownEmpty() || !rvMap.rangeVars().isEmpty() || !rvMap.runtimeVars().isEmpty()) {
            // The consumer's variables are renumbered after the producer's; keep the plain composition.
            return map;
        }
        for (int i = 0; i < consumer.results().size(); i++) {
            if (!(consumer.results().get(i) instanceof AffineExpr.Dim)) {
                map = map.withConstraint(consumer.results().get(i), rvMap.dims().get(i).bounds());
            }
        }
        return map;
    }

    /** {@code compose} hands over defined maps only: it returns the undefined map itself. */
    static OperandIndexing finish(OperandIndexing o) {
        if (o.map().isKnownEmpty()) {
            return emptied(o.map(), o.replicaId());
        }
        OperandIndexing bound = RuntimeVars.substituteConstants(o);
        IndexingMap simplified = bound.map().simplify();
        OperandIndexing optimized = RuntimeVars.optimize(
                new OperandIndexing(simplified, bound.runtimeVariables(), bound.replicaId()));
        if (optimized.map().isKnownEmpty()) {
            return emptied(optimized.map(), optimized.replicaId());
        }
        // As XLA's OperandIndexing::RemoveUnusedSymbols: a runtime variable dropped from the map
        // (only in constraints on variables no result uses) takes its binding with it.
        boolean[] kept = keptRuntimeVars(optimized.map());
        List<RuntimeVariable> bindings = new ArrayList<>();
        for (int i = 0; i < kept.length; i++) {
            if (kept[i]) {
                bindings.add(optimized.runtimeVariables().get(i));
            }
        }
        return new OperandIndexing(optimized.map().removeUnusedSymbols(), bindings, optimized.replicaId());
    }

    /**
     * {@return a known-empty map without runtime variables or their bindings, however it became
     * empty} A known-empty map's results are zeros and it has no constraints (as after XLA's
     * {@code ResetToKnownEmpty}), so removing unused symbols drops every range and runtime
     * variable, and XLA's {@code OperandIndexing::RemoveUnusedSymbols} drops their bindings with them.
     */
    private static OperandIndexing emptied(IndexingMap map, Optional<IndexingMap> replicaId) {
        return new OperandIndexing(map.removeUnusedSymbols(), List.of(), replicaId);
    }

    /**
     * {@return for each runtime variable of {@code map}, whether {@link IndexingMap#removeUnusedSymbols()}
     * keeps it} As there and in XLA's {@code DetectUnusedVariables}: a variable a result uses is
     * kept, and a constraint that uses a dimension or a kept variable keeps every variable it uses.
     */
    static boolean[] keptRuntimeVars(IndexingMap map) {
        int ns = map.rangeVars().size();
        int n = ns + map.runtimeVars().size();
        boolean[] kept = new boolean[n];
        for (AffineExpr e : map.results()) {
            boolean[] u = uses(e, map);
            for (int k = 0; k < n; k++) {
                kept[k] |= u[k];
            }
        }
        List<boolean[]> pending = new ArrayList<>();
        for (AffineExpr c : map.constraints().keySet()) {
            pending.add(uses(c, map));
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (java.util.Iterator<boolean[]> it = pending.iterator(); it.hasNext(); ) {
                boolean[] u = it.next();
                boolean touches = u[n];
                for (int k = 0; k < n; k++) {
                    touches |= u[k] && kept[k];
                }
                if (touches) {
                    it.remove();
                    for (int k = 0; k < n; k++) {
                        kept[k] |= u[k];
                    }
                    changed = true;
                }
            }
        }
        return java.util.Arrays.copyOfRange(kept, ns, n);
    }

    /**
     * {@return whether {@code e} uses each range variable of {@code map}, then each runtime
     * variable, then (the last entry) any dimension} A variable renamed to one past the last of
     * its kind changes the expression exactly when the expression uses it.
     */
    private static boolean[] uses(AffineExpr e, IndexingMap map) {
        int nd = map.dims().size();
        int ns = map.rangeVars().size();
        int nr = map.runtimeVars().size();
        AffineExpr same = e.replace(null, null, null);
        boolean[] out = new boolean[ns + nr + 1];
        for (int k = 0; k < ns; k++) {
            out[k] = !e.replace(null, renamed(ns, k, AffineExpr::sym), null).equals(same);
        }
        for (int k = 0; k < nr; k++) {
            out[ns + k] = !e.replace(null, null, renamed(nr, k, AffineExpr::rt)).equals(same);
        }
        for (int k = 0; k < nd; k++) {
            out[ns + nr] |= !e.replace(renamed(nd, k, AffineExpr::dim), null, null).equals(same);
        }
        return out;
    }

    /** {@return variables 0 to {@code count - 1} of one kind as they are, but {@code k} renamed to {@code count}} */
    private static List<AffineExpr> renamed(int count, int k, java.util.function.IntFunction<AffineExpr> var) {
        List<AffineExpr> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(var.apply(i == k ? count : i));
        }
        return out;
    }
}
