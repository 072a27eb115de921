package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Binds arguments to the entry computation's parameters, by name ({@code p0}, {@code %p0}) or
 * number ({@code 0}), and checks each against its parameter's type and dims.
 */
public final class Arguments {
    private Arguments() {
    }

    /**
     * {@return the argument of every parameter, by parameter name}
     *
     * @throws IllegalArgumentException for a key naming no parameter, a parameter bound twice or
     *     not at all, or an argument whose type or dims differ from its parameter's
     */
    public static Map<String, TensorView> bind(HloComputation entry, Map<String, TensorView> given) {
        List<HloInstruction> params = entry.instructions().stream().filter(i -> i.opcode().equals("parameter")).toList();
        // XLA numbers a computation's parameters 0 to n - 1, each once; it refuses other modules.
        boolean[] seen = new boolean[params.size()];
        for (HloInstruction p : params) {
            int n = p.parameterNumber();
            if (n < 0 || n >= params.size() || seen[n]) {
                throw new IllegalArgumentException("parameter " + describe(p) + ": " + entry.name() + " has "
                        + params.size() + " parameter" + (params.size() == 1 ? "" : "s") + ", which XLA numbers 0 to "
                        + (params.size() - 1) + ", each once");
            }
            seen[n] = true;
        }
        Map<String, TensorView> bound = new LinkedHashMap<>();
        Map<String, String> boundBy = new LinkedHashMap<>();
        for (Map.Entry<String, TensorView> e : given.entrySet()) {
            HloInstruction p = resolve(entry, params, e.getKey());
            String earlier = boundBy.put(p.name(), e.getKey());
            if (earlier != null) {
                throw new IllegalArgumentException("parameter " + describe(p) + " is bound twice, as '" + earlier
                        + "' and as '" + e.getKey() + "'");
            }
            check(p, e.getValue());
            bound.put(p.name(), e.getValue());
        }
        List<String> missing = new ArrayList<>();
        for (HloInstruction p : params) {
            if (!bound.containsKey(p.name())) {
                missing.add(describe(p));
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("no argument for parameter" + (missing.size() > 1 ? "s " : " ")
                    + String.join(", ", missing) + "; bind each by name or number");
        }
        return bound;
    }

    /**
     * {@return the parameter {@code key} names, as {@link #bind} resolves it}
     *
     * @throws IllegalArgumentException for a key naming no parameter, listing them
     */
    public static HloInstruction parameter(HloComputation entry, String key) {
        return resolve(entry, entry.instructions().stream().filter(i -> i.opcode().equals("parameter")).toList(), key);
    }

    private static HloInstruction resolve(HloComputation entry, List<HloInstruction> params, String key) {
        AsciiDigits.require(key, 0, key.length(), (problem, at) -> new IllegalArgumentException(
                "'" + key + "' names no parameter of " + entry.name() + ": " + problem + " at position " + at));
        String k = key.startsWith("%") ? key.substring(1) : key;
        for (HloInstruction p : params) {
            if (p.name().equals(k)) {
                return p;
            }
        }
        if (k.matches("\\d{1,9}")) {
            int n = Integer.parseInt(k);
            for (HloInstruction p : params) {
                if (p.parameterNumber() == n) {
                    return p;
                }
            }
        }
        throw new IllegalArgumentException("'" + key + "' names no parameter of " + entry.name() + "; its parameters are "
                + (params.isEmpty() ? "none" : String.join(", ", params.stream().map(Arguments::describe).toList())));
    }

    private static void check(HloInstruction p, TensorView arg) {
        ArrayShape want = p.arrayShape();
        if (arg.dtype() != want.dtype() || !arg.dims().equals(want.dims())) {
            throw new IllegalArgumentException("argument for parameter " + describe(p) + " is " + arg.dtype().xlaName()
                    + arg.dims() + ", expected " + want.dtype().xlaName() + want.dims());
        }
    }

    /** {@return e.g. {@code 0 (p0: f32[2,3]{1,0})}} */
    static String describe(HloInstruction p) {
        return p.parameterNumber() + " (" + p.name() + ": " + p.shape() + ")";
    }
}
