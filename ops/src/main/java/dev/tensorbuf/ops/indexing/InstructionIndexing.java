package dev.tensorbuf.ops.indexing;

import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The indexing of one instruction in one direction: for output-to-input, one set of maps per
 * operand; for input-to-output, one set per output. Equal maps appear once.
 *
 * {@snippet :
 * HloModule m = HloModule.parse("""
 *     HloModule m
 *     ENTRY e {
 *       p0 = f32[20] parameter(0)
 *       ROOT bc0 = f32[10,20,30] broadcast(p0), dimensions={1}
 *     }""");
 * HloIndexing.outputToInput(m, m.entry().root()).toString();
 * // "operand id = 0 (d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]\n"
 * }
 *
 * @param indexing one set per operand (or output), in order
 */
public record InstructionIndexing(List<Set<OperandIndexing>> indexing) {

    public InstructionIndexing {
        List<Set<OperandIndexing>> copy = new ArrayList<>();
        for (Set<OperandIndexing> s : indexing) {
            copy.add(Collections.unmodifiableSet(new LinkedHashSet<>(s)));
        }
        indexing = Collections.unmodifiableList(copy);
    }

    /** {@return the maps of one operand (or output)} @param id its number */
    public Set<OperandIndexing> operand(int id) {
        if (id < 0 || id >= indexing.size()) {
            throw Errors.outOfBounds("operand id", id, indexing.size(), "");
        }
        return indexing.get(id);
    }

    /** Prints as XLA's {@code HloInstructionIndexing::ToString()}: {@code operand id = N} and each map. */
    @Override
    public String toString() {
        return toText(IndexingMap.Notation.XLA);
    }

    /** {@return the text in the given spelling (see {@link OperandIndexing#toText})} @param style the spelling */
    public String toText(IndexingMap.Notation style) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < indexing.size(); i++) {
            for (OperandIndexing o : indexing.get(i)) {
                out.append("operand id = ").append(i).append(' ').append(o.toText(style)).append('\n');
            }
        }
        return out.toString();
    }
}
