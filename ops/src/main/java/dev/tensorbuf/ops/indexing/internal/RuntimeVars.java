package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.IntFunction;

/**
 * Replaces runtime variables whose value is known where XLA does: one bound to a scalar integer
 * constant inside its range, a variable with a point range (unless a constant says otherwise),
 * one bound to an iota (its value is the index along the iota dimension); and drops variables
 * nothing uses.
 */
final class RuntimeVars {
    private RuntimeVars() {
    }

    /**
     * {@return {@code o} with each variable bound to an integer constant inside its range replaced
     * by that constant} Call it before simplifying: simplification narrows a variable's range to
     * the values for which the map reads anything (a pad's data, say), and a constant outside
     * that narrowed range means the map reads nothing, not that the offset is the range's one
     * point. A constant outside the op's own range stays a variable, as XLA keeps it.
     */
    static OperandIndexing substituteConstants(OperandIndexing o) {
        IndexingMap m = o.map();
        if (m.isUndefined() || m.isKnownEmpty() || m.runtimeVars().isEmpty()) {
            return o;
        }
        Map<Integer, AffineExpr> known = new HashMap<>();
        for (int i = 0; i < m.runtimeVars().size(); i++) {
            OptionalLong value = constantValue(o.runtimeVariables().get(i).instruction());
            if (value.isPresent() && m.runtimeVars().get(i).bounds().contains(value.getAsLong())) {
                known.put(i, Maps.c(value.getAsLong()));
            }
        }
        return known.isEmpty() ? o : replace(o, known);
    }

