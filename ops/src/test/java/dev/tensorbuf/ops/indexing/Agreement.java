package dev.tensorbuf.ops.indexing;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Brute-force check that an instruction's input-to-output maps invert its output-to-input maps:
 * both are enumerated into the relation {(output index, input index)} over all dimension and
 * range-variable points, with runtime variables taking the values a given environment holds at
 * the index their binding map gives, and the two relations must be equal.
 */
final class Agreement {
    private Agreement() {
    }

    /** What an instruction holds at an index (the runtime values of offsets and start indices). */
    interface Env {
        long value(HloInstruction instruction, long[] index);
    }

    record Pair(List<Long> output, List<Long> input) {
    }

    /** {@return null when they agree, else what differs} */
    static String check(HloModule module, HloInstruction instr, int operand, int output, Env env) {
        ArrayShape out = instr.outputShape(output);
        ArrayShape in = module.computationOf(instr).instruction(instr.operands().get(operand)).outputShape(0);
        Set<OperandIndexing> o2i = HloIndexing.outputToInput(module, instr, output, false).operand(operand);
        Set<OperandIndexing> i2o = HloIndexing.inputToOutput(module, instr, operand, false).operand(output);
        Set<Pair> fromOutputs = new HashSet<>();
        for (OperandIndexing o : o2i) {
            String bad = enumerate(o, out, env, (d, r) -> {
                // A read outside the operand reads nothing (XLA's update map of a
                // dynamic-update-slice has no constraint keeping it inside the update).
                if (inside(r, in)) {
                    fromOutputs.add(new Pair(list(d), list(r)));
                }
            });
            if (bad != null) {
                return "output-to-input: " + bad;
            }
        }
        Set<Pair> fromInputs = new HashSet<>();
        List<String> outside = new ArrayList<>();
        for (OperandIndexing o : i2o) {
            String bad = enumerate(o, in, env, (d, r) -> {
                if (!inside(r, out)) {
                    outside.add(Arrays.toString(d) + " -> " + Arrays.toString(r));
                }
                fromInputs.add(new Pair(list(r), list(d)));
            });
            if (bad != null) {
                return "input-to-output: " + bad;
            }
        }
        if (!outside.isEmpty()) {
            return "input-to-output reaches outside the output " + out + ": " + outside.getFirst() + "\n  " + i2o;
        }
        if (!fromOutputs.equals(fromInputs)) {
            Set<Pair> onlyO2i = new HashSet<>(fromOutputs);
            onlyO2i.removeAll(fromInputs);
            Set<Pair> onlyI2o = new HashSet<>(fromInputs);
            onlyI2o.removeAll(fromOutputs);
            return "relations differ: " + onlyO2i.size() + " pairs only from output-to-input (e.g. "
                    + onlyO2i.stream().findFirst().orElse(null) + "), " + onlyI2o.size()
                    + " only from input-to-output (e.g. " + onlyI2o.stream().findFirst().orElse(null) + ")\n  o2i: "
                    + o2i + "\n  i2o: " + i2o;
        }
        return null;
    }

    /** {@return the number of pairs in the output-to-input relation (to reject vacuous cases)} */
    static int size(HloModule module, HloInstruction instr, int operand, int output, Env env) {
        ArrayShape out = instr.outputShape(output);
        Set<Pair> pairs = new HashSet<>();
        for (OperandIndexing o : HloIndexing.outputToInput(module, instr, output, false).operand(operand)) {
            enumerate(o, out, env, (d, r) -> pairs.add(new Pair(list(d), list(r))));
        }
        return pairs.size();
    }

    private static String enumerate(OperandIndexing o, ArrayShape domain, Env env, java.util.function.BiConsumer<long[], long[]> sink) {
        IndexingMap m = o.map();
        if (m.isUndefined()) {
            return "undefined map";
        }
        if (m.isKnownEmpty()) {
            return null;
        }
        for (RuntimeVariable rv : o.runtimeVariables()) {
            if (!rv.map().runtimeVars().isEmpty()) {
                return "runtime variable map with runtime variables of its own: " + rv;
            }
        }
        String[] bad = new String[1];
        forEach(m.dims(), d -> {
            if (!inside(d, domain)) {
                bad[0] = "domain point " + Arrays.toString(d) + " outside " + domain + " in " + m;
            }
            forEach(m.rangeVars(), s -> {
                long[] rt = new long[m.runtimeVars().size()];
                for (int j = 0; j < rt.length; j++) {
                    RuntimeVariable rv = o.runtimeVariables().get(j);
                    long[] rs = rv.map().rangeVars().isEmpty() ? new long[0] : s;
                    rt[j] = env.value(rv.instruction(), rv.map().evaluate(d, rs, new long[0]));
                }
                if (m.contains(d, s, rt)) {
                    sink.accept(d, m.evaluate(d, s, rt));
                }
            });
        });
        return bad[0];
    }

    private static boolean inside(long[] p, ArrayShape shape) {
        if (p.length != shape.rank()) {
            return false;
        }
        for (int i = 0; i < p.length; i++) {
            if (p[i] < 0 || p[i] >= shape.dim(i)) {
                return false;
            }
        }
        return true;
    }

    private static List<Long> list(long[] p) {
        return Arrays.stream(p).boxed().toList();
    }

    private static void forEach(List<Variable> vars, Consumer<long[]> action) {
        Interval[] box = vars.stream().map(Variable::bounds).toArray(Interval[]::new);
        for (Interval i : box) {
            if (i.isEmpty()) {
                return;
            }
        }
        long[] p = new long[box.length];
        for (int i = 0; i < box.length; i++) {
            p[i] = box[i].lo();
        }
        while (true) {
            action.accept(p.clone());
            int k = box.length - 1;
            while (k >= 0 && p[k] == box[k].hi()) {
                p[k] = box[k].lo();
                k--;
            }
            if (k < 0) {
                return;
            }
            p[k]++;
        }
    }
}
