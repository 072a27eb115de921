package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * What XLA's CPU pipeline knows of a {@code while} before it runs, as far as it decides which
 * elementwise work is rounded where: whether it can count the loop's trips (then a loop of none
 * is its initial value and a loop of one is its body inlined, so that work fuses across the
 * loop's edges), and which instructions of a body its loop-invariant code motion hoists out
 * (then they are arrays in memory, rounded before the body's work that reads them).
 */
final class LoopAnalysis {
    /** Invariant instructions XLA does not hoist for their own sake, only with a user that it hoists. */
    private static final Set<String> NOT_WORTH_HOISTING_ALONE = Set.of("constant", "reshape", "bitcast", "broadcast", "iota",
            "reverse", "slice", "transpose", "tuple");

    private LoopAnalysis() {
    }

    /**
     * {@return the instructions of {@code body} that XLA's loop-invariant code motion computes
     * before the loop} Invariant are the elements the body passes on unchanged, constants, and
     * what is computed from invariant values only; of those, all but cheap moves and constants
     * are hoisted (XLA's {@code WhileLoopInvariantCodeMotion}, which skips a loop of at most one
     * trip: the caller does not ask for one).
     */
    static Set<String> hoisted(HloComputation body) {
        String param = body.parameter(0).name();
        Set<String> invariant = new HashSet<>();
        for (HloInstruction i : body.instructions()) {
            if (i.opcode().equals("get-tuple-element") && i.operands().getFirst().equals(param) && i.shape() instanceof ArrayShape
                    && passesOn(body, (int) i.intValue("index", -1))) {
                invariant.add(i.name());
            }
        }
        Set<String> hoisted = new HashSet<>();
        if (invariant.isEmpty()) {
            // XLA gives up on a loop that passes nothing on unchanged.
            return hoisted;
        }
        Map<String, Boolean> memo = new HashMap<>();
        for (HloInstruction i : body.instructions()) {
            if (isInvariant(body, i, invariant, memo) && !invariant.contains(i.name()) && !i.opcode().equals("parameter")
                    && !NOT_WORTH_HOISTING_ALONE.contains(i.opcode())) {
                hoisted.add(i.name());
            }
        }
        return hoisted;
    }

    private static boolean isInvariant(HloComputation body, HloInstruction i, Set<String> invariantGtes, Map<String, Boolean> memo) {
        Deque<HloInstruction> stack = new ArrayDeque<>();
        stack.push(i);
        while (!stack.isEmpty()) {
            HloInstruction top = stack.peek();
            if (memo.containsKey(top.name())) {
                stack.pop();
                continue;
            }
            if (invariantGtes.contains(top.name()) || top.opcode().equals("constant")) {
                memo.put(top.name(), true);
                stack.pop();
                continue;
            }
            if (top.opcode().equals("parameter")) {
                memo.put(top.name(), false);
                stack.pop();
                continue;
            }
            boolean ready = true;
            boolean all = true;
            for (String o : top.operands()) {
                Boolean known = memo.get(o);
                if (known == null) {
                    stack.push(body.instruction(o));
                    ready = false;
                } else {
                    all &= known;
                }
            }
            if (ready) {
                memo.put(top.name(), all);
                stack.pop();
            }
        }
        return memo.get(i.name());
    }

    /**
     * {@return whether XLA counts the trips of the loop before it runs} It does when one element,
     * the counter, starts at a constant, the condition reads only the counter, and the body
     * computes the next counter from the counter alone (constants, and elements the body passes on
     * unchanged that start as constants, which XLA sinks into the loop, count as constants).
     *
     * @param constantInit whether element {@code k} of the loop's initial value is a constant
     */
    static boolean countsTrips(HloComputation condition, HloComputation body, IntPredicate constantInit) {
        HloInstruction root = body.root();
        if (!root.opcode().equals("tuple")) {
            return false;
        }
        Set<Integer> sunk = new HashSet<>();
        for (int k = 0; k < root.operands().size(); k++) {
            if (passesOn(body, k) && constantInit.test(k)) {
                sunk.add(k);
            }
        }
        Set<Integer> read = elementsRead(condition, condition.root());
        if (read == null) {
            return false;
        }
        read.removeAll(sunk);
        if (read.size() != 1) {
            return false;
        }
        int counter = read.iterator().next();
        if (counter >= root.operands().size() || !constantInit.test(counter)) {
            return false;
        }
        Set<Integer> next = elementsRead(body, body.instruction(root.operands().get(counter)));
        if (next == null) {
            return false;
        }
        next.removeAll(sunk);
        next.remove(counter);
        return next.isEmpty();
    }

    /**
     * {@return whether {@code body} passes element {@code k} of its value on unchanged} Moves XLA's
     * simplifier removes first count as unchanged: a transpose in the same order, a reshape or
     * bitcast to the same dims, a copy into the same layout.
     */
    static boolean passesOn(HloComputation body, int k) {
        HloInstruction root = body.root();
        if (!root.opcode().equals("tuple") || k < 0 || k >= root.operands().size()) {
            return false;
        }
        HloInstruction passed = body.instruction(root.operands().get(k));
        while (isIdentity(body, passed)) {
            passed = body.instruction(passed.operands().getFirst());
        }
        return passed.opcode().equals("get-tuple-element") && passed.operands().getFirst().equals(body.parameter(0).name())
                && passed.intValue("index", -1) == k;
    }

    private static boolean isIdentity(HloComputation body, HloInstruction i) {
        if (!(i.shape() instanceof ArrayShape a) || i.operands().size() != 1
                || !(body.instruction(i.operands().getFirst()).shape() instanceof ArrayShape from)) {
            return false;
        }
        return switch (i.opcode()) {
            case "transpose" -> {
                List<Long> perm = i.ints("dimensions");
                yield java.util.stream.IntStream.range(0, perm.size()).allMatch(d -> perm.get(d) == d);
            }
            case "reshape", "bitcast" -> a.dims().equals(from.dims()) && a.laidOut().equals(from.laidOut());
            case "copy" -> a.laidOut().equals(from.laidOut());
            default -> false;
        };
    }

    /** {@return the elements of the parameter that {@code from} reads, or null where it reads the parameter whole} */
    private static Set<Integer> elementsRead(HloComputation comp, HloInstruction from) {
        String param = comp.parameter(0).name();
        Set<Integer> read = new HashSet<>();
        Set<String> seen = new HashSet<>();
        Deque<HloInstruction> stack = new ArrayDeque<>();
        stack.push(from);
        while (!stack.isEmpty()) {
            HloInstruction i = stack.pop();
            if (!seen.add(i.name())) {
                continue;
            }
            if (i.opcode().equals("parameter")) {
                return null;
            }
            if (i.opcode().equals("get-tuple-element") && i.operands().getFirst().equals(param)) {
                read.add((int) i.intValue("index", -1));
                continue;
            }
            for (String o : i.operands()) {
                stack.push(comp.instruction(o));
            }
        }
        return read;
    }
}
