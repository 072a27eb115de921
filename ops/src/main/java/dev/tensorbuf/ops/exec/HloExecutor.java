package dev.tensorbuf.ops.exec;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.exec.internal.Arguments;
import dev.tensorbuf.ops.exec.ExecutedInstruction;
import dev.tensorbuf.ops.exec.internal.Interpreter;
import dev.tensorbuf.ops.exec.internal.Refusals;
import dev.tensorbuf.ops.exec.internal.ScalarIndex;
import dev.tensorbuf.ops.exec.internal.SourceLines;
import dev.tensorbuf.ops.exec.internal.Reductions;
import dev.tensorbuf.ops.exec.internal.UnsupportedOpException;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import java.util.Map;

/**
 * Executes an HLO module made of data-movement ops as lazy views: each instruction's value is a
 * {@link TensorView} whose map composes the op's output-to-input map into its operands'
 * ({@link dev.tensorbuf.ops.Ops}), so transposes, slices, reverses, broadcasts, pads, reshapes,
 * bitcasts, concatenations and dynamic slices move no element. Copies happen where the module
 * asks for memory: {@code copy} (into its shape's layout, which a later {@code bitcast} reads),
 * {@code convert} between types, {@code constant} literals, one row per {@code iota}, and the
 * root, copied once into the layout it is asked for in ({@link Execution#result()} its own,
 * {@link Execution#rowMajor()} C order). {@link Execution#steps()} says which is which.
 *
 * <p>Elementwise ops ({@link #ELEMENTWISE_OPCODES}: arithmetic, compares, logic, shifts, square
 * roots, roundings, reduce-precision) are held as one expression over their operands' views and evaluated where a
 * value must be memory, bit for bit as XLA's CPU backend computes them; the functions XLA
 * approximates ({@code rsqrt}, {@code exponential}, {@code tanh}, ...), and a divide by a square
 * root, which it computes with {@code rsqrt}, are refused.
 *
 * <p>Supported opcodes: {@link #SUPPORTED_OPCODES}, {@link #ELEMENTWISE_OPCODES} and {@link #REDUCTION_OPCODES}, and the
 * {@link #COMPUTATION_OPCODES} (jax's plain HLO wraps {@code jnp.flip}, {@code pad} and {@code roll}
 * in a {@code call}; optimised HLO wraps every op in a {@code fusion}; {@code fori_loop},
 * {@code scan} and {@code jax.random} make a {@code while}, {@code cond} and {@code switch} a
 * {@code conditional}) whose computations hold only those, checked through nested calls; any other throws {@link UnsupportedOpException} before anything runs. A partitioned
 * program runs unpartitioned, on the global arrays: {@code sharding=} attributes are read and
 * checked against their shapes, and the sharding custom-calls ({@code Sharding},
 * {@code xla.sdy.FuncResultSharding}, and {@code SPMDFullToShardShape}/{@code SPMDShardToFullShape}
 * where they keep the shape, and Shardy's {@code xla.sdy.*} annotations) run as the identity;
 * XLA's CPU custom-call {@code TopK} runs as the {@code topk} it was made of.
 * Tuples run anywhere ({@code tuple}, {@code get-tuple-element}, a {@code call} or {@code fusion}
 * returning one); a ROOT that returns a tuple of arrays (a function with several results) has one
 * output per element: {@link Execution#outputCount()}. {@code dynamic-slice} and
 * {@code dynamic-update-slice} read their start indices from scalar operands (constants or
 * parameters) and clamp them as XLA does; integer arithmetic on such scalars ({@code compare},
 * {@code select}, {@code add}, ... : jax's negative-index handling of {@code x[i]}) is folded when
 * the views are made ({@link ExecutedInstruction.Kind#FOLDED}). {@code gather} reads its indices
 * then too: a view of its slices side by side, or, past a few hundred index rows, a copy.
 * {@code bitcast-convert} is a view between types of one width. Every step says why it became
 * what it did ({@link ExecutedInstruction#reason()}); refusals say what the op is
 * ({@link UnsupportedOpException#detail()}: a custom-call's target, a collective's replica groups).
 * {@snippet :
 * String text = """
 *     HloModule m
 *     ENTRY e {
 *       p0 = f32[2,3]{1,0} parameter(0)
 *       t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
 *       ROOT r = f32[3,2]{1,0} reverse(t), dimensions={0}
 *     }""";
 * try (Execution x = HloExecutor.execute(text, Map.of("0", p0))) {   // p0 = [[0, 1, 2], [3, 4, 5]]
 *     TensorElements.of(x.rowMajor()).toFloatArray();   // [2, 5, 1, 4, 0, 3]
 *     x.steps().get(2);              // ExecutedInstruction[name=r, opcode=reverse, kind=VIEW, form=Strided[... strides [-1, 3] offset 2]]
 * }
 * }
 */
