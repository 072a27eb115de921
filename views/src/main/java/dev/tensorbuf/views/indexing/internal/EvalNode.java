package dev.tensorbuf.views.indexing.internal;

/**
 * One node of a compiled expression. Subclasses are final and small so that the JIT inlines a
 * whole tree at a monomorphic call site; arithmetic is exact (overflow throws).
 */
public abstract class EvalNode {
    static final long[] NONE = new long[0];

    /** {@return the value} @param d dims @param s range vars @param r runtime vars */
    public abstract long eval(long[] d, long[] s, long[] r);

    /** For subclasses, including generated ones. */
    protected EvalNode() {}

    /** {@return the error for an overflow} @param e the arithmetic failure */
    public static IllegalArgumentException overflow(ArithmeticException e) {
        return new IllegalArgumentException("overflow while evaluating an indexing map: " + e.getMessage(), e);
    }

    /** {@return v} @param v a divisor @throws IllegalArgumentException when v is 0 */
    public static long divisor(long v) {
        if (v == 0) {
            throw new IllegalArgumentException("division by zero while evaluating an indexing map");
        }
        return v;
    }

    /**
     * {@return a mod b as XLA's SymbolicExpr defines it, {@code (a % b + |b|) % b}: the remainder
     * modulo |b|, never negative whatever the signs ({@code 5 mod -3} is 2, {@code -5 mod -3} is 1)}
     * Floor division and ceiling division keep their usual meaning for every sign, so for a
     * negative b, {@code a != (a floordiv b) * b + a mod b}.
     *
     * @param a dividend
     * @param b modulus, checked for zero
     */
    public static long mod(long a, long b) {
        long r = a % divisor(b);
        // r - b for b = Long.MIN_VALUE is r + 2^63, in range because r is negative.
        return r >= 0 ? r : b < 0 ? r - b : r + b;
    }

    /** A constant. */
    public static final class Constant extends EvalNode {
        private final long v;

        public Constant(long v) {
            this.v = v;
        }

        @Override
        public long eval(long[] d, long[] s, long[] r) {
            return v;
        }
    }

    /** A variable: kind 0 dim, 1 range var, 2 runtime var. */
    public static final class Var extends EvalNode {
        private final int kind;
        private final int i;

        public Var(int kind, int i) {
            this.kind = kind;
            this.i = i;
        }

        @Override
        public long eval(long[] d, long[] s, long[] r) {
            return kind == 0 ? d[i] : kind == 1 ? s[i] : r[i];
        }
    }

    /** {@code c + sum(coeff_k * d[idx_k])}: the strided case, one loop over dims. */
    public static final class LinearDims extends EvalNode {
        private final int[] idx;
        private final long[] coeff;
        private final long c;

        public LinearDims(int[] idx, long[] coeff, long c) {
            this.idx = idx.clone();
            this.coeff = coeff.clone();
            this.c = c;
        }

        @Override
        public long eval(long[] d, long[] s, long[] r) {
            try {
                long acc = c;
                for (int k = 0; k < idx.length; k++) {
                    acc = Math.addExact(acc, Math.multiplyExact(coeff[k], d[idx[k]]));
                }
                return acc;
            } catch (ArithmeticException e) {
                throw overflow(e);
            }
        }
    }

    /** Binary operators. */
    public enum Op { ADD, MUL, FLOOR_DIV, CEIL_DIV, MOD, MIN, MAX }

    /** A binary node. */
    public static final class Binary extends EvalNode {
        private final Op op;
        private final EvalNode a;
        private final EvalNode b;

        public Binary(Op op, EvalNode a, EvalNode b) {
            this.op = op;
            this.a = a;
            this.b = b;
        }

        @Override
        public long eval(long[] d, long[] s, long[] r) {
            long x = a.eval(d, s, r);
            long y = b.eval(d, s, r);
            try {
                return switch (op) {
                    case ADD -> Math.addExact(x, y);
                    case MUL -> Math.multiplyExact(x, y);
                    case FLOOR_DIV -> Math.floorDiv(x, divisor(y));
                    case CEIL_DIV -> -Math.floorDiv(Math.negateExact(x), divisor(y));
                    case MOD -> mod(x, y);
                    case MIN -> Math.min(x, y);
                    case MAX -> Math.max(x, y);
                };
            } catch (ArithmeticException e) {
                throw overflow(e);
            }
        }
    }

    /** {@code a / c} and {@code a mod c} for a positive constant c: the tiled case. */
    public static final class DivModConst extends EvalNode {
        private final EvalNode a;
        private final long c;
        private final boolean mod;

        public DivModConst(EvalNode a, long c, boolean mod) {
            this.a = a;
            this.c = c;
            this.mod = mod;
        }

        @Override
        public long eval(long[] d, long[] s, long[] r) {
            long x = a.eval(d, s, r);
            return mod ? Math.floorMod(x, c) : Math.floorDiv(x, c);
        }
    }
}
