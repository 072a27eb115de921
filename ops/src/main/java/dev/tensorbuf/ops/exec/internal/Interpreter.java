package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.ops.hlo.internal.HloInstructions;
import dev.tensorbuf.ops.exec.ExecutedInstruction;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.internal.Bitcast;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.internal.Pad;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.hlo.internal.HloAttribute;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.internal.Ctx;
import dev.tensorbuf.ops.indexing.internal.OpIndexing;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.XlaLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs the entry computation: each instruction reachable from the root becomes a view of its
 * operands' views (ops compose maps, nothing moves), except {@code copy} and {@code convert}
 * between types, which copy into memory laid out by their shape, and {@code constant} and
 * {@code iota}, which make small buffers. A {@code call} or {@code fusion} runs its computation
 * the same way, its parameters bound to the operands' views, so what it returns is a view too.
 * Layouts matter only where XLA gives them meaning: a {@code bitcast} reads its operand's
 * physical order as declared, and the root is materialised in its own layout. Every failure
 * names the instruction and its line (and, inside a called computation, the call site's).
 */
public final class Interpreter {
    private final HloModule module;
    private final HloComputation entry;
    private final SourceLines lines;
    private final Map<String, TensorView> arguments;
    private final Allocator allocator;
    /** Elementwise work held as expressions over views until a copy evaluates it in one pass. */
    private final Fusion fusion;

    /**
     * The view an instruction produced, how, whether it is memory laid out by the view's own
     * shape, and why; a tuple has no view, only its elements.
     *
     * <p>The layout is the view's, not the instruction's: a loop, branch or call hands on memory
     * made in its producer's layout, which need not be the one its own shape declares (a loop of
     * s8[2,3,2]{1,2,0} inlined into one of {0,1,2}), so readers ask {@link #isLaidOutAs}.
     */
    private record Value(TensorView view, ExecutedInstruction.Kind kind, boolean inOwnLayout, List<Value> elements,
            String reason) {
        Value(TensorView view, ExecutedInstruction.Kind kind, boolean inOwnLayout) {
            this(view, kind, inOwnLayout, null, "");
        }

        /** {@return whether this is an array whose memory is laid out as {@code shape} says} */
        boolean isLaidOutAs(ArrayShape shape) {
            return inOwnLayout && view != null && view.shape().laidOut().equals(shape.laidOut());
        }

        Value because(String why) {
            return new Value(view, kind, inOwnLayout, elements, why);
        }

        boolean isTuple() {
            return elements != null;
        }
    }

    /**
     * The values XLA knows before the program runs: constants, and scalar index arithmetic of
     * them (in a loop XLA inlines, its initial value's too). Which branch or how many trips
     * such values choose, XLA decides when it compiles, and inlines what they choose.
     */
    private final Set<TensorView> known = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    /** The loop body this interpreter runs an iteration of, and what XLA hoists out of it ({@link LoopAnalysis#hoisted}). */
    private String hoistedFrom = "";
    private Set<String> hoisted = Set.of();

    /** Per computation, how many times each instruction is an operand: who may write into a value in place. */
    private final Map<String, Map<String, Integer>> uses = new HashMap<>();

    /**
     * The outcome of a run.
     *
     * @param outputs the root, or each element of a tuple root, as evaluated (not yet copied)
     * @param steps the instructions evaluated, in the module's order
     */
    public record Run(List<Output> outputs, List<ExecutedInstruction> steps) {
    }

    /**
     * One array the run returns, not yet copied: whoever writes it copies it once, into the layout
     * the file needs ({@code Execution.rowMajor}), rather than into {@code shape}'s and then again.
     *
     * @param value its value: memory laid out by {@code shape} when {@code inOwnLayout}, else a
     *     view of its instruction's operands
     * @param shape its declared shape, layout included
     * @param inOwnLayout whether its instruction already made memory in that layout (a {@code copy},
     *     a {@code convert}), so that no copy is needed to have it there
     */
    public record Output(TensorView value, ArrayShape shape, boolean inOwnLayout) {
    }

    private Interpreter(HloModule module, SourceLines lines, Map<String, TensorView> arguments, Allocator allocator) {
        this.module = module;
        this.entry = module.entry();
        this.lines = lines;
        this.arguments = arguments;
        this.allocator = allocator;
        this.fusion = new Fusion(allocator, module.computations().stream().flatMap(c -> c.instructions().stream())
                .filter(i -> i.opcode().equals("call")).map(i -> module.computation(calleeName(i)).name())
                .collect(java.util.stream.Collectors.toSet()));
    }

    /**
     * {@return the run of the module's entry computation}
     *
     * @param arguments the views of every parameter, by parameter name (see {@link Arguments#bind})
     */
    public static Run run(HloModule module, SourceLines lines, Map<String, TensorView> arguments, Allocator allocator) {
        return new Interpreter(module, lines, arguments, allocator).run(null);
    }

    /**
     * {@return the run of the module's entry computation, its array ROOT written into {@code into}}
     * (evaluated there when it is elementwise over views, else copied there once), which the
     * caller checked against the ROOT's type and dims; the output is {@code into} itself.
     */
    public static Run run(HloModule module, SourceLines lines, Map<String, TensorView> arguments, Allocator allocator,
            TensorView into) {
        return new Interpreter(module, lines, arguments, allocator).run(java.util.Objects.requireNonNull(into, "into"));
    }

    private Run run(TensorView rootInto) {
        HloInstruction root = entry.root();
        // A tuple ROOT (a jitted function with several results, or a call of one) returns each
        // element; the tuple itself is no view, so it is not a step.
        boolean tuple = root.shape() instanceof dev.tensorbuf.views.XlaShape.Tuple;
        for (int k = 0; k < root.outputCount(); k++) {
            XlaShapeCheck.requireArray(root, k, () -> where(entry, root));
        }
        Map<String, Value> values = new HashMap<>();
        evaluate(entry, values, root);
        Value r = values.get(root.name());
        List<Value> elements = tuple ? r.elements() : List.of(r);
        List<Output> outputs = new ArrayList<>();
        for (int k = 0; k < elements.size(); k++) {
            Value e = elements.get(k);
            ArrayShape laidOut = root.outputShape(k).laidOut();
            if (rootInto != null) {
                boolean held = fusion.isHeld(e.view());
                TensorView written = fusion.forceInto(e.view(), rootInto, root.name());
                if (held) {
                    e = new Value(written, ExecutedInstruction.Kind.COPY, true);
                    values.put(root.name(), e);
                }
                outputs.add(new Output(written, laidOut, true));
                continue;
            }
            if (fusion.isHeld(e.view())) {
                // A ROOT elementwise over views: evaluated once, straight into its own layout.
                boolean named = !tuple || root.opcode().equals("tuple");
                String name = !tuple ? root.name()
                        : named ? entry.find(root.operands().get(k)).orElseThrow().name() : root.name() + "." + k;
                e = new Value(fusion.force(e.view(), laidOut, name), ExecutedInstruction.Kind.COPY, true);
                if (named) {
                    values.put(name, e);
                }
            }
            outputs.add(new Output(e.view(), laidOut, e.isLaidOutAs(laidOut)));
        }
        List<ExecutedInstruction> steps = new ArrayList<>();
        for (HloInstruction i : entry.instructions()) {
            Value v = values.get(i.name());
            if (v != null && v.isTuple() && i.opcode().equals("reduce")) {
                // A variadic reduce (argmax) made both of its arrays: one step, its index array's form.
                steps.add(new ExecutedInstruction(i.name(), i.opcode(), ExecutedInstruction.Kind.REDUCED,
                        v.elements().getLast().view().form(), v.reason(), "", List.of()));
            }
            if (v != null && v.isTuple() && Set.of("while", "conditional", "sort").contains(i.opcode())
                    && firstArray(v) != null) {
                // A loop or branch of a tuple: one step, which says how often the body ran or which branch did.
                steps.add(new ExecutedInstruction(i.name(), i.opcode(), v.kind(), firstArray(v).form(), v.reason(), "", List.of()));
            }
            if (v != null && !v.isTuple()) {
                String into = fusion.fusedInto(i.name());
                String epilogue = fusion.epilogue(i.name());
                String reason = epilogue.isEmpty() ? v.reason() : v.reason().isEmpty() ? epilogue : v.reason() + "; " + epilogue;
                if (!into.isEmpty() && v.kind() == ExecutedInstruction.Kind.VIEW) {
                    // Held, then evaluated inside another instruction's copy: no memory of its own.
                    steps.add(new ExecutedInstruction(i.name(), i.opcode(), ExecutedInstruction.Kind.FUSED, v.view().form(),
                            reason, into));
                } else {
                    steps.add(new ExecutedInstruction(i.name(), i.opcode(), v.kind(), v.view().form(), reason, "",
                            fusion.plans(i.name())));
                }
            }
        }
        return new Run(outputs, steps);
    }

    /** {@return the first array of a tuple value, depth first, or null for one of none} */
    private static TensorView firstArray(Value v) {
        if (!v.isTuple()) {
            return v.view();
        }
        for (Value e : v.elements()) {
            TensorView a = firstArray(e);
            if (a != null) {
                return a;
            }
        }
        return null;
    }

    /** Refuses an output that is itself a tuple: a file holds arrays. */
    private static final class XlaShapeCheck {
        static void requireArray(HloInstruction root, int k, java.util.function.Supplier<String> where) {
            var shape = root.shape() instanceof dev.tensorbuf.views.XlaShape.Tuple t ? t.elements().get(k) : root.shape();
            if (!(shape instanceof ArrayShape)) {
                throw new IllegalArgumentException((root.shape() instanceof dev.tensorbuf.views.XlaShape.Tuple
                        ? "tuple element " + k + " of ROOT " : "ROOT ") + where.get() + " has shape " + shape
                        + ": only arrays can be written, not nested tuples");
            }
        }
    }

    /**
     * Evaluates {@code root} and what it uses, operands first. Depth first with a stack of its own:
     * a chain of thousands of instructions is ordinary HLO and must not overflow the Java stack.
     * An instruction waiting for its operands is "in progress"; meeting one again as an operand
     * further up the stack is a cycle.
     */
    private void evaluate(HloComputation comp, Map<String, Value> values, HloInstruction root) {
        Deque<HloInstruction> stack = new ArrayDeque<>();
        Set<String> inProgress = new HashSet<>();
        // The values as written of those asFolded changed: what a move XLA folds with them reads.
        Map<String, Value> asWritten = new HashMap<>();
        stack.push(root);
        while (!stack.isEmpty()) {
            HloInstruction instr = stack.peek();
            if (values.containsKey(instr.name())) {
                stack.pop();
                continue;
            }
            if (inProgress.add(instr.name())) {
                boolean waiting = false;
                for (String o : instr.operands().reversed()) {
                    HloInstruction operand = comp.find(o).orElseThrow(() -> new IllegalArgumentException(
                            "instruction " + where(comp, instr) + " uses " + o + ", which " + comp.name() + " does not define"));
                    if (!values.containsKey(operand.name())) {
                        if (inProgress.contains(operand.name())) {
                            throw new IllegalArgumentException("instruction " + where(comp, operand) + " depends on itself");
                        }
                        stack.push(operand);
                        waiting = true;
                    }
                }
                if (waiting) {
                    continue;
                }
            }
            List<TensorView> operands = new ArrayList<>();
            List<Value> operandValues = new ArrayList<>();
            // A move XLA folds with a constant, and an elementwise op it folds (of such constants),
            // read the constant as written: XLA folds them before its simplifier sees it.
            boolean foldedMove = FoldedConstants.isFoldedMove(instr) || Fusion.isFoldedOp(comp, instr);
            for (int k = 0; k < instr.operands().size(); k++) {
                String name = Conversions.operandRead(comp, instr, k).name();
                Value ov = asWritten.containsKey(name) && (foldedMove || !seesOneDim(comp, instr, values.get(name), name))
                        ? asWritten.get(name) : values.get(name);
                operands.add(ov.view());
                operandValues.add(ov);
            }
            Value v;
            try {
                if (!TUPLE_OPERANDS.contains(instr.opcode())) {
                    for (int k = 0; k < operandValues.size(); k++) {
                        if (operandValues.get(k).isTuple()) {
                            throw new IllegalArgumentException("operand " + k + " (" + instr.operands().get(k)
                                    + ") is a tuple; take its elements with get-tuple-element");
                        }
                    }
                }
                Fusion.Made sliced = ScalarIndex.folds(comp, instr) ? null
                        : fusion.sliceOfConcatenated(comp, instr, operands, name -> values.get(name).view());
                v = sliced != null ? view(sliced.view()) : fused(comp, instr, operands, operandValues);
                if (!v.isTuple() && comp.name().equals(hoistedFrom) && hoisted.contains(instr.name()) && fusion.isHeld(v.view())) {
                    v = new Value(fusion.force(v.view(), instr.arrayShape().laidOut(), instr.name()), ExecutedInstruction.Kind.COPY,
                            true, null, "loop-invariant: XLA computes it before the loop, into memory of its own");
                }
                if (!v.isTuple()) {
                    checkResult(instr, v.view());
                    v = boundMap(instr, v);
                    Value folded = asFolded(comp, instr, v);
                    if (folded != v) {
                        asWritten.put(instr.name(), v);
                    }
                    v = folded;
                } else {
                    checkTuple("", instr.shape(), v);
                }
            } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                throw new IllegalArgumentException(instr.opcode() + " " + where(comp, instr) + ": " + e.getMessage(), e);
            }
            if (!v.isTuple() && (instr.opcode().equals("constant")
                    || v.kind() == ExecutedInstruction.Kind.FOLDED && operands.stream().allMatch(known::contains))) {
                known.add(v.view());
            }
            values.put(instr.name(), v);
            inProgress.remove(instr.name());
            stack.pop();
        }
    }

    /**
     * {@return {@code v}, or where {@code in} is a constant, data movement of one or an
     * elementwise op of such that XLA folds into a new constant, its value as XLA's simplifier leaves it for the readers that do not
     * move it further ({@link Literals#asSimplified})} XLA folds before it simplifies: a constant
     * of one dim broadcast into [n,1] is an f32[n,1] constant, simplified only for the readers
     * {@link #seesOneDim} names; a slice of one is a constant of one dim; a constant read as it
     * is and also reversed is simplified for its readers and reversed as written (jax 0.10). The
     * caller keeps the value as written for the moves and the other readers.
     */
    private Value asFolded(HloComputation comp, HloInstruction in, Value v) {
        if (!Literals.oneLongDim(v.view().dims()) || fusion.isHeld(v.view())
                || !FoldedConstants.isFoldedConstant(comp, in) && !Fusion.isFoldedOp(comp, in)) {
            return v;
        }
        TensorView simplified = Literals.asSimplified(v.view(), allocator);
        return simplified == v.view() ? v : new Value(simplified, v.kind(), true, null, v.reason());
    }

    /**
     * {@return whether {@code reader} sees the folded constant {@code name}, of value {@code v},
     * as XLA's simplifier leaves one of one dim} One of one dim it does; one of one long dim and
     * more dims of one only where XLA's reshape mover makes {@code reader} an op of one dim again:
     * it moves reshapes and transposes below an elementwise op whose other operands are such
     * moves of a value of one dim, or ops of such moved already (at least one), or constants and
     * scalar broadcasts, which it reshapes for free (jax 0.10.2: {@code x.reshape(1, 2) * [[-0.,
     * 1.]]} is {@code [+0, x1]}, an iota's zero, and so is {@code max(x.reshape(1, 3), 1) * c};
     * beside an f32[1,2] parameter or a scalar broadcast the constant keeps its -0; seed 1103).
     * XLA decides for each reader: one constant may be both. A float divide's divisor is not
     * moved: the simplifier makes that divide a multiply by the reciprocals on its first pass,
     * before the mover runs (jax 0.10.2: x.reshape(64).reshape(64, 1) / c, c = {-0, 1, ..., 63}
     * as f32[64,1], is x * -inf first), nor is a constant folded with another at a reader of
     * {@code reader} ({@link Fusion#isFoldedAtReader}).
     */
    private static boolean seesOneDim(HloComputation comp, HloInstruction reader, Value v, String name) {
        return v.view().rank() == 1 || !isDivisor(comp, reader, name) && !Fusion.isFoldedAtReader(comp, reader, name)
                && FoldedConstants.movedToOneDim(comp, reader, name);
    }

    private static boolean isDivisor(HloComputation comp, HloInstruction reader, String name) {
        return Fusion.isRewrittenDivide(reader.opcode(), reader.arrayShape().dtype())
                && comp.find(reader.operands().get(1)).orElseThrow().name().equals(name);
    }

    /**
     * Operands each opcode takes, as XLA's verifier counts them. Absent: a count that depends on
     * the op, checked where it is applied ({@code concatenate}'s "at least one part" by
     * {@code Ops.concatenate}, {@code dynamic-slice}'s one start per dimension below).
     */
    private static final Map<String, Integer> OPERAND_COUNTS = Map.ofEntries(
            Map.entry("parameter", 0), Map.entry("constant", 0), Map.entry("iota", 0),
            Map.entry("broadcast", 1), Map.entry("transpose", 1), Map.entry("reshape", 1), Map.entry("bitcast", 1),
            Map.entry("copy", 1), Map.entry("slice", 1), Map.entry("reverse", 1), Map.entry("convert", 1),
            Map.entry("pad", 2), Map.entry("custom-call", 1), Map.entry("get-tuple-element", 1),
            Map.entry("bitcast-convert", 1), Map.entry("gather", 2), Map.entry("reduce-window", 2),
            Map.entry("opt-barrier", 1), Map.entry("while", 1), Map.entry("topk", 1),
            Map.entry("scatter", 3));

    /** The opcodes that take tuples as operands: every other refuses one. */
    private static final Set<String> TUPLE_OPERANDS = Set.of("tuple", "get-tuple-element", "call", "fusion", "opt-barrier", "while",
            "conditional");

    /**
     * The custom-calls of XLA's sharding annotations, which run as the identity on the global
     * arrays of the unpartitioned program: {@code Sharding} only marks a value's sharding (XLA's
     * verifier gives it its operand's shape), and so does jax's (Shardy's)
     * {@code xla.sdy.FuncResultSharding} on a result; {@code SPMDFullToShardShape} and
     * {@code SPMDShardToFullShape} switch between the global shape and one device's shard
     * shape around a manually partitioned region, so only where the two shapes are the same
     * (a sharding that does not split) are they the identity; otherwise they are refused.
     */
    public static final java.util.Set<String> SHARDING_TARGETS =
            java.util.Set.of("Sharding", "xla.sdy.FuncResultSharding", "SPMDFullToShardShape", "SPMDShardToFullShape");

    /**
     * {@return whether {@code in} is a custom-call of one of the {@link #SHARDING_TARGETS}, or of
     * Shardy's {@code xla.sdy.*} annotations} The Shardy ones that change the shape
     * ({@code xla.sdy.GlobalToLocalShape} around a {@code shard_map}) are refused by name where
     * they run, as the SPMD ones are.
     */
    public static boolean isShardingAnnotation(HloInstruction in) {
        if (!in.opcode().equals("custom-call")) {
            return false;
        }
        String target = customCallTarget(in);
        return SHARDING_TARGETS.contains(target) || target.startsWith("xla.sdy.");
    }

    static String customCallTarget(HloInstruction in) {
        String t = in.text("custom_call_target").orElse("").strip();
        return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"") ? t.substring(1, t.length() - 1) : t;
    }

    private Value shardingAnnotation(HloInstruction in, TensorView operand, long[] dims) {
        if (!java.util.Arrays.equals(dims, Extents.toArray(operand.dims()))) {
            throw new IllegalArgumentException("custom-call " + customCallTarget(in) + " turns " + operand.dims()
                    + " into " + java.util.Arrays.toString(dims) + ": a device's shard shape, which the unpartitioned"
                    + " program run on global arrays does not have");
        }
        return view(operand);
    }

    /**
     * {@link Fusion}'s value for {@code in}, or else {@link #apply}'s with held operands evaluated
     * first. Scalar index arithmetic is folded, not held; calls and tuples pass held values on.
     */
    private Value fused(HloComputation comp, HloInstruction in, List<TensorView> ops, List<Value> values) {
        if (Fusion.replacedByItsUpdate(comp, in)) {
            return view(ops.get(1));
        }
        if (!ScalarIndex.folds(comp, in)) {
            Fusion.Made m = fusion.apply(comp, in, ops, args -> apply(comp, in, args, values).view());
            if (m != null) {
                return m.copied() ? new Value(m.view(), ExecutedInstruction.Kind.COPY, true) : view(m.view());
            }
        }
        if (in.opcode().equals("reduce") && ops.size() == 2 && fusion.isHeld(ops.get(0))) {
            TensorView held = ops.get(0);
            ArrayShape operand = comp.instruction(in.operands().getFirst()).arrayShape();
            List<Long> over = Reductions.dimensions(in);
            boolean reshape = Reductions.reducesOneElement(held.dims(), over);
            Reductions.Reducer reducer = Reductions.Reducer.of(module.computation(calleeName(in)));
            String op = reducer.op();
            // A float sum is checked and added exactly over the whole (ExactSums), not in chunks.
            boolean floatSum = Pointwise.isFloat(held.dtype()) && "add".equals(op);
            if (reshape || !floatSum && Reductions.chunks(held.dims(), over, held.dtype())) {
                TensorView init = fusion.force(ops.get(1), comp.instruction(in.operands().get(1)).arrayShape().laidOut(), in.name());
                if (reshape) {
                    // XLA's simplifier makes a reduce of one element a reshape, so the expression
                    // stays one across it (a multiply before and an add after contract).
                    Reductions.checkReshape(operand, init, over, op, in.arrayShape());
                    return view(fusion.reshapeHeld(held, in.name(), in.arrayShape()));
                }
                // A held expression is evaluated a chunk at a time into one scratch, in the
                // order the fold reads, and folded there: no memory, and no pass, for the whole.
                TensorView r = Reductions.reduceInChunks((start, dims, dst) -> fusion.evaluateBox(held, start, dims, dst, in.name()),
                        operand, init, over, op, reducer.through(), in.arrayShape(), allocator);
                return new Value(r, ExecutedInstruction.Kind.REDUCED, true, null,
                        "by " + reducer.describe() + " over dims " + over + ", its operand evaluated a chunk at a time");
            }
        }
        return apply(comp, in, PASS_HELD_OPCODES.contains(in.opcode()) ? ops : fusion.forced(comp, in, ops), values);
    }

    private static final Set<String> PASS_HELD_OPCODES = Set.of("call", "fusion", "tuple", "opt-barrier", "while",
            "conditional");

    private Value apply(HloComputation comp, HloInstruction in, List<TensorView> ops, List<Value> values) {
        if (in.opcode().equals("tuple")) {
            return new Value(null, ExecutedInstruction.Kind.VIEW, false, List.copyOf(values), "");
        }
        if (in.opcode().equals("call") || in.opcode().equals("fusion")) {
            return call(comp, in, ops, values);
        }
        if (in.opcode().equals("opt-barrier")) {
            return optimizationBarrier(in, values);
        }
        if (in.opcode().equals("while")) {
            return whileLoop(comp, in, values);
        }
        if (in.opcode().equals("conditional")) {
            return conditional(comp, in, values);
        }
        if (ScalarIndex.folds(comp, in)) {
            TensorView folded = ScalarIndex.fold(in, ops);
            return new Value(folded, ExecutedInstruction.Kind.FOLDED, true, null,
                    "folded to " + (folded.dtype() == DType.PRED ? TensorElements.of(folded).getLong() != 0 : TensorElements.of(folded).getLong())
                            + " when the view was made");
        }
        if (in.opcode().equals("reduce") && ops.size() == 4) {
            return argReduce(in, ops);
        }
        if (in.opcode().equals("sort")) {
            return sort(in, ops);
        }
        if (in.opcode().equals("topk") || isTopK(in)) {
            return topK(in, ops);
        }
        ArrayShape shape = in.arrayShape().laidOut();
        long[] dims = Extents.toArray(shape.dims());
        return switch (in.opcode()) {
            case "parameter" -> new Value(arguments.get(in.name()), ExecutedInstruction.Kind.PARAMETER, false);
            case "constant" -> new Value(Literals.parse(in.payload(), shape, allocator), ExecutedInstruction.Kind.CONSTANT, true);
            case "iota" -> new Value(iota(in, shape), ExecutedInstruction.Kind.CONSTANT, false, null,
                    "one row of " + shape.dim((int) in.intValue("iota_dimension", 0)) + " values, broadcast");
            case "broadcast" -> view(Ops.broadcast(operand(in, ops, 0), dims, dimensions(comp, in, in.intsOrEmpty("dimensions"))));
            case "transpose" -> view(Ops.transpose(operand(in, ops, 0), dimensions(comp, in, in.ints("dimensions"))));
            case "reshape" -> view(Ops.reshape(operand(in, ops, 0), dims));
            case "bitcast" -> bitcast(comp, in, operand(in, ops, 0), dims);
            case "copy" -> new Value(Materialize.materialize(operand(in, ops, 0), shape, allocator), ExecutedInstruction.Kind.COPY, true,
                    null, "copy asks for memory in " + shape);
            case "slice" -> view(slice(in, operand(in, ops, 0)));
            case "dynamic-slice" -> view(dynamicSlice(in, ops));
            case "pad" -> view(pad(in, operand(in, ops, 0), operand(in, ops, 1)));
            case "reverse" -> view(Ops.reverse(operand(in, ops, 0), dimensions(comp, in, in.ints("dimensions"))));
            case "concatenate" -> view(Ops.concatenate(in.oneDimension("dimensions"), ops));
            case "convert" -> operand(in, ops, 0).dtype() == shape.dtype() ? view(operand(in, ops, 0))
                    : new Value(Conversions.convert(operand(in, ops, 0), shape, allocator), ExecutedInstruction.Kind.COPY, true,
                            null, "converted from " + operand(in, ops, 0).dtype().xlaName() + " into new memory");
            case "custom-call" -> shardingAnnotation(in, operand(in, ops, 0), dims).because(customCallTarget(in) + " runs as the identity");
            case "get-tuple-element" -> getTupleElement(in, values.getFirst());
            case "dynamic-update-slice" -> dynamicUpdateSlice(comp, in, ops, values, shape);
            case "gather" -> {
                IndexedMoves.Gathered g = IndexedMoves.gather(in, operand(in, ops, 0), operand(in, ops, 1), shape, allocator);
                yield new Value(g.value(), g.copied() ? ExecutedInstruction.Kind.COPY : ExecutedInstruction.Kind.VIEW,
                        g.copied(), null, g.reason());
            }
            case "scatter" -> new Value(Scatters.scatter(in, module.computation(calleeName(in)), operand(in, ops, 0),
                    operand(in, ops, 1), operand(in, ops, 2), shape, allocator), ExecutedInstruction.Kind.COPY, true, null,
                    "the operand copied, " + ops.get(2).elementCount() + " updates combined into it by "
                            + Scatters.combiner(module.computation(calleeName(in))).describe());
            case "bitcast-convert" -> {
                boolean[] copied = new boolean[1];
                TensorView v = IndexedMoves.bitcastConvert(operand(in, ops, 0), shape, allocator, copied);
                yield copied[0]
                        ? new Value(v, ExecutedInstruction.Kind.COPY, false, null, "the operand copied into C order, its bytes"
                                + " read as " + shape.dtype().xlaName() + " (the widths differ)")
                        : new Value(v, ExecutedInstruction.Kind.VIEW, false, null, "the same bytes read as " + shape.dtype().xlaName());
            }
            case "reduce" -> {
                Reductions.Reducer reducer = Reductions.Reducer.of(module.computation(calleeName(in)));
                if (ops.size() != 2) {
                    throw new IllegalArgumentException("reduce takes an array and its init value, or jax's argmax pairs; got "
                            + ops.size() + " operands");
                }
                List<Long> over = Reductions.dimensions(in);
                yield new Value(Reductions.reduce(operand(in, ops, 0), operand(in, ops, 1), over, reducer.op(), reducer.through(),
                        shape, allocator), ExecutedInstruction.Kind.REDUCED, true, null,
                        "by " + reducer.describe() + " over dims " + over);
            }
            case "reduce-window" -> {
                Reductions.Reducer reducer = Reductions.Reducer.of(module.computation(calleeName(in)));
                if (!(HloInstructions.attribute(in, "window").orElse(null) instanceof HloAttribute.Window w)) {
                    throw new IllegalArgumentException("reduce-window needs a window={size=... stride=... pad=...} attribute");
                }
                yield new Value(Reductions.reduceWindow(operand(in, ops, 0), operand(in, ops, 1), w.dims(), reducer.op(),
                        reducer.through(), shape, allocator),
                        ExecutedInstruction.Kind.REDUCED, true, null,
                        "by " + reducer.describe() + " over windows of " + in.text("window").orElse(""));
            }
            default -> throw new AssertionError("opcode " + in.opcode() + " passed the support check");
        };
    }

    /**
     * {@code opt-barrier}: the identity, of an array or a tuple, its operand passed on as it is,
     * held elementwise work too. XLA's CPU pipeline removes the barrier before it fuses (jax 0.10:
     * {@code barrier(a * b) + c} is one fused multiply-add).
     */
    private Value optimizationBarrier(HloInstruction in, List<Value> values) {
        return values.getFirst().because("opt-barrier, which XLA's CPU code drops before fusing: the identity");
    }

    /**
     * Runs a {@code while}: its condition on the loop's value, and while that gives true its body,
     * whose result, copied into memory of its own, is the next value (jax's {@code fori_loop},
     * {@code scan}, and the rounds of {@code jax.random}'s threefry). Iterations allocate from one
     * arena until it holds {@link #LOOP_GENERATION_BYTES} (or four values, if more); then the value
     * is copied into a fresh one and the old one is released, so a long loop's memory stays bounded
     * while a short one closes no arena per iteration (a shared arena's close stops every thread).
     * The last value is copied into the run's memory, laid out as the loop's shape says. Where
     * XLA counts the trips to none or one, the loop is what XLA makes of it: its initial value,
     * or its body inlined; what XLA hoists out of the body ({@link LoopAnalysis}) is evaluated in
     * memory. {@code -Dtensorbuf.run.maxTrips=N}, read as each loop starts, bounds its trips (none
     * by default, as in XLA): a loop that never ends, as a damaged module's may, becomes an error
     * naming it.
     */
    private Value whileLoop(HloComputation comp, HloInstruction in, List<Value> operands) {
        // checkSignatures has checked both computations against the loop before the run began.
        HloComputation condition = loopComputation(module, in, "condition");
        HloComputation body = loopComputation(module, in, "body");
        ArrayShape c = condition.root().arrayShape();
        Value init = operands.getFirst();
        boolean counted = init.isTuple() && LoopAnalysis.countsTrips(condition, body,
                k -> k < init.elements().size() && !init.elements().get(k).isTuple() && known.contains(init.elements().get(k).view()));
        HloComputation test = withKnownElements(comp, in, condition, body, init, false);
        HloComputation step = withKnownElements(comp, in, body, body, init, false);
        Set<String> invariant = LoopAnalysis.hoisted(step);
        CountingAllocator generation = new CountingAllocator();
        try {
            Value value = copyOut(init, in.shape(), fusion, generation, in.name(), "its operand");
            long valueBytes = generation.bytes;
            long iterations = 0;
            long maxTrips = Long.getLong("tensorbuf.run.maxTrips", Long.MAX_VALUE);
            while (true) {
                if (iterations == maxTrips) {
                    throw new IllegalArgumentException("its condition " + condition.name() + " still holds after " + iterations
                            + " trips, the most -Dtensorbuf.run.maxTrips allows");
                }
                Interpreter testing = new Interpreter(module, lines, arguments, generation);
                TensorView go = testing.fusion.force(testing.runOn(test, value).view(), c.laidOut(), in.name());
                if (TensorElements.of(go).getLong() == 0) {
                    break;
                }
                Interpreter stepping = new Interpreter(module, lines, arguments, generation);
                stepping.hoistedFrom = step.name();
                stepping.hoisted = invariant;
                value = copyOut(stepping.runOn(step, value), in.shape(), stepping.fusion, generation, in.name(),
                        "its body " + body.name() + " in iteration " + iterations);
                iterations++;
                if (generation.bytes > Math.max(LOOP_GENERATION_BYTES, 4 * valueBytes)) {
                    CountingAllocator next = new CountingAllocator();
                    try {
                        value = copyOut(value, in.shape(), fusion, next, in.name(), "its value");
                    } catch (RuntimeException | Error e) {
                        next.close();
                        throw e;
                    }
                    generation.close();
                    generation = next;
                }
            }
            if (counted && iterations <= 1) {
                // XLA counted the trips: its simplifier made a loop of none its initial value and
                // inlined the body of a loop of one, so elementwise work fuses across the loop's
                // edges (jax 0.10: a product in the body and a sum after it are one multiply-add).
                Value r = iterations == 0 ? init : runOn(withKnownElements(comp, in, body, body, init, true), init);
                return new Value(null, ExecutedInstruction.Kind.VIEW, false, r.elements(), iterations == 0
                        ? "a loop XLA counts zero trips of: its initial value" : "a loop XLA counts one trip of: its body, inlined");
            }
            Value last = copyOut(value, in.shape(), fusion, allocator, in.name(), "its value");
            return new Value(last.view(), ExecutedInstruction.Kind.COPY, !last.isTuple(), last.elements(),
                    "a loop: its body " + body.name() + " ran " + iterations + " time" + (iterations == 1 ? "" : "s"));
        } finally {
            generation.close();
        }
    }

    /**
     * {@return {@code callee}, the body or condition of {@code loop}, reading as constants the
     * loop's elements XLA knows: those the body passes on unchanged (XLA sinks them into the
     * loop), or all where XLA inlines the body} XLA knows an element the initial tuple gives a
     * constant or a broadcast of one, or a scalar integer it knows (the counter). The rules of
     * constants then hold inside the loop as outside it (jax 0.10: x / c is x times 1 / c, and x
     * + convert(i), i zero, is x, its -0 kept).
     */
    private HloComputation withKnownElements(HloComputation comp, HloInstruction loop, HloComputation callee, HloComputation body,
            Value init, boolean all) {
        String param = callee.parameter(0).name();
        List<HloInstruction> instructions = new ArrayList<>();
        boolean changed = false;
        for (HloInstruction i : callee.instructions()) {
            long k = i.opcode().equals("get-tuple-element") && i.operands().getFirst().equals(param) ? i.intValue("index", -1) : -1;
            List<HloInstruction> constant = k < 0 || k >= init.elements().size() || !(all || LoopAnalysis.passesOn(body, (int) k)) ? null
                    : knownElement(comp, comp.instruction(loop.operands().getFirst()), init.elements().get((int) k), (int) k, i);
            if (constant == null) {
                instructions.add(i);
            } else {
                instructions.addAll(constant);
                changed = true;
            }
        }
        return changed ? new HloComputation(callee.name() + "." + loop.name(), false, instructions, callee.rootName()) : callee;
    }

    /**
     * {@return the instructions that give {@code read}, a read of element {@code k} of a loop's
     * value, as the constant XLA knows it to be, or null where XLA does not know it}
     */
    private List<HloInstruction> knownElement(HloComputation comp, HloInstruction tuple, Value element, int k, HloInstruction read) {
        if (!(read.shape() instanceof ArrayShape) || element.isTuple()) {
            return null;
        }
        HloInstruction source = tuple.opcode().equals("tuple") && k < tuple.operands().size()
                ? comp.instruction(tuple.operands().get(k)) : null;
        if (source != null && source.opcode().equals("constant")) {
            return List.of(HloInstructions.of(read.name(), read.shape(), "constant", List.of(), HloInstructions.attributes(source),
                    source.payload()));
        }
        if (source != null && source.opcode().equals("broadcast") && comp.instruction(source.operands().getFirst()).opcode().equals("constant")) {
            HloInstruction c = comp.instruction(source.operands().getFirst());
            String name = read.name() + ".constant";
            return List.of(HloInstructions.of(name, c.shape(), "constant", List.of(), HloInstructions.attributes(c), c.payload()),
                    HloInstructions.of(read.name(), read.shape(), "broadcast", List.of(name), HloInstructions.attributes(source), ""));
        }
        TensorView v = element.view();
        if (known.contains(v) && v.rank() == 0 && !Pointwise.isFloat(v.dtype()) && v.dtype().kind() != DType.Kind.COMPLEX) {
            long x = TensorElements.of(v).getLong();
            return List.of(HloInstructions.of(read.name(), read.shape(), "constant", List.of(), Map.of(),
                    v.dtype() == DType.PRED ? Boolean.toString(x != 0) : Long.toString(x)));
        }
        return null;
    }

    /** Bytes a loop's iterations allocate from one arena before their value moves to a fresh one. */
    static final long LOOP_GENERATION_BYTES = 64L << 20;

    /** A shared arena that counts the bytes it hands out. */
    private static final class CountingAllocator implements Allocator {
        private final Allocator arena = Allocators.shared();
        long bytes;

        @Override
        public dev.tensorbuf.memory.MemorySpace memorySpace() {
            return arena.memorySpace();
        }

        @Override
        public long defaultAlignment() {
            return arena.defaultAlignment();
        }

        @Override
        public dev.tensorbuf.memory.MemoryBuffer allocate(long byteSize, long alignment) {
            dev.tensorbuf.memory.MemoryBuffer b = arena.allocate(byteSize, alignment);
            bytes += byteSize;
            return b;
        }

        @Override
        public boolean isOpen() {
            return arena.isOpen();
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /**
     * Runs a {@code conditional}: the branch its first operand chooses (a pred: true_computation
     * when true; an s32: that branch, the last for an index out of range, as XLA does) on that
     * branch's operand (jax's {@code cond} and {@code switch}). It reads as a call of that branch.
     */
    private Value conditional(HloComputation comp, HloInstruction in, List<Value> operands) {
        List<String> branches = branchNames(in);
        if (operands.size() != branches.size() + 1) {
            throw new IllegalArgumentException("conditional takes a selector and one operand per branch (" + branches.size()
                    + "), got " + operands.size() + " operands: " + in.operands());
        }
        if (operands.getFirst().isTuple()) {
            throw new IllegalArgumentException("its selector " + in.operands().getFirst() + " is a tuple: it is a pred[] or s32[]");
        }
        TensorView selector = fusion.force(operands.getFirst().view(), comp.instruction(in.operands().getFirst()).arrayShape().laidOut(),
                in.name());
        boolean byPred = in.text("branch_computations").isEmpty();
        if (selector.rank() != 0 || selector.dtype() != (byPred ? DType.PRED : DType.S32)) {
            throw new IllegalArgumentException("its selector " + in.operands().getFirst() + " is " + selector.dtype().xlaName()
                    + selector.dims() + ": " + (byPred ? "true_computation and false_computation take a pred[]" : "branch_computations take an s32[]"));
        }
        // checkSignatures has checked every branch against the conditional before the run began.
        long at = TensorElements.of(selector).getLong();
        int k = byPred ? (at != 0 ? 0 : 1) : at < 0 || at >= branches.size() ? branches.size() - 1 : (int) at;
        HloComputation branch = module.computation(branches.get(k));
        // A selector XLA knows (a constant, or folded from constants) makes its simplifier inline
        // the branch, and elementwise work then fuses across the branch's edges; so does a select
        // XLA makes of a pred conditional with cheap branches. Else the conditional stays, and its
        // operand and result are arrays in memory: a product on one side is rounded before a sum
        // on the other (jax 0.10), not contracted with it.
        boolean inlined = known.contains(operands.getFirst().view()) || SelectedConditionals.becomesSelect(module, in);
        HloInstruction given = comp.instruction(in.operands().get(k + 1));
        Value r = inlined ? runOn(branch, operands.get(k + 1))
                : evaluated(runOn(branch, evaluated(operands.get(k + 1), given.shape(), in.name())), in.shape(), in.name());
        String why = "branch " + branch.name() + " chosen (" + (byPred ? at != 0 : Long.toString(at)) + ")";
        if (r.isTuple()) {
            return new Value(null, ExecutedInstruction.Kind.VIEW, false, r.elements(), why);
        }
        boolean viewed = r.kind() == ExecutedInstruction.Kind.PARAMETER || branch.root().opcode().equals("parameter");
        return new Value(r.view(), viewed ? ExecutedInstruction.Kind.VIEW : r.kind(), r.inOwnLayout(), null, why);
    }

    /** {@return {@code v} with its held elementwise work, and its elements', evaluated into memory laid out as {@code shape} says} */
    private Value evaluated(Value v, dev.tensorbuf.views.XlaShape shape, String user) {
        if (v.isTuple()) {
            if (!(shape instanceof dev.tensorbuf.views.XlaShape.Tuple t) || t.elements().size() != v.elements().size()) {
                return v;
            }
            List<Value> elements = new ArrayList<>();
            for (int k = 0; k < v.elements().size(); k++) {
                elements.add(evaluated(v.elements().get(k), t.elements().get(k), user));
            }
            return new Value(null, v.kind(), false, elements, v.reason());
        }
        if (!fusion.isHeld(v.view()) || !(shape instanceof ArrayShape a)) {
            return v;
        }
        return new Value(fusion.force(v.view(), a.laidOut(), user), ExecutedInstruction.Kind.COPY, true, null, v.reason());
    }

    /** {@return the computations a conditional chooses from, in order: {@code branch_computations}, or the true and false ones} */
    public static List<String> branchNames(HloInstruction in) {
        java.util.Optional<String> list = in.text("branch_computations");
        if (list.isPresent()) {
            String t = list.get().strip();
            if (t.startsWith("{") && t.endsWith("}")) {
                t = t.substring(1, t.length() - 1);
            }
            List<String> names = java.util.Arrays.stream(t.split(",")).map(String::strip).filter(n -> !n.isEmpty()).toList();
            if (names.isEmpty()) {
                throw new IllegalArgumentException("conditional " + in.name() + " has no branch_computations");
            }
            return names;
        }
        return List.of("true_computation", "false_computation").stream().map(a -> in.text(a).orElseThrow(
                () -> new IllegalArgumentException("conditional " + in.name() + " names no branches: expected"
                        + " branch_computations={...}, or true_computation= and false_computation="))).toList();
    }

    private static HloComputation loopComputation(HloModule module, HloInstruction in, String attribute) {
        HloComputation comp = module.computation(in.text(attribute).orElseThrow(() -> new IllegalArgumentException(
                "while names no " + attribute + ": expected " + attribute + "=")));
        if (comp.parameterCount() != 1) {
            throw new IllegalArgumentException("its " + attribute + " " + comp.name() + " has " + comp.parameterCount()
                    + " parameters: a loop's computations take one, the loop's value");
        }
        return comp;
    }

    /** {@return the run of {@code comp}, its one parameter bound to {@code value}} */
    private Value runOn(HloComputation comp, Value value) {
        Map<String, Value> values = new HashMap<>();
        values.put(comp.parameter(0).name(), value.isTuple() ? value : new Value(value.view(), ExecutedInstruction.Kind.PARAMETER, false));
        evaluate(comp, values, comp.root());
        return values.get(comp.root().name());
    }

    /**
     * {@return {@code v}, of shape {@code shape}, copied into new memory from {@code into} laid out
     * as {@code shape} says, held expressions evaluated there by {@code from}}
     */
    private static Value copyOut(Value v, dev.tensorbuf.views.XlaShape shape, Fusion from, Allocator into, String loop, String what) {
        if (shape instanceof dev.tensorbuf.views.XlaShape.Tuple t) {
            if (!v.isTuple() || v.elements().size() != t.elements().size()) {
                throw new IllegalArgumentException(what + " is " + (v.isTuple() ? "a tuple of " + v.elements().size()
                        : "an array") + " where the loop carries " + shape);
            }
            List<Value> elements = new ArrayList<>();
            for (int k = 0; k < t.elements().size(); k++) {
                elements.add(copyOut(v.elements().get(k), t.elements().get(k), from, into, loop, what + ", element " + k + ","));
            }
            return new Value(null, ExecutedInstruction.Kind.COPY, false, elements, "");
        }
        if (!(shape instanceof ArrayShape a) || v.isTuple() || v.view().dtype() != a.dtype() || !v.view().dims().equals(a.dims())) {
            throw new IllegalArgumentException(what + " is " + (v.isTuple() ? "a tuple" : v.view().dtype().xlaName() + v.view().dims())
                    + " where the loop carries " + shape);
        }
        TensorView dst = Materialize.allocateForOverwrite(a.laidOut(), into);
        from.forceInto(v.view(), dst, loop);
        return new Value(dst, ExecutedInstruction.Kind.COPY, true);
    }

    /** A sort ({@link Sorts}): each operand permuted along the sorted dim into new memory; a tuple of them for several. */
    private Value sort(HloInstruction in, List<TensorView> ops) {
        HloComputation comparator = module.computation(calleeName(in));
        if (in.outputCount() != ops.size()) {
            throw new IllegalArgumentException("it sorts " + ops.size() + " operands into " + in.outputCount() + " results");
        }
        List<ArrayShape> shapes = new ArrayList<>();
        for (int k = 0; k < ops.size(); k++) {
            shapes.add(in.outputShape(k).laidOut());
        }
        List<TensorView> sorted = Sorts.sort(in, comparator, ops, shapes, allocator);
        String why = "sorted along dims " + in.ints("dimensions") + " by " + comparator.name()
                + (in.text("is_stable").map(String::strip).orElse("false").equals("true") ? ", stable" : "");
        if (!(in.shape() instanceof dev.tensorbuf.views.XlaShape.Tuple)) {
            return new Value(sorted.getFirst(), ExecutedInstruction.Kind.COPY, true, null, why);
        }
        return new Value(null, ExecutedInstruction.Kind.COPY, false,
                sorted.stream().map(v -> new Value(v, ExecutedInstruction.Kind.COPY, true, null, why)).toList(), why);
    }

    /** XLA's {@code topk} or its CPU custom-call {@code TopK}: a tuple of the values and their positions, each new memory. */
    private Value topK(HloInstruction in, List<TensorView> ops) {
        HloComputation comparator = in.opcode().equals("topk") ? null : module.computation(topKComparator(in));
        if (in.outputCount() != 2) {
            throw new IllegalArgumentException("it gives " + in.outputCount() + " results: top-k gives the values and their positions");
        }
        List<TensorView> both = Sorts.topK(in, comparator, operand(in, ops, 0),
                List.of(in.outputShape(0).laidOut(), in.outputShape(1).laidOut()), allocator);
        String why = "the " + in.outputShape(0).dim(in.outputShape(0).rank() - 1) + " "
                + (Sorts.largest(in) ? "greatest" : "least")
                + " of each row along the last dim, in order" + (comparator == null ? "" : " by " + comparator.name());
        return new Value(null, ExecutedInstruction.Kind.COPY, false,
                both.stream().map(v -> new Value(v, ExecutedInstruction.Kind.COPY, true, null, why)).toList(), why);
    }

    /** {@return whether {@code in} is XLA's CPU custom-call {@code TopK}, which optimised HLO makes of a {@code topk}} */
    public static boolean isTopK(HloInstruction in) {
        return in.opcode().equals("custom-call") && customCallTarget(in).equals("TopK");
    }

    /** {@return the comparator a {@code TopK} custom-call names in its {@code called_computations}} */
    private static String topKComparator(HloInstruction in) {
        String names = in.text("called_computations").orElse("").strip();
        if (names.startsWith("{") && names.endsWith("}")) {
            names = names.substring(1, names.length() - 1).strip();
        }
        if (names.isEmpty() || names.contains(",")) {
            throw new IllegalArgumentException("custom-call TopK names " + (names.isEmpty() ? "no" : "more than one")
                    + " comparator: expected called_computations={%comparator}");
        }
        return names.startsWith("%") ? names.substring(1) : names;
    }

    /** jax's argmax or argmin: a tuple of the values and the indices, each new memory. */
    private Value argReduce(HloInstruction in, List<TensorView> ops) {
        HloComputation reducer = module.computation(calleeName(in));
        String direction = Reductions.argDirection(reducer);
        List<TensorView> both = Reductions.argReduce(ops.get(0), ops.get(1), ops.get(2), ops.get(3), Reductions.dimensions(in),
                direction, Reductions.roundedThrough(reducer), in.outputShape(0).laidOut(), in.outputShape(1).laidOut(), allocator);
        String why = (direction.equals("GT") ? "argmax" : "argmin") + " over dims " + Reductions.dimensions(in);
        return new Value(null, ExecutedInstruction.Kind.VIEW, false,
                List.of(new Value(both.get(0), ExecutedInstruction.Kind.REDUCED, true, null, why),
                        new Value(both.get(1), ExecutedInstruction.Kind.REDUCED, true, null, why)), why);
    }

    /**
     * Characters of a view's map past which the view is copied into its instruction's layout.
     * Reshapes of transposed views compose into floor divisions and modulos of each other; the
     * simplifier cannot always undo them, and a chain of a few dozen grew maps of hundreds of
     * kilobytes that took minutes to simplify. A copy resets the map to strides.
     */
    static final int MAX_MAP_CHARS = 1024;

    private Value boundMap(HloInstruction in, Value v) {
        if (v.kind() != ExecutedInstruction.Kind.VIEW || !mapTooLong(v.view())) {
            return v;
        }
        return new Value(Materialize.materialize(v.view(), in.arrayShape().laidOut(), allocator), ExecutedInstruction.Kind.COPY, true,
                null, "its map grew past " + MAX_MAP_CHARS + " characters: copied to strides");
    }

    /**
     * A padded or concatenated view has no simplified map, and its pieces' maps are composed but
     * never simplified, so they grow with every step after the pad: measured as they are, each
     * time, they stay near the limit instead of doubling unseen until the copy at the end. Its
     * form is not asked first: that compiles every piece's map, the cost being bounded here.
     */
    private static boolean mapTooLong(TensorView view) {
        if (!(view.map() instanceof ViewMap.Single)) {
            for (ViewMap.Single piece : view.map().pieces()) {
                if (piece.map().toString().length() > MAX_MAP_CHARS) {
                    return true;
                }
            }
            return false;
        }
        return !view.isStrided() && view.indexingMap().toString().length() > MAX_MAP_CHARS;
    }

    private static Value view(TensorView v) {
        return new Value(v, ExecutedInstruction.Kind.VIEW, false);
    }

    private TensorView iota(HloInstruction in, ArrayShape shape) {
        long written = in.intValue("iota_dimension", 0); // present: the parser requires it
        if (written < 0 || written >= shape.rank()) {
            throw new IllegalArgumentException("iota_dimension=" + written + " is not a dimension of " + shape);
        }
        int d = (int) written;
        // One row of n values, broadcast: n elements of memory for any shape.
        long n = shape.dim(d);
        DType type = shape.dtype();
        TensorView row = Materialize.allocate(ArrayShape.of(type, n), allocator);
        int bits = type.bitWidth();
        for (long k = 0; k < n; k++) {
            // As XLA computes it: integers wrap to their width (s8 counts 126, 127, -128, ...), pred is k != 0.
            switch (type.kind()) {
                case FLOAT -> TensorElements.of(row).setDouble(k, k);
                case COMPLEX -> TensorElements.of(row).setComplex(k, 0, k);
                case BOOLEAN -> TensorElements.of(row).setLong(k == 0 ? 0 : 1, k);
                case SIGNED -> TensorElements.of(row).setLong(bits == 64 ? k : k << (64 - bits) >> (64 - bits), k);
                case UNSIGNED -> TensorElements.of(row).setLong(bits == 64 ? k : k & ((1L << bits) - 1), k);
                default -> throw new IllegalArgumentException("iota of " + type + " is not supported");
            }
        }
        return Ops.broadcast(row, Extents.toArray(shape.dims()), d);
    }

    /**
     * Runs the called computation with its parameters bound to the operands' views. It is one step
     * of the caller: a copy when anything inside it copied (the optimised {@code transpose} fusion
     * ends in a {@code copy}), else a view, so the step counts say whether bytes moved.
     */
    private Value call(HloComputation caller, HloInstruction in, List<TensorView> ops, List<Value> operandValues) {
        // checkSignatures has checked the operands against the callee's parameters before the run.
        HloComputation callee = module.computation(calleeName(in));
        Map<String, Value> values = new HashMap<>();
        for (int k = 0; k < ops.size(); k++) {
            HloInstruction p = callee.parameter(k);
            if (operandValues.get(k).isTuple()) {
                // A tuple passed whole: its elements are what the callee's get-tuple-elements read.
                values.put(p.name(), operandValues.get(k));
                continue;
            }
            ArrayShape declared = p.arrayShape();
            values.put(p.name(), handedOver(caller, in, k, operandValues.get(k), declared)
                    ? operandValues.get(k) : new Value(ops.get(k), ExecutedInstruction.Kind.PARAMETER, false));
        }
        HloInstruction root = callee.root();
        evaluate(callee, values, root);
        Value r = values.get(root.name());
        List<String> copies = new ArrayList<>();
        for (HloInstruction i : callee.instructions()) {
            Value v = values.get(i.name());
            if (v != null && v.kind() == ExecutedInstruction.Kind.COPY && !i.opcode().equals("parameter")) {
                copies.add("%" + i.name());
            }
        }
        boolean copied = !copies.isEmpty();
        String reason = copied ? "copies inside " + callee.name() + ": " + String.join(", ", copies) : "";
        if (r.isTuple()) {
            List<Value> elements = new ArrayList<>();
            for (int k = 0; k < r.elements().size(); k++) {
                Value e = r.elements().get(k);
                if (e.isTuple()) {
                    elements.add(e);
                    continue;
                }
                elements.add(new Value(e.view(), e.kind() == ExecutedInstruction.Kind.PARAMETER ? ExecutedInstruction.Kind.VIEW
                        : e.kind(), e.inOwnLayout(), null, e.reason()));
            }
            return new Value(null, copied ? ExecutedInstruction.Kind.COPY : ExecutedInstruction.Kind.VIEW, false, elements, reason);
        }
        ExecutedInstruction.Kind kind = copied ? ExecutedInstruction.Kind.COPY
                : r.kind() == ExecutedInstruction.Kind.PARAMETER || root.opcode().equals("parameter")
                        ? ExecutedInstruction.Kind.VIEW : r.kind();
        return new Value(r.view(), kind, r.inOwnLayout(), null, reason.isEmpty() ? r.reason() : reason);
    }

    /**
     * {@return whether operand {@code k} of a call passes its memory to the callee to write into}:
     * memory the run made in the layout the callee's parameter declares (XLA's optimised HLO copies a KV cache, then
     * updates the copy inside a fusion), which nothing but this call reads.
     */
    private boolean handedOver(HloComputation caller, HloInstruction in, int k, Value v, ArrayShape declared) {
        if ((v.kind() != ExecutedInstruction.Kind.COPY && v.kind() != ExecutedInstruction.Kind.CONSTANT) || !v.isLaidOutAs(declared)) {
            return false;
        }
        String name = caller.find(in.operands().get(k)).orElseThrow().name();
        return usesOf(caller).getOrDefault(name, 0) == 1;
    }

    private Value getTupleElement(HloInstruction in, Value tuple) {
        if (!tuple.isTuple()) {
            throw new IllegalArgumentException("operand " + in.operands().getFirst() + " is no tuple");
        }
        long k = in.intValue("index", -1);
        if (k < 0 || k >= tuple.elements().size()) {
            throw new IllegalArgumentException("index=" + k + " is not an element of a tuple of " + tuple.elements().size());
        }
        Value e = tuple.elements().get((int) k);
        if (e.isTuple()) {
            return e;
        }
        // The element itself, read where it is: its memory, if any, stays the producer's.
        return new Value(e.view(), e.kind() == ExecutedInstruction.Kind.PARAMETER ? ExecutedInstruction.Kind.VIEW
                : e.kind() == ExecutedInstruction.Kind.FOLDED ? e.kind() : ExecutedInstruction.Kind.VIEW,
                e.inOwnLayout(), null, "element " + k + " of %" + in.operands().getFirst().replaceFirst("^%", ""));
    }

    /**
     * A dynamic-update-slice writes into its operand's memory when that memory is the run's own
     * (a copy, a literal, an earlier update) in its own layout, and nothing else reads it: this
     * is its one use. Else into a copy of the operand.
     */
    private Value dynamicUpdateSlice(HloComputation comp, HloInstruction in, List<TensorView> ops, List<Value> values,
            ArrayShape shape) {
        Value operand = values.getFirst();
        HloInstruction producer = comp.find(in.operands().getFirst()).orElseThrow();
        boolean owned = (operand.kind() == ExecutedInstruction.Kind.COPY || operand.kind() == ExecutedInstruction.Kind.CONSTANT)
                && operand.isLaidOutAs(shape) && usesOf(comp).getOrDefault(producer.name(), 0) == 1;
        IndexedMoves.Updated u = IndexedMoves.dynamicUpdateSlice(in, operand(in, ops, 0), owned, ops, shape, allocator);
        return new Value(u.value(), ExecutedInstruction.Kind.COPY, true, null, u.inPlace()
                ? "the update written in place: %" + in.operands().getFirst().replaceFirst("^%", "") + " is not read after it"
                : "the operand copied, the update written into the copy");
    }

    private Map<String, Integer> usesOf(HloComputation comp) {
        return uses.computeIfAbsent(comp.name(), c -> {
            Map<String, Integer> n = new HashMap<>();
            for (HloInstruction i : comp.instructions()) {
                for (String o : i.operands()) {
                    comp.find(o).ifPresent(d -> n.merge(d.name(), 1, Integer::sum));
                }
            }
            // A computation's ROOT is read by its caller.
            n.merge(comp.root().name(), 1, Integer::sum);
            return n;
        });
    }

    /** {@return the computation a {@code call} ({@code to_apply=}) or {@code fusion} ({@code calls=}) runs} */
    public static String calleeName(HloInstruction in) {
        return in.text("to_apply").or(() -> in.text("calls")).orElseThrow(() -> new IllegalArgumentException(
                in.opcode() + " " + in.name() + " names no computation: expected " + (in.opcode().equals("call") ? "to_apply=" : "calls=")));
    }

    private Value bitcast(HloComputation comp, HloInstruction in, TensorView source, long[] dims) {
        ArrayShape from = operandShape(comp, in, 0).laidOut();
        ArrayShape to = in.arrayShape().laidOut();
        if (from.dtype() != to.dtype()) {
            throw new IllegalArgumentException("bitcast from " + from + " to " + in.shape()
                    + " changes the element type; that is bitcast-convert, which is not a data-movement op here");
        }
        if (!from.requireLayout().tiles().isEmpty() || !to.requireLayout().tiles().isEmpty()) {
            // XLA's bitcast map follows minor_to_major alone, but tiles reorder the bytes: lay the
            // operand out as declared (unless it is already) and read those bytes as the target.
            if (readsWhole(source, from)) {
                // The same bytes through the declared layout, whose sizes the bitcast compares.
                return view(Bitcast.apply(TensorView.of(source.buffer(), from), to));
            }
            return new Value(Bitcast.apply(Materialize.materialize(source, from, allocator), to), ExecutedInstruction.Kind.COPY, true);
        }
        // The logical map through both declared layouts: right whatever memory the operand's view reads.
        var maps = HloIndexing.outputToInput(module, in).operand(0);
        if (maps.size() != 1) {
            throw new IllegalArgumentException("bitcast from " + from + " to " + in.shape() + " has no single map: " + maps);
        }
        OperandIndexing map = maps.iterator().next();
        return view(source.remap(map.map(), dims));
    }

    /**
     * {@return whether {@code view} reads its one buffer as {@code shape}'s layout does}: its map
     * form is a whole tiled layout recovered from the map, and the map is the shape's (so a
     * transpose of a tiled view, or the same map made another way, is bitcast without a copy)
     */
    private static boolean readsWhole(TensorView view, ArrayShape shape) {
        if (!(view.map() instanceof ViewMap.Single) || view.stridedLayout().isPresent()
                || !(view.form() instanceof dev.tensorbuf.views.MapForm.Tiled t) || t.xlaShape(view.dtype()).isEmpty()) {
            return false;
        }
        long bits = shape.requireLayout().elementSizeInBits();
        return view.access().storageBits() == (bits != 0 ? bits : 8L * shape.dtype().byteWidth())
                && view.dims().equals(shape.dims()) && view.indexingMap().equals(shape.toIndexingMap().simplify());
    }

    private static TensorView slice(HloInstruction in, TensorView source) {
        if (!(HloInstructions.attribute(in, "slice").orElse(null) instanceof HloAttribute.Slices s)) {
            throw new IllegalArgumentException("slice needs a slice={[start:limit:stride], ...} attribute");
        }
        int r = s.dims().size();
        long[] start = new long[r];
        long[] limit = new long[r];
        long[] stride = new long[r];
        for (int i = 0; i < r; i++) {
            start[i] = s.dims().get(i).start();
            limit[i] = s.dims().get(i).limit();
            stride[i] = s.dims().get(i).stride();
        }
        return Ops.slice(source, start, limit, stride);
    }

    private TensorView dynamicSlice(HloInstruction in, List<TensorView> ops) {
        TensorView source = operand(in, ops, 0);
        return Ops.dynamicSlice(source, dynamicSliceOffsets(ops, source.rank()), Extents.toArray(in.ints("dynamic_slice_sizes")));
    }

    /** {@return the {@code rank} start offsets a {@code dynamic-slice} of operands {@code ops} reads, before the op clamps them} */
    static long[] dynamicSliceOffsets(List<TensorView> ops, int rank) {
        // One integer scalar start a dim, all of one type: checked before the run (checkDeclaredTypes).
        long[] starts = new long[rank];
        for (int k = 0; k < starts.length; k++) {
            TensorView s = ops.get(k + 1);
            long value = TensorElements.of(s).getLong();
            // u64 starts past 2^63 read as negative; any such start is past every dim, so clamp high.
            starts[k] = s.dtype() == DType.U64 && value < 0 ? Long.MAX_VALUE : value;
        }
        return starts;
    }

    private TensorView pad(HloInstruction in, TensorView source, TensorView fill) {
        if (!(HloInstructions.attribute(in, "padding").orElse(null) instanceof HloAttribute.Padding p)) {
            throw new IllegalArgumentException("pad needs a padding=low_high_interior x ... attribute");
        }
        int r = p.dims().size();
        long[] low = new long[r];
        long[] high = new long[r];
        long[] interior = new long[r];
        for (int i = 0; i < r; i++) {
            low[i] = p.dims().get(i).low();
            high[i] = p.dims().get(i).high();
            interior[i] = p.dims().get(i).interior();
        }
        if (fill.rank() != 0 || fill.dtype() != source.dtype()) {
            throw new IllegalArgumentException("padding value " + fill.shape() + " must be a " + source.dtype() + " scalar");
        }
        // A fill that is itself padded or concatenated is read once into a scalar of its own.
        TensorView scalar = fill.map() instanceof ViewMap.Single ? fill
                : Materialize.materialize(fill, fill.shape().withLayout(XlaLayout.descending(0)), allocator);
        return Pad.apply(source, low, high, interior, scalar);
    }

    private void checkResult(HloInstruction in, TensorView v) {
        ArrayShape declared = in.arrayShape();
        if (v.dtype() != declared.dtype() || !v.dims().equals(declared.dims())) {
            throw new IllegalArgumentException("declares " + declared + " but computes " + v.dtype().xlaName() + v.dims());
        }
    }

    /** The moves whose result has the element type of the operands listed (by position). */
    private static final Map<String, List<Integer>> KEEPS_TYPE = Map.ofEntries(
            Map.entry("broadcast", List.of(0)), Map.entry("transpose", List.of(0)), Map.entry("reshape", List.of(0)),
            Map.entry("copy", List.of(0)), Map.entry("slice", List.of(0)),
            Map.entry("reverse", List.of(0)), Map.entry("pad", List.of(0, 1)), Map.entry("dynamic-slice", List.of(0)),
            Map.entry("dynamic-update-slice", List.of(0, 1)), Map.entry("gather", List.of(0)), Map.entry("scatter", List.of(0, 2)));

    /**
     * Checks the element types {@code in} declares against its operands' declared types, and the
     * number of its operands, as XLA's verifier does for every instruction before anything runs:
     * checked only as it runs, an instruction in a branch not chosen or a loop of no trips would
     * pass. Throws an IllegalArgumentException saying what is wrong, without the instruction's
     * name (the caller adds where it is).
     */
    public static void checkDeclaredTypes(HloModule module, HloComputation comp, HloInstruction in) {
        String op = in.opcode();
        Integer count = OPERAND_COUNTS.get(op);
        if (count == null && Pointwise.OPCODES.contains(op)) {
            count = Pointwise.arity(op);
        }
        if (count != null && in.operands().size() != count) {
            // Extra operands would be ignored: copy(p0, p0) would run as copy(p0), which XLA refuses.
            throw new IllegalArgumentException(op + " takes " + count + " operand" + (count == 1 ? "" : "s") + ", got "
                    + in.operands().size() + ": " + in.operands());
        }
        if (op.equals("get-tuple-element") && comp.instruction(in.operands().getFirst()).shape() instanceof dev.tensorbuf.views.XlaShape.Tuple t) {
            long k = in.intValue("index", -1);
            if (k < 0 || k >= t.elements().size()) {
                throw new IllegalArgumentException("index=" + k + " is not an element of " + in.operands().getFirst() + ", a tuple of "
                        + t.elements().size());
            }
            sameShape("element " + k + " of " + in.operands().getFirst(), t.elements().get((int) k), in.shape());
        }
        if (op.equals("tuple") && !(in.shape() instanceof dev.tensorbuf.views.XlaShape.Tuple)) {
            throw new IllegalArgumentException("declares " + in.shape() + ", not a tuple");
        }
        if (op.equals("tuple") && in.shape() instanceof dev.tensorbuf.views.XlaShape.Tuple t) {
            if (t.elements().size() != in.operands().size()) {
                throw new IllegalArgumentException("declares a tuple of " + t.elements().size() + " but has "
                        + in.operands().size() + " operands");
            }
            for (int k = 0; k < in.operands().size(); k++) {
                sameShape("operand " + k + " (" + in.operands().get(k) + ")", comp.instruction(in.operands().get(k)).shape(),
                        t.elements().get(k));
            }
        }
        if (op.equals("constant") && !(in.shape() instanceof ArrayShape)) {
            // Its literal would go unread before the run reached it (XLA parses a tuple literal of
            // parenthesised elements, which jax never writes).
            throw new IllegalArgumentException("declares " + in.shape() + ": a constant of a tuple shape is not supported; a tuple"
                    + " of constants is");
        }
        if (op.equals("sort")) {
            // Its operands reordered: checked before the run allocates what the shape declares.
            List<dev.tensorbuf.views.XlaShape> operands = in.operands().stream().map(o -> comp.instruction(o).shape()).toList();
            sameShape("its shape", in.shape(), operands.size() == 1 ? operands.getFirst() : new dev.tensorbuf.views.XlaShape.Tuple(operands));
        }
        if (!(in.shape() instanceof ArrayShape shape)) {
            return;
        }
        if (op.equals("constant")) {
            Literals.check(in.payload(), shape);
        }
        List<ArrayShape> shapes = operandArrays(comp, in);
        if (shapes == null && (Pointwise.OPCODES.contains(op) || SHAPE_RULES.contains(op))) {
            // Unchecked, one in a loop of no trips would pass (damaged-module seed 24: multiply of the body's parameter).
            for (int k = 0; k < in.operands().size(); k++) {
                if (!(comp.instruction(in.operands().get(k)).shape() instanceof ArrayShape)) {
                    throw new IllegalArgumentException("operand " + k + " (" + in.operands().get(k) + ") is a tuple; take its elements"
                            + " with get-tuple-element");
                }
            }
        }
        if (shapes == null) {
            return; // a tuple operand: get-tuple-element and the calls check what they read
        }
        List<DType> types = shapes.stream().map(ArrayShape::dtype).toList();
        if (Pointwise.OPCODES.contains(op)) {
            Fusion.checkTypes(op, types, shape.dtype());
            for (int k = 0; k < shapes.size(); k++) {
                // clamp's bounds may be scalars (the run broadcasts them); every other operand has the result's dims.
                boolean scalarAllowed = op.equals("clamp") && k != 1;
                if (!shapes.get(k).dims().equals(shape.dims()) && !(scalarAllowed && shapes.get(k).rank() == 0)) {
                    throw new IllegalArgumentException(op + " is elementwise: operand " + k + " (" + in.operands().get(k) + ") is "
                            + shapes.get(k) + ", the result " + shape);
                }
            }
        }
        if (op.equals("copy") && shapes.size() == 1 && !shapes.getFirst().dims().equals(shape.dims())) {
            // Only the dims: a copy may lay its result out otherwise (damaged-module seed 25, unreached).
            throw new IllegalArgumentException("copy keeps its operand's dims: operand 0 (" + in.operands().getFirst() + ") is "
                    + shapes.getFirst() + ", the result " + shape);
        }
        List<Integer> kept = KEEPS_TYPE.getOrDefault(op, List.of());
        for (int k : kept) {
            if (k < types.size() && types.get(k) != shape.dtype()) {
                throw new IllegalArgumentException(op + " keeps its operand's element type: operand " + k + " ("
                        + in.operands().get(k) + ") is " + types.get(k).xlaName() + ", the result " + shape);
            }
        }
        if (op.equals("scatter") && shapes.size() == 3 && types.get(1).kind() != DType.Kind.SIGNED
                && types.get(1).kind() != DType.Kind.UNSIGNED) {
            throw new IllegalArgumentException("its indices " + in.operands().get(1) + " are " + shapes.get(1) + ", not integers");
        }
        if (SHAPE_RULES.contains(op)) {
            try {
                OpIndexing.checkShapes(new Ctx(module, comp), in);
            } catch (IllegalArgumentException e) {
                String named = op + " " + in.name() + ": "; // the caller names the instruction and its line
                String message = e.getMessage();
                throw new IllegalArgumentException(message.startsWith(named) ? message.substring(named.length()) : message, e);
            }
        }
    }

    /**
     * The moves whose dims the run computes from their attributes and compares with the declared
     * ones as it runs; checked here too, by the indexing analysis's rules (XLA's shape inference),
     * so that one the run never reaches is refused as XLA refuses it. Not bitcast: the run reads
     * it structurally, and XLA's optimised HLO bitcasts between types inside comparators.
     */
    private static final Set<String> SHAPE_RULES = Set.of("slice", "pad", "reshape", "concatenate", "broadcast", "transpose",
            "reverse", "dynamic-slice", "dynamic-update-slice", "gather", "reduce", "reduce-window", "bitcast-convert");

    /**
     * Checks a loop's condition and body, every branch of a conditional, and the computation a
     * call or fusion runs, against the instruction's operands and shape, as XLA's verifier does
     * before anything runs: checked only as they run, a body returning the wrong shape would pass
     * in a loop of no trips, and a branch never chosen would never be checked. Other instructions pass.
     */
    public static void checkSignatures(HloModule module, HloComputation comp, HloInstruction in) {
        if (in.opcode().equals("while") && in.operands().size() == 1) {
            HloComputation condition = loopComputation(module, in, "condition");
            HloComputation body = loopComputation(module, in, "body");
            if (!(condition.root().shape() instanceof ArrayShape c) || c.dtype() != DType.PRED || c.rank() != 0) {
                throw new IllegalArgumentException("its condition " + condition.name() + " returns " + condition.root().shape()
                        + ": a loop's condition returns pred[]");
            }
            sameShape("its operand " + in.operands().getFirst(), comp.instruction(in.operands().getFirst()).shape(), in.shape());
            sameShape("its condition " + condition.name() + "'s parameter", condition.parameter(0).shape(), in.shape());
            sameShape("its body " + body.name() + "'s parameter", body.parameter(0).shape(), in.shape());
            sameShape("its body " + body.name() + "'s ROOT", body.root().shape(), in.shape());
        } else if (in.opcode().equals("call") || in.opcode().equals("fusion")) {
            HloComputation callee = module.computation(calleeName(in));
            if (callee.parameterCount() != in.operands().size()) {
                throw new IllegalArgumentException("passes " + in.operands().size() + " operands to " + callee.name() + ", which has "
                        + callee.parameterCount() + " parameters");
            }
            for (int k = 0; k < in.operands().size(); k++) {
                dev.tensorbuf.views.XlaShape operand = comp.instruction(in.operands().get(k)).shape();
                HloInstruction p = callee.parameter(k);
                if (!operand.toStringWithoutLayout().equals(p.shape().toStringWithoutLayout())) {
                    throw new IllegalArgumentException("operand " + k + " (" + in.operands().get(k) + ") is " + operand + " but "
                            + callee.name() + "'s parameter " + p.name() + " is " + p.shape());
                }
            }
            sameShape("its computation " + callee.name() + "'s ROOT", callee.root().shape(), in.shape());
            if (in.opcode().equals("fusion")) {
                Set<String> read = new HashSet<>();
                callee.instructions().forEach(i -> read.addAll(i.operands()));
                for (HloInstruction i : callee.instructions()) {
                    if (!i.name().equals(callee.rootName()) && !read.contains(i.name())) {
                        throw new IllegalArgumentException("%" + i.name() + " in its computation " + callee.name()
                                + " is not read: every instruction of a fusion but its ROOT has users, as XLA's verifier requires");
                    }
                }
            }
        } else if (in.opcode().equals("conditional") && in.operands().size() == branchNames(in).size() + 1) {
            List<String> branches = branchNames(in);
            for (int b = 0; b < branches.size(); b++) {
                HloComputation each = module.computation(branches.get(b));
                if (each.parameterCount() != 1) {
                    throw new IllegalArgumentException("its branch " + each.name() + " has " + each.parameterCount()
                            + " parameters: a branch takes one, its operand");
                }
                sameShape("its branch " + each.name() + "'s parameter", each.parameter(0).shape(),
                        comp.instruction(in.operands().get(b + 1)).shape());
                sameShape("its branch " + each.name() + "'s ROOT", each.root().shape(), in.shape());
            }
        }
    }

    /**
     * Checks the parameters of {@code applied}, the reducer or comparator {@code in} applies, against
     * {@code in}'s operands, as XLA's verifier does: scalars of each operand's type, two per operand
     * for a sort (a pair to compare), an accumulator and an element per operand for a reduce and a
     * reduce-window, the operand's type twice for a scatter; with {@code checkResult}, its ROOT
     * too (the caller checks the computation's own instructions in between, whose errors say more).
     * Other ops are left to their run.
     */
    public static void checkApplied(HloComputation comp, HloInstruction in, HloComputation applied, boolean checkResult) {
        List<ArrayShape> shapes = operandArrays(comp, in);
        if (shapes == null) {
            return;
        }
        List<DType> types = shapes.stream().map(ArrayShape::dtype).toList();
        List<DType> expected = switch (in.opcode()) {
            case "sort" -> types.stream().flatMap(t -> java.util.stream.Stream.of(t, t)).toList();
            case "reduce", "reduce-window" -> types.size() % 2 != 0 ? null : java.util.stream.Stream.concat(
                    types.subList(0, types.size() / 2).stream(), types.subList(0, types.size() / 2).stream()).toList();
            case "scatter" -> types.size() != 3 ? null : List.of(types.getFirst(), types.getFirst());
            default -> null;
        };
        if (expected == null) {
            return;
        }
        if (applied.parameterCount() != expected.size()) {
            throw new IllegalArgumentException("its to_apply " + applied.name() + " takes " + applied.parameterCount()
                    + " parameters; " + in.opcode() + " of " + types.size() + " operands applies one to " + expected.size());
        }
        for (int k = 0; k < expected.size(); k++) {
            dev.tensorbuf.views.XlaShape p = applied.parameter(k).shape();
            if (!(p instanceof ArrayShape a) || a.rank() != 0 || a.dtype() != expected.get(k)) {
                throw new IllegalArgumentException("its to_apply " + applied.name() + "'s parameter " + k + " is " + p + ", not "
                        + expected.get(k).xlaName() + "[]");
            }
        }
        if (checkResult) {
            // A comparator answers pred[]; a reducer or combiner one scalar of each accumulator's type.
            List<dev.tensorbuf.views.XlaShape> results = (in.opcode().equals("sort") ? List.of(DType.PRED)
                    : expected.subList(0, in.opcode().equals("scatter") ? 1 : expected.size() / 2)).stream()
                    .map(t -> (dev.tensorbuf.views.XlaShape) ArrayShape.of(t)).toList();
            sameShape("its to_apply " + applied.name() + "'s ROOT", applied.root().shape(),
                    results.size() == 1 ? results.getFirst() : new dev.tensorbuf.views.XlaShape.Tuple(results));
        }
    }

    /** {@return the declared shapes of {@code in}'s operands, or null where one is a tuple} */
    private static List<ArrayShape> operandArrays(HloComputation comp, HloInstruction in) {
        List<ArrayShape> shapes = new ArrayList<>();
        for (String o : in.operands()) {
            if (!(comp.instruction(o).shape() instanceof ArrayShape a)) {
                return null;
            }
            shapes.add(a);
        }
        return shapes;
    }

    /**
     * Checks that {@code what}, of shape {@code actual}, has the types and dims of {@code expected}
     * (layouts may differ, as in XLA: a loop's value is copied into its own layout).
     */
    private static void sameShape(String what, dev.tensorbuf.views.XlaShape actual, dev.tensorbuf.views.XlaShape expected) {
        if (!actual.toStringWithoutLayout().equals(expected.toStringWithoutLayout())) {
            throw new IllegalArgumentException(what + " is " + actual + ", not " + expected);
        }
    }

    /** Checks a tuple value, element by element, against the tuple shape {@code declared}. */
    private static void checkTuple(String path, dev.tensorbuf.views.XlaShape declared, Value v) {
        if (!(declared instanceof dev.tensorbuf.views.XlaShape.Tuple t) || t.elements().size() != v.elements().size()) {
            throw new IllegalArgumentException("declares " + (path.isEmpty() ? "" : "element " + path + " as ") + declared
                    + " but computes a tuple of " + v.elements().size());
        }
        for (int k = 0; k < t.elements().size(); k++) {
            Value e = v.elements().get(k);
            String at = path.isEmpty() ? Integer.toString(k) : path + "." + k;
            if (e.isTuple()) {
                checkTuple(at, t.elements().get(k), e);
            } else if (!(t.elements().get(k) instanceof ArrayShape a) || a.dtype() != e.view().dtype()
                    || !a.dims().equals(e.view().dims())) {
                throw new IllegalArgumentException("declares element " + at + " as " + t.elements().get(k) + " but computes "
                        + e.view().dtype().xlaName() + e.view().dims());
            }
        }
    }

    private static ArrayShape operandShape(HloComputation comp, HloInstruction in, int k) {
        return comp.instruction(in.operands().get(k)).arrayShape();
    }

    private static TensorView operand(HloInstruction in, List<TensorView> ops, int k) {
        if (k >= ops.size()) {
            throw new IllegalArgumentException("needs operand " + k + " but has " + ops.size());
        }
        return ops.get(k);
    }

    private String where(HloComputation comp, HloInstruction in) {
        var line = lines.lineOf(comp.name(), in.name());
        return "(instruction %" + in.name() + (line.isPresent() ? ", line " + line.getAsInt() : "") + ")";
    }

    /**
     * {@return the {@code dimensions} attribute as ints} Any value outside int's range is past
     * every rank, and must be refused as written rather than wrap or overflow; the op checks the
     * rest against its operand.
     */
    private static int[] dimensions(HloComputation comp, HloInstruction in, List<Long> v) {
        int[] out = new int[v.size()];
        for (int i = 0; i < out.length; i++) {
            long d = v.get(i);
            if (d != (int) d) {
                String written = v.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",", "{", "}"));
                throw new IllegalArgumentException("dimensions=" + written + ": " + d + " is not a dimension of "
                        + operandShape(comp, in, 0));
            }
            out[i] = (int) d;
        }
        return out;
    }
}
