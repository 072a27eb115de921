package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.ops.hlo.HloInstruction;
import java.util.AbstractList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;

/**
 * A computation's instructions in order, unmodifiable, indexed by name, so that
 * {@code HloComputation}'s lookups take constant time: an interpreter looks up every operand of
 * every instruction (a loop's body on every iteration), which a search in order made quadratic in
 * the computation's size. As a {@link List} it equals any list of the same instructions.
 */
public final class NamedInstructions extends AbstractList<HloInstruction> implements RandomAccess {
    private final HloInstruction[] instructions;
    private final Map<String, HloInstruction> byName = new HashMap<>();

    private NamedInstructions(List<HloInstruction> instructions) {
        this.instructions = instructions.toArray(HloInstruction[]::new);
        for (HloInstruction i : this.instructions) {
            byName.putIfAbsent(i.name(), i);   // the first of a name, as a search in order finds it
        }
    }

    /** {@return {@code instructions}, indexed; the same list where it already is} */
    public static NamedInstructions of(List<HloInstruction> instructions) {
        return instructions instanceof NamedInstructions n ? n : new NamedInstructions(instructions);
    }

    @Override
    public HloInstruction get(int index) {
        return instructions[index];
    }

    @Override
    public int size() {
        return instructions.length;
    }

    /** {@return the first instruction named {@code name} (without {@code %}), or null} */
    public HloInstruction named(String name) {
        return byName.get(name);
    }
}
