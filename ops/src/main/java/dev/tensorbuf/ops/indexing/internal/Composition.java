package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;
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

    /**
     * {@return {@code o} simplified, with known runtime variables replaced and unused range and
     * runtime variables dropped with their bindings} {@code compose} hands over defined maps only.
     * A known-empty map (results zeros, no constraints, as after XLA's {@code ResetToKnownEmpty})
     * so loses every runtime variable and binding, whether it was empty before or became so here.
     */
    static OperandIndexing finish(OperandIndexing o) {
        OperandIndexing bound = RuntimeVars.substituteConstants(o);
        IndexingMap simplified = bound.map().simplify();
        OperandIndexing optimized = RuntimeVars.optimize(
                new OperandIndexing(simplified, bound.runtimeVariables(), bound.replicaId()));
        // As XLA's OperandIndexing::RemoveUnusedSymbols: a runtime variable dropped from the map
        // (only in constraints on variables no result uses) takes its binding with it. The trimmed
        // map keeps the very variables it keeps, in order, so identity tells which ones (two
        // variables may be equal, so equality cannot).
        IndexingMap trimmed = optimized.map().removeUnusedSymbols();
        List<RuntimeVariable> bindings = new ArrayList<>();
        int i = 0;
        for (Variable kept : trimmed.runtimeVars()) {
            while (optimized.map().runtimeVars().get(i) != kept) {
                i++;
            }
            bindings.add(optimized.runtimeVariables().get(i++));
        }
        return new OperandIndexing(trimmed, bindings, optimized.replicaId());
    }
}