public final class HloExecutor {
    /**
     * The elementwise opcodes that execute: held as one expression over their operands' views and
     * evaluated in one pass where a value must be in memory (a copy, the ROOT), with XLA's CPU
     * semantics for rounding, denormals, NaN and integer wraparound.
     */
    public static final List<String> ELEMENTWISE_OPCODES = Pointwise.OPCODES;

    /** The opcodes that execute, in the order error messages list them. */
    public static final List<String> SUPPORTED_OPCODES = List.of("parameter", "constant", "iota", "broadcast",
            "transpose", "reshape", "bitcast", "copy", "slice", "dynamic-slice", "pad", "reverse", "concatenate",
            "convert", "dynamic-update-slice", "gather", "scatter", "sort", "topk", "bitcast-convert", "tuple",
            "get-tuple-element", "opt-barrier");

    /**
     * The reductions that execute, by a reducer that is one op no order of combining can change
     * (integers and pred by add, multiply, maximum, minimum, and, or, xor; floats by maximum and
     * minimum), from its identity; and jax's argmax and argmin, a reduce of values and indices.
     */
    public static final List<String> REDUCTION_OPCODES = List.of("reduce", "reduce-window");

    private HloExecutor() {
    }

    /**
     * {@return the run of the module text's entry computation; errors name instructions with their line}
     *
     * @param moduleText HLO module text
     * @param arguments one view per parameter, keyed by parameter name ({@code "p0"}) or number ({@code "0"})
     * @throws dev.tensorbuf.ops.hlo.internal.HloSyntaxException for malformed text
     * @throws UnsupportedOpException for an opcode outside {@link #SUPPORTED_OPCODES}
     * @throws IllegalArgumentException for arguments that do not bind or do not match their
     *     parameter, and for invalid instructions, naming the instruction and its line
     */
    public static Execution execute(String moduleText, Map<String, TensorView> arguments) {
        return run(HloModule.parse(moduleText), SourceLines.of(moduleText), arguments);
    }

    /** {@return the run of a parsed module; as {@link #execute(String, Map)} without line numbers} */
    public static Execution execute(HloModule module, Map<String, TensorView> arguments) {
        return run(module, SourceLines.none(), arguments);
    }

    /**
     * {@return the run of {@code module}, parsed from {@code moduleText}; as
     * {@link #execute(String, Map)}, for callers that needed the parsed module first (to read
     * parameter shapes, say) and should not parse the text twice}
     *
     * @param moduleText the text {@code module} was parsed from; errors quote its line numbers
     */
    public static Execution execute(HloModule module, String moduleText, Map<String, TensorView> arguments) {
        return run(module, SourceLines.of(moduleText), arguments);
    }

    /**
     * {@return the run of {@code module} as {@link #execute(HloModule, String, Map)}, with every
     * buffer it makes (copies, the result) taken from {@code allocator}}, which the execution
     * owns from here: {@link Execution#close()} closes it, and so does a run that fails. An
     * allocator whose large buffers are backed by huge pages (interop's
     * {@code NativeMemory.hugePageAllocator()}) saves most of the first touch of a large result.
     * {@snippet :
     * try (Execution e = HloExecutor.execute(module, text, Map.of("0", pixels), NativeMemory.hugePageAllocator())) {
     *     TensorView nchw = e.result();
     * }
     * }
     */
    public static Execution execute(HloModule module, String moduleText, Map<String, TensorView> arguments,
            Allocator allocator) {
        java.util.Objects.requireNonNull(allocator, "allocator");
        SourceLines lines = SourceLines.of(moduleText);
        Map<String, TensorView> bound;
        try {
            checkModule(module, lines);
            bound = Arguments.bind(module.entry(), arguments);
        } catch (RuntimeException | Error e) {
            allocator.close();
            throw e;
        }
        return run(module, lines, bound, allocator);
    }

