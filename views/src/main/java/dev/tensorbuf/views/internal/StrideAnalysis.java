package dev.tensorbuf.views.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Whether two distinct logical indices of a strided layout share an element offset, and whether
 * some offset between the lowest and the highest is addressed by no index, both decided exactly
 * without visiting the elements.
 *
 * <p>Gaps ({@link #leavesGaps}) take O(rank log rank): with signs dropped (a flip reflects the
 * offsets within their span), zero strides and dims of size 1 dropped (they add nothing), and the
 * dims sorted by stride, the offsets of the first {@code j} dims fill {@code [0, L_j]} as long as
 * each next stride is at most {@code L_j + 1}, {@code L_j = sum (size_i - 1) * stride_i}. The
 * first stride {@code s > L_j + 1} leaves offset {@code L_j + 1} unused for good: it is below
 * {@code s} and every later stride, so only the first {@code j} dims could reach it. This holds
 * whether or not the dims overlap; the element count alone cannot tell ({@code sizes [4, 4]
 * strides [2, 2]} has 16 elements and span 13, yet 6 of the 13 offsets are unused).
 *
 * <p>Overlap means a non-zero integer vector {@code k} with {@code |k_i| <= size_i - 1} and
 * {@code sum k_i * stride_i = 0}: a bounded linear Diophantine problem, NP-hard in general (NumPy's
 * {@code mem_overlap.c} says the same of its variant), so no closed form covers every rank. The
 * steps, cheapest first:
 * <ol>
 * <li>Dims of size 1 drop out; a size of 0 means no elements (no overlap); a zero stride on a
 *     size above 1 overlaps. Signs drop (flip {@code k_i}); strides divide by their gcd.
 * <li>Sorted by stride, a largest stride beyond the span of all smaller ones
 *     ({@code sum (size_j - 1) * stride_j}) can never be cancelled, so its dim drops; repeat. Every
 *     packed, padded or permuted layout ends here with no dims left: no overlap, O(rank log rank).
 * <li>Two dims left: overlap iff {@code stride_1 / g <= size_0 - 1} and
 *     {@code stride_0 / g <= size_1 - 1}, {@code g = gcd}: the smallest solution.
 * <li>Otherwise, with {@code C} the span of the dims left: if {@code C <= 2^26}, the set of
 *     reachable offsets is built in a bitset, one dim at a time; the map is one-to-one iff every
 *     step multiplies the set's size by the dim's size. Cost
 *     {@code O(C / 64 * sum log2 size_i)} word operations, {@code C / 8} bytes.
 * <li>Larger spans: depth-first search over {@code k}, largest stride first, keeping only
 *     {@code k_i} whose partial sum the remaining dims can still cancel. Cost at most
 *     {@code prod_i min(2 size_i - 1, 2 span_after_i / stride_i + 1)} nodes: small unless many
 *     large dims have strides far below the span of the dims after them.
 * </ol>
 */
public final class StrideAnalysis {
    /** Largest core span for the bitset step: 64 Mi bits, 8 MiB. */
    static final long BITSET_LIMIT = 1L << 26;

    private StrideAnalysis() {
    }

    /** {@return whether two distinct indices map to one offset} Inputs are already validated (no overflow in the span). */
    public static boolean overlaps(long[] sizes, long[] strides) {
        for (long size : sizes) {
            if (size == 0) {
                return false;
            }
        }
        List<long[]> dims = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] > 1) {
                if (strides[i] == 0) {
                    return true;
                }
                dims.add(new long[] {sizes[i], Math.absExact(strides[i])});
            }
        }
        if (dims.isEmpty()) {
            return false;
        }
        long g = 0;
        for (long[] d : dims) {
            g = gcd(g, d[1]);
        }
        for (long[] d : dims) {
            d[1] /= g;
        }
        dims.sort(Comparator.comparingLong(d -> d[1]));
        long[] spanBelow = new long[dims.size() + 1];
        for (int i = 0; i < dims.size(); i++) {
            spanBelow[i + 1] = spanBelow[i] + (dims.get(i)[0] - 1) * dims.get(i)[1];
        }
        int core = dims.size();
        while (core > 0 && dims.get(core - 1)[1] > spanBelow[core - 1]) {
            core--;
        }
        if (core == 0) {
            return false;
        }
        long[] n = new long[core];
        long[] s = new long[core];
        for (int i = 0; i < core; i++) {
            n[i] = dims.get(i)[0];
            s[i] = dims.get(i)[1];
        }
        if (core == 2) {
            long h = gcd(s[0], s[1]);
            return s[1] / h <= n[0] - 1 && s[0] / h <= n[1] - 1;
        }
        long span = spanBelow[core];
        return span <= BITSET_LIMIT ? bitsetOverlaps(n, s, span) : searchOverlaps(n, s);
    }

    /**
     * {@return whether some offset between the lowest and the highest element offset is
     * addressed by no index} False without elements. Inputs are already validated (no overflow in
     * the span).
     */
    public static boolean leavesGaps(long[] sizes, long[] strides) {
        List<long[]> dims = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] == 0) {
                return false;
            }
            if (sizes[i] > 1 && strides[i] != 0) {
                dims.add(new long[] {sizes[i], Math.absExact(strides[i])});
            }
        }
        dims.sort(Comparator.comparingLong(d -> d[1]));
        long filled = 0; // offsets [0, filled] are all reached by the dims so far
        for (long[] d : dims) {
            if (d[1] - 1 > filled) {
                return true;
            }
            filled += (d[0] - 1) * d[1];
        }
        return false;
    }

    private static boolean bitsetOverlaps(long[] n, long[] s, long span) {
        long[] set = new long[(int) (span / 64 + 1)];
        set[0] = 1;
        long count = 1;
        for (int i = 0; i < n.length; i++) {
            set = minkowski(set, n[i], s[i]);
            long popcount = 0;
            for (long w : set) {
                popcount += Long.bitCount(w);
            }
            count *= n[i];
            if (popcount != count) {
                return true;
            }
        }
        return false;
    }

    /** {@return set + {0, step, ..., (size - 1) * step}}, by doubling: O(log size) shifted ORs. */
    private static long[] minkowski(long[] set, long size, long step) {
        long[] result = set.clone();
        long have = 1;
        // Bits of size from the top: result = set + [0, have) * step, doubling then adding one.
        for (int bit = 62 - Long.numberOfLeadingZeros(size); bit >= 0; bit--) {
            orShifted(result, result.clone(), have * step);
            have *= 2;
            if ((size >>> bit & 1) != 0) {
                orShifted(result, set, have * step);
                have++;
            }
        }
        assert have == size;
        return result;
    }

    private static void orShifted(long[] into, long[] from, long shift) {
        if (shift >= (long) into.length * 64) {
            return;
        }
        int words = (int) (shift >>> 6);
        int bits = (int) (shift & 63);
        for (int i = into.length - 1; i >= words; i--) {
            long lo = from[i - words] << bits;
            long carry = bits == 0 || i - words - 1 < 0 ? 0 : from[i - words - 1] >>> (64 - bits);
            into[i] |= lo | carry;
        }
    }

    private static boolean searchOverlaps(long[] ascendingSizes, long[] ascendingStrides) {
        int m = ascendingSizes.length;
        long[] n = new long[m];
        long[] s = new long[m];
        for (int i = 0; i < m; i++) {
            n[i] = ascendingSizes[m - 1 - i];
            s[i] = ascendingStrides[m - 1 - i];
        }
        long[] spanAfter = new long[m + 1];
        for (int i = m - 1; i >= 0; i--) {
            spanAfter[i] = spanAfter[i + 1] + (n[i] - 1) * s[i];
        }
        return search(n, s, spanAfter, 0, 0, false);
    }

    private static boolean search(long[] n, long[] s, long[] spanAfter, int i, long sum, boolean nonzero) {
        long rest = spanAfter[i + 1];
        long lo = -(n[i] - 1);
        long hi = n[i] - 1;
        // k must bring sum + k * s within [-rest, rest], or the later dims cannot cancel it.
        try {
            lo = Math.max(lo, Math.ceilDiv(Math.subtractExact(-rest, sum), s[i]));
            hi = Math.min(hi, Math.floorDiv(Math.subtractExact(rest, sum), s[i]));
        } catch (ArithmeticException beyondLong) {
            // Only near 2^62 spans: keep the plain bounds, the sum check below stays exact.
        }
        if (!nonzero) {
            lo = Math.max(lo, 0);
        }
        for (long k = lo; k <= hi; k++) {
            long next;
            try {
                next = Math.addExact(sum, Math.multiplyExact(k, s[i]));
            } catch (ArithmeticException beyondLong) {
                continue; // a sum past 2^63 can never be cancelled by spans below 2^63
            }
            boolean nz = nonzero || k != 0;
            if (i == n.length - 1) {
                if (next == 0 && nz) {
                    return true;
                }
            } else if (search(n, s, spanAfter, i + 1, next, nz)) {
                return true;
            }
        }
        return false;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return Math.abs(a);
    }
}
