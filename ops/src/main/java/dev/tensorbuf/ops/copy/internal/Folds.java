package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.MiniFloat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Typed loops that fold dense values into accumulators by one associative, commutative op, with
 * {@link Pointwise}'s XLA semantics: floats by maximum or minimum (read flushed, NaN wins, -0
 * below +0), integers and pred by add, multiply, maximum, minimum, and, or, xor (wrapping to the
 * type when the fold is done). The reduce of {@code tensorbuf run} folds rows of its operand with
 * them, reading memory straight into the accumulators: no block arrays, no per-element dispatch
 * on a string.
 * {@snippet :
 * Object acc = Folds.load(DType.F32, row0, 0, n);
 * Folds.combine(Folds.op("maximum"), DType.F32, acc, row1, 0, n);  // acc[i] = max(acc[i], row1[i])
 * Folds.finish(DType.F32, acc, n);                                 // flushed as XLA reads them
 * double[] max = (double[]) Folds.values(acc, n);
 * }
 */
public final class Folds {
    private Folds() {
    }

    /**
     * Whether the f32 and s32 loops run on Vector API lanes: asked once, not on every block (a
     * system property lookup each time, tens of thousands of times a reduce).
     */
    private static final boolean VECTOR = VectorSupport.enabled();

    /** The reducer ops, each folded exactly: its code for {@link #combine} is its index here. */
    public static final List<String> OPS = List.of("add", "multiply", "maximum", "minimum", "and", "or", "xor");

    private static final int ADD = 0;
    private static final int MULTIPLY = 1;
    private static final int MAXIMUM = 2;
    private static final int MINIMUM = 3;
    private static final int AND = 4;
    private static final int OR = 5;

    /** Accumulators a row is folded into before they are halved: a row is read once, the halving costs little. */
    static final int FOLD_WIDTH = 256;

    /** {@return the code of a reducer op for {@link #combine}} @throws IllegalArgumentException for another op */
    public static int op(String name) {
        int code = OPS.indexOf(name);
        if (code < 0) {
            throw new IllegalArgumentException(name + " is not a reducer");
        }
        return code;
    }

