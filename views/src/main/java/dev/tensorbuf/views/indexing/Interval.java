package dev.tensorbuf.views.indexing;

/**
 * A closed integer interval {@code [lo, hi]}; empty when {@code lo > hi}. Arithmetic gives an
 * interval that holds every result and saturates at {@link Long#MIN_VALUE} and
 * {@link Long#MAX_VALUE}, which stand for unbounded. Comparisons answer for every pair of
 * points: {@link Truth#TRUE} when all pairs satisfy them, {@link Truth#FALSE} when none do,
 * else {@link Truth#UNKNOWN}.
 *
 * {@snippet :
 * Interval a = new Interval(12, 64);
 * a.plus(new Interval(-100, 120));  // [-88, 184]
 * a.gt(Interval.point(11));         // TRUE
 * a.gt(Interval.point(12));         // UNKNOWN
 * }
 *
 * @param lo the smallest value
 * @param hi the largest value
 */
public record Interval(long lo, long hi) {
    /** The interval of every {@code long}. */
    public static final Interval UNBOUNDED = new Interval(Long.MIN_VALUE, Long.MAX_VALUE);

    /** The answer of an interval comparison. */
    public enum Truth {
        /** Holds for every pair of points. */
        TRUE,
        /** Holds for no pair of points. */
        FALSE,
        /** Holds for some pairs only. */
        UNKNOWN;

        static Truth of(boolean yes, boolean no) {
            return yes ? TRUE : no ? FALSE : UNKNOWN;
        }

        /** {@return the negation; UNKNOWN stays UNKNOWN} */
        public Truth not() {
            return this == TRUE ? FALSE : this == FALSE ? TRUE : UNKNOWN;
        }
    }

    /** {@return {@code [v, v]}} @param v the value */
    public static Interval point(long v) {
        return new Interval(v, v);
    }

    /** {@return true when {@code lo > hi}} */
    public boolean isEmpty() {
        return lo > hi;
    }

    /** {@return true when the interval holds exactly one value} */
    public boolean isPoint() {
        return lo == hi;
    }

    /** {@return true when {@code v} lies in the interval} @param v the value */
    public boolean contains(long v) {
        return lo <= v && v <= hi;
    }

    /** {@return true when every value of {@code other} lies in this interval} @param other the interval */
    public boolean contains(Interval other) {
        return other.isEmpty() || lo <= other.lo && other.hi <= hi;
    }

    /** {@return the number of values, saturating at Long.MAX_VALUE; 0 when empty} */
    public long size() {
        if (isEmpty()) {
            return 0;
        }
        long s = hi - lo + 1;
        return s <= 0 ? Long.MAX_VALUE : s;
    }

    /** {@return the common part} @param other the other interval */
    public Interval intersect(Interval other) {
        return new Interval(Math.max(lo, other.lo), Math.min(hi, other.hi));
    }

    /** {@return the smallest interval holding both} @param other the other interval */
    public Interval union(Interval other) {
        if (isEmpty()) {
            return other;
        }
        if (other.isEmpty()) {
            return this;
        }
        return new Interval(Math.min(lo, other.lo), Math.max(hi, other.hi));
    }

    /** {@return {@code {a + b}}} @param other the addend */
    public Interval plus(Interval other) {
        return new Interval(satAdd(lo, other.lo), satAdd(hi, other.hi));
    }

    /** {@return {@code {a * b}}} @param other the factor */
    public Interval times(Interval other) {
        long a = satMul(lo, other.lo);
        long b = satMul(lo, other.hi);
        long c = satMul(hi, other.lo);
        long d = satMul(hi, other.hi);
        return new Interval(Math.min(Math.min(a, b), Math.min(c, d)), Math.max(Math.max(a, b), Math.max(c, d)));
    }

    /** {@return {@code {a * c}}} @param c the factor */
    public Interval times(long c) {
        return times(point(c));
    }

