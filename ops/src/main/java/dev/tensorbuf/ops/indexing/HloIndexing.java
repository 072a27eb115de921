package dev.tensorbuf.ops.indexing;

import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.internal.Ctx;
import dev.tensorbuf.ops.indexing.internal.Fusions;
import dev.tensorbuf.ops.indexing.internal.OpIndexing;
import dev.tensorbuf.ops.indexing.internal.Physical;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * HLO indexing analysis (seed 004, XLA's {@code indexing_analysis.h}): for an instruction, the
 * maps from an output index to the operand elements it reads, or from an operand index to the
 * output elements it reaches. Fusions are composed through their computation; equal maps are
 * kept once. An op the analysis does not model gives {@code unknown indexing}, never an exception.
 *
 * {@snippet :
 * HloModule m = HloModule.parse("""
 *     HloModule m
 *     ENTRY e {
 *       p0 = f32[10,20,50] parameter(0)
 *       ROOT s = f32[5,3,25] slice(p0), slice={[5:10:1], [3:20:7], [0:50:2]}
 *     }""");
 * HloIndexing.outputToInput(m, m.entry().root()).operand(0).iterator().next().map().toString();
 * // "(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2), domain: d0 in [0, 4], d1 in [0, 2], d2 in [0, 24]"
 * }
 */
public final class HloIndexing {
    private HloIndexing() {
    }

    /** {@return output 0 to each operand, in logical index space} @param module the module @param instruction one of its instructions */
    public static InstructionIndexing outputToInput(HloModule module, HloInstruction instruction) {
        return outputToInput(module, instruction, 0, false);
    }

    /**
     * {@return one set of maps per operand, from an output index of the instruction}
     *
     * @param module the module holding the instruction (for its computation and called computations)
     * @param instruction the instruction
     * @param outputId which output of a multi-output instruction (0 otherwise)
     * @param physical index physical (layout-ordered) dimensions instead of logical ones
     * @throws IndexOutOfBoundsException if there is no such output
     */
    public static InstructionIndexing outputToInput(HloModule module, HloInstruction instruction, int outputId,
                                                    boolean physical) {
        instruction.outputShape(outputId);
        Ctx ctx = new Ctx(module, module.computationOf(instruction));
        return OpIndexing.ifShapesFit(instruction, () -> {
            List<Set<OperandIndexing>> maps = OpIndexing.outputToInput(ctx, instruction, outputId);
            return new InstructionIndexing(physical ? Physical.outputToInput(ctx, instruction, outputId, maps) : maps);
        });
    }

    /**
     * {@return one set of maps per output, from an index of one operand}
     * Beyond XLA's {@code ComputeInputToOutputIndexing}, which is undefined for them, pad, dot,
     * scaled-dot, dynamic-slice, dynamic-update-slice, gather (simplified form), reduce-window,
     * convolution and fusion have maps here: each is the exact inverse of the op's output-to-input
     * relation.
     *
     * @param module the module holding the instruction
     * @param instruction the instruction
     * @param operand the operand number
     * @param physical index physical (layout-ordered) dimensions instead of logical ones
     * @throws IndexOutOfBoundsException if there is no such operand
     * @throws IllegalArgumentException if the instruction's attributes do not fit its shapes
     */
    public static InstructionIndexing inputToOutput(HloModule module, HloInstruction instruction, int operand,
                                                    boolean physical) {
        if (operand < 0 || operand >= instruction.operands().size()) {
            throw Errors.outOfBounds("operand", operand, instruction.operands().size(),
                    instruction.opcode() + " " + instruction.name());
        }
        Ctx ctx = new Ctx(module, module.computationOf(instruction));
        return OpIndexing.ifShapesFit(instruction, () -> {
            List<Set<OperandIndexing>> maps = OpIndexing.inputToOutput(ctx, instruction, operand);
            return new InstructionIndexing(physical ? Physical.inputToOutput(ctx, instruction, operand, maps) : maps);
        });
    }

    /**
     * {@return for each instruction of a group reached from {@code start}, and each input of the
     * group it reaches, the maps from the start's output to that instruction's output}
     * (XLA's {@code ComputeGroupedOutputToInputIndexing}).
     *
     * @param module the module
     * @param computation where the group lives
     * @param inGroup which instructions belong to the group
     * @param start the instruction indexing starts from (its own map is the identity)
     */
    public static Map<String, Set<OperandIndexing>> groupedOutputToInput(HloModule module, HloComputation computation,
                                                                        Predicate<HloInstruction> inGroup,
                                                                        HloInstruction start) {
        Ctx ctx = new Ctx(module, computation);
        return Fusions.grouped(ctx, inGroup, start, OperandIndexing.of(identity(start)));
    }

    /**
     * {@return the map from an output index of {@code parent} to the output index of {@code root}
     * it becomes, following the chain of users from parent to root (XLA's
     * {@code ComputeEpilogueInputToOutputIndexing})}
     *
     * @param module the module
     * @param computation where both live
     * @param parent where the chain starts
     * @param root where it ends
     * @throws IllegalArgumentException if root is not reached from parent through single users
     */
    public static IndexingMap epilogueInputToOutput(HloModule module, HloComputation computation,
                                                    HloInstruction parent, HloInstruction root) {
        Ctx ctx = new Ctx(module, computation);
        IndexingMap map = identity(parent);
        HloInstruction at = parent;
        while (!at.name().equals(root.name())) {
            HloInstruction current = at;
            HloInstruction user = computation.instructions().stream()
                    .filter(i -> i.operands().contains(current.name())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(root.name() + " is not reached from "
                            + parent.name() + " in " + computation.name()));
            int operand = user.operands().indexOf(at.name());
            Set<OperandIndexing> step = OpIndexing.inputToOutput(ctx, user, operand).getFirst();
            IndexingMap next = step.iterator().next().map();
            if (next.isUndefined()) {
                return next;
            }
            map = IndexingMap.compose(next, map).simplify();
            at = user;
        }
        return map;
    }

    private static IndexingMap identity(HloInstruction instruction) {
        long[] dims = Extents.toArray(instruction.outputShape(0).dims());
        return IndexingMap.identity(dims);
    }

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

    /**
     * One indexing map of an operand (or output), with what its runtime variables stand for and,
     * for collectives, the map to the replica that holds the element (XLA's {@code OperandIndexing}).
     *
     * {@snippet :
     * OperandIndexing o = new OperandIndexing(
     *         IndexingMap.parse("(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 3]"), List.of(), Optional.empty());
     * o.toString(); // "(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 3]"
     * }
     *
     * @param map the indexing map
     * @param runtimeVariables one entry per runtime variable of {@code map}, in order
     * @param replicaId for all-gather and fusions of it: output index to replica number
     */
    public record OperandIndexing(IndexingMap map, List<RuntimeVariable> runtimeVariables, Optional<IndexingMap> replicaId) {

        public OperandIndexing {
            runtimeVariables = List.copyOf(runtimeVariables);
            if (!map.isUndefined() && !map.isKnownEmpty() && map.runtimeVars().size() != runtimeVariables.size()) {
                throw new IllegalArgumentException("map has " + map.runtimeVars().size() + " runtime variables but "
                        + runtimeVariables.size() + " are described: " + map);
            }
        }

        /** {@return an operand indexing with no runtime variables and no replica map} @param map the map */
        public static OperandIndexing of(IndexingMap map) {
            return new OperandIndexing(map, List.of(), Optional.empty());
        }

        /** {@return whether the indexing could not be computed ({@code unknown indexing})} */
        public boolean isUndefined() {
            return map.isUndefined();
        }

        /** Prints as XLA's {@code OperandIndexing::ToString()}: the map, runtime variables, replica id. */
        @Override
        public String toString() {
            return toText(IndexingMap.Notation.XLA);
        }

        /**
         * {@return the text in XLA's current spelling, or in the older MLIR spelling, which printed
         * neither runtime variables nor replica maps}
         *
         * @param style the spelling
         */
        public String toText(IndexingMap.Notation style) {
            if (map.isUndefined()) {
                return "unknown indexing";
            }
            StringBuilder out = new StringBuilder(map.toText(style));
            if (style == IndexingMap.Notation.MLIR) {
                return out.toString();
            }
            if (!runtimeVariables.isEmpty() && !map.isKnownEmpty()) {
                out.append("\nruntime variables:");
                for (int i = 0; i < runtimeVariables.size(); i++) {
                    String name = map.runtimeVars().get(i).name();
                    out.append("\n").append(name.isEmpty() ? "rt" + i : name).append(": ").append(runtimeVariables.get(i));
                }
            }
            replicaId.ifPresent(r -> out.append("\nreplica id:\n").append(r));
            return out.toString();
        }
    }

    /**
     * What a runtime variable {@code rt_i} of an operand map stands for: the value of
     * {@code instruction} at the index {@code map} gives (for a scalar offset, {@code (d0, d1) -> ()}).
     *
     * {@snippet :
     * // dynamic-slice(s32[20] src, s32[] of), dynamic_slice_sizes={5}: rt0 is of's value
     * RuntimeVariable rt0 = new RuntimeVariable(of, IndexingMap.parse("(d0) -> (), domain: d0 in [0, 4]"));
     * rt0.toString(); // "parameter(1); (d0) -> (), domain: d0 in [0, 4]"
     * }
     *
     * @param instruction the instruction whose value the variable takes
     * @param map from the operand map's dimensions (and variables) to the index of {@code instruction}
     */
    public record RuntimeVariable(HloInstruction instruction, IndexingMap map) {

        /** Prints as XLA does: {@code parameter(N)}, {@code constant(V)} for scalars, else the name. */
        @Override
        public String toString() {
            String who = switch (instruction.opcode()) {
                case "parameter" -> "parameter(" + instruction.payload() + ")";
                case "constant" -> "constant(" + instruction.payload() + ")";
                default -> instruction.name();
            };
            return who + "; " + map;
        }
    }
}