    private static OptionalLong constantValue(HloInstruction instr) {
        if (!instr.opcode().equals("constant") || !instr.payload().matches("-?\\d+")) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(instr.payload()));
        } catch (NumberFormatException pastLong) {
            // A u64 offset past 2^63 - 1 is past every dimension: it clamps to the top of the range.
            return OptionalLong.of(Long.MAX_VALUE);
        }
    }

    /**
     * {@return {@code o} with each scalar offset variable whose instruction is a chain of scalar
     * adds, subtracts and multiplies of one value {@code x} by integer constants ({@code rt =
     * a * x + b}, as in XLA's {@code FusionWithRTVarsSimplification_ChainedOps}: {@code
     * multiply(2, add(42, p1))}) rebound to {@code x} and written {@code a * rt + b}} Only where
     * the fold is exact: dynamic-slice and dynamic-update-slice clamp an offset to its range
     * {@code [lo, hi]}, and {@code a * x + b} clamped to it equals {@code a * x' + b} for {@code x}
     * clamped to {@code [lo', hi']} only when {@code lo - b} and {@code hi - b} divide by
     * {@code a}; the new variable then ranges over {@code [lo', hi']}. (XLA 2025-04 folded every
     * such chain and kept {@code [lo, hi]} for {@code x}, which reads outside the operand.) Like
     * XLA, this takes the chain's arithmetic not to wrap around its integer type.
     *
     * @param ctx the computation holding the op, for the chain's operands
     * @param o an op's own indexing, before composition or simplification narrows its ranges
     */
    static OperandIndexing foldAffine(Ctx ctx, OperandIndexing o) {
        IndexingMap m = o.map();
        if (m.isUndefined() || m.isKnownEmpty() || m.runtimeVars().isEmpty()) {
            return o;
        }
        List<Variable> rts = new ArrayList<>(m.runtimeVars());
        List<RuntimeVariable> bindings = new ArrayList<>(o.runtimeVariables());
        Map<Integer, AffineExpr> replaced = new HashMap<>();
        for (int i = 0; i < rts.size(); i++) {
            RuntimeVariable rv = bindings.get(i);
            if (!rv.map().results().isEmpty()) {
                continue;
            }
            long[] ab = {1, 0};
            HloInstruction x = affineChain(ctx, rv.instruction(), ab);
            Interval r = rts.get(i).bounds();
            if (x == rv.instruction() || ab[0] == 0 || r.isEmpty()) {
                continue;
            }
            try {
                long lo = Math.subtractExact(r.lo(), ab[1]);
                long hi = Math.subtractExact(r.hi(), ab[1]);
                if (lo % ab[0] != 0 || hi % ab[0] != 0) {
                    continue;
                }
                long a = lo / ab[0];
                long b = hi / ab[0];
                rts.set(i, rts.get(i).withBounds(new Interval(Math.min(a, b), Math.max(a, b))));
            } catch (ArithmeticException overflow) {
                continue;
            }
            bindings.set(i, new RuntimeVariable(x, rv.map()));
            replaced.put(i, Maps.rt(i).times(ab[0]).plus(Maps.c(ab[1])));
        }
        if (replaced.isEmpty()) {
            return o;
        }
        IntFunction<AffineExpr> rt = i -> replaced.getOrDefault(i, Maps.rt(i));
        List<AffineExpr> results = new ArrayList<>();
        for (AffineExpr e : m.results()) {
            results.add(substitute(e, rt));
        }
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>();
        for (Map.Entry<AffineExpr, Interval> c : m.constraints().entrySet()) {
            cons.merge(substitute(c.getKey(), rt), c.getValue(), Interval::intersect);
        }
        return new OperandIndexing(IndexingMap.of(m.dims(), m.rangeVars(), rts, results, cons), bindings,
                o.replicaId());
    }

    /**
     * {@return the instruction x at the end of the chain of scalar integer adds, subtracts and
     * multiplies by constants that starts at {@code instr}, with {@code ab} updated so that
     * {@code value(instr) = ab[0] * value(x) + ab[1]}; {@code instr} itself when it is no such op}
     */
    private static HloInstruction affineChain(Ctx ctx, HloInstruction instr, long[] ab) {
        HloInstruction x = instr;
        try {
            for (int depth = 0; depth < 64; depth++) {
                String op = x.opcode();
                if (!(op.equals("add") || op.equals("subtract") || op.equals("multiply"))
                        || x.operands().size() != 2 || x.outputShape(0).rank() != 0) {
                    return x;
                }
                HloInstruction l = ctx.operand(x, 0);
                HloInstruction r = ctx.operand(x, 1);
                OptionalLong lc = l.outputShape(0).rank() == 0 ? constantValue(l) : OptionalLong.empty();
                OptionalLong rc = r.outputShape(0).rank() == 0 ? constantValue(r) : OptionalLong.empty();
                if (lc.isPresent() == rc.isPresent()) {
                    return x;
                }
                long c = lc.isPresent() ? lc.getAsLong() : rc.getAsLong();
                HloInstruction next = lc.isPresent() ? r : l;
                // value(x) = k * value(next) + c0, then value(instr) = a * value(x) + b.
                long k;
                long c0;
                switch (op) {
                    case "add" -> { k = 1; c0 = c; }
                    case "multiply" -> { k = c; c0 = 0; }
                    default -> { k = lc.isPresent() ? -1 : 1; c0 = lc.isPresent() ? c : Math.negateExact(c); }
                }
                long b = Math.addExact(ab[1], Math.multiplyExact(ab[0], c0));
                long a = Math.multiplyExact(ab[0], k);
                ab[0] = a;
                ab[1] = b;
                x = next;
            }
        } catch (ArithmeticException overflow) {
            ab[0] = 1;
            ab[1] = 0;
            return instr;
        }
        return x;
    }

    static OperandIndexing optimize(OperandIndexing o) {
        IndexingMap m = o.map();
        if (m.isUndefined() || m.isKnownEmpty() || m.runtimeVars().isEmpty()) {
            return o;
        }
        Map<Integer, AffineExpr> known = new HashMap<>();
        for (int i = 0; i < m.runtimeVars().size(); i++) {
            Interval b = m.runtimeVars().get(i).bounds();
            RuntimeVariable rv = o.runtimeVariables().get(i);
            HloInstruction instr = rv.instruction();
            if (b.isPoint()) {
                // A range narrowed to a point says the map reads only when the variable takes that
                // value. A constant elsewhere does not take it: substituting would drop that condition.
                OptionalLong value = constantValue(instr);
                if (value.isEmpty() || value.getAsLong() == b.lo()) {
                    known.put(i, Maps.c(b.lo()));
                }
            } else if (instr.opcode().equals("iota") && rv.map().rangeVars().isEmpty()
                    && rv.map().runtimeVars().isEmpty() && rv.map().dims().size() == m.dims().size()) {
                int dim = (int) instr.intValue("iota_dimension", 0);
                known.put(i, rv.map().results().get(dim));
            }
        }
        return replace(o, known);
    }

    /** {@return {@code o} with the {@code known} variables replaced and the unused ones dropped, simplified} */
    private static OperandIndexing replace(OperandIndexing o, Map<Integer, AffineExpr> known) {
        IndexingMap m = o.map();
        boolean[] used = new boolean[m.runtimeVars().size()];
        for (AffineExpr e : m.results()) {
            markRuntime(e, used);
        }
        for (AffineExpr e : m.constraints().keySet()) {
            markRuntime(e, used);
        }
        boolean change = !known.isEmpty();
        for (boolean u : used) {
            change |= !u;
        }
        if (!change) {
            return o;
        }
        List<Variable> rts = new ArrayList<>();
        List<RuntimeVariable> bindings = new ArrayList<>();
        int[] newIndex = new int[used.length];
        for (int i = 0; i < used.length; i++) {
            if (used[i] && !known.containsKey(i)) {
                newIndex[i] = rts.size();
                rts.add(m.runtimeVars().get(i));
                bindings.add(o.runtimeVariables().get(i));
            } else {
                newIndex[i] = -1;
            }
        }
        IntFunction<AffineExpr> rt = i -> newIndex[i] >= 0 ? Maps.rt(newIndex[i]) : known.getOrDefault(i, Maps.c(0));
        List<AffineExpr> results = new ArrayList<>();
        for (AffineExpr e : m.results()) {
            results.add(substitute(e, rt));
        }
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>();
        for (Map.Entry<AffineExpr, Interval> c : m.constraints().entrySet()) {
            cons.merge(substitute(c.getKey(), rt), c.getValue(), Interval::intersect);
        }
        IndexingMap rebuilt = IndexingMap.of(m.dims(), m.rangeVars(), rts, results, cons).simplify();
        return new OperandIndexing(rebuilt, bindings, o.replicaId());
    }

    static void markRuntime(AffineExpr e, boolean[] used) {
        switch (e) {
            case AffineExpr.Rt r -> used[r.index()] = true;
            case AffineExpr.Dim d -> { }
            case AffineExpr.Sym s -> { }
            case AffineExpr.Const c -> { }
            case AffineExpr.Add(AffineExpr a, AffineExpr b) -> mark2(a, b, used);
            case AffineExpr.Mul(AffineExpr a, AffineExpr b) -> mark2(a, b, used);
            case AffineExpr.FloorDiv(AffineExpr a, AffineExpr b) -> mark2(a, b, used);
            case AffineExpr.CeilDiv(AffineExpr a, AffineExpr b) -> mark2(a, b, used);
            case AffineExpr.Mod(AffineExpr a, AffineExpr b) -> mark2(a, b, used);
            case AffineExpr.Min(AffineExpr a, AffineExpr b) -> mark2(a, b, used);
            case AffineExpr.Max(AffineExpr a, AffineExpr b) -> mark2(a, b, used);
        }
    }

    private static void mark2(AffineExpr a, AffineExpr b, boolean[] used) {
        markRuntime(a, used);
        markRuntime(b, used);
    }

    /** {@return the expression with each runtime variable {@code rt_i} replaced by {@code rt.apply(i)}} */
    static AffineExpr substitute(AffineExpr e, IntFunction<AffineExpr> rt) {
        return switch (e) {
            case AffineExpr.Rt r -> rt.apply(r.index());
            case AffineExpr.Dim d -> d;
            case AffineExpr.Sym s -> s;
            case AffineExpr.Const c -> c;
            case AffineExpr.Add(AffineExpr a, AffineExpr b) -> substitute(a, rt).plus(substitute(b, rt));
            case AffineExpr.Mul(AffineExpr a, AffineExpr b) -> substitute(a, rt).times(substitute(b, rt));
            case AffineExpr.FloorDiv(AffineExpr a, AffineExpr b) -> substitute(a, rt).floorDiv(substitute(b, rt));
            case AffineExpr.CeilDiv(AffineExpr a, AffineExpr b) -> substitute(a, rt).ceilDiv(substitute(b, rt));
            case AffineExpr.Mod(AffineExpr a, AffineExpr b) -> substitute(a, rt).mod(substitute(b, rt));
            case AffineExpr.Min(AffineExpr a, AffineExpr b) -> substitute(a, rt).min(substitute(b, rt));
            case AffineExpr.Max(AffineExpr a, AffineExpr b) -> substitute(a, rt).max(substitute(b, rt));
        };
    }
}