    /** {@return {@code {floor(a / c)}}} @param c the non-zero divisor */
    public Interval floorDiv(long c) {
        if (c == 0) {
            throw new IllegalArgumentException("division of " + this + " by zero");
        }
        long a = satFloorDiv(lo, c);
        long b = satFloorDiv(hi, c);
        return new Interval(Math.min(a, b), Math.max(a, b));
    }

    /**
     * {@return {@code {a mod c}}, with XLA's modulo: the remainder modulo |c|, never negative}
     * @param c the non-zero modulus
     */
    public Interval mod(long c) {
        if (c == 0) {
            throw new IllegalArgumentException("modulo of " + this + " by zero");
        }
        if (c == Long.MIN_VALUE) {
            // |c| is 2^63: a non-negative a is its own remainder, a negative one gains 2^63, which
            // clears its sign bit.
            if (lo >= 0) {
                return this;
            }
            return hi < 0 ? new Interval(lo & Long.MAX_VALUE, hi & Long.MAX_VALUE) : new Interval(0, Long.MAX_VALUE);
        }
        long m = Math.abs(c);
        if (!isUnbounded() && Math.floorDiv(lo, m) == Math.floorDiv(hi, m)) {
            return new Interval(Math.floorMod(lo, m), Math.floorMod(hi, m));
        }
        return new Interval(0, m - 1);
    }

    private boolean isUnbounded() {
        return lo == Long.MIN_VALUE || hi == Long.MAX_VALUE;
    }

    /** {@return {@code {min(a, b)}}} @param other the other interval */
    public Interval min(Interval other) {
        return new Interval(Math.min(lo, other.lo), Math.min(hi, other.hi));
    }

    /** {@return {@code {max(a, b)}}} @param other the other interval */
    public Interval max(Interval other) {
        return new Interval(Math.max(lo, other.lo), Math.max(hi, other.hi));
    }

    /** {@return whether {@code a > b}} @param b the other interval */
    public Truth gt(Interval b) {
        return Truth.of(lo > b.hi, hi <= b.lo);
    }

    /** {@return whether {@code a < b}} @param b the other interval */
    public Truth lt(Interval b) {
        return b.gt(this);
    }

    /** {@return whether {@code a >= b}} @param b the other interval */
    public Truth ge(Interval b) {
        return Truth.of(lo >= b.hi, hi < b.lo);
    }

    /** {@return whether {@code a <= b}} @param b the other interval */
    public Truth le(Interval b) {
        return b.ge(this);
    }

    /** {@return whether {@code a == b}} @param b the other interval */
    public Truth eq(Interval b) {
        return Truth.of(isPoint() && b.isPoint() && lo == b.lo, hi < b.lo || b.hi < lo);
    }

    /** {@return whether {@code a != b}} @param b the other interval */
    public Truth ne(Interval b) {
        return eq(b).not();
    }

    /** {@return {@code [lo, hi]}} */
    @Override
    public String toString() {
        return "[" + lo + ", " + hi + "]";
    }

    static long satAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            // Wrapped: the true sum has the sign r lacks (MIN_VALUE + MIN_VALUE wraps to 0).
            return r < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        // Unbounded ends stay unbounded.
        if (a == Long.MIN_VALUE || b == Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        if (a == Long.MAX_VALUE || b == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return r;
    }

    static long satMul(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        boolean unbounded = a != 0 && b != 0 && (a == Long.MIN_VALUE || a == Long.MAX_VALUE
                || b == Long.MIN_VALUE || b == Long.MAX_VALUE);
        if (hi != (lo >> 63) || unbounded) {
            // The sign of the true product: negative when exactly one factor is.
            return (a ^ b) < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return lo;
    }

    private static long satFloorDiv(long a, long c) {
        if (a == Long.MIN_VALUE || a == Long.MAX_VALUE) {
            return (a ^ c) < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return Math.floorDiv(a, c);
    }
}
