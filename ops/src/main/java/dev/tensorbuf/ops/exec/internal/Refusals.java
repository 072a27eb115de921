package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What an instruction that does not run does, for its refusal: the real op behind the opcode
 * (a custom-call's target, a collective's replica groups, a loop's computations), so a user
 * sees what their program asked for rather than only an opcode.
 */
public final class Refusals {
    private Refusals() {
    }

    /** Cross-device collectives: the run is of the unpartitioned program on one host, which has no peers. */
    private static final Set<String> COLLECTIVES = Set.of("all-reduce", "all-reduce-start", "all-gather",
            "all-gather-start", "reduce-scatter", "all-to-all", "ragged-all-to-all", "collective-permute",
            "collective-permute-start", "collective-broadcast");

    /** Elementwise functions whose bits come from XLA's own approximations or the C library's. */
    private static final Set<String> APPROXIMATED = Set.of("rsqrt", "cbrt", "exponential", "exponential-minus-one", "log",
            "log-plus-one", "logistic", "tanh", "sine", "cosine", "tan", "atan2", "power", "erf");

    /** {@return what {@code in} asks for beyond its opcode; empty when the opcode says it all} */
    public static String detail(HloInstruction in) {
        return switch (in.opcode()) {
            case "custom-call" -> "custom_call_target=\"" + Interpreter.customCallTarget(in) + "\" is a kernel, not an"
                    + " annotation that runs as the identity (Sharding, xla.sdy.*, and SPMDFullToShardShape or"
                    + " SPMDShardToFullShape where they keep the shape) nor TopK";
            default -> COLLECTIVES.contains(in.opcode()) ? collective(in)
                    : APPROXIMATED.contains(in.opcode()) ? in.opcode() + " is computed by XLA's own approximation or the C"
                            + " library's, whose bits run does not reproduce (run gives XLA's bits or none)"
                    : "";
        };
    }

    private static String collective(HloInstruction in) {
        String where = in.text("replica_groups").map(g -> "replica_groups=" + g + describeGroups(g))
                .or(() -> in.text("source_target_pairs").map(p -> "source_target_pairs=" + p))
                .orElse("all devices");
        return "a collective across devices (" + where + "): the run is of the unpartitioned program on one host,"
                + " with no devices to exchange with";
    }

    private static final Pattern MESH = Pattern.compile("mesh\\[(.*)]\\s*\\{(.*)}");
    private static final Pattern AXIS = Pattern.compile("'([^']*)'\\s*=\\s*(\\d+)");

    /**
     * {@return the device groups of jax 0.10's {@code mesh['a'=2,'b'=2] {'a'}} form, as
     * {@code " (groups {{0,2},{1,3}})"}}: the mesh's devices numbered in row-major order, one group
     * per combination of the axes not listed, running over the listed ones in their order. Empty
     * for the other forms, which list their groups already, and for what is not understood.
     */
    public static String describeGroups(String text) {
        List<List<Long>> groups = meshGroups(text.strip());
        if (groups == null) {
            return "";
        }
        return " (groups " + groups.stream().map(g -> g.stream().map(String::valueOf).collect(Collectors.joining(",", "{", "}")))
                .collect(Collectors.joining(",", "{", "}")) + ")";
    }

    /** {@return the groups of a {@code mesh[...] {...}} replica-group text, or null when it is not one} */
    static List<List<Long>> meshGroups(String text) {
        Matcher m = MESH.matcher(text);
        if (!m.matches()) {
            return null;
        }
        List<String> names = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (String part : m.group(1).split(",")) {
            Matcher a = AXIS.matcher(part.strip());
            if (!a.matches()) {
                return null;
            }
            names.add(a.group(1));
            sizes.add(Long.parseLong(a.group(2)));
        }
        List<Integer> listed = new ArrayList<>();
        for (String part : m.group(2).split(",")) {
            String name = part.strip();
            if (name.length() < 2 || !name.startsWith("'") || !name.endsWith("'")) {
                return null;
            }
            int axis = names.indexOf(name.substring(1, name.length() - 1));
            if (axis < 0 || listed.contains(axis)) {
                return null;
            }
            listed.add(axis);
        }
        int rank = names.size();
        long[] strides = new long[rank];
        long total = 1;
        for (int d = rank - 1; d >= 0; d--) {
            strides[d] = total;
            total = Math.multiplyExact(total, sizes.get(d));
        }
        if (total > 1 << 16) {
            return null;
        }
        List<Integer> others = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            if (!listed.contains(d)) {
                others.add(d);
            }
        }
        List<List<Long>> groups = new ArrayList<>();
        for (long[] fixed : combinations(others, sizes)) {
            long base = 0;
            for (int k = 0; k < others.size(); k++) {
                base += fixed[k] * strides[others.get(k)];
            }
            List<Long> group = new ArrayList<>();
            for (long[] run : combinations(listed, sizes)) {
                long id = base;
                for (int k = 0; k < listed.size(); k++) {
                    id += run[k] * strides[listed.get(k)];
                }
                group.add(id);
            }
            groups.add(group);
        }
        return groups;
    }

    /** {@return every value of the axes {@code axes}, the last varying fastest} */
    private static List<long[]> combinations(List<Integer> axes, List<Long> sizes) {
        List<long[]> out = new ArrayList<>();
        out.add(new long[axes.size()]);
        for (int k = axes.size() - 1; k >= 0; k--) {
            List<long[]> next = new ArrayList<>();
            long n = sizes.get(axes.get(k));
            for (long v = 0; v < n; v++) {
                for (long[] c : out) {
                    long[] d = c.clone();
                    d[k] = v;
                    next.add(d);
                }
            }
            out = next;
        }
        // Built with the first axis varying slowest: sort lexicographically to be sure.
        out.sort((a, b) -> java.util.Arrays.compare(a, b));
        return out;
    }
}
