package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.views.DType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;

/**
 * Float sums that no order of adding can round, computed exactly: XLA adds a reduce's elements in
 * the order of its vectorised loops, which {@code run} does not reproduce, but where every
 * partial sum in any order is a value of the type, every order gives the exact sum. That holds
 * where all elements are multiples of one power of two {@code 2^e} (the lowest set bit of the
 * finest element) and the sum of their magnitudes is at most {@code 2^(p + e)}, {@code p} the
 * significand's bits of the type each step rounds to (24 for f32, 8 where XLA's bf16 reduce
 * rounds each step through bf16), with {@code 2^e} a normal number (XLA's CPU code reads and
 * writes denormals as zeros). Sums of integer-valued floats are the common case: a per-channel
 * {@code jnp.mean} of a uint8 image of up to 65,793 pixels, counts of masks, one-hot histograms.
 * Any other sum is refused, naming the row, as is a NaN or an infinity: of the f32 rows
 * {1, 2, 0.5} and {2^24, 1} the first sums to 3.5 in any order, while the second's order decides
 * its bits (2^24 + 1 is no f32).
 */
final class ExactSums {
    private ExactSums() {
    }

    /** The types summed here: those whose adds XLA's CPU code runs in the type itself. */
    static final Set<DType> TYPES = Set.of(DType.F32, DType.F64);

    /**
     * Writes to {@code out}, dense values of {@code t}, the sum of each of {@code rows} rows of
     * {@code count} values of {@code t} dense in {@code dense}; {@code through}, where not null,
     * the narrower float each step rounds through.
     *
     * @throws IllegalArgumentException for a row whose sum some order would round, or that holds a
     *     NaN, an infinity or a denormal
     */
    static void sum(DType t, DType through, MemorySegment dense, int rows, long count, MemorySegment out) {
        Steps steps = Steps.of(t, through);
        int bits = steps.bits();
        int minNormal = steps.minNormal();
        int width = t.bitWidth() / 8;
        for (int r = 0; r < rows; r++) {
            long base = (long) r * count;
            // The finest element's lowest set bit, and the magnitudes in units of it.
            int finest = Integer.MAX_VALUE;
            for (long i = 0; i < count; i++) {
                double x = at(t, dense, (base + i) * width);
                checkElement(x, minNormal, i, r);
                if (x != 0) {
                    finest = Math.min(finest, lowestBit(x));
                }
            }
            double sum = 0;
            if (finest != Integer.MAX_VALUE) {
                if (finest < minNormal) {
                    throw inexact(r, "its finest element's last bit is below the least normal number");
                }
                long magnitudes = 0;
                long signed = 0;
                long limit = 1L << bits;
                for (long i = 0; i < count; i++) {
                    double x = at(t, dense, (base + i) * width);
                    double units = Math.scalb(Math.abs(x), -finest);
                    if (units > limit) {
                        throw inexact(r, "one element alone is past 2^" + bits + " of the finest's last bit");
                    }
                    magnitudes += (long) units;
                    signed += x < 0 ? -(long) units : (long) units;
                    if (magnitudes > limit) {
                        throw inexact(r, "its magnitudes add up past 2^" + bits + " of the finest element's last bit, so some"
                                + " partial sum rounds");
                    }
                }
                sum = Math.scalb((double) signed, finest);   // exact: |signed| <= 2^bits
            }
            // An exact zero is +0: x + -x is, and so is the init (jax 0.10: a sum of -0s is +0).
            if (t == DType.F32) {
                out.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4L * r, sum == 0 ? 0f : (float) sum);
            } else {
                out.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 8L * r, sum == 0 ? 0.0 : sum);
            }
        }
    }

    /**
     * Refuses windows of up to {@code windowElements} of the {@code count} values of {@code t}
     * dense in {@code dense} whose sums some order would round: each window's magnitudes are
     * bounded by that many of the largest, in units of the finest element's last bit. A
     * reduce-window (and XLA's optimised reduce, split into one and a reduce) then sums in any
     * one order exactly.
     *
     * @throws IllegalArgumentException for such windows, or a NaN, an infinity or a denormal
     */
    static void checkWindows(DType t, DType through, MemorySegment dense, long count, long windowElements) {
        Steps steps = Steps.of(t, through);
        int bits = steps.bits();
        int minNormal = steps.minNormal();
        int width = t.bitWidth() / 8;
        int finest = Integer.MAX_VALUE;
        double largest = 0;
        for (long i = 0; i < count; i++) {
            double x = at(t, dense, i * width);
            checkElement(x, minNormal, i, -1);
            if (x != 0) {
                finest = Math.min(finest, lowestBit(x));
                largest = Math.max(largest, Math.abs(x));
            }
        }
        if (finest == Integer.MAX_VALUE) {
            return;
        }
        if (finest < minNormal) {
            throw inexact(-1, "its finest element's last bit is below the least normal number");
        }
        double bound = Math.scalb(largest, -finest) * windowElements;   // exact enough: compared with a power of two
        if (bound > Math.scalb(1.0, bits)) {
            throw inexact(-1, windowElements + " elements of up to " + largest + " add up past 2^" + bits
                    + " of the finest element's last bit, so some partial sum could round");
        }
    }

    private static void checkElement(double x, int minNormal, long i, int row) {
        if (!Double.isFinite(x) || x != 0 && Math.abs(x) < Math.scalb(1.0, minNormal)) {
            throw new IllegalArgumentException("a float sum over " + (Double.isNaN(x) ? "a NaN" : Double.isInfinite(x)
                    ? "an infinity" : "a denormal, which XLA reads as zero,") + " (element " + i + (row < 0 ? "" : " of result " + row)
                    + "): run sums floats only where every order of adding gives the same bits");
        }
    }

    /** What each step of a sum of {@code t} rounds to: its significand's bits and the exponent of its least normal number. */
    private record Steps(int bits, int minNormal) {
        static Steps of(DType t, DType through) {
            if (!TYPES.contains(t)) {
                throw new IllegalArgumentException("a sum of " + t.xlaName() + " rounds in XLA's order; sums of f32 and f64 run"
                        + " where no order rounds");
            }
            DType steps = through == null ? t : through;
            return new Steps(significandBits(steps), steps == DType.F16 ? -14 : steps == DType.F64 ? -1022 : -126);
        }
    }

    private static IllegalArgumentException inexact(int row, String why) {
        return new IllegalArgumentException("the float sum" + (row < 0 ? "s of its windows" : " of result " + row) + " could round: " + why + "; XLA adds in the"
                + " order of its vectorised loops, which run does not reproduce, so it sums floats only where every order"
                + " gives the same bits (integer-valued elements, say, whose magnitudes add up to at most 2^24 in f32)");
    }

    /** {@return the exponent of {@code x}'s lowest set bit: x is an odd multiple of 2^that} */
    private static int lowestBit(double x) {
        long bits = Double.doubleToRawLongBits(x);
        int exponent = (int) ((bits >>> 52) & 0x7ff);
        long mantissa = bits & ((1L << 52) - 1);
        if (exponent == 0) {
            return -1074 + Long.numberOfTrailingZeros(mantissa);
        }
        return exponent - 1075 + Long.numberOfTrailingZeros(mantissa | (1L << 52));
    }

    private static int significandBits(DType t) {
        return switch (t) {
            case F64 -> 53;
            case F32 -> 24;
            case F16 -> 11;
            case BF16 -> 8;
            default -> throw new IllegalArgumentException("no float type: " + t);
        };
    }

    private static double at(DType t, MemorySegment seg, long offset) {
        return t == DType.F32 ? seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset) : seg.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset);
    }
}