    /**
     * {@return the {@code n} values of {@code t} dense in {@code seg} from byte {@code offset}: f32's
     * as a float[] as they are, flushed by {@link #finish} ({@link #values} turns it into doubles);
     * other floats as a double[] read flushed (f16 keeps its denormals, which are normal in f32);
     * else a long[] of integers sign- or zero-extended}
     */
    public static Object load(DType t, MemorySegment seg, long offset, int n) {
        if (t == DType.F32) {
            // Read as they are: flushing commutes with max and min, so finish flushes the results.
            float[] v = new float[n];
            MemorySegment.copy(seg, ValueLayout.JAVA_FLOAT_UNALIGNED, offset, v, 0, n);
            return v;
        }
        if (Pointwise.isFloat(t)) {
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = Pointwise.flushIn(floatAt(t, seg, offset, i), t, true);
            }
            return v;
        }
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = intAt(t, seg, offset, i);
        }
        return v;
    }

    /** {@code acc[i] = op(acc[i], x[i])} for the {@code n} values {@code x} of {@code t} dense in {@code seg} from byte {@code offset}. */
    public static void combine(int op, DType t, Object acc, MemorySegment seg, long offset, int n) {
        // One small method per accumulator type, so that C2 inlines each loop's reads whole; tested
        // with instanceof, as a type switch is a call through its bootstrap on every block.
        if (acc instanceof long[] a) {
            combineIntegers(op, t, a, seg, offset, n);
        } else if (acc instanceof float[] f) {
            combineF32(op == MAXIMUM, f, seg, offset, n);
        } else {
            combineFloats(op == MAXIMUM, t, (double[]) acc, seg, offset, n);
        }
    }

    private static void combineF32(boolean max, float[] f, MemorySegment seg, long offset, int n) {
        if (VECTOR) {
            VectorFolds.combine(max, f, seg, offset, n);
            return;
        }
        // Math.max and min on floats are IEEE 754-2019's, as XLA's: NaN if either is, -0 below +0.
        for (int i = 0; i < n; i++) {
            float x = seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset + 4L * i);
            f[i] = max ? Math.max(f[i], x) : Math.min(f[i], x);
        }
    }

    /**
     * {@code acc[i] = op(acc[i], x_k[i])} for the {@code rows} rows {@code x_k} of {@code n} values
     * of {@code t}, dense in {@code seg} from byte {@code offset}, {@code rowBytes} apart: f32
     * maximum and minimum and s32 sums four rows a pass on Vector API lanes, so the accumulators
     * are read and written a quarter as often.
     */
    public static void combineRows(int op, DType t, Object acc, MemorySegment seg, long offset, long rowBytes, long rows, int n) {
        long k = 0;
        if (VECTOR && acc instanceof float[] f) {
            for (; k + 4 <= rows; k += 4) {
                VectorFolds.combine4(op == MAXIMUM, f, seg, offset + k * rowBytes, rowBytes, n);
            }
        } else if (VECTOR && t == DType.S32 && op == ADD) {
            for (; k + 4 <= rows; k += 4) {
                VectorFolds.addS32x4((long[]) acc, seg, offset + k * rowBytes, rowBytes, n);
            }
        }
        for (; k < rows; k++) {
            combine(op, t, acc, seg, offset + k * rowBytes, n);
        }
    }

    /**
     * {@return the row of {@code count} dense values of {@code t} from byte {@code offset} folded
     * into one, in element 0 of a finished accumulator} f32 maximum and minimum and s32 sums run
     * in Vector API registers; others fold into {@link #FOLD_WIDTH} accumulators block by block,
     * which are then halved: the first half against the last, a middle one left for the next round.
     */
    public static Object foldRow(int op, DType t, MemorySegment seg, long offset, long count) {
        if (VECTOR && t == DType.F32 && (op == MAXIMUM || op == MINIMUM)) {
            return new float[] {flushF32(VectorFolds.foldF32(op == MAXIMUM, seg, offset, count))};
        }
        if (VECTOR && t == DType.S32 && op == ADD) {
            return new long[] {VectorFolds.sumS32(seg, offset, count)};
        }
        int width = Math.max(1, t.bitWidth() / 8);
        int n = (int) Math.min(FOLD_WIDTH, count);
        Object acc = load(t, seg, offset, n);
        for (long c = n; c < count; c += n) {
            combine(op, t, acc, seg, offset + c * width, (int) Math.min(n, count - c));
        }
        for (int len = n; len > 1; ) {
            int h = len / 2;
            combineWithin(op, t, acc, len - h, h);
            len -= h;
        }
        finish(t, acc, 1);
        return acc;
    }

    private static void combineFloats(boolean max, DType t, double[] a, MemorySegment seg, long offset, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = Pointwise.maxMin(a[i], Pointwise.flushIn(floatAt(t, seg, offset, i), t, true), max);
        }
    }

    private static void combineIntegers(int op, DType t, long[] a, MemorySegment seg, long offset, int n) {
        if (t == DType.S32 && op == ADD && VECTOR) {
            // Sums and counts of s32, the common integer reduce: C2 does not vectorise the loop below.
            VectorFolds.addS32(a, seg, offset, n);
            return;
        }
        boolean unsigned = t.kind() != DType.Kind.SIGNED;
        for (int i = 0; i < n; i++) {
            a[i] = apply(op, unsigned, a[i], intAt(t, seg, offset, i));
        }
    }

    /** {@code acc[i] = op(acc[i], acc[from + i])} for {@code i < n}: the halving of a block of accumulators. */
    public static void combineWithin(int op, DType t, Object acc, int from, int n) {
        join(op, t, acc, acc, from, n);
    }

    /** {@code acc[i] = op(acc[i], other[i])} for {@code i < n}: two partial folds of the same elements' rows joined. */
    public static void merge(int op, DType t, Object acc, Object other, int n) {
        join(op, t, acc, other, 0, n);
    }

    private static void join(int op, DType t, Object acc, Object other, int from, int n) {
        if (acc instanceof float[] f) {
            float[] g = (float[]) other;
            for (int i = 0; i < n; i++) {
                f[i] = op == MAXIMUM ? Math.max(f[i], g[from + i]) : Math.min(f[i], g[from + i]);
            }
            return;
        }
        if (acc instanceof double[] a) {
            double[] b = (double[]) other;
            boolean max = op == MAXIMUM;
            for (int i = 0; i < n; i++) {
                a[i] = Pointwise.maxMin(a[i], b[from + i], max);
            }
            return;
        }
        long[] a = (long[]) acc;
        long[] b = (long[]) other;
        boolean unsigned = t.kind() != DType.Kind.SIGNED;
        for (int i = 0; i < n; i++) {
            a[i] = apply(op, unsigned, a[i], b[from + i]);
        }
    }

    /**
     * Wraps integer accumulators to {@code t}'s width (sums and products ran in 64 bits, which
     * wrap alike) and flushes f32 ones: flushing a denormal to its signed zero keeps the order
     * max and min see (-0 below +0), so the flushed maximum is the maximum flushed.
     */
    public static void finish(DType t, Object acc, int n) {
        if (acc instanceof long[] a) {
            for (int i = 0; i < n; i++) {
                a[i] = Pointwise.wrap(a[i], t);
            }
        } else if (acc instanceof float[] f) {
            for (int i = 0; i < n; i++) {
                f[i] = flushF32(f[i]);
            }
        }
    }

    /**
     * {@return the first {@code n} accumulators as {@link Pointwise#eval} carries values: a double[]
     * for floats (f32's are kept as float[] while they fold), else the long[] itself}
     */
    public static Object values(Object acc, int n) {
        if (acc instanceof float[] f) {
            double[] d = new double[n];
            for (int i = 0; i < n; i++) {
                d[i] = f[i];
            }
            return d;
        }
        return acc;
    }

    /** {@return {@code x}, a denormal as its signed zero} */
    static float flushF32(float x) {
        return Math.abs(x) < 0x1p-126f ? Math.copySign(0f, x) : x;
    }

    private static long apply(int op, boolean unsigned, long p, long q) {
        return switch (op) {
            case ADD -> p + q;
            case MULTIPLY -> p * q;
            case MAXIMUM -> (unsigned ? Long.compareUnsigned(p, q) : Long.compare(p, q)) >= 0 ? p : q;
            case MINIMUM -> (unsigned ? Long.compareUnsigned(p, q) : Long.compare(p, q)) <= 0 ? p : q;
            case AND -> p & q;
            case OR -> p | q;
            default -> p ^ q;
        };
    }

    private static double floatAt(DType t, MemorySegment seg, long offset, int i) {
        return switch (t) {
            case F32 -> seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset + 4L * i);
            case F64 -> seg.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + 8L * i);
            case BF16 -> Float.intBitsToFloat(seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset + 2L * i) << 16);
            case F16 -> MiniFloat.F16.decode(seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset + 2L * i) & 0xffff);
            default -> throw new IllegalArgumentException("not a float type folded here: " + t);
        };
    }

    private static long intAt(DType t, MemorySegment seg, long offset, int i) {
        return switch (t) {
            case PRED -> seg.get(ValueLayout.JAVA_BYTE, offset + i) != 0 ? 1 : 0;
            case S8 -> seg.get(ValueLayout.JAVA_BYTE, offset + i);
            case U8 -> seg.get(ValueLayout.JAVA_BYTE, offset + i) & 0xffL;
            case S16 -> seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset + 2L * i);
            case U16 -> seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset + 2L * i) & 0xffffL;
            case S32 -> seg.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 4L * i);
            case U32 -> seg.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 4L * i) & 0xffffffffL;
            case S64, U64 -> seg.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8L * i);
            default -> throw new IllegalArgumentException("not an integer type folded here: " + t);
        };
    }
}
