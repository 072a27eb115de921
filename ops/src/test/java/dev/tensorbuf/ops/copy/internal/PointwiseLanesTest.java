package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.exec.internal.Materialize;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.internal.MiniFloat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The vector lowering against the block evaluator (XLA's semantics, PointwiseTest and
 * RunXlaAgreementTest) on the same expression and operands: every element's bits equal, over
 * random floats mixed with NaNs of both signs and several payloads (signalling ones too), -0,
 * infinities, denormals and the values around f32's smallest normal, in layouts where a block
 * holds one channel (NCHW), several, or changes channel element by element (NHWC), into f32,
 * bf16, f16, u8 and s8. The seed is printed; {@code -Dtensorbuf.seed=N} replays it.
 */
class PointwiseLanesTest {
    private static long seed;

    @BeforeAll
    static void seed() {
        String fixed = System.getProperty("tensorbuf.seed");
        seed = fixed != null ? Long.parseLong(fixed) : System.nanoTime();
        System.out.println("PointwiseLanesTest seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
    }

    private static final int[] SPECIAL = {0x0000_0000, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000,
        0x7fc0_1234, 0xffa0_0001, 0x7f80_0001, 0x0000_0001, 0x8000_0001, 0x007f_ffff, 0x807f_ffff, 0x0080_0000,
        0x8080_0000, 0x0080_0001, 0x3f80_0000, 0x4b00_0000, 0x437f_8000, 0xc300_0000, 0x477f_e000, 0x3380_0000};

    /** {@return a random float: special bits, any bits, or a value of ordinary size} */
    private static float value(SplittableRandom r) {
        return switch (r.nextInt(4)) {
            case 0 -> Float.intBitsToFloat(SPECIAL[r.nextInt(SPECIAL.length)]);
            case 1 -> Float.intBitsToFloat(r.nextInt());
            case 2 -> (float) (r.nextDouble(-300, 300));
            default -> Float.intBitsToFloat(r.nextInt(0x0100_0000) | (r.nextBoolean() ? 0x8000_0000 : 0)); // near denormal
        };
    }

    private static TensorView random(Allocator a, SplittableRandom r, DType type, long... dims) {
        TensorView x = PointwiseCopy.scratch(ArrayShape.of(type, dims), a);
        MemorySegment seg = x.buffer().segment();
        for (long i = 0; i < x.elementCount(); i++) {
            float f = value(r);
            switch (type) {
                case F32 -> seg.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, f);
                case BF16 -> seg.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) (Float.floatToRawIntBits(f) >>> 16));
                case F16 -> seg.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i,
                        (short) (r.nextInt(8) == 0 ? r.nextInt(1 << 16) : MiniFloat.F16.encode(f)));
                default -> throw new AssertionError(type);
            }
        }
        return x;
    }

    private static TensorView constants(Allocator a, SplittableRandom r, int n) {
        TensorView t = PointwiseCopy.scratch(ArrayShape.of(DType.F32, n), a);
        for (int i = 0; i < n; i++) {
            t.buffer().segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, r.nextInt(5) == 0 ? value(r)
                    : (float) r.nextDouble(-4, 4));
        }
        return t;
    }

    private static Pointwise.Expr leaf(int k, DType t) {
        return new Pointwise.Leaf(k, t);
    }

    private static Pointwise.Expr op(String op, DType t, Pointwise.Expr... args) {
        return new Pointwise.Op(op, t, List.of(args), "");
    }

    private static Pointwise.Expr f32(Pointwise.Expr x) {
        return x.type() == DType.F32 ? x : op("convert", DType.F32, x);
    }

    /**
     * The block evaluator's bytes of each sub-expression of one check, each evaluated once: asked
     * again for every element where two NaNs differ, a fresh evaluation each time (every operand
     * materialized anew, in an allocator freed only at the end) once took a test JVM to 24 GB.
     */
    private static final class References {
        private final List<TensorView> leaves;
        private final Allocator a;
        private final Map<Pointwise.Expr, byte[]> done = new IdentityHashMap<>();

        References(List<TensorView> leaves, Allocator a) {
            this.leaves = leaves;
            this.a = a;
        }

        byte[] of(Pointwise.Expr e) {
            return done.computeIfAbsent(e, x -> reference(x, leaves, a));
        }
    }

    /** {@return the block evaluator's bytes for {@code e}: every operand copied dense, evaluated at once} */
    private static byte[] reference(Pointwise.Expr e, List<TensorView> leaves, Allocator a) {
        long[] dims = Extents.toArray(leaves.getFirst().dims());
        int n = (int) leaves.getFirst().elementCount();
        Object[] columns = new Object[leaves.size()];
        for (int k = 0; k < leaves.size(); k++) {
            TensorView dense = Materialize.materialize(leaves.get(k), ArrayShape.of(leaves.get(k).dtype(), dims), a);
            columns[k] = PointwiseCopy.read(dense, n);
        }
        TensorView r = PointwiseCopy.scratch(ArrayShape.of(e.type(), dims), a);
        PointwiseCopy.write(r, Pointwise.eval(e, columns, n), n);
        return r.buffer().segment().asSlice(0, r.shape().arraySize()).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Runs {@code e} through the lanes into a destination laid out as {@code dst} (a permutation of dims), checks the bits. */
    private static void check(String what, Pointwise.Expr e, List<TensorView> leaves, Allocator a, int... dstPerm) {
        long[] dims = Extents.toArray(leaves.getFirst().dims());
        TensorView dst;
        TensorView dense;
        if (dstPerm.length == 0) {
            dst = PointwiseCopy.scratch(ArrayShape.of(e.type(), dims), a);
            dense = dst;
        } else {
            // A destination in another memory order: the lanes store through a scratch block.
            long[] permuted = new long[dims.length];
            int[] inverse = new int[dims.length];
            for (int d = 0; d < dims.length; d++) {
                permuted[d] = dims[dstPerm[d]];
                inverse[dstPerm[d]] = d;
            }
            TensorView mem = PointwiseCopy.scratch(ArrayShape.of(e.type(), permuted), a);
            dst = Ops.transpose(mem, inverse);
            dense = null;
        }
        String kernel = PointwiseCopy.run(e, leaves, dst, a).epilogue().orElseThrow().kernel();
        assertTrue(kernel.startsWith("vector lanes"), what + ": " + kernel);
        if (dense == null) {
            dense = Materialize.materialize(dst, ArrayShape.of(e.type(), dims), a);
        }
        byte[] got = dense.buffer().segment().asSlice(0, dense.shape().arraySize()).toArray(ValueLayout.JAVA_BYTE);
        References references = new References(leaves, a);
        byte[] want = references.of(e);
        int w = e.type().byteWidth();
        for (int i = 0; i < want.length; i += w) {
            if (!java.util.Arrays.equals(want, i, i + w, got, i, i + w)) {
                if (isNaN(e.type(), want, i) && isNaN(e.type(), got, i) && nansMeet(e, references, i / w)) {
                    // Which NaN's payload comes out of an op given two is not specified: the JIT,
                    // like XLA's LLVM, may swap a commutative op's operands. The NaNs may be
                    // operands or made inside the expression (inf - inf): only values an op
                    // actually reads count, so a NaN the expression never reads cannot come out.
                    continue;
                }
                throw new AssertionError(what + " (seed " + seed + "): element " + i / w + " of " + e + " got "
                        + hex(got, i, w) + " want " + hex(want, i, w) + " from operands " + operands(leaves, i / w, a));
            }
        }
    }

    private static boolean isNaN(DType t, byte[] b, int at) {
        return switch (t) {
            case F32 -> Float.isNaN(Float.intBitsToFloat((int) bits(b, at, 4)));
            case BF16 -> (bits(b, at, 2) & 0x7fff) > 0x7f80;
            case F16 -> (bits(b, at, 2) & 0x7fff) > 0x7c00;
            default -> false;
        };
    }

    /** {@return whether some op of {@code e} reads two or more NaNs at element {@code flat}, by the block evaluator} */
    private static boolean nansMeet(Pointwise.Expr e, List<TensorView> leaves, Allocator a, int flat) {
        return nansMeet(e, new References(leaves, a), flat);
    }

    private static boolean nansMeet(Pointwise.Expr e, References references, int flat) {
        if (!(e instanceof Pointwise.Op o)) {
            return false;
        }
        int nans = 0;
        for (Pointwise.Expr arg : o.args()) {
            if (nansMeet(arg, references, flat)) {
                return true;
            }
            nans += isNaN(arg.type(), references.of(arg), flat * arg.type().byteWidth()) ? 1 : 0;
        }
        return nans >= 2;
    }

    @Test
    void aNaNPayloadIsFreeOnlyWhereAnOpReadsTwoNaNs() {
        Pointwise.Expr fma = op(Pointwise.Op.FMA, DType.F32, leaf(0, DType.F32), leaf(2, DType.F32), leaf(3, DType.F32));
        try (Allocator a = Allocators.shared()) {
            TensorView nan = PointwiseCopy.scratch(ArrayShape.of(DType.F32, 4), a);
            TensorView one = PointwiseCopy.scratch(ArrayShape.of(DType.F32, 4), a);
            TensorView inf = PointwiseCopy.scratch(ArrayShape.of(DType.F32, 4), a);
            for (int i = 0; i < 4; i++) {
                nan.buffer().segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, Float.NaN);
                one.buffer().segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, 1f);
                inf.buffer().segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, Float.POSITIVE_INFINITY);
            }
            List<TensorView> leaves = List.of(nan, nan, one, one, inf);
            // %1 is NaN but fma reads %0, %2 and %3: one NaN, so its payload must be %0's.
            assertFalse(nansMeet(fma, leaves, a, 0));
            assertTrue(nansMeet(op("add", DType.F32, leaf(0, DType.F32), leaf(1, DType.F32)), leaves, a, 3));
            // inf - inf makes a NaN, which then meets %0's: either may come out.
            Pointwise.Expr made = op("subtract", DType.F32, leaf(4, DType.F32), leaf(4, DType.F32));
            assertFalse(nansMeet(made, leaves, a, 1));
            assertTrue(nansMeet(op("multiply", DType.F32, made, leaf(0, DType.F32)), leaves, a, 1));
            assertFalse(nansMeet(op("multiply", DType.F32, made, leaf(2, DType.F32)), leaves, a, 1));
        }
    }

    private static long bits(byte[] b, int at, int w) {
        long v = 0;
        for (int k = w - 1; k >= 0; k--) {
            v = (v << 8) | (b[at + k] & 0xff);
        }
        return v;
    }

    private static String hex(byte[] b, int at, int w) {
        long v = 0;
        for (int k = w - 1; k >= 0; k--) {
            v = (v << 8) | (b[at + k] & 0xff);
        }
        return "0x" + Long.toHexString(v);
    }

    private static String operands(List<TensorView> leaves, int flat, Allocator a) {
        StringBuilder sb = new StringBuilder();
        for (TensorView l : leaves) {
            TensorView dense = Materialize.materialize(l, ArrayShape.of(l.dtype(), Extents.toArray(l.dims())), a);
            int w = l.dtype().byteWidth();
            sb.append(hex(dense.buffer().segment().asSlice((long) flat * w, w).toArray(ValueLayout.JAVA_BYTE), 0, w)).append(' ');
        }
        return sb.toString();
    }

    @Test
    void affineClampAndConvertOverSpecialValuesMatchTheEvaluatorBitForBit() {
        assumeTrue(VectorSupport.enabled(), "the JVM has no jdk.incubator.vector, or -Dtensorbuf.copy.vector=false");
        SplittableRandom r = new SplittableRandom(seed);
        try (Allocator a = Allocators.shared()) {
            for (int round = 0; round < 6; round++) {
                for (DType in : List.of(DType.F32, DType.BF16, DType.F16)) {
                    long n = 1 + r.nextInt(3);
                    long h = 1 + r.nextInt(round % 2 == 0 ? 120 : 9);
                    // At least 2 wide: where the channel is the only dim above 1, per-channel constants
                    // vary exactly as the data does, and are read as data (the block evaluator's case).
                    long w = 2 + r.nextInt(round % 2 == 0 ? 149 : 10);
                    // NCHW read out of NHWC memory: the engine's transposes fill each operand's block.
                    TensorView x = Ops.transpose(random(a, r, in, n, h, w, 3), 0, 3, 1, 2);
                    long[] nchw = {n, 3, h, w};
                    TensorView y = random(a, r, in, nchw);
                    TensorView scale = Ops.broadcast(constants(a, r, 3), nchw, 1);
                    TensorView bias = Ops.broadcast(constants(a, r, 3), nchw, 1);
                    TensorView lo = Ops.broadcast(Ops.reshape(constants(a, r, 1)), nchw);
                    TensorView hi = Ops.broadcast(Ops.reshape(constants(a, r, 1)), nchw);
                    Pointwise.Expr fx = f32(leaf(0, in));
                    Pointwise.Expr fy = f32(leaf(1, in));
                    List<TensorView> leaves = List.of(x, y, scale, bias, lo, hi);
                    Pointwise.Expr fma = op(Pointwise.Op.FMA, DType.F32, fx, leaf(2, DType.F32), leaf(3, DType.F32));
                    Pointwise.Expr norm = op("multiply", DType.F32, op("subtract", DType.F32, fx, leaf(3, DType.F32)),
                            op(Pointwise.Op.RECIPROCAL, DType.F32, leaf(2, DType.F32)));
                    Pointwise.Expr clamp = op("clamp", DType.F32, leaf(4, DType.F32), fma, leaf(5, DType.F32));
                    Pointwise.Expr mixed = op("maximum", DType.F32, op("divide", DType.F32, op("negate", DType.F32, fx),
                            op("abs", DType.F32, fy)), op("minimum", DType.F32, op("add", DType.F32, fx, fy), leaf(4, DType.F32)));
                    for (Pointwise.Expr body : List.of(fma, norm, clamp, mixed, fx)) {
                        for (DType out : List.of(DType.F32, DType.BF16, DType.F16, DType.U8, DType.S8)) {
                            if (body == fx && in == DType.F32 && out == DType.F32) {
                                continue; // no op at all: a copy, not an expression
                            }
                            Pointwise.Expr e = out == DType.F32 ? body : op("convert", out, body);
                            check(in + " " + out + " [" + n + ",3," + h + "," + w + "]", e, leaves, a);
                        }
                    }
                    // Into NHWC memory: the result's block goes through a scratch and the engine.
                    check(in + " NHWC destination", op("convert", DType.BF16, clamp), leaves, a, 0, 2, 3, 1);
                    // Channel innermost: the constants change element by element.
                    TensorView xh = random(a, r, in, n, h, w, 3);
                    long[] nhwc = {n, h, w, 3};
                    List<TensorView> inner = List.of(xh, Ops.broadcast(constants(a, r, 3), nhwc, 3),
                            Ops.broadcast(constants(a, r, 3), nhwc, 3));
                    check(in + " NHWC", op(Pointwise.Op.FMA, DType.F32, f32(leaf(0, in)), leaf(1, DType.F32), leaf(2, DType.F32)),
                            inner, a);
                }
            }
        }
    }

    @Test
    void oneDimensionalDataIsNotMistakenForAChannelConstant() {
        assumeTrue(VectorSupport.enabled(), "the JVM has no jdk.incubator.vector, or -Dtensorbuf.copy.vector=false");
        SplittableRandom r = new SplittableRandom(seed);
        try (Allocator a = Allocators.shared()) {
            TensorView x = random(a, r, DType.F32, 40_000);
            TensorView two = Ops.broadcast(Ops.reshape(constants(a, r, 1)), new long[] {40_000});
            Pointwise.Expr e = op("multiply", DType.F32, leaf(0, DType.F32), leaf(1, DType.F32));
            check("1-d", e, List.of(x, two), a);
        }
    }

    @Test
    void integerCompareAndNarrowArithmeticAreLeftToTheEvaluator() {
        try (Allocator a = Allocators.shared()) {
            TensorView s32 = PointwiseCopy.scratch(ArrayShape.of(DType.S32, 4, 5), a);
            assertNull(PointwiseLanes.of(op("negate", DType.S32, leaf(0, DType.S32)), List.of(s32), a));
            TensorView bf = PointwiseCopy.scratch(ArrayShape.of(DType.BF16, 4, 5), a);
            assertNull(PointwiseLanes.of(op("add", DType.BF16, leaf(0, DType.BF16), leaf(1, DType.BF16)), List.of(bf, bf), a));
            TensorView f = PointwiseCopy.scratch(ArrayShape.of(DType.F32, 4, 5), a);
            Pointwise.Expr cmp = new Pointwise.Op("compare", DType.PRED, List.of(leaf(0, DType.F32), leaf(1, DType.F32)), "LT FLOAT");
            assertNull(PointwiseLanes.of(cmp, List.of(f, f), a));
            if (VectorSupport.enabled()) {
                PointwiseLanes lanes = PointwiseLanes.of(op("add", DType.F32, leaf(0, DType.F32), leaf(1, DType.F32)),
                        List.of(f, Ops.broadcast(Ops.reshape(constants(a, new SplittableRandom(1), 1)), new long[] {4, 5})), a);
                assertNotNull(lanes);
                assertEquals("vector lanes: 1 f32 sweep over 1 operand and 1 per-channel constant", lanes.kernel());
            }
        }
    }
}
