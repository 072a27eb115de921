package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * Checks that every index a map reaches lands inside a buffer, without visiting the elements:
 * the interval of the offset over the domain decides almost every case at once (exactly for
 * affine maps, conservatively for floor division and modulo). Only when the interval leaves
 * the buffer is the lexicographically first offending index searched for: in closed form for
 * affine maps, otherwise depth first with the same intervals pruning every branch that cannot
 * leave the buffer. The search gives up after {@link #SEARCH_BUDGET} steps and then reports the
 * interval instead.
 */
public final class ViewBounds {
    static final long SEARCH_BUDGET = 1 << 20;

    private ViewBounds() {
    }

    /**
     * Throws unless every point of the map's domain maps into {@code [0, capacity)}.
     *
     * @param what names the view in the message, e.g. {@code "f32[2,4]{1,0}"}; asked only when
     *     the check fails, since a view's text costs more than the check on a small copy
     * @param capacityText describes the buffer, e.g. {@code "8 elements (32 bytes)"}; likewise
     * @throws IllegalArgumentException naming the first offending index and its offset
     */
    public static void check(IndexingMap map, long capacity, Supplier<String> what, Supplier<String> capacityText) {
        Interval range = reach(map);
        if (range == null || new Interval(0, capacity - 1).contains(range)) {
            return;
        }
        int rank = map.dims().size();
        long[] lo = new long[rank];
        long[] hi = new long[rank];
        for (int i = 0; i < rank; i++) {
            lo[i] = map.dims().get(i).bounds().lo();
            hi[i] = map.dims().get(i).bounds().hi();
        }
        AffineExpr e = map.results().getFirst();
        long[] found = firstOffending(map, e, lo, hi, capacity);
        if (found == null) {
            return;
        }
        if (found.length == 0) {
            throw new IllegalArgumentException(what.get() + " reaches element offsets " + range + " but the buffer holds "
                    + capacityText.get() + " (no offending index found in " + SEARCH_BUDGET + " search steps)");
        }
        long offset = e.evaluate(found, new long[0], new long[0]);
        throw new IllegalArgumentException(what.get() + ": index " + Arrays.toString(found) + " reaches element offset "
                + offset + (offset < 0 ? ", before the buffer" : ", beyond the buffer of " + capacityText.get()));
    }

    /**
     * {@return an interval that holds every offset the map's result takes over its dims' bounds
     * (constraints unused): the interval {@link #check} holds against the buffer first; null when
     * the map reads nothing (known empty, or a dim's bounds empty)} A buffer that holds this
     * interval passes the check without a search, so a copy that stages part of a buffer stages it.
     */
    public static Interval reach(IndexingMap map) {
        if (map.isKnownEmpty()) {
            return null;
        }
        int rank = map.dims().size();
        long[] lo = new long[rank];
        long[] hi = new long[rank];
        for (int i = 0; i < rank; i++) {
            Interval b = map.dims().get(i).bounds();
            if (b.isEmpty()) {
                return null;
            }
            lo[i] = b.lo();
            hi[i] = b.hi();
        }
        return Ranges.of(map.results().getFirst(), lo, hi);
    }

    /** {@return the first index outside the buffer, null when there is none, empty when the budget ran out} */
    private static long[] firstOffending(IndexingMap map, AffineExpr e, long[] lo, long[] hi, long capacity) {
        long[] coefficients = new long[lo.length];
        long[] constant = new long[1];
        if (map.constraints().isEmpty() && Linear.extract(e, coefficients, constant)) {
            long[] above = linearFirst(coefficients, constant[0], lo, hi, capacity, true);
            long[] below = linearFirst(coefficients, constant[0], lo, hi, 0, false);
            if (above == null) {
                return below;
            }
            return below == null || Arrays.compare(above, below) <= 0 ? above : below;
        }
        long[] point = lo.clone();
        long[] budget = {SEARCH_BUDGET};
        long[] curLo = lo.clone();
        long[] curHi = hi.clone();
        boolean hit = search(map, e, 0, point, curLo, curHi, capacity, budget);
        if (hit) {
            return point;
        }
        // A search that ran out took one step past the budget; one of exactly the budget is complete.
        return budget[0] < 0 ? new long[0] : null;
    }

    /**
     * Lexicographically first index with offset {@code >= limit} ({@code atLeast}) or
     * {@code < limit}: dimension by dimension the smallest value after which the rest can still
     * reach the target, exact because the rest's extremes are reached independently.
     */
    private static long[] linearFirst(long[] c, long constant, long[] lo, long[] hi, long limit, boolean atLeast) {
        int rank = c.length;
        long fixed = constant;
        long[] point = new long[rank];
        for (int i = 0; i < rank; i++) {
            long restBest = 0;
            for (int j = i + 1; j < rank; j++) {
                long a = c[j] * lo[j];
                long b = c[j] * hi[j];
                restBest += atLeast ? Math.max(a, b) : Math.min(a, b);
            }
            // Need fixed + c_i * v + restBest >= limit (atLeast) or <= limit - 1.
            long v;
            if (atLeast) {
                long need = limit - fixed - restBest;
                v = c[i] > 0 ? Math.max(lo[i], Math.ceilDiv(need, c[i])) : lo[i];
                if (v > hi[i] || c[i] * v < need) {
                    return null;
                }
            } else {
                long need = limit - 1 - fixed - restBest;
                v = c[i] < 0 ? Math.max(lo[i], Math.ceilDiv(-need, -c[i])) : lo[i];
                if (v > hi[i] || c[i] * v > need) {
                    return null;
                }
            }
            point[i] = v;
            fixed += c[i] * v;
        }
        return point;
    }

    private static boolean search(IndexingMap map, AffineExpr e, int dim, long[] point, long[] lo, long[] hi,
                                  long capacity, long[] budget) {
        if (dim == point.length) {
            // Every dimension is fixed, and the prune below let only an offset outside the buffer
            // through: at a point the interval is the offset (at rank 0, check's range was).
            return map.constraintsSatisfied(point, new long[0], new long[0]);
        }
        long from = lo[dim];
        long to = hi[dim];
        for (long v = from; v <= to; v++) {
            if (--budget[0] < 0) {
                return false;
            }
            lo[dim] = v;
            hi[dim] = v;
            point[dim] = v;
            Interval r = Ranges.of(e, lo, hi);
            if ((r.lo() < 0 || r.hi() >= capacity) && search(map, e, dim + 1, point, lo, hi, capacity, budget)) {
                return true;
            }
        }
        lo[dim] = from;
        hi[dim] = to;
        return false;
    }
}
