package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.ops.copy.internal.CpuInfo;
import dev.tensorbuf.ops.copy.internal.EngineScratch;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.copy.internal.PointwiseCopy;
import dev.tensorbuf.ops.copy.internal.ScalarLiteral;
import dev.tensorbuf.ops.internal.DynamicSlice;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.internal.HloAttribute;
import dev.tensorbuf.ops.hlo.internal.HloInstructions;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * The executor's fusion of elementwise work into the copies it makes: an elementwise instruction
 * over views ({@link Pointwise#OPCODES}) moves nothing; it becomes an expression over its
 * operands' views, held until something needs the elements. Data movement on such a value
 * ({@link #REMAPS}) remaps each operand view of the expression instead, so
 * {@code transpose(convert(x))} is {@code convert(transpose(x))}; only where the value must be in
 * memory (a {@code copy}, the ROOT, an op that is neither) is it evaluated, in one pass into
 * memory laid out by that shape ({@link PointwiseCopy}).
 *
 * <p>A held value is represented to the interpreter by a stand-in view of the right type and dims
 * (a broadcast zero, never read); {@link #isHeld} tells them apart.
 */
final class Fusion {
    /** The data-movement opcodes pushed through a held expression onto its operand views. */
    static final Set<String> REMAPS = Set.of("broadcast", "transpose", "reshape", "slice", "reverse", "dynamic-slice");
    /** The data movement XLA moves below an elementwise op with a constant ({@link #underMovement}). */
    private static final Set<String> MOVEMENT = Set.of("transpose", "reshape", "broadcast", "reverse");

    /**
     * An expression waiting to be evaluated.
     *
     * @param expr the expression, leaf k reading {@code leaves.get(k)}
     * @param leaves the operand views, of the expression's dims
     * @param instruction the instruction whose value it is (for the report)
     */
    record Held(Pointwise.Expr expr, List<TensorView> leaves, String instruction, Members members) {
        /** {@return this expression's instructions with {@code name} added last} */
        Members with(String name) {
            return new Members(name, List.of(members));
        }
    }

    /**
     * The instructions a held value is made of: {@code name} after those of {@code from}. A graph,
     * each op one node over its operands', where a list of every name so far, copied at each op,
     * made a chain of n ops quadratic in n.
     */
    record Members(String name, List<Members> from) {
        /** {@return the names, each once, operands' first (in order) and this one last} */
        java.util.SequencedSet<String> names() {
            java.util.LinkedHashSet<String> names = new java.util.LinkedHashSet<>();
            for (Members m : dev.tensorbuf.ops.internal.Graphs.postOrder(this, Members::from)) {
                names.add(m.name());
            }
            return names;
        }
    }

    /** What {@link #apply} made: a view (held or real) and whether elements were copied. */
    record Made(TensorView view, boolean copied) {
    }

    private final Allocator allocator;
    private final Map<TensorView, Held> held = new IdentityHashMap<>();
    /** Every held expression's nodes, each value one node however often it is renumbered or read. */
    private final Pointwise.Interner nodes = new Pointwise.Interner();
    private final Map<String, Map<String, Integer>> users = new HashMap<>();
    /** The fused copies made, as "instruction: expression", in the order they ran. */
    private final List<String> fused = new ArrayList<>();
    /** Each held instruction evaluated so far, and the instruction(s) whose copy evaluated it. */
    private final Map<String, String> fusedInto = new HashMap<>();
    /** Each instruction that evaluated an expression, and what ran: the expression and its kernel. */
    private final Map<String, String> epilogues = new HashMap<>();
    /** Each instruction that evaluated an expression, and the explanations of its passes, in the order they ran. */
    private final Map<String, List<CopyPlan.Explanation>> plans = new HashMap<>();

    /** The computations a {@code call} runs, which XLA inlines into their callers before it fuses anything. */
    private final Set<String> inlined;

    Fusion(Allocator allocator, Set<String> inlined) {
        this.allocator = allocator;
        this.inlined = Set.copyOf(inlined);
    }

    /** {@return whether {@code v} is a held expression's stand-in} */
    boolean isHeld(TensorView v) {
        return held.containsKey(v);
    }

    /**
     * {@return the instruction(s) whose copy evaluated the held instruction {@code name}, joined
     * by ", " when its value was needed by several; empty when it was never held or evaluated}
     */
    String fusedInto(String name) {
        return fusedInto.getOrDefault(name, "");
    }

    /** {@return what instruction {@code name}'s copy evaluated and which kernel ran it, or empty} */
    String epilogue(String name) {
        return epilogues.getOrDefault(name, "");
    }

    /** {@return the explanations of the passes instruction {@code name}'s copy ran, each with its epilogue; empty for none} */
    List<CopyPlan.Explanation> plans(String name) {
        return List.copyOf(plans.getOrDefault(name, List.of()));
    }

    /** {@return the fused copies made so far, as {@code "name: expression"}} */
    List<String> fusedCopies() {
        return List.copyOf(fused);
    }

    /**
     * {@return the value of {@code in} when fusion makes it, or null to let the interpreter apply
     * it} An elementwise op on supported types becomes held; a remap of a held value remaps its
     * leaves ({@code remap} applies {@code in} to a view in place of operand 0); a {@code copy} of
     * a held value stays held inside the computation and is evaluated into its layout as the ROOT
     * (but of a computation a {@code call} runs, which XLA inlines).
     */
    Made apply(HloComputation comp, HloInstruction in, List<TensorView> ops, Function<List<TensorView>, TensorView> remap) {
        String op = in.opcode();
        if (Pointwise.OPCODES.contains(op)) {
            return elementwise(comp, in, ops);
        }
        if (ops.isEmpty() || !isHeld(ops.getFirst())) {
            return null;
        }
        Held h = held.get(ops.getFirst());
        if (op.equals("copy") && ops.size() == 1) {
            if (!in.name().equals(comp.rootName()) || inlined.contains(comp.name())) {
                // A copy inside the chain changes only a layout, which XLA assigns after its
                // rewrites, so they reach across it (jax 0.10: (a / b), copied to {0,1}, / c is
                // a / (b * c)); the value stays held. So does the ROOT of a called computation,
                // which XLA inlines first: a multiply there and an add after the call contract.
                return new Made(hold(new Held(h.expr(), h.leaves(), in.name(), h.with(in.name())), in.arrayShape()), false);
            }
            return new Made(evaluate(h, in.arrayShape().laidOut(), in.name()), true);
        }
        if (REMAPS.contains(op)) {
            List<TensorView> rest = new ArrayList<>();
            for (int k = 1; k < ops.size(); k++) {
                rest.add(force(ops.get(k), comp.instruction(in.operands().get(k)).arrayShape().laidOut(), in.name()));
            }
            List<TensorView> leaves = new ArrayList<>();
            for (TensorView leaf : h.leaves()) {
                List<TensorView> args = new ArrayList<>(List.of(leaf));
                args.addAll(rest);
                leaves.add(remap.apply(args));
            }
            return new Made(hold(new Held(h.expr(), leaves, in.name(), h.with(in.name())), in.arrayShape()), false);
        }
        return null;
    }

    /**
     * {@return the value of {@code in} where it is a slice, or a dynamic slice at starts XLA folds,
     * of a concatenation that reads one held operand alone: that operand's expression sliced, still
     * held; else null} XLA's simplifier makes such a slice a slice of the operand, so the work
     * before and after it is one loop, where a multiply and an add contract (jax 0.10.2:
     * {@code dynamic-slice(concatenate(r * 3, q), -1, 0) + x} is {@code r * 3 + x} with one
     * rounding; control-flow seed 32). A slice across operands stays a concatenation in XLA's
     * loop, where contraction follows LLVM's vectorisation, and is evaluated as before.
     *
     * @param valueOf the value of an instruction of {@code comp} already evaluated
     */
    Made sliceOfConcatenated(HloComputation comp, HloInstruction in, List<TensorView> ops, Function<String, TensorView> valueOf) {
        boolean dynamic = in.opcode().equals("dynamic-slice");
        if (!dynamic && !in.opcode().equals("slice") || in.operands().isEmpty()) {
            return null;
        }
        HloInstruction concatenation = comp.instruction(in.operands().getFirst());
        if (!concatenation.opcode().equals("concatenate") || concatenation.operands().isEmpty()) {
            return null;
        }
        List<Long> dims = concatenation.arrayShape().dims();
        int rank = dims.size();
        long[] start = new long[rank];
        long[] limit = new long[rank];
        long[] step = new long[rank];
        if (dynamic) {
            List<Long> sizes = in.intsOrEmpty("dynamic_slice_sizes");
            if (ops.size() != rank + 1 || sizes.size() != rank) {
                return null;   // refused where the slice runs, with its reason
            }
            for (int d = 0; d < rank; d++) {
                if (!isFoldedValue(comp, comp.instruction(in.operands().get(d + 1)), 0, true) || sizes.get(d) < 0 || sizes.get(d) > dims.get(d)) {
                    return null;
                }
            }
            long[] clamped = DynamicSlice.clampedStarts(Extents.toArray(dims), Interpreter.dynamicSliceOffsets(ops, rank), Extents.toArray(sizes));
            for (int d = 0; d < rank; d++) {
                start[d] = clamped[d];
                limit[d] = start[d] + sizes.get(d);
                step[d] = 1;
            }
        } else if (HloInstructions.attribute(in, "slice").orElse(null) instanceof HloAttribute.Slices s && s.dims().size() == rank) {
            for (int d = 0; d < rank; d++) {
                HloAttribute.SliceDim sd = s.dims().get(d);
                if (sd.limit() > dims.get(d)) {
                    return null;
                }
                start[d] = sd.start();
                limit[d] = sd.limit();
                step[d] = sd.stride();
            }
        } else {
            return null;
        }
        int axis = concatenation.oneDimension("dimensions");
        if (axis < 0 || axis >= rank || limit[axis] <= start[axis]) {
            return null;
        }
        long last = start[axis] + (limit[axis] - 1 - start[axis]) / step[axis] * step[axis];
        FoldedConstants.Piece piece = FoldedConstants.operandReadAlone(comp, concatenation, start[axis], last);
        TensorView operand = piece == null ? null : valueOf.apply(piece.operand());
        Held h = operand == null ? null : held.get(operand);
        if (h == null) {
            return null;   // a view either way: the concatenation's is the same elements
        }
        start[axis] -= piece.offset();
        limit[axis] = Math.min(limit[axis] - piece.offset(), operand.dims().get(axis));
        List<TensorView> leaves = h.leaves().stream().map(l -> Ops.slice(l, start, limit, step)).toList();
        return new Made(hold(new Held(h.expr(), leaves, in.name(), h.with(in.name())), in.arrayShape()), false);
    }

    /**
     * {@return the held value {@code v} reshaped to {@code shape}'s dims as the value of
     * {@code name}: a reduce of one element, which XLA's simplifier makes a reshape, so that the
     * elementwise work before and after it stays one expression (LLVM contracts a multiply before
     * it with an add after it; jax 0.10)}
     */
    TensorView reshapeHeld(TensorView v, String name, ArrayShape shape) {
        Held h = held.get(v);
        long[] dims = Extents.toArray(shape.dims());
        List<TensorView> leaves = h.leaves().stream().map(l -> Ops.reshape(l, dims)).toList();
        return hold(new Held(h.expr(), leaves, name, h.with(name)), shape);
    }

    /** {@return {@code ops} with every held value evaluated into its operand's declared shape} */
    List<TensorView> forced(HloComputation comp, HloInstruction in, List<TensorView> ops) {
        List<TensorView> out = new ArrayList<>(ops);
        for (int k = 0; k < out.size(); k++) {
            if (isHeld(out.get(k))) {
                out.set(k, force(out.get(k), Conversions.operandRead(comp, in, k).arrayShape().laidOut(), in.name()));
            }
        }
        return out;
    }

    /** {@return {@code v} itself, or when held its expression evaluated into new memory laid out as {@code shape}} */
    TensorView force(TensorView v, ArrayShape shape, String user) {
        Held h = held.get(v);
        return h == null ? v : evaluate(h, shape, user);
    }

    /** {@return {@code dst}, every element written: {@code v}'s expression evaluated there, or {@code v} copied when not held} */
    TensorView forceInto(TensorView v, TensorView dst, String user) {
        Held h = held.get(v);
        if (h == null) {
            Materialize.copy(v, dst);
            return dst;
        }
        return evaluate(h, dst, user);
    }

    /**
     * Evaluates the box of the held value {@code v} from {@code start}, {@code dims} long, into
     * {@code dst} (a view of those dims), each leaf sliced alike: a consumer that reads a held
     * value in chunks (a reduce) needs no memory for the whole. The first box (from the origin) is
     * reported as {@link #force} reports a whole evaluation.
     */
    void evaluateBox(TensorView v, long[] start, long[] dims, TensorView dst, String user) {
        Held h = held.get(v);
        long[] limit = new long[start.length];
        long[] step = new long[start.length];
        boolean origin = true;
        for (int d = 0; d < start.length; d++) {
            limit[d] = start[d] + dims[d];
            step[d] = 1;
            origin &= start[d] == 0;
        }
        List<TensorView> boxes = new ArrayList<>();
        for (TensorView leaf : h.leaves()) {
            boxes.add(Ops.slice(leaf, start, limit, step));
        }
        if (origin) {
            evaluate(new Held(h.expr(), boxes, h.instruction(), h.members()), dst, user);
        } else {
            PointwiseCopy.run(h.expr(), boxes, dst, EngineScratch.ALLOCATOR);
        }
    }

    private TensorView evaluate(Held h, ArrayShape shape, String user) {
        return evaluate(h, Materialize.allocateForOverwrite(shape, allocator), user);
    }

    private TensorView evaluate(Held h, TensorView dst, String user) {
        // The plan CopyEngine.copy(operands, dst, epilogue) makes, from the expression itself (its
        // constants are operands here already), planned once and both run and explained.
        CopyPlan.Explanation explained = PointwiseCopy.run(h.expr(), h.leaves(), dst, EngineScratch.ALLOCATOR);
        String kernel = explained.epilogue().orElseThrow().kernel();
        plans.computeIfAbsent(user, u -> new ArrayList<>()).add(explained);
        fused.add(user + ": " + h.expr());
        for (String m : h.members().names()) {
            if (!m.equals(user)) {
                fusedInto.merge(m, user, (a, b) -> List.of(a.split(", ")).contains(b) ? a : a + ", " + b);
            }
        }
        epilogues.merge(user, "evaluates " + h.expr() + " per element (" + kernel + ")", (a, b) -> a + "; " + b);
        return dst;
    }

    private TensorView hold(Held h, ArrayShape shape) {
        // The stand-in carries the declared shape, so the interpreter's check of a result against
        // its declaration sees the declaration itself: what the expression computes is checked here.
        TensorView differs = h.leaves().stream().filter(l -> !l.dims().equals(shape.dims())).findFirst().orElse(null);
        if (h.expr().type() != shape.dtype() || differs != null) {
            throw new IllegalArgumentException("declares " + shape + " but computes " + h.expr().type().xlaName()
                    + (differs != null ? differs.dims() : shape.dims()));
        }
        TensorView zero = Materialize.allocate(ArrayShape.of(shape.dtype()), allocator);
        TensorView standIn = Ops.broadcast(zero, Extents.toArray(shape.dims()));
        held.put(standIn, h);
        return standIn;
    }

    // ---- building expressions -----------------------------------------------------------------

    private Made elementwise(HloComputation comp, HloInstruction in, List<TensorView> ops) {
        String op = in.opcode();
        ArrayShape shape = in.arrayShape();
        DType type = shape.dtype();
        int arity = Pointwise.arity(op);
        if (ops.size() != arity) {
            throw new IllegalArgumentException(op + " takes " + arity + " operand" + (arity == 1 ? "" : "s") + ", got "
                    + ops.size() + ": " + in.operands());
        }
        for (TensorView o : ops) {
            if (!Pointwise.TYPES.contains(o.dtype())) {
                if (op.equals("convert")) {
                    return null; // complex and the narrow float types: Conversions copies them
                }
                throw new IllegalArgumentException(op + " of " + o.dtype() + " is not supported: elementwise ops run on"
                        + " pred, integers, f16, bf16, f32 and f64");
            }
        }
        if (!Pointwise.TYPES.contains(type)) {
            if (op.equals("convert")) {
                return null;
            }
            throw new IllegalArgumentException(op + " to " + type + " is not supported");
        }
        long[] dims = Extents.toArray(shape.dims());
        List<TensorView> args = new ArrayList<>(ops);
        for (int k = 0; k < args.size(); k++) {
            TensorView a = args.get(k);
            if (!a.dims().equals(shape.dims())) {
                if (op.equals("clamp") && k != 1 && a.rank() == 0) {
                    // clamp's bounds may be scalars, broadcast as XLA does.
                    args.set(k, broadcastScalar(a, dims));
                } else {
                    throw new IllegalArgumentException("operand " + k + " (" + in.operands().get(k) + ") is "
                            + a.dtype().xlaName() + a.dims() + " but " + op + " makes " + shape
                            + ": elementwise operands have the result's dims");
                }
            }
        }
        // Types were checked before the run (Interpreter.checkDeclaredTypes, for every instruction).
        if (op.equals("convert") && args.getFirst().dtype() == DType.BF16 && type == DType.F32 && !isHeld(args.getFirst())) {
            // XLA widens bf16 bit for bit, a signalling NaN too; values travel here as doubles,
            // which quiet it, so Conversions copies this one (exactly) instead.
            return null;
        }
        if (op.equals("convert") && args.getFirst().dtype() == type) {
            return new Made(args.getFirst(), false); // no conversion: the same view
        }
        if (isFoldedOp(comp, in) && args.stream().noneMatch(this::isHeld)) {
            return folded(comp, in, op, type, args, dims);
        }
        // Leaves: the operands' own leaves, and each plain view once.
        List<TensorView> leaves = new ArrayList<>();
        List<Pointwise.Expr> exprs = new ArrayList<>();
        List<Members> from = new ArrayList<>();
        for (TensorView a : args) {
            exprs.add(nodes.of(expression(a, leaves)));
            Held h = held.get(a);
            if (h != null) {
                from.add(h.members());
            }
        }
        Pointwise.Expr e = nodes.of(build(comp, in, op, type, exprs));
        return new Made(hold(new Held(e, leaves, in.name(), new Members(in.name(), from)), shape), false);
    }

    private TensorView broadcastScalar(TensorView a, long[] dims) {
        Held h = held.get(a);
        if (h == null) {
            return Ops.broadcast(a, dims);
        }
        List<TensorView> leaves = h.leaves().stream().map(l -> Ops.broadcast(l, dims)).toList();
        return hold(new Held(h.expr(), leaves, h.instruction(), h.members()), ArrayShape.of(a.dtype(), dims));
    }

    /** {@return {@code v}'s expression with its leaves appended to {@code leaves} (a plain view is one leaf, shared when repeated)} */
    private Pointwise.Expr expression(TensorView v, List<TensorView> leaves) {
        Held h = held.get(v);
        if (h == null) {
            return leaf(v, leaves);
        }
        List<Pointwise.Expr> renumbered = new ArrayList<>();
        boolean same = true;
        for (TensorView l : h.leaves()) {
            Pointwise.Expr r = leaf(l, leaves);
            same &= ((Pointwise.Leaf) r).index() == renumbered.size();
            renumbered.add(r);
        }
        // Rebuilt only where its leaves move: a chain's first operand keeps its numbers, and
        // rebuilding it at every op made a chain quadratic in its length.
        return same ? h.expr() : renumber(h.expr(), renumbered);
    }

    private static Pointwise.Expr leaf(TensorView v, List<TensorView> leaves) {
        for (int k = 0; k < leaves.size(); k++) {
            if (leaves.get(k) == v) {
                return new Pointwise.Leaf(k, v.dtype());
            }
        }
        for (int k = 0; k < leaves.size(); k++) {
            if (sameElements(leaves.get(k), v)) {
                return new Pointwise.Leaf(k, v.dtype());
            }
        }
        leaves.add(v);
        return new Pointwise.Leaf(leaves.size() - 1, v.dtype());
    }

    /**
     * {@return whether {@code a} and {@code b} read the same elements of one buffer in the same
     * order} A value remapped and remapped back ({@code x + transpose(transpose(x))}, a loop that
     * transposes its carry twice a step) is then one leaf, read once per element, not two.
     */
    private static boolean sameElements(TensorView a, TensorView b) {
        if (a.dtype() != b.dtype() || !a.dims().equals(b.dims()) || a.buffers().size() != 1 || b.buffers().size() != 1
                || a.buffers().getFirst() != b.buffers().getFirst()) {
            return false;
        }
        java.util.Optional<dev.tensorbuf.views.StridedLayout> layout = a.stridedLayout();
        return layout.isPresent() && layout.equals(b.stridedLayout());
    }

    /** {@return {@code e} over {@code leaves}, each node rebuilt once: a node several ops read stays one node} */
    private static Pointwise.Expr renumber(Pointwise.Expr e, List<Pointwise.Expr> leaves) {
        java.util.Map<Pointwise.Expr, Pointwise.Expr> made = new java.util.IdentityHashMap<>();
        for (Pointwise.Expr x : Pointwise.postOrder(e)) {
            made.put(x, switch (x) {
                case Pointwise.Leaf l -> leaves.get(l.index());
                case Pointwise.Op o -> new Pointwise.Op(o.op(), o.type(), o.args().stream().map(made::get).toList(),
                        o.detail());
            });
        }
        return made.get(e);
    }

    /**
     * {@return whether XLA's simplifier rewrites a divide {@code op} of {@code type}: a float
     * divide but in bf16, which XLA's CPU pipeline computes in f32 with the divide kept}
     */
    static boolean isRewrittenDivide(String op, DType type) {
        return op.equals("divide") && Pointwise.isFloat(type) && type != DType.BF16;
    }

    /** The op, with the rewrites XLA makes before it runs (see {@link Pointwise}). */
    private Pointwise.Expr build(HloComputation comp, HloInstruction in, String op, DType type, List<Pointwise.Expr> a) {
        // LLVM contracts a multiply and the add it feeds into one fused multiply-add in f32 and
        // f64, and in f16 where the CPU computes half natively (XLA's CPU code keeps f16 as half;
        // elsewhere each op is widened and rounded back on its own); not in bf16, which XLA
        // computes in f32 with a rounding to bf16 between (jax 0.10, CpuInfo.hasHalfArithmetic).
        boolean contracts = type == DType.F32 || type == DType.F64 || type == DType.F16 && CpuInfo.hasHalfArithmetic();
        if (op.equals("convert") && Pointwise.isFloat(type) && a.getFirst() instanceof Pointwise.Op c && c.op().equals("convert")
                && isWidening(c)) {
            // XLA drops a float convert that widens before another float convert, whatever data
            // movement lies between (a transpose, slice, pad, concatenation...): f32 -> f64 -> bf16
            // is f32 -> bf16, and f32 -> f64 -> f32 nothing, so a denormal the widening to f64
            // would flush is kept (jax 0.10). Rounding once from the narrower type is what rounding
            // from the exact wider value gives, so only the flush differs.
            Pointwise.Expr x = c.args().getFirst();
            return x.type() == type ? x : new Pointwise.Op("convert", type, List.of(x), "");
        }
        if (Pointwise.isFloat(type) && (op.equals("add") || op.equals("multiply") || op.equals("divide"))) {
            // XLA's simplifier drops A + 0 (either zero: -0 + 0 stays -0), A * 1 and A / 1 before
            // it runs, so a denormal A comes out unflushed (jax 0.10).
            double identity = op.equals("add") ? 0 : 1;
            for (int k = op.equals("divide") ? 1 : 0; k < 2; k++) {
                if (isConstant(comp, in.operands().get(k)) && isAll(comp, in.operands().get(k), identity)) {
                    return a.get(1 - k);
                }
            }
        }
        String rsqrt = rsqrtDivisor(comp, in);
        if (!rsqrt.isEmpty()) {
            throw new IllegalArgumentException(rsqrt);
        }
        // Both constants: XLA folds the whole divide, a true quotient (jax 0.10: f16 literals / 3.3125).
        if (isRewrittenDivide(op, type) && isFolded(comp, in.operands().get(1), 0)
                && !isFolded(comp, in.operands().get(0), 0)) {
            Pointwise.Expr reciprocal = new Pointwise.Op(Pointwise.Op.RECIPROCAL, type, List.of(a.get(1)), "");
            // The folded reciprocal is a new constant, which XLA's simplifier makes an iota where
            // it counts 0, 1, 2, ...: 1 / -inf is then +0 (jax 0.10: x / broadcast({-inf, 1})).
            // Every value is a whole number there, so abs changes only that zero's sign.
            return build(comp, in, "multiply", type,
                    List.of(a.get(0), reciprocalIsIota(comp, in, type)
                            ? new Pointwise.Op("abs", type, List.of(reciprocal), "") : reciprocal));
        }
        if (isRewrittenDivide(op, type) && !isFolded(comp, in.operands().get(1), 0)
                && isBroadcastAsXlaSeesIt(comp, in.operands().get(1))
                && !FoldedConstants.foldsIntoIota(comp, in.operands().get(1))
                && !sinksWithDividend(comp, in.operands().get(0), in.operands().get(1))) {
            // XLA rewrites A / broadcast(B) as A * broadcast(1 / B), the reciprocal computed on
            // the smaller array as the program runs, so read and rounded flushed (jax 0.10, f16,
            // f32 and f64: a divide by a per-row maximum, 1e30 / broadcast(3e38) is 0); not where
            // B is a constant XLA makes an iota, whose divide is a true quotient, nor where XLA
            // moves the broadcast below the divide first.
            return build(comp, in, "multiply", type,
                    List.of(a.get(0), new Pointwise.Op(Pointwise.Op.FLUSHED_RECIPROCAL, type, List.of(a.get(1)), "")));
        }
        if ((op.equals("maximum") || op.equals("minimum")) && Pointwise.isFloat(type)
                && beneath(comp, in.operands().get(0)).name().equals(beneath(comp, in.operands().get(1)).name())) {
            return a.get(0);   // max(x, x) is x to XLA's simplifier, a denormal x unflushed (jax 0.10.2)
        }
        if (op.equals("maximum") && type != DType.BF16) {
            // XLA's simplifier makes max(clamp(lo, x, hi), lo) the clamp, which it is only where
            // lo <= hi (jax 0.10.2, f16, f32, f64 and s32: max(clamp(9, x, 5), 9) is 5, and
            // max(clamp(inf, x, -9.1875), inf) -9.1875; seed 1152). Not in bf16, which it
            // computes in f32 first, nor through data movement between.
            for (int k = 0; k < 2; k++) {
                HloInstruction clamp = comp.instruction(in.operands().get(k));
                if (clamp.opcode().equals("clamp") && clamp.operands().size() == 3
                        && isSameOperand(comp, clamp.operands().getFirst(), in.operands().get(1 - k))) {
                    return a.get(k);
                }
            }
        }
        if ((op.equals("maximum") || op.equals("minimum")) && Pointwise.isFloat(type)) {
            // XLA drops max(x, -inf) and min(x, +inf), which change nothing but would flush a
            // denormal x (in bf16 too, which it computes in f32 after this rewrite; jax 0.10).
            double identity = op.equals("maximum") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            for (int k = 0; k < 2; k++) {
                if (isConstant(comp, in.operands().get(k)) && isAll(comp, in.operands().get(k), identity)) {
                    return a.get(1 - k);
                }
            }
        }
        if (op.equals("clamp") && Pointwise.isFloat(type) && isConstant(comp, in.operands().get(0))
                && isConstant(comp, in.operands().get(2)) && isAll(comp, in.operands().get(0), Double.NEGATIVE_INFINITY)
                && isAll(comp, in.operands().get(2), Double.POSITIVE_INFINITY)) {
            return a.get(1);   // clamp(-inf, x, +inf) likewise; with one finite bound XLA runs it, flushing
        }
        if (isRewrittenDivide(op, type)) {
            Pointwise.Expr reassociated = reassociated(comp, in, type, a);
            if (reassociated != null) {
                return reassociated;
            }
        }
        if (op.equals("subtract") && Pointwise.isFloat(type) && isConstant(comp, in.operands().get(1))) {
            // XLA's algebraic simplifier drops A - 0, a constant A too that is not folded first (a
            // broadcast array: jax 0.10.2 keeps its denormals), and turns A - C into A + (-C) before
            // it runs: the negate flips a NaN constant's sign, which a total-order compare after it
            // can see.
            if (isAll(comp, in.operands().get(1), 0)) {
                return a.get(0);
            }
            if (!isConstant(comp, in.operands().get(0))) {
                return build(comp, in, "add", type,
                        List.of(a.get(0), new Pointwise.Op("negate", type, List.of(a.get(1)), "")));
            }
        }
        if (op.equals("multiply") && Pointwise.isFloat(type) && type != DType.BF16) {
            // XLA rewrites convert(pred) * a as select(pred, a, 0): +0, not -0, where pred is false
            // and a negative, and 0 where a is NaN or infinite. Not in bf16, which XLA's CPU
            // pipeline computes in f32 first, so the convert no longer sits under the multiply
            // (jax 0.10: 1.125 - convert(false) * -inf is NaN in bf16, 1.125 in f16 and f32).
            for (int k = 0; k < 2; k++) {
                if (a.get(k) instanceof Pointwise.Op c && c.op().equals("convert") && c.args().getFirst().type() == DType.PRED
                        && reachesConvert(comp, in, k)) {
                    return new Pointwise.Op("select", type, List.of(c.args().getFirst(), a.get(1 - k), c), "");
                }
            }
        }
        if (op.equals("multiply") && Pointwise.isFloat(type) && type != DType.BF16) {
            Pointwise.Expr into = constantIntoBroadcast(comp, in, type, a);
            if (into != null) {
                return into;
            }
        }
        if ((op.equals("add") || op.equals("multiply")) && Pointwise.isFloat(type) && type != DType.BF16) {
            Pointwise.Expr folded = foldedConstants(comp, in, op, type, a);
            if (folded != null) {
                return folded;
            }
        }
        if (contracts && (op.equals("add") || op.equals("subtract"))) {
            for (int k = 0; k < 2; k++) {
                if (a.get(k) instanceof Pointwise.Op m && m.op().equals("multiply") && usedOnce(comp, in.operands().get(k))
                        && (!isProductUnderBroadcast(comp, in.operands().get(k)) || fillsAsItsAdd(comp, in, in.operands().get(k)))) {
                    Pointwise.Expr other = a.get(1 - k);
                    if (op.equals("subtract")) {
                        if (k == 0) {
                            other = new Pointwise.Op("negate", type, List.of(other), "");
                        } else {
                            m = new Pointwise.Op("multiply", type,
                                    List.of(new Pointwise.Op("negate", type, List.of(m.args().get(0)), ""), m.args().get(1)), "");
                        }
                    }
                    return new Pointwise.Op(Pointwise.Op.FMA, type, List.of(m.args().get(0), m.args().get(1), other), "");
                }
            }
        }
        if (op.equals("remainder") && Pointwise.isFloat(type) && isPowerOfTwoFromOne(scalarValue(comp, in.operands().get(1)))) {
            // LLVM computes it inline, a - trunc(a / c) * c with a's sign, which reads a flushed
            // where fmod would not (jax 0.10: a denormal % 1, 2, -4 or 1024 is a zero of its
            // sign in f32, f64 and bf16; % 0.5 or 3 keeps it; seed 1035).
            return new Pointwise.Op(Pointwise.Op.FLUSHED_REMAINDER, type, a, "");
        }
        if (op.equals("select")) {
            Boolean everywhere = uniformMask(comp, in.operands().getFirst());
            if (everywhere != null) {
                return a.get(everywhere ? 1 : 2);
            }
        }
        if (op.equals("select") && isMaxOrMin(comp, in, type, a)) {
            return new Pointwise.Op(Pointwise.Op.FLUSHED_SELECT, type, a, "");
        }
        return new Pointwise.Op(op, type, a, detail(in, op, a));
    }

    /**
     * {@return true or false where pred {@code name} is a compare of an integer iota with a scalar
     * constant that holds everywhere or nowhere, else null} XLA folds such a compare into a
     * constant and a select by it into the operand it picks, so a product there contracts with a
     * sum after the select (jax 0.10.2: {@code select(iota < 64, p * q, z) + y} is fma(p, q, y) in
     * f32[64]; control-flow seed 32, module 2986, f16). Not where the mask varies, where XLA
     * contracts the picked products in some shapes and rounds them in others (not modelled), nor
     * by a mask known only as it runs, where XLA rounds them.
     */
    private static Boolean uniformMask(HloComputation comp, String name) {
        HloInstruction c = comp.instruction(name);
        if (!c.opcode().equals("compare") || c.operands().size() != 2 || c.text("type").isPresent()) {
            return null;
        }
        for (int side = 0; side < 2; side++) {
            HloInstruction iota = comp.instruction(c.operands().get(side));
            OptionalDouble k = scalarValue(comp, c.operands().get(1 - side));
            if (!iota.opcode().equals("iota") || iota.arrayShape().dtype().kind() != DType.Kind.SIGNED || k.isEmpty()) {
                continue;
            }
            long n = iota.arrayShape().dims().get((int) iota.intValue("iota_dimension", 0));
            if (n == 0 || n > 1 << 20) {
                return null;
            }
            Boolean all = null;
            for (long v = 0; v < n; v++) {
                int order = Double.compare(v, k.getAsDouble());
                boolean holds = Pointwise.holds(c.text("direction").orElse(""), side == 0 ? order : -order);
                if (all != null && all != holds) {
                    return null;
                }
                all = holds;
            }
            return all;
        }
        return null;
    }

    /** {@return the detail {@link Pointwise.Op} takes for {@code in}: a compare's direction and type, a reduce-precision's widths} */
    static String detail(HloInstruction in, String op, List<? extends Pointwise.Expr> a) {
        String detail = "";
        if (op.equals("compare")) {
            String dir = in.text("direction").orElseThrow(() -> new IllegalArgumentException(
                    "compare needs a direction= attribute (EQ, NE, LT, LE, GT or GE)"));
            String kind = in.text("type").orElse(Pointwise.isFloat(a.getFirst().type()) ? "FLOAT" : "SIGNED");
            if (!Set.of("EQ", "NE", "LT", "LE", "GT", "GE").contains(dir)) {
                throw new IllegalArgumentException("direction=" + dir + " is not one of EQ, NE, LT, LE, GT, GE");
            }
            if (!Set.of("FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED").contains(kind)) {
                throw new IllegalArgumentException("type=" + kind + " is not one of FLOAT, TOTALORDER, SIGNED, UNSIGNED");
            }
            detail = dir + " " + kind;
        }
        if (op.equals("reduce-precision")) {
            detail = "e" + in.text("exponent_bits").orElse("?") + "m" + in.text("mantissa_bits").orElse("?");
            try {
                Pointwise.precision(detail);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("reduce-precision needs exponent_bits= (from 1) and mantissa_bits= (from 0)"
                        + " attributes of at most two digits, got exponent_bits=" + in.text("exponent_bits").orElse("(none)")
                        + ", mantissa_bits=" + in.text("mantissa_bits").orElse("(none)"), e);
            }
        }
        return detail;
    }

    /** {@return whether the {@code n} floats of {@code type} in {@code values} hold a NaN} */
    private static boolean holdsNaN(MemorySegment values, DType type, long n) {
        for (long at = 0; at < n; at += FOLD_CHUNK) {
            int m = (int) Math.min(FOLD_CHUNK, n - at);
            for (double v : (double[]) PointwiseCopy.read(values.asSlice(at * (type.bitWidth() / 8)), type, m)) {
                if (Double.isNaN(v)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * {@return the maximum or minimum {@code in}, which XLA folds after its simplifier ({@link
     * #foldsLate}), as its evaluator computes it} A NaN first operand, else a NaN second one,
     * else the first unless the second is greater (maximum) or less (minimum): the first of two
     * equal zeros. The first is the operand that is no constant to MLIR where the other is one.
     */
    private static Pointwise.Op evaluatorMinMax(HloComputation comp, HloInstruction in, String op, DType type, List<Pointwise.Expr> leaves) {
        boolean swapped = isFoldedOperand(comp, comp.instruction(in.operands().getFirst()), 0, false)
                && !isFoldedOperand(comp, comp.instruction(in.operands().get(1)), 0, false);
        Pointwise.Expr first = leaves.get(swapped ? 1 : 0);
        Pointwise.Expr second = leaves.get(swapped ? 0 : 1);
        Pointwise.Op greater = op.equals("maximum")
                ? new Pointwise.Op("compare", DType.PRED, List.of(first, second), "LT FLOAT")
                : new Pointwise.Op("compare", DType.PRED, List.of(second, first), "LT FLOAT");
        Pointwise.Op chosen = new Pointwise.Op("select", type, List.of(greater, second, first), "");
        Pointwise.Op secondNaN = new Pointwise.Op("compare", DType.PRED, List.of(second, second), "NE FLOAT");
        Pointwise.Op firstNaN = new Pointwise.Op("compare", DType.PRED, List.of(first, first), "NE FLOAT");
        return new Pointwise.Op("select", type, List.of(firstNaN, first,
                new Pointwise.Op("select", type, List.of(secondNaN, second, chosen), "")), "");
    }

    /** Elements a folded op evaluates at a time: the evaluator's arrays stay small whatever the constant's size. */
    private static final int FOLD_CHUNK = 1 << 16;

    /**
     * {@return the value of the elementwise op {@code in} of constants, evaluated as XLA's constant folding
     * does, before anything runs: rounded into its type on its own and without flushing
     * denormals} So a multiply and an add of constants are two roundings, not the fused
     * multiply-add LLVM would make of them, and 1e-40 + 1e-40 is 2e-40 (jax 0.10 on both). One
     * XLA folds only after its simplifier ({@link #foldsLate}) reads and makes denormals as zeros.
     */
    private Made folded(HloComputation comp, HloInstruction in, String op, DType type, List<TensorView> args, long[] shape) {
        List<Pointwise.Expr> leaves = new ArrayList<>();
        for (TensorView a : args) {
            leaves.add(new Pointwise.Leaf(leaves.size(), a.dtype()));
        }
        // XLA's evaluator compares floats of a total order as plain floats (jax 0.10: NaN == NaN is
        // false there), and takes the sign of a denormal f32, bf16 or f64 as a zero of its sign.
        Pointwise.Op e = new Pointwise.Op(op, type, leaves, detail(in, op, leaves).replace(" TOTALORDER", " FLOAT"));
        boolean late = foldsLate(comp, in);
        if (Set.of("maximum", "minimum").contains(op) && Pointwise.isFloat(type) && late) {
            e = evaluatorMinMax(comp, in, op, type, leaves);
        }
        // Floor, ceil and square root of constants read their operand flushed too (jax 0.10.2:
        // floor(-1e-40) is -0, ceil(1e-40) and sqrt(1e-40) +0).
        boolean readsFlushed = Set.of("sign", "floor", "ceil", "sqrt").contains(op) && (type == DType.F32 || type == DType.BF16 || type == DType.F64);
        epilogues.put(in.name(), "folded " + e + " as XLA folds constants (rounded on its own, denormals kept)");
        // Of broadcast scalars alone, the op of the scalars broadcast, as XLA's simplifier makes it.
        boolean scalars = args.stream().allMatch(a -> a.stridedLayout().map(l -> l.strides().stream().allMatch(st -> st == 0)).orElse(false));
        long[] dims = shape.clone();
        if (scalars) {
            java.util.Arrays.fill(dims, 1);
        }
        TensorView out = Materialize.allocateForOverwrite(ArrayShape.of(type, dims), allocator);
        if (out.elementCount() == 0) {
            return new Made(out, true);
        }
        // Each operand copied dense in row-major order (of the scalars, their first element), then
        // evaluated a chunk of elements at a time, so the evaluator's arrays stay small.
        List<MemorySegment> dense = new ArrayList<>();
        for (TensorView a : args) {
            TensorView d = Materialize.allocateForOverwrite(ArrayShape.of(a.dtype(), dims), allocator);
            Materialize.copy(scalars ? Ops.slice(a, new long[dims.length], dims, dims) : a, d);
            dense.add(d.buffer().segment());
        }
        long total = out.elementCount();
        // jax hands XLA the module through MLIR, which folds the sign of constants holding no NaN
        // itself: a zero of either sign is +0, a denormal counts by its sign (jax 0.10.2, f16,
        // bf16, f32 and f64: sign({-0, 3}) is {+0, 1}, sign({-0, 1e-40}) {+0, 1}, sign(-0) +0;
        // sign({-0, nan, 1e-40}) {-0, nan, +0}, XLA's own folding).
        // XLA's own folding, after its simplifier, runs as the program does: denormals read and
        // made as zeros (jax 0.10.2: a pad reading its padding alone of -1e-40, added to itself,
        // is -0; its maximum with -0 is -1e-40, the first of two equal zeros as it is).
        Pointwise.Mode mode = late ? Pointwise.Mode.XLA : Pointwise.Mode.IEEE;
        boolean byMlir = op.equals("sign") && Pointwise.isFloat(type) && !late && !holdsNaN(dense.getFirst(), type, total);
        for (long at = 0; at < total; at += FOLD_CHUNK) {
            int n = (int) Math.min(FOLD_CHUNK, total - at);
            Object[] columns = new Object[args.size()];
            for (int k = 0; k < args.size(); k++) {
                DType t = args.get(k).dtype();
                columns[k] = PointwiseCopy.read(dense.get(k).asSlice(at * (t.bitWidth() / 8)), t, n);
            }
            if (byMlir) {
                double[] x = (double[]) columns[0];
                double[] r = new double[n];
                for (int i = 0; i < n; i++) {
                    r[i] = x[i] == 0 ? 0.0 : Math.signum(x[i]);
                }
                PointwiseCopy.write(out.buffer().segment().asSlice(at * (type.bitWidth() / 8)), type, r, n);
                continue;
            }
            if (readsFlushed) {
                double[] x = (double[]) columns[0];
                for (int i = 0; i < n; i++) {
                    x[i] = Pointwise.flushIn(x[i], type, true);
                }
            }
            Object values = op.equals("convert") ? FoldedConstants.convert(columns[0], args.getFirst().dtype(), type, n)
                    : Pointwise.eval(e, columns, n, mode);
            PointwiseCopy.write(out.buffer().segment().asSlice(at * (type.bitWidth() / 8)), type, values, n);
        }
        // The broadcast scalar is a view, laid out as no instruction is: the reader copies it where it must.
        return scalars ? new Made(Ops.broadcast(Ops.reshape(out, new long[0]), shape), false) : new Made(out, true);
    }

    /**
     * {@return whether select {@code in} chooses between the two values its compare orders, which
     * LLVM turns into x86's max or min instruction, whose operands are read flushed} In f32, f64
     * and bf16 (computed in f32), for a compare GT or LT in either arrangement of the two, and GE
     * or LE where one of them is a nonzero scalar constant (at a zero the signs could tell the
     * select from the instruction), but not a compare that is never true (x > +inf), which LLVM
     * folds with the select. The values are the same expression, or scalar constants of the same
     * bits (jax 0.10: select(x > -inf, x, -inf) and select(x < q, q, x) of a denormal x give a
     * zero of its sign; select(x >= q, x, q), select(x >= 0, x, 0) and select(x > inf, inf, x)
     * give x; f16 keeps its denormals anyway; seed 1020).
     */
    private static boolean isMaxOrMin(HloComputation comp, HloInstruction in, DType type, List<Pointwise.Expr> a) {
        boolean flushes = type == DType.F32 || type == DType.F64 || type == DType.BF16;
        HloInstruction cmp = comp.instruction(in.operands().getFirst());
        if (!flushes || !cmp.opcode().equals("compare") || !(a.getFirst() instanceof Pointwise.Op c)
                || !c.detail().endsWith(" FLOAT")) {
            return false;
        }
        List<String> ordered = cmp.operands();
        List<String> chosen = in.operands().subList(1, 3);
        boolean straight = same(comp, ordered.get(0), c.args().get(0), chosen.get(0), a.get(1))
                && same(comp, ordered.get(1), c.args().get(1), chosen.get(1), a.get(2));
        boolean crossed = same(comp, ordered.get(0), c.args().get(0), chosen.get(1), a.get(2))
                && same(comp, ordered.get(1), c.args().get(1), chosen.get(0), a.get(1));
        if (!straight && !crossed) {
            return false;
        }
        OptionalDouble left = scalarValue(comp, ordered.get(0));
        OptionalDouble right = scalarValue(comp, ordered.get(1));
        double inf = Double.POSITIVE_INFINITY;
        return switch (c.detail().split(" ")[0]) {
            case "GT" -> !right.equals(OptionalDouble.of(inf)) && !left.equals(OptionalDouble.of(-inf));
            case "LT" -> !right.equals(OptionalDouble.of(-inf)) && !left.equals(OptionalDouble.of(inf));
            case "GE", "LE" -> left.orElse(0) != 0 || right.orElse(0) != 0;
            default -> false;
        };
    }

    /** {@return whether HLO values {@code x} and {@code y}, built as {@code ex} and {@code ey}, are one value to LLVM} */
    private static boolean same(HloComputation comp, String x, Pointwise.Expr ex, String y, Pointwise.Expr ey) {
        if (ex == ey) { // interned: equal expressions are one node (equals would walk a shared node once per path)
            return true;
        }
        OptionalDouble vx = scalarValue(comp, x);
        OptionalDouble vy = scalarValue(comp, y);
        return vx.isPresent() && vy.isPresent()
                && Double.doubleToRawLongBits(vx.getAsDouble()) == Double.doubleToRawLongBits(vy.getAsDouble());
    }

    /** {@return whether {@code v} holds plus or minus a power of two of at least 1} */
    private static boolean isPowerOfTwoFromOne(OptionalDouble v) {
        if (v.isEmpty() || !Double.isFinite(v.getAsDouble())) {
            return false;
        }
        double m = Math.abs(v.getAsDouble());
        return m >= 1 && m == Math.scalb(1.0, Math.getExponent(m));
    }

    /** {@return the one value of the scalar constant behind {@code name}, in its type; empty where it is not one} */
    private static OptionalDouble scalarValue(HloComputation comp, String name) {
        double[] v = "scalar".equals(constantKind(comp, name)) ? FoldedConstants.values(comp, name) : null;
        return v != null && v.length == 1 ? OptionalDouble.of(v[0]) : OptionalDouble.empty();
    }

    /**
     * {@return a divide of a divide as XLA's algebraic simplifier rewrites it, or null when neither
     * operand is one} It does so for a divide that is the operand itself (not through data
     * movement, which the expressions here see through), after turning a divide by a constant into
     * a multiply (above, and so a divide whose divisor is constant is no longer one here):
     * (A / B) / (C / D) => (A * D) / (B * C), (A / B) / C => A / (B * C), A / (B / C) => (A * C) / B,
     * that last one's divide by a constant B then a multiply by 1 / B. Each operand was built
     * first, so a chain comes in already rewritten: ((A / B) / C) / D is A / ((B * C) * D), as XLA
     * gives it (checked against jax).
     */
    private static Pointwise.Expr reassociated(HloComputation comp, HloInstruction in, DType type, List<Pointwise.Expr> a) {
        Pointwise.Op l = directDivide(comp, in.operands().get(0), a.get(0));
        Pointwise.Op r = directDivide(comp, in.operands().get(1), a.get(1));
        if (l != null && r != null) {
            return divide(type, multiply(type, l.args().get(0), r.args().get(1)), multiply(type, l.args().get(1), r.args().get(0)));
        }
        if (l != null) {
            return divide(type, l.args().get(0), multiply(type, l.args().get(1), a.get(1)));
        }
        if (r != null) {
            Pointwise.Expr numerator = multiply(type, a.get(0), r.args().get(1));
            String b = beneath(comp, in.operands().get(1)).operands().getFirst();
            // A / (B / C) is (A * C) / B, then divided as any divide by B is (jax 0.10: x / (b1 / y) is
            // (x * y) * (1 / b1) for a broadcast b1).
            return isConstant(comp, b)
                    ? multiply(type, numerator, new Pointwise.Op(Pointwise.Op.RECIPROCAL, type, List.of(r.args().get(0)), ""))
                    : isBroadcastAsXlaSeesIt(comp, b)
                    ? multiply(type, numerator, new Pointwise.Op(Pointwise.Op.FLUSHED_RECIPROCAL, type, List.of(r.args().get(0)), ""))
                    : divide(type, numerator, r.args().get(0));
        }
        return null;
    }

    /**
     * {@return (A op C1) op C2 as XLA's simplifier folds it, A op (C1 op C2), or null where it does
     * not} {@code op} is add or multiply; an inner subtract or divide by a constant is one already
     * (their rewrites above come first, as XLA's do). XLA folds two broadcast scalars (or
     * constants of one element) or two whole constants, not one of each nor a per-channel vector;
     * a product plus C1, a multiply-add here by then, gets C1 + C2 as its addend (checked against jax 0.10:
     * (a * 1.37) * -55 is a * (1.37 * -55), (a * K) * K is a * (K * K), (a * K) * -55 and
     * (a * chan) * -55 stay). Per-channel vectors fold where the value is broadcast along the same
     * dims as they are ({@link #kindIn}).
     */
    private static Pointwise.Expr foldedConstants(HloComputation comp, HloInstruction in, String op, DType type,
                                                  List<Pointwise.Expr> a) {
        Set<String> family = op.equals("add") ? Set.of("add", "subtract") : Set.of("multiply", "divide");
        for (int k = 0; k < 2; k++) {
            HloInstruction x = underMovement(comp, in.operands().get(1 - k));
            String kind = kindIn(comp, in, k);
            if (kind == null || !family.contains(x.opcode()) || !(a.get(1 - k) instanceof Pointwise.Op inner)) {
                continue;
            }
            if (op.equals("add") && inner.op().equals(Pointwise.Op.FMA)) {
                // XLA folds (m + C1) + C2 before LLVM contracts m + (C1 + C2): the addend gathers both.
                String value = in.operands().get(1 - k);
                boolean addsAConstant = x.opcode().equals("add")
                        ? meets(comp, kind, value, x, 0) || meets(comp, kind, value, x, 1)
                        : meets(comp, kind, value, x, 1);
                if (addsAConstant) {
                    Pointwise.Expr constants = new Pointwise.Op(op, type, List.of(inner.args().get(2), a.get(k)), "");
                    return new Pointwise.Op(Pointwise.Op.FMA, type, List.of(inner.args().get(0), inner.args().get(1), constants), "");
                }
                continue;
            }
            if (!inner.op().equals(op)) {
                continue;
            }
            for (int j = 0; j < 2; j++) {
                if (meets(comp, kind, in.operands().get(1 - k), x, j) && !isConstant(comp, x.operands().get(1 - j))) {
                    if (cancels(comp, op, type, x, j, in, k)) {
                        return inner.args().get(1 - j);
                    }
                    Pointwise.Expr constants = new Pointwise.Op(op, type, List.of(inner.args().get(j), a.get(k)), "");
                    return new Pointwise.Op(op, type, List.of(inner.args().get(1 - j), constants), "");
                }
            }
        }
        return null;
    }

    /**
     * {@return whether the constants {@link #foldedConstants} gathers, {@code x}'s operand
     * {@code j} and {@code in}'s operand {@code k}, make the identity of {@code op}} XLA's
     * simplifier then drops the op whole: (a - 1) + 1 and (a + 1) - 1 are a, its -0 kept, and (a *
     * 0.5) * 2 is a, a denormal unflushed (jax 0.10; control-flow seed 14).
     */
    private static boolean cancels(HloComputation comp, String op, DType type, HloInstruction x, int j, HloInstruction in, int k) {
        double[] inner = FoldedConstants.values(comp, x.operands().get(j));
        double[] other = FoldedConstants.values(comp, in.operands().get(k));
        if (inner == null || other == null || inner.length != other.length && inner.length != 1 && other.length != 1
                || !x.opcode().equals(op) && !x.opcode().equals("subtract")) {
            return false;
        }
        for (int i = 0; i < Math.max(inner.length, other.length); i++) {
            double a = inner[inner.length == 1 ? 0 : i] * (x.opcode().equals("subtract") ? -1 : 1);
            double b = other[other.length == 1 ? 0 : i] * (in.opcode().equals("subtract") ? -1 : 1);
            boolean identity = op.equals("add") ? a == -b
                    : type == DType.F32 ? (float) a * (float) b == 1f : type == DType.F64 && a * b == 1;
            if (!identity) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return whether XLA's simplifier folds the constant {@code name}, an operand of add or
     * multiply {@code x}, with a constant beside {@code x} at a reader of {@code x}, as
     * {@link #foldedConstants} does} It does so on its first pass, before its reshape mover, so
     * folds the constant as written: a counting constant's -0 stays -0 (jax 0.10.2: (reshape(x) *
     * c) * k for c = {-0, 1, ..., 63} as f32[64,1] is x * (c * k), whose first element is x * -0).
     */
    static boolean isFoldedAtReader(HloComputation comp, HloInstruction x, String name) {
        if (!Set.of("add", "multiply").contains(x.opcode()) || x.operands().size() != 2
                || !Pointwise.isFloat(x.arrayShape().dtype())) {
            return false;
        }
        for (int j = 0; j < 2; j++) {
            if (!comp.instruction(x.operands().get(j)).name().equals(name) || isConstant(comp, x.operands().get(1 - j))) {
                continue;
            }
            for (HloInstruction u : comp.instructions()) {
                for (int k = 0; k < 2 && u.opcode().equals(x.opcode()) && u.operands().size() == 2; k++) {
                    if (underMovement(comp, u.operands().get(1 - k)) != x) {
                        continue;
                    }
                    String kind = kindIn(comp, u, k);
                    if (kind != null && meets(comp, kind, u.operands().get(1 - k), x, j)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * {@return whether constant operand {@code j} of {@code x}, reached from {@code value} through
     * data movement, folds with a constant of kind {@code kind} beside {@code value}} Scalars fold
     * through any of {@link #MOVEMENT}, and vectors along the same broadcast. Whole constants
     * fold through transposes and reshapes, which XLA moves below the op as it does to the
     * constant, not through a reverse nor a broadcast. A whole constant also folds with a vector
     * "along" a broadcast where XLA moves that broadcast below the op and the vector becomes
     * whole: the broadcast is the first move, then transposes and reshapes, but no transpose right
     * under the broadcast, which XLA merges into it, so that the two no longer broadcast along the
     * same dims. Checked against jax 0.10 in f32: broadcast(p / chan1) * broadcast(chan2), both
     * along dim 0, is broadcast(p * (chan2 / chan1)) (605 of 2,000 values had differed, seed
     * 1005), as through broadcast(reshape(...)) and broadcast(reshape(transpose(...))); the two
     * stay apart through broadcast(transpose(...)), broadcast(reverse(...)), reverse(...) and a
     * whole constant beside broadcast(...).
     */
    private static boolean meets(HloComputation comp, String kind, String value, HloInstruction x, int j) {
        String inner = kindIn(comp, x, j);
        boolean along = kind.startsWith("along") && "whole".equals(inner);
        if (!kind.equals(inner) && !along) {
            return false;
        }
        if (!kind.equals("whole") && !along) {
            return true;
        }
        List<String> moves = new ArrayList<>();
        for (HloInstruction d = beneath(comp, value); d != x; d = beneath(comp, d.operands().getFirst())) {
            moves.add(d.opcode());
        }
        if (along) {
            boolean transposeUnder = moves.size() > 1 && moves.get(1).equals("transpose");
            if (moves.isEmpty() || !moves.getFirst().equals("broadcast") || transposeUnder) {
                return false;
            }
            moves.removeFirst();
        }
        return Set.of("transpose", "reshape").containsAll(moves);
    }

    /**
     * {@return the kind of constant operand {@code k} of binary {@code op} is, as its constant fold
     * sees it: {@link #constantKind}'s, or for a broadcast vector (null there) "along" its dims
     * where the other operand is broadcast along the same dims from the same shape} XLA moves
     * such broadcasts below the op, where the vector is a whole constant (jax 0.10: (b / chan1) /
     * chan2 with b and both vectors broadcast along dim 0 is b / (chan1 * chan2); along other dims
     * it stays).
     */
    private static String kindIn(HloComputation comp, HloInstruction op, int k) {
        String name = op.operands().get(k);
        String kind = constantKind(comp, name);
        if (kind != null || op.operands().size() != 2 || !isConstant(comp, name)) {
            return kind;
        }
        String along = broadcastAlong(comp, name, 0);
        return along != null && along.equals(broadcastAlong(comp, op.operands().get(1 - k), 0)) ? along : null;
    }

    /**
     * {@return "along D from S" where {@code name} is a broadcast along dims D of a non-scalar of
     * dims S, or an elementwise op whose operands all are (scalar broadcasts aside), as XLA sees
     * it once it has moved the broadcasts below; null otherwise, and past 8 ops deep, which keeps
     * a module that reuses values from costing one look per path}
     */
    private static String broadcastAlong(HloComputation comp, String name, int depth) {
        HloInstruction d = beneath(comp, name);
        if (d.opcode().equals("broadcast")) {
            List<Long> from = comp.instruction(d.operands().getFirst()).arrayShape().dims();
            return from.isEmpty() ? null : "along " + d.intsOrEmpty("dimensions") + " from " + from;
        }
        if (!Pointwise.OPCODES.contains(d.opcode()) || d.opcode().equals("convert") || depth == 8) {
            return null;
        }
        String common = null;
        for (String o : d.operands()) {
            if ("scalar".equals(constantKind(comp, o))) {
                continue;
            }
            String along = broadcastAlong(comp, o, depth + 1);
            if (along == null || common != null && !common.equals(along)) {
                return null;
            }
            common = along;
        }
        return common;
    }

    /**
     * {@return whether XLA's rewrite of convert(pred) * a meets the convert under operand {@code k}
     * of multiply {@code in}} It does where the data movement between them is moved below the
     * multiply first: a transpose or reshape when a is a constant XLA folds (an array's broadcast
     * along new dims is none), a broadcast of a scalar or the same move of a value, as XLA's
     * reshape mover does (jax 0.10.2: reshape(convert(p)) times reshape(x), a [2,3] constant or
     * broadcast(scalar parameter) is the select, times an array constant broadcast to [2,3] the
     * multiply; seed 1156); a broadcast when a is a scalar constant; not a reverse, a slice, nor
     * any move when a is another value (jax 0.10: through those, convert(false) * inf is NaN); a
     * broadcast that adds elements just under the convert counts as above it (seed 1095).
     */
    private static boolean reachesConvert(HloComputation comp, HloInstruction in, int k) {
        String other = in.operands().get(1 - k);
        String kind = constantKind(comp, other);
        boolean scalar = "scalar".equals(kind);
        // What XLA's reshape mover reshapes in step: a constant it folds (not a broadcast that
        // repeats an array's values), a broadcast of any scalar, the same move of another value.
        boolean rearrangeable = kind != null || isScalarBroadcast(comp, other);
        HloInstruction moved = beneath(comp, other);
        HloInstruction d = beneath(comp, in.operands().get(k));
        while (!d.opcode().equals("convert")) {
            boolean same = moved.opcode().equals(d.opcode()) && switch (d.opcode()) {
                case "transpose" -> moved.intsOrEmpty("dimensions").equals(d.intsOrEmpty("dimensions"));
                case "reshape" -> comp.instruction(moved.operands().getFirst()).arrayShape().dims()
                        .equals(comp.instruction(d.operands().getFirst()).arrayShape().dims());
                default -> false;
            };
            boolean movedBelow = switch (d.opcode()) {
                case "transpose", "reshape" -> rearrangeable || same;
                case "broadcast" -> scalar;
                default -> false;
            };
            if (!movedBelow) {
                return false;
            }
            d = beneath(comp, d.operands().getFirst());
            moved = same ? beneath(comp, moved.operands().getFirst()) : moved;
        }
        // XLA first sinks a convert below a broadcast that adds elements (fewer to convert), which
        // then sits between the convert and the multiply, moved below it only as above (jax 0.10:
        // convert(broadcast(false)) * -3 is -0, the multiply; times a broadcast -2, +0, the select).
        // Not a convert of a copy of one (jax 0.10.2: convert(copy(broadcast(p))) * q is the
        // select, with or without a layout; seed 1131).
        boolean ofCopy = comp.instruction(d.operands().getFirst()).opcode().equals("copy");
        for (HloInstruction b = beneath(comp, d.operands().getFirst()); !ofCopy && b.opcode().equals("broadcast")
                && b.arrayShape().elementCount() > comp.instruction(b.operands().getFirst()).arrayShape().elementCount()
                && !FoldedConstants.isLiteral(FoldedConstants.constantBehind(comp, b.name()));   // folded into a constant first
                b = beneath(comp, b.operands().getFirst())) {
            if (!scalar) {
                return false;
            }
        }
        return !isConstantPred(comp, d.operands().getFirst());
    }

    /**
     * {@return whether pred value {@code name} is a constant by the time XLA's simplifier meets
     * the convert of it, which it then folds into a float constant, so that the multiply is
     * computed as written} A constant under data movement (not under a copy, which goes later),
     * {@code and} with a false constant, {@code or} with a true one, and logic of constants
     * (jax 0.10: convert(and(p, false)) * -3.5 is -0, convert(reverse(false)) * inf NaN;
     * convert(copy(false)) * -3.5 is 0, the select).
     */
    private static boolean isConstantPred(HloComputation comp, String name) {
        HloInstruction d = comp.instruction(name);
        while (Set.of("broadcast", "reshape", "transpose", "reverse", "slice", "dynamic-slice").contains(d.opcode())) {
            d = FoldedConstants.movedFrom(comp, d);
        }
        List<String> o = d.operands();
        return switch (d.opcode()) {
            case "constant" -> true;
            case "not" -> isConstantPred(comp, o.getFirst());
            case "and", "or", "xor" -> {
                boolean left = isConstantPred(comp, o.get(0));
                boolean right = isConstantPred(comp, o.get(1));
                String absorbing = d.opcode().equals("and") ? "false" : d.opcode().equals("or") ? "true" : null;
                yield left && right || left && isAllPred(comp, o.get(0), absorbing) || right && isAllPred(comp, o.get(1), absorbing);
            }
            default -> false;
        };
    }

    /** {@return whether every value of the constant behind pred {@code name} is {@code value} ("true" or "false"; null: never)} */
    private static boolean isAllPred(HloComputation comp, String name, String value) {
        return value != null && FoldedConstants.isLiteral(FoldedConstants.constantBehind(comp, name))
                && FoldedConstants.literals(comp, name).stream().allMatch(value::equals);
    }

    /**
     * {@return whether the product {@code name} reaches its add under a broadcast: one between
     * them, or the multiply's operands all broadcast along the same dims (scalar constants aside),
     * which XLA moves below it} XLA then computes the product apart, and LLVM does not contract it
     * (jax 0.10: broadcast(p) * k + q, broadcast(p) * broadcast(r) + q and broadcast(p * k) + q
     * round the product; broadcast(p) * q2 + q, broadcast(p) * a vector along another dim + q,
     * and a product under a transpose, reverse or pad contract).
     */
    /**
     * {@return (A * c) * broadcast(B) as XLA's simplifier rewrites it, A * (c * broadcast(B)), or
     * null where it does not apply} {@code c} is a scalar constant (a divide by one is a multiply
     * by its reciprocal already) and B a value, not a constant; {@code in} is the multiply, or the
     * divide by the broadcast that became one, whose operand 1 is then the broadcast. jax 0.10,
     * f32: (p * 5.75) * broadcast(q), (p / 5.75) * broadcast(q) and (p * 5.75) / broadcast(q) take
     * the constant into the broadcast, also with a reverse, transpose, reshape or broadcast of
     * (p * 5.75) between ({@link #beneathRearranging}; seed 1097); (p * broadcast(q)) * 5.75, a
     * scalar parameter or a per-channel constant in its place, and two broadcast values stay in
     * order, also where the first is (broadcast(p) * 5.75), which XLA makes broadcast(p * 5.75)
     * (seed 1108); but B a scalar, XLA sinks that broadcast too and the rewrite meets (p * 5.75) *
     * broadcast(B), except for a scalar p (jax 0.10.2).
     */
    private static Pointwise.Expr constantIntoBroadcast(HloComputation comp, HloInstruction in, DType type, List<Pointwise.Expr> a) {
        for (int k = in.opcode().equals("divide") ? 1 : 0; k < 2; k++) {
            String broadcast = in.operands().get(k);
            if (isFolded(comp, broadcast, 0) || !isBroadcastAsXlaSeesIt(comp, broadcast)
                    || isBroadcastAsXlaSeesIt(comp, in.operands().get(1 - k)) && !filledDims(comp, broadcast, 0, false).isEmpty()
                    || !(a.get(1 - k) instanceof Pointwise.Op inner) || !inner.op().equals("multiply")) {
                continue;
            }
            HloInstruction x = beneathRearranging(comp, in.operands().get(1 - k));
            if (x == null || !Set.of("multiply", "divide").contains(x.opcode()) || x.operands().size() != 2) {
                continue;
            }
            for (int j = x.opcode().equals("divide") ? 1 : 0; j < 2; j++) {
                // A multiply or divide by 1 was dropped: its expression is its other operand's.
                if ("scalar".equals(constantKind(comp, x.operands().get(j))) && !isConstant(comp, x.operands().get(1 - j))
                        && !isAll(comp, x.operands().get(j), 1) && !isScalarBroadcast(comp, x.operands().get(1 - j))) {
                    Pointwise.Expr scaled = new Pointwise.Op("multiply", type, List.of(inner.args().get(j), a.get(k)), "");
                    return new Pointwise.Op("multiply", type, List.of(inner.args().get(1 - j), scaled), "");
                }
            }
        }
        return null;
    }

    /**
     * {@return whether XLA moves the broadcast {@code divisor} below a divide of {@code dividend}
     * by it, which is then no divide by a broadcast} It does where the dividend is a broadcast of
     * a scalar, a constant one too (or an op of such), or a broadcast along the same dims
     * (jax 0.10.2, f32: (broadcast(p) * 5.75) / broadcast(q) is a true quotient for a scalar p,
     * and for p and q filling the same dims; a reciprocal for p of other dims). Only a divisor
     * that is a broadcast as written: one XLA makes a broadcast from a transpose, slice, reshape
     * or copy of one is a reciprocal (jax 0.10.2, seed 1129).
     */
    private static boolean sinksWithDividend(HloComputation comp, String dividend, String divisor) {
        if (!comp.instruction(divisor).opcode().equals("broadcast")) {
            return false;
        }
        if (isScalarFilled(comp, dividend, 0)) {
            return true;
        }
        List<Integer> filled = filledDims(comp, dividend, 0, false);
        return filled != null && !filled.isEmpty() && filled.equals(filledDims(comp, divisor, 0, false));
    }

    /** {@return whether {@code name} is a broadcast of a scalar, or an elementwise op of such} */
    private static boolean isScalarFilled(HloComputation comp, String name, int depth) {
        if (isScalarBroadcast(comp, name) || "scalar".equals(constantKind(comp, name))) {
            return true;
        }
        HloInstruction d = beneath(comp, name);
        return depth < 8 && Pointwise.OPCODES.contains(d.opcode()) && !d.operands().isEmpty()
                && d.operands().stream().allMatch(o -> isScalarFilled(comp, o, depth + 1));
    }

    /**
     * {@return whether {@code x} and {@code y} are one operand to XLA: the same instruction, or
     * after its common subexpression elimination, scalar constants of the same bits broadcast to
     * the same dims} A scalar and its broadcast are not.
     */
    private static boolean isSameOperand(HloComputation comp, String x, String y) {
        HloInstruction dx = beneath(comp, x);
        HloInstruction dy = beneath(comp, y);
        if (dx.name().equals(dy.name())) {
            return true;
        }
        if (!dx.arrayShape().dims().equals(dy.arrayShape().dims()) || !"scalar".equals(constantKind(comp, x)) || !"scalar".equals(constantKind(comp, y))) {
            return false;
        }
        double[] vx = FoldedConstants.values(comp, x);
        double[] vy = FoldedConstants.values(comp, y);
        return vx != null && vy != null && vx.length > 0 && vy.length > 0
                && Double.doubleToRawLongBits(vx[0]) == Double.doubleToRawLongBits(vy[0]);
    }

    /** {@return whether {@code name} is a broadcast of a scalar, or of such a broadcast, which XLA merges into one} */
    private static boolean isScalarBroadcast(HloComputation comp, String name) {
        HloInstruction d = beneath(comp, name);
        return d.opcode().equals("broadcast") && (comp.instruction(d.operands().getFirst()).arrayShape().dims().isEmpty()
                || isScalarBroadcast(comp, d.operands().getFirst()));
    }

    /**
     * {@return the instruction {@code name} is beneath the rearranging moves XLA takes out of the
     * way of an elementwise op, and the moves {@link #beneath} takes away} jax 0.10, f32: (p * c)
     * * broadcast(q) takes c into the broadcast through any chain of transposes, reshapes and
     * broadcasts (XLA sinks them below the outer multiply), with reverses at its foot (XLA moves
     * a reverse of p * c onto p), or above only reshapes and broadcasts that add or drop dims of
     * one; not where a reverse is above another move, nor through a slice that drops elements, a
     * pad, a concatenation or a negate. Null where the chain stops at a reverse.
     */
    private static HloInstruction beneathRearranging(HloComputation comp, String name) {
        HloInstruction d = beneath(comp, name);
        boolean reversed = false;   // a reverse above: only reverses and dims of one may follow
        while (Set.of("reverse", "transpose", "reshape", "broadcast").contains(d.opcode())) {
            boolean ofOnes = d.opcode().equals("reverse") || Set.of("reshape", "broadcast").contains(d.opcode())
                    && d.arrayShape().dims().stream().filter(n -> n != 1).toList()
                            .equals(comp.instruction(d.operands().getFirst()).arrayShape().dims().stream().filter(n -> n != 1).toList());
            if (reversed && !ofOnes) {
                return null;
            }
            reversed |= d.opcode().equals("reverse");
            d = beneath(comp, d.operands().getFirst());
        }
        return d;
    }

    /**
     * {@return whether {@code name} is a broadcast that adds elements once XLA has moved the ops
     * above it into it} XLA turns a transpose, slice, dynamic slice, convert or negate of a
     * broadcast into a broadcast, a pad too where it pads every dim the broadcast's operand
     * fills and leaves a dim unpadded ({@link #paddedBroadcastDims}), and a reshape where it
     * leaves those dims whole; an elementwise op of broadcasts along the same dims becomes a
     * broadcast of the op, and a slice of a concatenation that reads one broadcast alone that
     * broadcast's slice. A reverse, a concatenation, a pad that leaves a filled dim unpadded and
     * a reshape that splits or merges a filled dim stay apart (jax 0.10, f32: each
     * checked as a divisor, in chains of each other too). A broadcast that adds no elements is a
     * reshape to XLA before any of this.
     */
    private static boolean isBroadcastAsXlaSeesIt(HloComputation comp, String name) {
        return filledDims(comp, name, 0, false) != null;
    }

    /**
     * {@return the dims of {@code name} that a broadcast's operand fills, in the operand's order,
     * where {@code name} is a broadcast as {@link #isBroadcastAsXlaSeesIt} sees it; else null,
     * and past 8 ops deep} With {@code reverses}, a reverse passes too: it keeps a broadcast
     * apart from a divisor's rewrite, not from a contraction.
     */
    private static List<Integer> filledDims(HloComputation comp, String name, int depth, boolean reverses) {
        HloInstruction d = beneath(comp, name);
        if (depth == 8) {
            return null;
        }
        if (FoldedConstants.padValueReadAlone(comp, d) != null) {
            return d.arrayShape().elementCount() > 1 ? List.of() : null;   // a broadcast of the pad value to XLA
        }
        if (d.opcode().equals("broadcast")) {
            long from = comp.instruction(d.operands().getFirst()).arrayShape().elementCount();
            return from < d.arrayShape().elementCount()
                    ? d.intsOrEmpty("dimensions").stream().map(Long::intValue).toList() : null;
        }
        if (Pointwise.OPCODES.contains(d.opcode()) && !Set.of("convert", "negate").contains(d.opcode())) {
            // b1 * b2 along the same dims is broadcast(d1 * d2), and b * broadcast(s) of a scalar s
            // broadcast(d * s), the scalar broadcast too (jax 0.10.2: x / (broadcast(s) *
            // broadcast(p)) is a multiply by the reciprocal, broadcast(s) * broadcast(p) + x
            // rounded twice).
            List<Integer> common = null;
            boolean scalar = false;
            for (String o : d.operands()) {
                if ("scalar".equals(constantKind(comp, o))) {
                    continue;
                }
                List<Integer> filled = filledDims(comp, o, depth + 1, reverses);
                if (filled == null || !filled.isEmpty() && common != null && !common.equals(filled)) {
                    return null;
                }
                if (filled.isEmpty()) {
                    scalar = true;
                } else {
                    common = filled;
                }
            }
            return common != null ? common : scalar ? List.of() : null;
        }
        if (!Set.of("transpose", "slice", "dynamic-slice", "convert", "negate", "pad", "reshape").contains(d.opcode())
                && !(reverses && d.opcode().equals("reverse"))) {
            return null;
        }
        // A slice of a concatenation that reads one operand alone is a slice of that operand.
        List<Integer> filled = filledDims(comp, FoldedConstants.movedFrom(comp, d).name(), depth + 1, reverses);
        if (filled == null) {
            return null;
        }
        return switch (d.opcode()) {
            case "transpose" -> {
                List<Long> permutation = d.intsOrEmpty("dimensions");
                yield filled.stream().map(k -> permutation.indexOf((long) k)).toList();
            }
            case "pad" -> {
                List<HloAttribute.PadDim> padding = HloInstructions.attribute(d, "padding").orElse(null)
                        instanceof HloAttribute.Padding p ? p.dims() : null;
                yield padding == null ? null : paddedBroadcastDims(FoldedConstants.movedFrom(comp, d).arrayShape().dims(), padding, filled);
            }
            case "reshape" -> reshapedDims(comp.instruction(d.operands().getFirst()).arrayShape().dims(),
                    d.arrayShape().dims(), filled);
            default -> filled;
        };
    }

    /**
     * {@return the dims a broadcast's operand fills once XLA has moved a pad of the broadcast
     * (of dims {@code dims}, filling {@code filled}) below it, or null where it does not} XLA
     * makes pad(broadcast(x)) a broadcast of a pad where the pad pads every dim x fills with more
     * than one element, and leaves a dim unpadded for the outer broadcast to add; the padded dims
     * are then the ones filled (jax 0.10.2, f16, as divisors: pad(broadcast(f16[6] -> [6,4,1]))
     * padded along dims 0 and 2 is broadcast(pad(reshape(x))) along {0,2}, along dim 2 alone it
     * stays a pad; f16[1] broadcast into [6,1,1,1] along dim 2 and padded along dim 3 is a
     * broadcast along dim 3; f16[6,4] broadcast into [6,4,5] padded along dim 0 alone, and a
     * scalar broadcast padded along every dim, stay pads; seed 1114).
     */
    private static List<Integer> paddedBroadcastDims(List<Long> dims, List<HloAttribute.PadDim> padding, List<Integer> filled) {
        List<Integer> padded = new ArrayList<>();
        for (int k = 0; k < padding.size(); k++) {
            HloAttribute.PadDim pad = padding.get(k);
            if (pad.low() != 0 || pad.high() != 0 || pad.interior() != 0) {
                padded.add(k);
            }
        }
        if (padded.isEmpty()) {
            return filled;
        }
        for (int k : filled) {
            if (dims.get(k) > 1 && !padded.contains(k)) {
                return null;
            }
        }
        return padded.size() < dims.size() ? padded : null;
    }

    /**
     * {@return where a reshape from {@code from} to {@code to} puts {@code dims} of {@code from},
     * or null where it splits or merges one of them} A dim is left whole where a dim of {@code to}
     * has its size and the same product of sizes before it; dims of one go nowhere.
     */
    private static List<Integer> reshapedDims(List<Long> from, List<Long> to, List<Integer> dims) {
        List<Integer> moved = new ArrayList<>();
        for (int k : dims) {
            if (from.get(k) == 1) {
                continue;
            }
            long before = 1;
            for (int i = 0; i < k; i++) {
                before *= from.get(i);   // no overflow: the shape's element count was checked
            }
            int found = -1;
            long product = 1;
            for (int j = 0; j < to.size() && found < 0; product *= to.get(j), j++) {
                if (product == before && to.get(j).equals(from.get(k))) {
                    found = j;
                }
            }
            if (found < 0) {
                return null;
            }
            moved.add(found);
        }
        return moved;
    }

    /**
     * {@return whether the product {@code name} is one LLVM does not contract with the add it
     * feeds} That is a broadcast, and a product of broadcasts as XLA sees them, through reverses
     * too (jax 0.10, f32: {@code q - reverse(broadcast(p)) * c}, and {@code c} times a slice,
     * dynamic slice, transpose or negate of a broadcast, are rounded twice; the same moves of
     * values that are not broadcasts contract; seed 1101). A value that a broadcast only gives
     * dims of one, times a scalar constant, is no broadcast: XLA makes it a reshape, and LLVM
     * contracts it (jax 0.10.2, f32: broadcast(p: [4,3,n]) to [4,3,n,1] or [4,3,1,n], times
     * 1.6875, minus q, one multiply-add for n of 4 to 32; seed 1172). Two such values multiplied
     * keep the two roundings (for n of 2 to 16), as LLVM computes their product as a vector.
     */
    private static boolean isProductUnderBroadcast(HloComputation comp, String name) {
        HloInstruction d = under(comp, name, Set.of("transpose", "reshape", "reverse", "slice", "dynamic-slice", "pad"));
        return d.opcode().equals("broadcast") || d.opcode().equals("multiply") && !isReshapedValueTimesScalar(comp, d)
                && (broadcastAlong(comp, d.name(), 0) != null || filledDims(comp, d.name(), 0, true) != null);
    }

    /** {@return whether {@code multiply} is of scalar constants and one value a broadcast only adds dims of one to, in order} */
    private static boolean isReshapedValueTimesScalar(HloComputation comp, HloInstruction multiply) {
        int values = 0;
        for (String o : multiply.operands()) {
            if ("scalar".equals(constantKind(comp, o))) {
                continue;
            }
            HloInstruction b = beneath(comp, o);
            HloInstruction from = b.opcode().equals("broadcast") ? comp.instruction(b.operands().getFirst()) : null;
            List<Long> dims = b.intsOrEmpty("dimensions");
            boolean inOrder = IntStream.range(1, dims.size()).allMatch(i -> dims.get(i - 1) < dims.get(i));
            if (from == null || from.arrayShape().dims().isEmpty()
                    || from.arrayShape().elementCount() != b.arrayShape().elementCount() || !inOrder || ++values > 1) {
                return false;
            }
        }
        return values == 1;
    }

    /**
     * {@return whether the product {@code product} is a broadcast filling the dims the add
     * {@code add} fills, a broadcast as XLA sees it too} XLA then moves the broadcast below the
     * add, and inside it the product is no broadcast: LLVM contracts it (jax 0.10.2, f32:
     * broadcast(p) * broadcast(q) + broadcast(t) along the same dims, scalars among them too, is
     * one multiply-add; broadcast(s) * broadcast(s) + broadcast(t) of a scalar s two roundings).
     * A reverse of the product along dims it does not fill passes; one along a filled dim keeps
     * the two roundings (reversed along dim 1 of [2,64], along dim 0 one multiply-add).
     */
    private static boolean fillsAsItsAdd(HloComputation comp, HloInstruction add, String product) {
        HloInstruction d = beneath(comp, product);
        while (d.opcode().equals("reverse")) {
            List<Integer> under = filledDims(comp, d.operands().getFirst(), 0, false);
            if (under == null || d.intsOrEmpty("dimensions").stream().anyMatch(r -> under.contains(r.intValue()))) {
                return false;
            }
            d = beneath(comp, d.operands().getFirst());
        }
        List<Integer> filled = filledDims(comp, d.name(), 0, false);
        return filled != null && filled.equals(filledDims(comp, add.name(), 0, true));
    }

    /**
     * {@return the instruction under {@code name}'s transposes, reshapes, broadcasts and reverses,
     * and the moves {@link #beneath} takes away} XLA moves these below an elementwise op with a
     * scalar constant, so two scalars with them between still meet and fold ({@link #meets} says
     * which of them let other constants meet); slices, pads, concatenations and dynamic slices
     * keep them apart (jax 0.10, f32 and f16).
     */
    private static HloInstruction underMovement(HloComputation comp, String name) {
        return under(comp, name, MOVEMENT);
    }

    /** {@return the instruction under {@code name}'s moves of the kinds {@code through}, and those {@link #beneath} takes away} */
    private static HloInstruction under(HloComputation comp, String name, Set<String> through) {
        HloInstruction d = beneath(comp, name);
        while (through.contains(d.opcode())) {
            d = beneath(comp, d.operands().getFirst());
        }
        return d;
    }

    /**
     * {@return "scalar" for a constant of one element under data movement, "whole" for a constant
     * of more moved without a broadcast, else null (not a constant, or a broadcast vector)}
     */
    private static String constantKind(HloComputation comp, String name) {
        HloInstruction c = FoldedConstants.constantBehind(comp, name);
        if (!FoldedConstants.isLiteral(c) || FoldedConstants.foldsIntoIota(comp, name)) {
            return null;
        }
        if (c.arrayShape().elementCount() == 1 || FoldedConstants.isZeroIota(c)) {
            return "scalar";
        }
        for (HloInstruction d = comp.instruction(name); d != c; d = FoldedConstants.movedFrom(comp, d)) {
            if (d.opcode().equals("broadcast") && beneath(comp, d.name()) == d && !FoldedConstants.addsOnlyDimsOfOne(d)) {
                return null;   // a broadcast that repeats values; one to the same dims goes first, one adding dims of one is a reshape
            }
        }
        return "whole";
    }

    /**
     * {@return whether the reciprocal XLA folds for the constant divisor of {@code divide} (or
     * the constant a broadcast divisor repeats) is an iota to its simplifier: one dim of more than
     * one element, counting 0, 1, 2, ...} Computed as {@link Pointwise.Op#RECIPROCAL} computes it.
     * A broadcast that only adds dims of one is folded with the constant first, into one of more
     * dims, which is of one dim again only where XLA's reshape mover makes the divide so
     * ({@link FoldedConstants#movedToOneDim}: x / {-inf, 1} as [2,1] is x * +0 for a reshaped x,
     * x * -0 beside a broadcast or a parameter); a slice, reverse or copy of the constant is
     * folded into a new one, whose reciprocals these are (jax 0.10: x / a slice {1:4} of {5,
     * -inf, 1, 0.5} is x * {+0, 1, 2}).
     */
    private static boolean reciprocalIsIota(HloComputation comp, HloInstruction divide, DType type) {
        String name = divide.operands().get(1);
        HloInstruction d = beneath(comp, name);
        if (d.opcode().equals("broadcast") && !FoldedConstants.addsOnlyDimsOfOne(d)) {
            d = beneath(comp, d.operands().getFirst());
        }
        if (!Literals.oneLongDim(d.arrayShape().dims())
                || d.arrayShape().dims().size() != 1 && !FoldedConstants.movedToOneDim(comp, divide, name)) {
            return false;
        }
        double[] values = FoldedConstants.foldedValues(comp, d);
        return values != null && Literals.countsFromZero(type, values.length,
                i -> type == DType.F64 ? 1.0 / values[(int) i] : Pointwise.narrow(1f / (float) values[(int) i], type));
    }

    /**
     * {@return the instruction {@code name} is once data movement that changes nothing is taken
     * away} XLA's simplifier removes a slice, dynamic slice, reshape or broadcast to the same dims,
     * a reverse of dims of one, a transpose that moves only dims of one, a convert to the same
     * type and a copy (a layout, assigned later) before its other rewrites meet the op under it.
     */
    private static HloInstruction beneath(HloComputation comp, String name) {
        HloInstruction d = comp.instruction(name);
        while (true) {
            if (replacedByItsUpdate(comp, d)) {
                d = comp.instruction(d.operands().get(1));
                continue;
            }
            if (!Set.of("slice", "dynamic-slice", "reshape", "broadcast", "reverse", "transpose", "convert", "copy")
                    .contains(d.opcode())) {
                break;
            }
            HloInstruction under = comp.instruction(d.operands().getFirst());
            List<Long> dims = d.arrayShape().dims();
            List<Long> from = under.arrayShape().dims();
            boolean same = switch (d.opcode()) {
                case "reverse" -> d.intsOrEmpty("dimensions").stream().allMatch(k -> from.get(k.intValue()) == 1);
                case "transpose" -> dims.stream().filter(n -> n != 1).toList().equals(from.stream().filter(n -> n != 1).toList())
                        && isOrderKeeping(d.intsOrEmpty("dimensions"), from);
                case "broadcast" -> dims.equals(from) && isOrderKeeping(d.intsOrEmpty("dimensions"), from)
                        && d.intsOrEmpty("dimensions").size() == from.size();
                case "convert" -> d.arrayShape().dtype() == under.arrayShape().dtype();
                default -> dims.equals(from);
            };
            if (!same) {
                break;
            }
            d = under;
        }
        return d;
    }

    /**
     * {@return whether {@code in} is a dynamic-update-slice whose update is the whole operand,
     * which XLA's simplifier replaces by the update} Run does the same, so held work in the update
     * stays held (control-flow seed 24, module 2458: convert(pred) under one, times a constant, is
     * XLA's select, +0 where the pred is false, not a product contracted with the sum after it).
     */
    static boolean replacedByItsUpdate(HloComputation comp, HloInstruction in) {
        return in.opcode().equals("dynamic-update-slice") && in.operands().size() >= 2
                && comp.instruction(in.operands().get(1)).shape() instanceof ArrayShape update
                && update.dims().equals(in.arrayShape().dims());
    }

    /** {@return whether the permutation keeps the dims longer than one in their order} */
    private static boolean isOrderKeeping(List<Long> permutation, List<Long> dims) {
        long last = -1;
        for (long p : permutation) {
            if (dims.get((int) p) != 1) {
                if (p < last) {
                    return false;
                }
                last = p;
            }
        }
        return true;
    }

    /** {@return the expression of operand {@code name} when that operand is itself a divide and still one here, else null} */
    private static Pointwise.Op directDivide(HloComputation comp, String name, Pointwise.Expr e) {
        return beneath(comp, name).opcode().equals("divide") && e instanceof Pointwise.Op o && o.op().equals("divide")
                ? o : null;
    }

    private static boolean isWidening(Pointwise.Op convert) {
        DType from = convert.args().getFirst().type();
        return Pointwise.isFloat(from) && Pointwise.isFloat(convert.type()) && convert.type().bitWidth() > from.bitWidth();
    }

    private static Pointwise.Op multiply(DType type, Pointwise.Expr x, Pointwise.Expr y) {
        return new Pointwise.Op("multiply", type, List.of(x, y), "");
    }

    private static Pointwise.Op divide(DType type, Pointwise.Expr x, Pointwise.Expr y) {
        return new Pointwise.Op("divide", type, List.of(x, y), "");
    }

    /**
     * {@return whether {@code in} is an elementwise op that XLA's constant folding evaluates
     * ({@link #folded})}: each operand is a constant to the folding (a literal that does not
     * become an iota, an op it folds, under the moves it folds) or a broadcast of a scalar one
     * (jax 0.10: 1e-40 + broadcast(1e-40) and convert(broadcast(1e-40)) are folded, keeping the
     * denormal; an op with a broadcast of an array, or with copy(broadcast(false)), is computed),
     * a pad that reads its padding alone ({@link FoldedConstants#padValueReadAlone}) too; and a
     * maximum or minimum of such with a broadcast of an array constant, which XLA folds after its
     * simplifier ({@link #foldsLate}).
     */
    static boolean isFoldedOp(HloComputation comp, HloInstruction in) {
        return isFoldedOp(comp, in, 0, true) || isMinMaxOfBroadcastArray(comp, in);
    }

    /**
     * {@return whether XLA folds {@code in} only after its simplifier has run, in its own constant
     * folding, where {@link #isFoldedOp} holds} jax hands XLA the module through MLIR, which
     * folds an op of literals and broadcast scalar literals itself; a pad reading its padding
     * alone becomes a broadcast only in XLA's simplifier, and a maximum or minimum of a broadcast
     * array constant and a broadcast scalar one becomes there a broadcast of the op of the array
     * and the scalar. XLA's evaluator reads and makes denormals as zeros, as the program does,
     * and takes a maximum or minimum of equal values as its first operand, where the program and
     * MLIR take +0 over -0 for a maximum and -0 for a minimum; MLIR has put the operand that is a
     * constant to it second (jax 0.10.2, f16 and f32:
     * max(pad(x, -0) cut to padding, {0, 1}) is -0 first in either order, max(broadcast({-0, 0}),
     * broadcast(0)) {-0, 0} in either order; seed 1134).
     */
    static boolean foldsLate(HloComputation comp, HloInstruction in) {
        return isFoldedOp(comp, in) && !isFoldedOp(comp, in, 0, false);
    }

    /** {@return whether {@code in} is a maximum or minimum of a broadcast of an array constant and a constant or broadcast scalar one ({@link #foldsLate})} */
    private static boolean isMinMaxOfBroadcastArray(HloComputation comp, HloInstruction in) {
        if (!Set.of("maximum", "minimum").contains(in.opcode()) || in.operands().size() != 2) {
            return false;
        }
        int arrays = 0;
        for (String o : in.operands()) {
            HloInstruction d = comp.instruction(o);
            HloInstruction under = d.opcode().equals("broadcast") ? comp.instruction(d.operands().getFirst()) : null;
            if (under != null && !under.arrayShape().dims().isEmpty() && !FoldedConstants.isFoldedMove(d)
                    && isFoldedValue(comp, under, 0, true)) {
                arrays++;
            } else if (!isFoldedOperand(comp, d, 0, true)) {
                return false;
            }
        }
        return arrays == 1;
    }

    private static boolean isFoldedOp(HloComputation comp, HloInstruction in, int depth, boolean lateToo) {
        if (!Pointwise.OPCODES.contains(in.opcode()) || in.operands().isEmpty() || depth == 8) {
            return false;
        }
        return in.operands().stream().allMatch(o -> isFoldedOperand(comp, comp.instruction(o), depth, lateToo));
    }

    /** {@return whether {@code d} is a constant to XLA's folding ({@link #isFoldedValue}) or a broadcast of a scalar one} */
    private static boolean isFoldedOperand(HloComputation comp, HloInstruction d, int depth, boolean lateToo) {
        HloInstruction under = d.opcode().equals("broadcast") ? comp.instruction(d.operands().getFirst()) : null;
        return under != null && under.arrayShape().dims().isEmpty() && isFoldedValue(comp, under, depth, lateToo)
                || isFoldedValue(comp, d, depth, lateToo);
    }

    /**
     * {@return whether {@code d} is a constant to XLA's folding: a constant, an elementwise op it
     * folds, or a concatenation or dynamic slice of such, under moves it folds} (jax 0.10: a * b + c
     * is two roundings with a concatenation or dynamic slice of constants for a; after a pad of
     * constants it is computed, flushing.) A constant counting 0, 1, 2, ... is folded as written
     * too, before the simplifier would make it an iota (jax 0.10.2: c * k + x, c = {-0, 1, ...,
     * 63} and k constants, is rounded twice). With {@code lateToo}, a pad reading its padding
     * alone is its pad value ({@link #foldsLate}).
     */
    private static boolean isFoldedValue(HloComputation comp, HloInstruction d, int depth, boolean lateToo) {
        HloInstruction x = d;
        while (true) {
            HloInstruction padValue = lateToo ? FoldedConstants.padValueReadAlone(comp, x) : null;
            if (padValue == null && !FoldedConstants.isFoldedMove(x)) {
                break;
            }
            x = padValue != null ? padValue : comp.instruction(x.operands().getFirst());
        }
        if (x.opcode().equals("constant")) {
            return true;
        }
        if (FOLDED_GATHERS.contains(x.opcode()) && !x.operands().isEmpty() && depth < 8) {
            return x.operands().stream().allMatch(o -> isFoldedValue(comp, comp.instruction(o), depth + 1, lateToo));
        }
        return isFoldedOp(comp, x, depth + 1, lateToo);
    }

    /** The data movement of several operands that XLA folds when every operand is a constant to it. */
    private static final Set<String> FOLDED_GATHERS = Set.of("concatenate", "dynamic-slice");

    /**
     * {@return whether XLA folds {@code name} into a constant before its simplifier's rewrites: a
     * constant, or data movement and elementwise ops of such} (jax 0.10: x / -(3.7) and
     * x / sqrt(2) are x times the folded divisor's reciprocal.) A constant that counts 0, 1, 2,
     * ... along one dim is an iota to the simplifier ({@link FoldedConstants#foldsIntoIota}), but
     * under an op it is folded as written first (jax 0.10.2: x / (c + c), c = {-0, 1, ..., 63}, is
     * x times {-inf, 1/2, ...}). The simplifier rewrites x / c on its first pass, before its
     * reshape mover makes any op one of one dim: x / c for that c is a true quotient as f32[64],
     * x times the reciprocals as f32[64,1], f32[1,64] or f32[64,1,1], beside a reshape of x too.
     */
    private static boolean isFolded(HloComputation comp, String name, int depth) {
        HloInstruction d = FoldedConstants.constantBehind(comp, name);
        if (FoldedConstants.isLiteral(d)) {
            return depth > 0 || !FoldedConstants.foldsIntoIota(comp, name);
        }
        return depth < 16 && Pointwise.OPCODES.contains(d.opcode()) && !d.operands().isEmpty()
                && d.operands().stream().allMatch(o -> isFolded(comp, o, depth + 1));
    }

    /**
     * {@return why XLA's code for divide {@code in} has bits run does not reproduce, or empty}
     * XLA's simplifier turns a divide by a square root (directly, under a copy or a broadcast;
     * refused here under any data movement) into a multiply by {@code rsqrt}, which its CPU code
     * computes from the hardware's approximation (AMD's and Intel's differ) refined by Newton
     * steps: 1,669 of 4,096 f32 quotients differed from the correctly rounded ones (jax 0.10). A
     * square root of constants is folded first, exactly.
     */
    private static String rsqrtDivisor(HloComputation comp, HloInstruction in) {
        if (!in.opcode().equals("divide") || in.operands().size() != 2 || !Pointwise.isFloat(in.arrayShape().dtype())) {
            return "";
        }
        HloInstruction d = comp.instruction(in.operands().get(1));
        while (Set.of("copy", "broadcast", "reshape", "transpose", "reverse", "slice", "bitcast").contains(d.opcode())) {
            d = FoldedConstants.movedFrom(comp, d);   // a slice of a concatenation reading one operand: that operand
        }
        if (!d.opcode().equals("sqrt") || isFolded(comp, d.name(), 0)) {
            return "";
        }
        return "its divisor is the square root %" + d.name() + ": XLA computes x / sqrt(y) as x * rsqrt(y), whose bits"
                + " come from the CPU's approximate reciprocal square root refined by Newton steps (they differ between"
                + " CPUs), and run gives only XLA's bits";
    }

    private static boolean isConstant(HloComputation comp, String name) {
        return FoldedConstants.isLiteral(FoldedConstants.constantBehind(comp, name)) && !FoldedConstants.foldsIntoIota(comp, name);
    }

    /**
     * {@return whether every value of the constant behind {@code name} that {@code name} reads is
     * {@code value} (0 taking -0 too)} Called where {@link #isConstant} holds; the values are read
     * as HLO constants are ({@link FoldedConstants#valuesRead}).
     */
    private static boolean isAll(HloComputation comp, String name, double value) {
        double[] values = FoldedConstants.valuesRead(comp, name);
        return values != null && java.util.Arrays.stream(values).allMatch(v -> v == value);
    }

    private boolean usedOnce(HloComputation comp, String name) {
        Map<String, Integer> count = users.computeIfAbsent(comp.name(), c -> {
            Map<String, Integer> m = new HashMap<>();
            for (HloInstruction i : comp.instructions()) {
                for (String o : i.operands()) {
                    m.merge(comp.instruction(o).name(), 1, Integer::sum);
                }
            }
            return m;
        });
        return count.getOrDefault(comp.instruction(name).name(), 0) == 1 && !comp.root().name().equals(comp.instruction(name).name());
    }

    /**
     * Refuses elementwise op {@code op} of operands of {@code types} making {@code type} where XLA's
     * verifier does; called for every instruction before the run starts.
     */
    static void checkTypes(String op, List<DType> a, DType type) {
        String why = null;
        switch (op) {
            case "convert" -> {
            }
            case "compare" -> {
                if (type != DType.PRED || a.get(0) != a.get(1)) {
                    why = "compare takes two operands of one type and makes pred";
                }
            }
            case "select" -> {
                if (a.get(0) != DType.PRED || a.get(1) != type || a.get(2) != type) {
                    why = "select takes a pred and two operands of its result type";
                }
            }
            case "and", "or", "xor", "not" -> {
                if (Pointwise.isFloat(type) || a.stream().anyMatch(v -> v != type)) {
                    why = op + " takes integers or pred of its result type";
                }
            }
            case "is-finite" -> {
                if (type != DType.PRED || !Pointwise.isFloat(a.getFirst())) {
                    why = "is-finite takes a float and makes pred";
                }
            }
            case "sign" -> {
                if (a.getFirst() != type || type == DType.PRED || type.kind() == DType.Kind.UNSIGNED) {
                    why = "sign takes a float or signed integer of its result type";
                }
            }
            default -> {
                if (a.stream().anyMatch(v -> v != type)) {
                    why = op + " takes operands of its result type";
                } else if (type == DType.PRED && !Set.of("maximum", "minimum", "clamp").contains(op)) {
                    why = op + " is not defined on pred";
                } else if (Pointwise.FLOAT_OPS.contains(op) && !Pointwise.isFloat(type)) {
                    why = op + " takes a float type";
                } else if (Pointwise.INTEGER_OPS.contains(op) && Pointwise.isFloat(type)) {
                    why = op + " takes integers";
                }
            }
        }
        if (why != null) {
            throw new IllegalArgumentException(why + ": got " + a.stream().map(DType::xlaName).toList()
                    + " making " + type.xlaName());
        }
    }
}