    /**
     * {@return the run of {@code module} as {@link #execute(HloModule, String, Map)}, its ROOT
     * written into {@code into}, memory the caller keeps}: a staging loop that runs batch after
     * batch into one buffer pays the first touch of its pages once, not on every run. A ROOT
     * elementwise over views is evaluated straight into {@code into}, any other is copied there
     * once, whatever {@code into}'s layout; copies and constants the run makes still come from
     * memory the execution owns. {@link Execution#result()} is then {@code into} itself, and
     * {@link Execution#close()} leaves it open. {@code into} must not overlap the arguments.
     * {@snippet :
     * TensorView nchw = TensorView.of(memory.allocate(4L * 256 * 3 * 224 * 224), "f32[256,3,224,224]{3,2,1,0}");
     * for (TensorView batch : batches) {
     *     try (Execution e = HloExecutor.execute(module, text, Map.of("0", batch), nchw)) {
     *         consume(e.result());                 // nchw, this batch's values
     *     }
     * }
     * }
     *
     * @throws IllegalArgumentException if the ROOT is a tuple, or if {@code into}'s type or dims
     *     are not the ROOT's, naming both shapes; and as {@link #execute(String, Map)}
     */
    public static Execution execute(HloModule module, String moduleText, Map<String, TensorView> arguments,
            TensorView into) {
        java.util.Objects.requireNonNull(into, "into");
        HloInstruction root = module.entry().root();
        if (root.shape() instanceof dev.tensorbuf.views.XlaShape.Tuple) {
            throw new IllegalArgumentException("the ROOT %" + root.name() + " is a tuple of " + root.outputCount()
                    + " arrays: into takes one array; run without into and copy each result(k)");
        }
        ArrayShape expected = root.arrayShape();
        if (!into.dims().equals(expected.dims()) || into.dtype() != expected.dtype()) {
            throw new IllegalArgumentException("into has shape " + into.shape() + " but the ROOT %" + root.name()
                    + " is " + expected + ": type and dims must match");
        }
        SourceLines lines = SourceLines.of(moduleText);
        checkModule(module, lines);
        Map<String, TensorView> bound = Arguments.bind(module.entry(), arguments);
        Allocator allocator = Allocators.shared();
        try {
            Interpreter.Run r = Interpreter.run(module, lines, bound, allocator, into);
            return new Execution(r.outputs(), false, r.steps(), allocator, into);
        } catch (RuntimeException | Error e) {
            allocator.close();
            throw e;
        }
    }

    /**
     * {@return the shape of the entry parameter that {@code key} names, as {@link #execute} binds
     * arguments: by name ({@code "p0"}, {@code "%p0"}) or number ({@code "0"})}
     *
     * @throws IllegalArgumentException for a key naming no parameter, listing them
     */
    public static ArrayShape parameterShape(HloModule module, String key) {
        return Arguments.parameter(module.entry(), key).arrayShape();
    }

    /** The opcodes that run a computation of the module, each checked as the entry is. */
    private static final List<String> CALL_OPCODES = List.of("call", "fusion");

    /**
     * The opcodes that run computations of the module, each checked as the entry is: a call or
     * fusion; a {@code while} (its body until its condition is false); a {@code conditional} (the
     * branch its pred or index chooses).
     */
    public static final List<String> COMPUTATION_OPCODES = List.of("call", "fusion", "while", "conditional");

    private static Execution run(HloModule module, SourceLines lines, Map<String, TensorView> arguments) {
        checkModule(module, lines);
        Map<String, TensorView> bound = Arguments.bind(module.entry(), arguments);
        return run(module, lines, bound, Allocators.shared());
    }

    private static Execution run(HloModule module, SourceLines lines, Map<String, TensorView> arguments,
            Allocator allocator) {
        try {
            Interpreter.Run r = Interpreter.run(module, lines, arguments, allocator);
            return new Execution(r.outputs(), module.entry().root().shape() instanceof dev.tensorbuf.views.XlaShape.Tuple,
                    r.steps(), allocator);
        } catch (RuntimeException | Error e) {
            allocator.close();
            throw e;
        }
    }

    /** {@return ", line N" for {@code i}'s line in the module's text, or nothing where the text is not known} */
    private static String line(SourceLines lines, HloComputation comp, HloInstruction i) {
        return lines.lineOf(comp.name(), i.name()).stream().mapToObj(n -> ", line " + n).findFirst().orElse("");
    }

    /** Runs {@code check} of {@code i}, its failure naming where {@code i} is. */
    private static void located(HloComputation comp, HloInstruction i, SourceLines lines, String callers, Runnable check) {
        try {
            check.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(i.opcode() + " (instruction %" + i.name() + line(lines, comp, i) + callers + "): "
                    + e.getMessage(), e);
        }
    }

