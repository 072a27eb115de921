package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A {@link dev.tensorbuf.ops.copy.ChannelAffine} as the {@link Pointwise} expression it is, and
 * the evaluator the copy kernels hand its elements to: {@code %0} is the source element, {@code %1}
 * and {@code %2} its channel's f32 scale and bias. Into f64,
 * {@code fma(convert<f64>(%0), convert<f64>(%1), convert<f64>(%2))}; into every other float type,
 * {@code convert<T>(fma(convert<f32>(%0), %1, %2))}, a 64-bit integer source read as a double
 * first ({@code convert<f32>(convert<f64>(%0))}, as ChannelAffine documents). Evaluated in
 * {@link Pointwise.Mode#IEEE}: unlike XLA's evaluator, nothing is flushed. The final convert is the
 * store, {@link ElementAccess#setFloat}'s rounding, which is XLA's for every float type.
 * {@snippet :
 * ChannelExpression.of(DType.U8, DType.BF16).toString();   // "convert<bf16>(fma(convert<f32>(%0), %1, %2))"
 * }
 *
 * <p>The loops for u8 into f32 (dense, strided, byte planes) compute the same {@code fma}
 * directly. The convert kernel runs the other pairs' expressions in the form
 * {@code [convert<T>](fma(convert<f32>(%0), %1, %2))} (8-32-bit integers, f16, bf16, f32 into f32,
 * bf16, f16: {@link #recognised}) in typed chunk loops ({@link AffineChunks}); every other pair
 * and gathers run here, {@link #CHUNK} elements at a time (ChannelExpressionTest holds all of
 * them to the documented arithmetic, and the chunk loops to this evaluator bit for bit).
 */
final class ChannelExpression {
    /** Elements evaluated at once: enough to spread the evaluator's per-op cost, the columns still in L2. */
    static final int CHUNK = 2048;

    private ChannelExpression() {
    }

    /** {@return the affine of a {@code from} element into {@code to}, a float type} */
    static Pointwise.Expr of(DType from, DType to) {
        Pointwise.Expr x = new Pointwise.Leaf(0, from);
        Pointwise.Expr scale = new Pointwise.Leaf(1, DType.F32);
        Pointwise.Expr bias = new Pointwise.Leaf(2, DType.F32);
        if (to == DType.F64) {
            return new Pointwise.Op(Pointwise.Op.FMA, DType.F64, List.of(convert(x, DType.F64), convert(scale, DType.F64),
                    convert(bias, DType.F64)), "");
        }
        if (from == DType.S64 || from == DType.U64) {
            x = convert(x, DType.F64);
        }
        Pointwise.Expr fma = new Pointwise.Op(Pointwise.Op.FMA, DType.F32, List.of(convert(x, DType.F32), scale, bias), "");
        return convert(fma, to);
    }

    /**
     * {@return the form of {@code from -> to}'s expression that {@link AffineChunks} computes, or
     * null when only the evaluator ({@link Runner}) does} Read off the expression, so the loops
     * follow what it says.
     */
    static AffineChunks.Form recognised(DType from, DType to) {
        return AffineChunks.recognise(of(from, to));
    }

    private static Pointwise.Expr convert(Pointwise.Expr e, DType to) {
        return e.type() == to ? e : new Pointwise.Op("convert", to, List.of(e), "");
    }

    /**
     * One task's elements, collected a chunk at a time and evaluated together: the source values
     * read as their type holds them, the channels' scale and bias beside them, the destination's
     * element indices for the stores.
     */
    static final class Runner {
        private final MemorySegment src;
        private final ElementAccess sa;
        private final MemorySegment dst;
        private final ElementAccess da;
        private final float[] scale;
        private final float[] bias;
        /** The expression up to the final convert, which {@link #flush} does as the store. */
        private final Pointwise.Expr body;
        private final boolean wide;
        private final boolean floats;
        private final double[] xd;
        private final long[] xl;
        private final double[] sc = new double[CHUNK];
        private final double[] bi = new double[CHUNK];
        private final long[] at = new long[CHUNK];
        private int n;

        Runner(MemorySegment src, ElementAccess sa, MemorySegment dst, ElementAccess da, float[] scale, float[] bias) {
            this.src = src;
            this.sa = sa;
            this.dst = dst;
            this.da = da;
            this.scale = scale;
            this.bias = bias;
            Pointwise.Expr e = of(sa.type(), da.type());
            this.wide = da.type() == DType.F64;
            this.body = !wide && e instanceof Pointwise.Op o && o.op().equals("convert") ? o.args().getFirst() : e;
            this.floats = sa.type().kind() == DType.Kind.FLOAT || sa.type().kind() == DType.Kind.COMPLEX;
            this.xd = floats ? new double[CHUNK] : null;
            this.xl = floats ? null : new long[CHUNK];
        }

        /** Adds source element {@code si}, stored to destination element {@code di}, of channel {@code c}. */
        void add(long si, long di, int c) {
            if (floats) {
                xd[n] = sa.getDouble(src, si);
            } else {
                xl[n] = sa.getLong(src, si);
            }
            sc[n] = scale[c];
            bi[n] = bias[c];
            at[n] = di;
            if (++n == CHUNK) {
                flush();
            }
        }

        /**
         * Adds {@code n} elements: source element {@code si + i * sStep}, stored to destination
         * element {@code di + i * dStep}, of channel {@code c} or, when {@code innermost}, of
         * channel {@code c + i}.
         */
        void addRun(long si, long sStep, long di, long dStep, long n, int c, boolean innermost) {
            long i = 0;
            while (i < n) {
                int m = (int) Math.min(n - i, CHUNK - this.n);
                int at0 = this.n;
                for (int k = 0; k < m; k++, i++) {
                    long from = si + i * sStep;
                    if (floats) {
                        xd[at0 + k] = sa.getDouble(src, from);
                    } else {
                        xl[at0 + k] = sa.getLong(src, from);
                    }
                    at[at0 + k] = di + i * dStep;
                }
                if (innermost) {
                    int c0 = (int) (c + i - m);
                    for (int k = 0; k < m; k++) {
                        sc[at0 + k] = scale[c0 + k];
                        bi[at0 + k] = bias[c0 + k];
                    }
                } else {
                    java.util.Arrays.fill(sc, at0, at0 + m, scale[c]);
                    java.util.Arrays.fill(bi, at0, at0 + m, bias[c]);
                }
                this.n += m;
                if (this.n == CHUNK) {
                    flush();
                }
            }
        }

        /** Evaluates and stores the elements added since the last flush. */
        void flush() {
            if (n == 0) {
                return;
            }
            double[] r = (double[]) Pointwise.eval(body, new Object[] {floats ? xd : xl, sc, bi}, n, Pointwise.Mode.IEEE);
            if (wide) {
                for (int i = 0; i < n; i++) {
                    da.setDouble(dst, at[i], r[i]);
                }
            } else {
                for (int i = 0; i < n; i++) {
                    da.setFloat(dst, at[i], (float) r[i]);
                }
            }
            n = 0;
        }
    }
}
