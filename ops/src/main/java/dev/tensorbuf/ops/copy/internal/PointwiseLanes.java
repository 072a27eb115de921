package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.internal.MiniFloat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An elementwise expression computed in f32 over f32, bf16 or f16 operands and per-channel
 * constants, lowered to a few sweeps of {@link VectorPointwise} kernels over a block of floats:
 * the common forms {@code x * scale[c] + offset[c]} (one fused multiply-add),
 * {@code (x - mean[c]) / std[c]}, {@code clamp}, {@code maximum}/{@code minimum}, each optionally
 * followed by a {@code convert} to bf16, f16, u8 or s8, and the convert alone. A subexpression
 * whose operands are all constants (the reciprocal of a constant divisor, a product of two
 * constants) is evaluated once per channel by {@link Pointwise#eval} itself; what varies runs in
 * the kernels, which keep the evaluator's flushing, NaN and rounding rules bit for bit
 * ({@code PointwiseLanesTest}). Everything else (integers, compare, select, arithmetic in bf16,
 * f16 or f64) stays with the block evaluator, and so does everything when the Vector API is off
 * or {@code -Dtensorbuf.pointwise.lanes=false} (read at each pass: what the benchmark compares).
 */
final class PointwiseLanes {
    /** Result types the kernels write: f32 itself, or the final convert's. */
    private static final Set<DType> OUTPUTS = Set.of(DType.F32, DType.BF16, DType.F16, DType.U8, DType.S8);
    /** Operand types read into floats exactly. */
    private static final Set<DType> INPUTS = Set.of(DType.F32, DType.BF16, DType.F16, DType.U8, DType.S8);
    /** Integer operands, read into floats by the copy engine's conversion (exact) on their way into a block. */
    private static final Set<DType> WIDENED = Set.of(DType.U8, DType.S8);
    /** More channels than this and a constant is read block by block like any operand. */
    static final int MAX_CHANNELS = 1 << 16;
    private static final int NEGATE = -1;
    private static final int ABS = -2;

    /** One sweep over a block: {@code slot out = op(slot a, slot b, slot c)}, unused operands -1. */
    private record Sweep(int op, int a, int b, int c, int out) {
    }

    /** Slot k holds operand {@code varying[k]} for k below {@code varying.length}, then constants, then sweeps' results. */
    private final int[] varying;
    private final int channelDim;
    private final float[][] constants;
    private final List<Sweep> sweeps;
    private final int slots;
    private final int result;
    private final DType out;

    private PointwiseLanes(int[] varying, int channelDim, float[][] constants, List<Sweep> sweeps, int result, DType out) {
        this.varying = varying;
        this.channelDim = channelDim;
        this.constants = constants;
        this.sweeps = sweeps;
        this.slots = varying.length + constants.length + sweeps.size();
        this.result = result;
        this.out = out;
    }

    /** {@return the lowering of {@code e} over {@code leaves}, or null when the expression is not of this form or vectors are off} */
    static PointwiseLanes of(Pointwise.Expr e, List<TensorView> leaves, Allocator allocator) {
        if (!VectorSupport.enabled() || "false".equals(System.getProperty("tensorbuf.pointwise.lanes"))
                || !OUTPUTS.contains(e.type())) {
            return null;
        }
        Pointwise.Expr body = e;
        if (e.type() != DType.F32) {
            if (!(e instanceof Pointwise.Op o && o.op().equals("convert") && o.args().getFirst().type() == DType.F32)) {
                return null;
            }
            body = o.args().getFirst();
        }
        // The channel dim: the dim along which the first operand that is constant in all others varies.
        // A 1-d operand varying along its one dim is data, not a constant: a channel dim is broadcast along others.
        int channelDim = -1;
        for (TensorView l : leaves) {
            int d = PointwiseTable.varyingDim(l);
            if (d >= 0 && l.dims().get(d) < l.elementCount() && l.dims().get(d) <= MAX_CHANNELS) {
                channelDim = d;
                break;
            }
        }
        Builder b = new Builder(leaves, channelDim, allocator);
        int root = b.node(body);
        if (root < 0 || b.varying.isEmpty()) {
            return null; // not of this form, or nothing varies: the evaluator's
        }
        // Slots were numbered in order of discovery; renumber: varying, constants, results.
        int v = b.varying.size();
        int c = b.constants.size();
        int[] slot = new int[b.kinds.size()];
        int[] next = {0, v, v + c};
        for (int k = 0; k < slot.length; k++) {
            slot[k] = next[b.kinds.get(k)]++;
        }
        List<Sweep> sweeps = new ArrayList<>();
        for (Sweep s : b.sweeps) {
            sweeps.add(new Sweep(s.op(), at(slot, s.a()), at(slot, s.b()), at(slot, s.c()), slot[s.out()]));
        }
        return new PointwiseLanes(b.varying.stream().mapToInt(Integer::intValue).toArray(), channelDim,
                b.constants.toArray(float[][]::new), List.copyOf(sweeps), slot[root], e.type());
    }

    private static int at(int[] slot, int k) {
        return k < 0 ? -1 : slot[k];
    }

    /** {@return the kernel's name, for the report} */
    String kernel() {
        return "vector lanes: " + sweeps.size() + " f32 sweep" + (sweeps.size() == 1 ? "" : "s") + " over " + varying.length
                + " operand" + (varying.length == 1 ? "" : "s") + " and " + constants.length + " per-channel constant"
                + (constants.length == 1 ? "" : "s") + (out == DType.F32 ? "" : ", then convert to " + out.xlaName());
    }

    /**
     * {@return the type a varying operand of {@code type} is copied into, block by block, where its
     * block is not one run of its memory: its own, or f32 for an integer (the copy converts it,
     * exactly, with its de-interleaving kernels for u8 pixels)}
     */
    static DType scratchType(DType type) {
        return WIDENED.contains(type) ? DType.F32 : type;
    }

    /**
     * {@return whether these lanes give every value of {@code table} bit for bit: the expression
     * over each 8-bit value of its operand, in each channel} An 8-bit operand has only 256 values
     * per channel, so this checks the lanes on every input they will ever see; the pass uses them
     * only then, and the table otherwise.
     *
     * @param data the 8-bit operand's type
     */
    boolean agrees(PointwiseTable table, DType data) {
        if (varying.length != 1 || varying[0] != table.data() || channelDim != table.channelDim()) {
            return false;
        }
        int channels = table.channels();
        for (float[] c : constants) {
            if (channelDim >= 0 ? c.length != channels : c.length != 1) {
                return false;
            }
        }
        int n = channels * 256;
        float[][] lanes = new float[slots][VectorPointwise.padded(n)];
        for (int i = 0; i < n; i++) {
            lanes[0][i] = data == DType.S8 ? (byte) i : i & 0xff;
        }
        for (int k = 0; k < constants.length; k++) {
            for (int i = 0; i < n; i++) {
                lanes[1 + k][i] = constants[k][channelDim < 0 ? 0 : i >> 8];
            }
        }
        sweep(lanes, n);
        int width = out.byteWidth();
        MemorySegment got = MemorySegment.ofArray(new byte[n * width]);
        short[] halves = new short[lanes[0].length];
        byte[] bytes = new byte[lanes[0].length];
        encode(lanes[result], n, halves, new int[lanes[0].length], bytes);
        copyOut(lanes[result], halves, bytes, 0, n, got, 0);
        MemorySegment want = switch (table.table()) {
            case int[] t -> MemorySegment.ofArray(t);
            case short[] t -> MemorySegment.ofArray(t);
            case byte[] t -> MemorySegment.ofArray(t);
            case long[] t -> MemorySegment.ofArray(t);
            default -> null;
        };
        return want != null && want.byteSize() == got.byteSize() && got.mismatch(want) < 0;
    }

    /** Runs the sweeps over the first {@code n} lanes of each slot. */
    private void sweep(float[][] lanes, int n) {
        for (Sweep s : sweeps) {
            float[] r = lanes[s.out()];
            switch (s.op()) {
                case NEGATE, ABS -> VectorPointwise.signOp(s.op() == NEGATE, lanes[s.a()], r, n);
                case VectorPointwise.FMA, VectorPointwise.CLAMP ->
                        VectorPointwise.ternary(s.op(), lanes[s.a()], lanes[s.b()], lanes[s.c()], r, n);
                default -> VectorPointwise.binary(s.op(), lanes[s.a()], lanes[s.b()], r, n);
            }
        }
    }

    /**
     * Encodes {@code n} results in the result type, as the evaluator writes them: into
     * {@code halves} (bf16, f16) or {@code bytes} (u8, s8); f32 results stay in {@code r}.
     */
    private void encode(float[] r, int n, short[] halves, int[] ints, byte[] bytes) {
        switch (out) {
            case F32 -> {
            }
            case BF16, F16 -> {
                if (out == DType.BF16) {
                    VectorPointwise.toBf16(r, ints, n);
                } else {
                    VectorPointwise.toF16(r, ints, n);
                }
                for (int i = 0; i < n; i++) {
                    halves[i] = (short) ints[i];
                }
            }
            default -> {
                if (out == DType.U8) {
                    VectorPointwise.toInt(r, ints, n, 0, 255);
                } else {
                    VectorPointwise.toInt(r, ints, n, -128, 127);
                }
                for (int i = 0; i < n; i++) {
                    bytes[i] = (byte) ints[i];
                }
            }
        }
    }

    /** Copies the encoded results {@code [from, from + n)} into {@code seg} at byte {@code offset}. */
    private void copyOut(float[] r, short[] halves, byte[] bytes, int from, int n, MemorySegment seg, long offset) {
        switch (out) {
            case F32 -> MemorySegment.copy(r, from, seg, ValueLayout.JAVA_FLOAT_UNALIGNED, offset, n);
            case BF16, F16 -> MemorySegment.copy(halves, from, seg, ValueLayout.JAVA_SHORT_UNALIGNED, offset, n);
            default -> MemorySegment.copy(bytes, from, seg, ValueLayout.JAVA_BYTE, offset, n);
        }
    }

    /**
     * {@return these lanes as {@link PixelPlanes}' fused kernel, for one varying operand and
     * constants along {@code channelDim}: a chain of binary ops, each over the previous value (the
     * operand's, first) and a constant; null when they are not of that form}
     */
    PixelPlanes pixelPlanes(int channelDim) {
        if (varying.length != 1 || this.channelDim != channelDim) {
            return null;
        }
        int[] ops = new int[sweeps.size()];
        float[][] operands = new float[sweeps.size()][];
        int previous = 0;
        for (int i = 0; i < sweeps.size(); i++) {
            Sweep s = sweeps.get(i);
            boolean commutes = s.op() == VectorPointwise.ADD || s.op() == VectorPointwise.MULTIPLY;
            int other;
            if (s.c() >= 0) {
                return null;
            } else if (s.a() == previous && isConstant(s.b())) {
                other = s.b();
            } else if (commutes && s.b() == previous && isConstant(s.a())) {
                other = s.a();
            } else {
                return null;
            }
            ops[i] = s.op();
            operands[i] = constants[other - varying.length];
            previous = s.out();
        }
        return previous == result ? PixelPlanes.of(ops, operands, out) : null;
    }

    private boolean isConstant(int slot) {
        return slot >= varying.length && slot < varying.length + constants.length;
    }

    /** {@return whether the lanes read an integer operand (widened to floats on its way into a block)} */
    boolean widens(List<TensorView> leaves) {
        for (int k : varying) {
            if (WIDENED.contains(leaves.get(k).dtype())) {
                return true;
            }
        }
        return false;
    }

    /** {@return whether operand {@code k} is copied block by block (else it is a constant the lowering holds)} */
    boolean copies(int k) {
        for (int v : varying) {
            if (v == k) {
                return true;
            }
        }
        return false;
    }

    /** Lowers an expression tree to sweeps, numbering slots as it finds them; {@code kinds}: 0 varying, 1 constant, 2 result. */
    private static final class Builder {
        private final List<TensorView> leaves;
        private final int channelDim;
        private final int channels;
        private final Allocator allocator;
        private final List<Integer> kinds = new ArrayList<>();
        private final List<Integer> varying = new ArrayList<>();
        private final List<Integer> varyingSlots = new ArrayList<>();
        private final List<float[]> constants = new ArrayList<>();
        private final List<Sweep> sweeps = new ArrayList<>();
        /** By text, so equal constants share a slot: an Op's own equals walks a node several read once per reader. */
        private final Map<String, Integer> constantSlots = new HashMap<>();
        /** By node, so a node several ops read is swept once. */
        private final Map<Pointwise.Expr, Integer> nodeSlots = new java.util.IdentityHashMap<>();

        Builder(List<TensorView> leaves, int channelDim, Allocator allocator) {
            this.leaves = leaves;
            this.channelDim = channelDim;
            this.channels = channelDim < 0 ? 1 : Math.toIntExact(leaves.getFirst().dims().get(channelDim));
            this.allocator = allocator;
        }

        private boolean isConstant(TensorView l) {
            int d = PointwiseTable.varyingDim(l);
            return d == -1 || (d >= 0 && d == channelDim);
        }

        /** Whether each node's value is the same along every dim but the channel's: {@link #node} asks of every node it reads. */
        private final java.util.Map<Pointwise.Expr, Boolean> constantNodes = new java.util.IdentityHashMap<>();

        private boolean constant(Pointwise.Expr x) {
            return constantNodes.get(x);
        }

        private int newSlot(int kind) {
            kinds.add(kind);
            return kinds.size() - 1;
        }

        /**
         * {@return the slot holding {@code root}'s value (an f32 expression), or -1 when it is not of
         * this form} Slots are made as a recursion from the root would make them, operands left to
         * right, each node once, stopping at the first node that is not of this form; the walks keep
         * stacks of their own, as a chain of thousands of ops is deeper than a thread's stack.
         */
        int node(Pointwise.Expr root) {
            for (Pointwise.Expr x : Pointwise.postOrder(root)) {
                boolean c = switch (x) {
                    case Pointwise.Leaf l -> isConstant(leaves.get(l.index()));
                    case Pointwise.Op o -> o.args().stream().allMatch(this::constant);
                };
                constantNodes.put(x, c);
            }
            java.util.ArrayDeque<Pointwise.Expr> nodes = new java.util.ArrayDeque<>();
            java.util.ArrayDeque<Integer> nextArg = new java.util.ArrayDeque<>();
            nodes.push(root);
            nextArg.push(-1);
            while (!nodes.isEmpty()) {
                Pointwise.Expr x = nodes.peek();
                int k = nextArg.pop();
                if (k < 0) {
                    if (nodeSlots.containsKey(x)) {
                        nodes.pop();
                        continue;
                    }
                    if (x.type() != DType.F32 || code(x) == Integer.MIN_VALUE) {
                        return -1;
                    }
                    k = 0;
                }
                List<Pointwise.Expr> read = reads(x);
                if (k < read.size()) {
                    nextArg.push(k + 1);
                    nodes.push(read.get(k));
                    nextArg.push(-1);
                    continue;
                }
                nodes.pop();
                int slot = slot(x);
                if (slot < 0) {
                    return -1;
                }
                nodeSlots.put(x, slot);
            }
            return nodeSlots.get(root);
        }

        /** {@return the nodes {@code x}'s slot is made from: none for a constant or a leaf, and a leaf under a convert is read as the leaf} */
        private List<Pointwise.Expr> reads(Pointwise.Expr x) {
            if (constant(x) || !(x instanceof Pointwise.Op o)) {
                return List.of();
            }
            if (o.op().equals("convert")) {
                // f32, bf16, f16, u8 and s8 widen to f32 exactly: convert<f32> of such an operand is the operand.
                return o.args().getFirst() instanceof Pointwise.Leaf ? List.of() : o.args();
            }
            return o.args();
        }

        /** {@return {@code x}'s sweep op, 0 for a node that needs none (a leaf, a constant, a convert), or Integer.MIN_VALUE for an op lanes lack} */
        private int code(Pointwise.Expr x) {
            if (constant(x) || !(x instanceof Pointwise.Op o) || o.op().equals("convert")) {
                return 0;
            }
            return switch (o.op()) {
                case "negate" -> NEGATE;
                case "abs" -> ABS;
                case "add" -> VectorPointwise.ADD;
                case "subtract" -> VectorPointwise.SUBTRACT;
                case "multiply" -> VectorPointwise.MULTIPLY;
                case "divide" -> VectorPointwise.DIVIDE;
                case "maximum" -> VectorPointwise.MAXIMUM;
                case "minimum" -> VectorPointwise.MINIMUM;
                case Pointwise.Op.FMA -> VectorPointwise.FMA;
                case "clamp" -> VectorPointwise.CLAMP;
                default -> Integer.MIN_VALUE;
            };
        }

        /** {@return the slot of {@code x}, the nodes it reads given theirs; -1 for a leaf of a type the lanes do not read} */
        private int slot(Pointwise.Expr x) {
            if (constant(x)) {
                return constantSlot(x);
            }
            Pointwise.Op o = x instanceof Pointwise.Op op ? op : null;
            if (o == null) {
                return leaf((Pointwise.Leaf) x);
            }
            if (o.op().equals("convert")) {
                Pointwise.Expr a = o.args().getFirst();
                return a instanceof Pointwise.Leaf l ? leaf(l) : nodeSlots.get(a);
            }
            int[] a = {-1, -1, -1};
            for (int k = 0; k < o.args().size(); k++) {
                a[k] = nodeSlots.get(o.args().get(k));
            }
            int r = newSlot(2);
            sweeps.add(new Sweep(code(x), a[0], a[1], a[2], r));
            return r;
        }

        private int leaf(Pointwise.Leaf l) {
            if (!INPUTS.contains(l.type())) {
                return -1;
            }
            int at = varying.indexOf(l.index());
            if (at < 0) {
                varying.add(l.index());
                varyingSlots.add(newSlot(0));
                at = varying.size() - 1;
            }
            return varyingSlots.get(at);
        }

        /** {@return the slot of constant {@code x}: its value per channel, by the evaluator itself} */
        private int constantSlot(Pointwise.Expr x) {
            String key = x.toString();
            Integer known = constantSlots.get(key);
            if (known != null) {
                return known;
            }
            Object[] columns = new Object[leaves.size()];
            for (int k = 0; k < leaves.size(); k++) {
                if (isConstant(leaves.get(k))) {
                    columns[k] = PointwiseTable.line(leaves.get(k), channelDim, channels, allocator);
                }
            }
            double[] v = (double[]) Pointwise.eval(x, columns, channels);
            float[] f = new float[channels];
            for (int i = 0; i < channels; i++) {
                f[i] = (float) v[i];
            }
            constants.add(f);
            int s = newSlot(1);
            constantSlots.put(key, s);
            return s;
        }
    }

    /** The f16 patterns' values as the evaluator reads them ({@link MiniFloat#F16}'s decoding). */
    private static final class F16Values {
        static final float[] TABLE = new float[1 << 16];

        static {
            for (int p = 0; p < TABLE.length; p++) {
                TABLE[p] = MiniFloat.F16.decode(p);
            }
        }
    }

    /**
     * One thread's blocks: each varying operand's block copied dense by the copy engine and read
     * as floats, the constants laid out per channel, the sweeps run, the result stored.
     */
    final class Blocks implements PointwiseCopy.BlockWriter {
        private final List<TensorView> leaves;
        private final TensorView dst;
        private final long dstBase;
        private final long[] dstStrides;
        /** The dims, as bits, that a block spans whole before its split dim: each index of them is a run of the block. */
        private final long whole;
        /** The fused kernel for blocks of u8 pixels of 3 channels (the one dim of {@code whole}), or null. */
        private final PixelPlanes planes;
        /** Per varying operand: its element offset when its block is one run of its memory (read straight), else -1. */
        private final long[] srcBase;
        private final long[][] srcStrides;
        private final CopyEngine engine;
        private final Allocator allocator;
        private final Map<List<Long>, TensorView[]> scratches = new HashMap<>();
        private final float[][] lanes;
        private final short[] halves;
        private final int[] ints;
        private final byte[] bytes;
        private long[] laidOut;
        private long laidOutFirst = -1;

        /**
         * @param dstBase {@code dst}'s element offset when its dims from {@code split} on are one
         *     run of memory (so is each run of a block), else -1
         * @param split the first dim a block may not span whole
         * @param whole the dims before {@code split}, as bits, that a block spans whole
         *     (interleaved channels): a block is then a run per index of them, and operands are
         *     copied, never read straight
         */
        Blocks(List<TensorView> leaves, TensorView dst, long dstBase, int split, long whole, int block, PixelPlanes planes,
               CopyEngine engine, Allocator allocator) {
            this.engine = engine;
            this.leaves = leaves;
            this.dst = dst;
            this.dstBase = dstBase;
            this.dstStrides = dstBase < 0 ? null : Extents.toArray(dst.stridedLayout().orElseThrow().strides());
            this.whole = whole;
            this.planes = planes;
            this.srcBase = new long[varying.length];
            this.srcStrides = new long[varying.length][];
            for (int k = 0; k < varying.length; k++) {
                TensorView leaf = leaves.get(varying[k]);
                srcBase[k] = whole != 0 ? -1 : PointwiseCopy.denseFrom(leaf, split);
                srcStrides[k] = srcBase[k] < 0 ? null : Extents.toArray(leaf.stridedLayout().orElseThrow().strides());
            }
            this.allocator = allocator;
            int padded = VectorPointwise.padded(block);
            this.lanes = new float[slots][padded];
            this.halves = new short[padded];
            this.ints = new int[padded];
            this.bytes = new byte[padded];
        }

        @Override
        public void block(long[] start, long[] limit) {
            PointwiseCopy.Box box = PointwiseCopy.Box.of(start, limit);
            long[] blockDims = box.dims();
            int n = box.elements();
            if (planes != null && n / 3 >= PixelPlanes.B) {
                TensorView pixels = leaves.get(varying[0]);
                int channel = Long.numberOfTrailingZeros(whole);
                long[] strides = Extents.toArray(pixels.stridedLayout().orElseThrow().strides());
                long from = box.offset(pixels.stridedLayout().orElseThrow().offset(), strides);
                planes.run(pixels.buffer().segment(), from, dst.buffer().segment(), box.offset(dstBase, dstStrides) * out.byteWidth(),
                        dstStrides[channel] * out.byteWidth(), n / 3);
                return;
            }
            TensorView[] scratch = scratches.computeIfAbsent(box.key(), k -> new TensorView[varying.length + 1]);
            for (int k = 0; k < varying.length; k++) {
                TensorView leaf = leaves.get(varying[k]);
                if (srcBase[k] >= 0) {
                    // One run of the operand's memory: read straight, no copy through a scratch.
                    long at = box.offset(srcBase[k], srcStrides[k]);
                    read(leaf.buffer().segment(), at * leaf.dtype().byteWidth(), leaf.dtype(), lanes[k], n);
                    quiet(leaf.dtype(), lanes[k], n);
                    continue;
                }
                DType into = scratchType(leaf.dtype());
                if (scratch[k] == null) {
                    scratch[k] = PointwiseCopy.scratch(ArrayShape.of(into, blockDims), allocator);
                }
                engine.copy(box.part(leaf), scratch[k]);
                read(scratch[k].buffer().segment(), 0, into, lanes[k], n);
                quiet(leaf.dtype(), lanes[k], n);
            }
            layOutConstants(blockDims, start, n);
            sweep(lanes, n);
            float[] r = lanes[result];
            encode(r, n, halves, ints, bytes);
            if (dstBase >= 0) {
                storeRuns(r, box, n);
                return;
            }
            if (scratch[varying.length] == null) {
                scratch[varying.length] = PointwiseCopy.scratch(ArrayShape.of(out, blockDims), allocator);
            }
            copyOut(r, halves, bytes, 0, n, scratch[varying.length].buffer().segment(), 0);
            engine.copy(scratch[varying.length], box.part(dst));
        }

        /** Stores the block's encoded results straight into the destination, a run of its memory per index of the whole dims. */
        private void storeRuns(float[] r, PointwiseCopy.Box box, int n) {
            long[] blockDims = box.dims();
            long at = box.offset(dstBase, dstStrides);
            MemorySegment seg = dst.buffer().segment();
            int width = out.byteWidth();
            int runs = 1;
            for (int d = 0; d < blockDims.length; d++) {
                runs *= (whole >>> d & 1) != 0 ? (int) blockDims[d] : 1;
            }
            int run = n / runs;
            for (int j = 0; j < runs; j++) {
                long offset = at;
                int rest = j;
                for (int d = blockDims.length - 1; d >= 0 && rest > 0; d--) {
                    if ((whole >>> d & 1) != 0) {
                        offset += (rest % blockDims[d]) * dstStrides[d];
                        rest /= (int) blockDims[d];
                    }
                }
                copyOut(r, halves, bytes, j * run, run, seg, offset * width);
            }
        }

        /** Reads {@code n} elements of {@code type} at byte {@code offset} into floats, exactly ({@link #quiet} then quiets NaNs as widening does). */
        private void read(MemorySegment seg, long offset, DType type, float[] into, int n) {
            switch (type) {
                case F32 -> MemorySegment.copy(seg, ValueLayout.JAVA_FLOAT_UNALIGNED, offset, into, 0, n);
                case U8, S8 -> {
                    MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, offset, bytes, 0, n);
                    boolean unsigned = type == DType.U8;
                    for (int i = 0; i < n; i++) {
                        into[i] = unsigned ? bytes[i] & 0xff : bytes[i];
                    }
                }
                case BF16 -> {
                    MemorySegment.copy(seg, ValueLayout.JAVA_SHORT_UNALIGNED, offset, halves, 0, n);
                    for (int i = 0; i < n; i++) {
                        into[i] = Float.intBitsToFloat(halves[i] << 16);
                    }
                }
                case F16 -> {
                    MemorySegment.copy(seg, ValueLayout.JAVA_SHORT_UNALIGNED, offset, halves, 0, n);
                    float[] table = F16Values.TABLE;
                    for (int i = 0; i < n; i++) {
                        into[i] = table[halves[i] & 0xffff];
                    }
                }
                default -> throw new AssertionError(type);
            }
        }

        /** Quiets the signalling NaNs of a float operand's {@code n} values; an integer operand has none. */
        private static void quiet(DType type, float[] values, int n) {
            if (!WIDENED.contains(type)) {
                VectorPointwise.quiet(values, n);
            }
        }

        /**
         * Lays each constant out over the block, channel by channel: runs of the dims after the
         * channel dim, repeated with the period of one pass over the channels. Blocks of the same
         * dims starting at the same channel (every block, where the channel dim is split whole)
         * keep the last layout.
         */
        private void layOutConstants(long[] blockDims, long[] start, int n) {
            long first = channelDim < 0 ? 0 : start[channelDim];
            if (constants.length == 0 || (first == laidOutFirst && Arrays.equals(blockDims, laidOut))) {
                return;
            }
            int inner = 1;
            for (int d = channelDim + 1; d < blockDims.length && channelDim >= 0; d++) {
                inner *= (int) blockDims[d];
            }
            int span = channelDim < 0 ? 1 : (int) blockDims[channelDim];
            int period = Math.min(n, span * inner);
            if (channelDim < 0) {
                inner = n;
                period = n;
            }
            for (int k = 0; k < constants.length; k++) {
                float[] lane = lanes[varying.length + k];
                float[] values = constants[k];
                for (int r = 0; r < span && r * inner < period; r++) {
                    Arrays.fill(lane, r * inner, Math.min(period, (r + 1) * inner), values[(int) first + r]);
                }
                for (int p = period; p < n; p *= 2) {
                    System.arraycopy(lane, 0, lane, p, Math.min(p, n - p));
                }
            }
            laidOut = blockDims.clone();
            laidOutFirst = first;
        }
    }
}