    /**
     * The checks before a run, as XLA's verifier's: every computation the entry runs
     * ({@link #checkSupported}), and the types and shapes in those it does not, which the run
     * never reads but XLA refuses all the same.
     */
    private static void checkModule(HloModule module, SourceLines lines) {
        java.util.Set<String> checked = new java.util.HashSet<>();
        checkSupported(module, module.entry(), lines, "", checked);
        java.util.Set<String> reached = new java.util.HashSet<>(checked);
        for (String name : checked) {
            for (HloInstruction i : module.computation(name).instructions()) {
                i.text("to_apply").ifPresent(applied -> reached.add(module.computation(applied).name()));
            }
        }
        for (HloComputation c : module.computations()) {
            if (!reached.contains(c.name())) {
                String where = ", in " + c.name() + ", which the entry does not call";
                for (HloInstruction i : c.instructions()) {
                    located(c, i, lines, where, () -> Interpreter.checkDeclaredTypes(module, c, i));
                    located(c, i, lines, where, () -> Interpreter.checkSignatures(module, c, i));
                }
            }
        }
    }

    /**
     * Refuses the first instruction of {@code comp}, or of a computation it calls, that does not
     * execute. {@code callers} locates {@code comp}'s call site for the message; each computation
     * is checked once (the parser refuses call cycles).
     */
    private static void checkSupported(HloModule module, HloComputation comp, SourceLines lines, String callers,
            java.util.Set<String> checked) {
        if (!checked.add(comp.name())) {
            return;
        }
        for (HloInstruction i : comp.instructions()) {
            located(comp, i, lines, callers, () -> Interpreter.checkDeclaredTypes(module, comp, i));
            located(comp, i, lines, callers, () -> Interpreter.checkSignatures(module, comp, i));
            if (!CALL_OPCODES.contains(i.opcode()) && i.text("to_apply").isPresent()
                    && module.computations().stream().anyMatch(c -> c.name().equals(i.text("to_apply").get().replaceFirst("^%", "")))
                    && !(REDUCTION_OPCODES.contains(i.opcode()) && !Reductions.refusal(module, comp, i).isEmpty())) {
                // A reducer or comparator runs as the op reads it, not instruction by instruction,
                // but XLA's verifier checks its instructions as any others (a reducer run refuses
                // says why below, more to the point).
                HloComputation applied = module.computation(i.text("to_apply").get());
                located(comp, i, lines, callers, () -> Interpreter.checkApplied(comp, i, applied, false));
                String site = ", in " + applied.name() + ", applied by %" + i.name() + line(lines, comp, i);
                for (HloInstruction a : applied.instructions()) {
                    located(applied, a, lines, site + callers, () -> Interpreter.checkDeclaredTypes(module, applied, a));
                }
                located(comp, i, lines, callers, () -> Interpreter.checkApplied(comp, i, applied, true));
            }
            if (i.opcode().equals("while")) {
                for (String attribute : List.of("condition", "body")) {
                    java.util.Optional<String> name = i.text(attribute);
                    if (name.isPresent()) {   // else the run names what is missing
                        HloComputation callee = module.computation(name.get());
                        checkSupported(module, callee, lines, ", in " + callee.name() + ", the " + attribute + " of %" + i.name()
                                + line(lines, comp, i) + callers, checked);
                    }
                }
            } else if (i.opcode().equals("conditional")) {
                for (String branch : Interpreter.branchNames(i)) {
                    HloComputation callee = module.computation(branch);
                    checkSupported(module, callee, lines, ", in " + callee.name() + ", a branch of %" + i.name()
                            + line(lines, comp, i) + callers, checked);
                }
            } else if (CALL_OPCODES.contains(i.opcode())) {
                HloComputation callee = module.computation(Interpreter.calleeName(i));
                String site = ", in " + callee.name() + ", called by %" + i.name() + line(lines, comp, i);
                checkSupported(module, callee, lines, site + callers, checked);
            } else if (i.opcode().equals("custom-call") && (Interpreter.isShardingAnnotation(i) || Interpreter.isTopK(i))) {
                continue;
            } else if (ScalarIndex.folds(comp, i)) {
                continue;
            } else if (REDUCTION_OPCODES.contains(i.opcode()) && !Reductions.refusal(module, comp, i).isEmpty()) {
                throw new UnsupportedOpException(i.opcode(), i.name(), lines.lineOf(comp.name(), i.name()), callers,
                        Reductions.refusal(module, comp, i));
            } else if (!SUPPORTED_OPCODES.contains(i.opcode()) && !ELEMENTWISE_OPCODES.contains(i.opcode())
                    && !REDUCTION_OPCODES.contains(i.opcode())) {
                throw new UnsupportedOpException(i.opcode(), i.name(), lines.lineOf(comp.name(), i.name()), callers,
                        Refusals.detail(i));
            }
        }
    }
}
