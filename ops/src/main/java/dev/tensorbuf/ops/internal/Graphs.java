package dev.tensorbuf.ops.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** Walks of graphs this module builds (expressions, HLO operands), with stacks of their own: a chain of ops runs thousands deep. */
public final class Graphs {
    private Graphs() {
    }

    /**
     * {@return the distinct nodes of the graph from {@code root} (by identity), each after those
     * {@code operands} gives it, in order, {@code root} last}
     */
    public static <T> List<T> postOrder(T root, Function<T, List<? extends T>> operands) {
        List<T> order = new ArrayList<>();
        Set<T> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<T> nodes = new ArrayDeque<>();
        ArrayDeque<Integer> nextArg = new ArrayDeque<>();
        nodes.push(root);
        nextArg.push(0);
        seen.add(root);
        while (!nodes.isEmpty()) {
            T x = nodes.peek();
            int k = nextArg.pop();
            List<? extends T> args = operands.apply(x);
            if (k < args.size()) {
                nextArg.push(k + 1);
                T a = args.get(k);
                if (seen.add(a)) {
                    nodes.push(a);
                    nextArg.push(0);
                }
            } else {
                nodes.pop();
                order.add(x);
            }
        }
        return order;
    }
}
