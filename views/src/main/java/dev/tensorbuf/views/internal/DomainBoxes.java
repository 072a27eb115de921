package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * The logical index space of a view over several pieces, cut into disjoint boxes with one piece
 * each: piece {@code p} holds its domain (its map's dimension bounds and constraints) minus the
 * domains of the pieces before it, the lookup order of {@link dev.tensorbuf.views.ViewMap#pieces()}.
 * A box is per dimension an arithmetic progression {@code start + step * k}, {@code k < count}, so
 * the data of an interior pad (a constraint {@code (d0 + 1) mod 2 in [0, 0]}) is one box, not one
 * box an element. A domain that is not a box splits by its own constraints: a constraint on one
 * dimension narrows it (affine), takes the residues that hold (a modulo of an affine expression),
 * or halves it (otherwise); a constraint over several dimensions splits the one with the largest
 * coefficient (the outer one of a reshape's {@code d0 * 4 + d1}) into the run where it holds
 * throughout and unit ranges where it holds in part, or halves it when the expression is not
 * affine. A modulo over several dimensions is a staircase whose row pattern repeats: its outer
 * dimension splits into the residue classes after which its term repeats modulo {@code m}, a
 * strided family of rows each, where that dimension no longer changes the value; when that
 * pattern is longer than {@code MAX_PERIOD} rows, the outer dimension splits by the laps of the
 * value around {@code m} instead: per lap the run of rows where it holds throughout, and each row
 * where it holds in part. A modulo of one
 * dimension that wraps fewer times than it has residue classes splits into its runs. A floor
 * division or modulo inside a constraint (an interior pad's {@code (L mod m) mod 2}) is read as
 * affine in a box where its operand stays within one multiple of the divisor; a box where it
 * does not splits by the laps of that operand first. Pieces whose domains are disjoint by their
 * maps (a bound, or one constraint expression both bound, with disjoint intervals: a
 * concatenation's parts) are not subtracted from one another. Each split
 * fixes a constraint as holding or narrows a dimension, so it ends without a bound on its depth.
 * Pure map math; arithmetic is overflow-checked ({@link ArithmeticException}).
 * {@snippet :
 * // a reshape to [3,4] of two f32[2,3] joined along 0: the first part's staircase
 * DomainBoxes.domain(IndexingMap.parse("(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 2], d1 in [0, 3],"
 *         + " d0 * 4 + d1 in [0, 5]"), new long[] {3, 4});
 * // [[0:1, 0:4], [1:2, 0:2]]
 * }
 */
public final class DomainBoxes {
    /** Residues of a modulo constraint enumerated one by one up to this period; a longer one halves instead. */
    private static final long MAX_PERIOD = 1024;

    private DomainBoxes() {
    }

    /**
     * A box of logical indices: dimension {@code d} takes {@code start[d] + step[d] * k} for
     * {@code k} in {@code [0, count[d])}; a dimension of one value has step 1. Never empty.
     *
     * @param start the first index, per dimension
     * @param step the distance between indices, per dimension (at least 1)
     * @param count the indices, per dimension (at least 1)
     */
    public record Box(long[] start, long[] step, long[] count) {
        /** {@return the whole of {@code dims}, or null when it holds no index} */
        public static Box whole(long[] dims) {
            long[] step = new long[dims.length];
            Arrays.fill(step, 1);
            for (long d : dims) {
                if (d <= 0) {
                    return null;
                }
            }
            return new Box(new long[dims.length], step, dims.clone());
        }

        /** {@return the indices it holds, as a double: no overflow, for estimates} */
        double elementCountAsDouble() {
            double n = 1;
            for (long c : count) {
                n *= c;
            }
            return n;
        }

        /** {@return the number of dimensions} */
        public int rank() {
            return start.length;
        }

        /** {@return the indices it holds} @throws ArithmeticException above {@link Long#MAX_VALUE} */
        public long elementCount() {
            long n = 1;
            for (long c : count) {
                n = Math.multiplyExact(n, c);
            }
            return n;
        }

        /** {@return the last index of dimension {@code d}} */
        public long last(int d) {
            return Math.addExact(start[d], Math.multiplyExact(step[d], count[d] - 1));
        }

        /** {@return whether it is all of {@code dims} (every index, step 1)} */
        public boolean isWhole(long[] dims) {
            for (int d = 0; d < dims.length; d++) {
                if (start[d] != 0 || count[d] != dims[d] || count[d] > 1 && step[d] != 1) {
                    return false;
                }
            }
            return true;
        }

        /** {@return whether the spans {@code [start, last]} of every dimension overlap: false when no index is in both} */
        public boolean spansMeet(Box other) {
            for (int d = 0; d < start.length; d++) {
                if (last(d) < other.start[d] || other.last(d) < start[d]) {
                    return false;
                }
            }
            return true;
        }

        /** {@return the indices both hold, or null when none} */
        public Box intersect(Box other) {
            int rank = rank();
            long[] s = new long[rank];
            long[] t = new long[rank];
            long[] n = new long[rank];
            for (int d = 0; d < rank; d++) {
                long[] p = intersect(start[d], step[d], count[d], other.start[d], other.step[d], other.count[d]);
                if (p == null) {
                    return null;
                }
                s[d] = p[0];
                t[d] = p[1];
                n[d] = p[2];
            }
            return new Box(s, t, n);
        }

        /** {@return the indices this holds and {@code other} does not, as disjoint boxes} */
        public List<Box> minus(Box other) {
            Box common = intersect(other);
            if (common == null) {
                return List.of(this);
            }
            // Dimension by dimension: inside the common part on the dimensions before d, outside it on d.
            List<Box> out = new ArrayList<>();
            int rank = rank();
            for (int d = 0; d < rank; d++) {
                for (long[] rest : minus(start[d], step[d], count[d], common.start[d], common.step[d], common.count[d])) {
                    long[] s = start.clone();
                    long[] t = step.clone();
                    long[] n = count.clone();
                    System.arraycopy(common.start, 0, s, 0, d);
                    System.arraycopy(common.step, 0, t, 0, d);
                    System.arraycopy(common.count, 0, n, 0, d);
                    s[d] = rest[0];
                    t[d] = rest[1];
                    n[d] = rest[2];
                    out.add(new Box(s, t, n));
                }
            }
            return out;
        }

        /** {@return {@code [start:end:step, ...]}, the end exclusive and the step shown when not 1} */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("[");
            for (int d = 0; d < rank(); d++) {
                sb.append(d == 0 ? "" : ", ").append(start[d]).append(':').append(last(d) + 1);
                if (step[d] != 1) {
                    sb.append(':').append(step[d]);
                }
            }
            return sb.append(']').toString();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Box b && Arrays.equals(start, b.start) && Arrays.equals(step, b.step)
                    && Arrays.equals(count, b.count);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(start) * 31 + Arrays.hashCode(count);
        }

        /** {@return the progression both hold, as {start, step, count}, or null} */
        private static long[] intersect(long s1, long t1, long n1, long s2, long t2, long n2) {
            long lo = Math.max(s1, s2);
            long hi = Math.min(Math.addExact(s1, Math.multiplyExact(t1, n1 - 1)),
                    Math.addExact(s2, Math.multiplyExact(t2, n2 - 1)));
            if (lo > hi) {
                return null;
            }
            if (t1 == t2) {
                // One step (a staircase's residue classes): no congruence to solve.
                if (Math.floorMod(Math.subtractExact(s2, s1), t1) != 0) {
                    return null;
                }
                long count = (hi - lo) / t1 + 1;
                return new long[] {lo, count == 1 ? 1 : t1, count};
            }
            // x = s1 (mod t1) and x = s2 (mod t2): solvable when gcd divides s2 - s1, every lcm then.
            BigInteger a = BigInteger.valueOf(t1);
            BigInteger b = BigInteger.valueOf(t2);
            BigInteger g = a.gcd(b);
            BigInteger diff = BigInteger.valueOf(s2).subtract(BigInteger.valueOf(s1));
            if (diff.mod(g).signum() != 0) {
                return null;
            }
            BigInteger m = b.divide(g);
            BigInteger k = m.equals(BigInteger.ONE) ? BigInteger.ZERO
                    : diff.divide(g).mod(m).multiply(a.divide(g).modInverse(m)).mod(m);
            BigInteger lcm = a.divide(g).multiply(b);
            BigInteger x0 = BigInteger.valueOf(s1).add(a.multiply(k));
            BigInteger first = BigInteger.valueOf(lo).add(x0.subtract(BigInteger.valueOf(lo)).mod(lcm));
            if (first.compareTo(BigInteger.valueOf(hi)) > 0) {
                return null;
            }
            long count = BigInteger.valueOf(hi).subtract(first).divide(lcm).longValueExact() + 1;
            return new long[] {first.longValueExact(), count == 1 ? 1 : lcm.longValueExact(), count};
        }

        /** {@return the progression (s, t, n) without its sub-progression (cs, ct, cn), as disjoint progressions} */
        private static List<long[]> minus(long s, long t, long n, long cs, long ct, long cn) {
            List<long[]> out = new ArrayList<>();
            long k0 = (cs - s) / t;
            long every = cn == 1 ? 1 : ct / t;
            long kLast = Math.addExact(k0, Math.multiplyExact(cn - 1, every));
            if (k0 > 0) {
                out.add(progression(s, t, k0));
            }
            if (kLast < n - 1) {
                out.add(progression(Math.addExact(s, Math.multiplyExact(kLast + 1, t)), t, n - 1 - kLast));
            }
            for (long j = 1; j < every && cn > 1; j++) {
                out.add(progression(Math.addExact(s, Math.multiplyExact(k0 + j, t)), Math.multiplyExact(t, every), cn - 1));
            }
            return out;
        }
    }

    private static long[] progression(long start, long step, long count) {
        return new long[] {start, count == 1 ? 1 : step, count};
    }

    /**
     * A box and the piece that holds it.
     *
     * @param box the indices
     * @param piece the piece's position in lookup order
     */
    public record Placed(Box box, int piece) {
    }

    /**
     * {@return disjoint boxes covering what the pieces hold inside {@code dims}, each with the first
     * piece in {@code maps}' order whose domain holds it}
     *
     * @param maps each piece's map, in lookup order, one dimension per logical dimension
     * @param dims the logical dimensions
     * @throws IllegalArgumentException if a map's dimensions are not the view's
     * @throws ArithmeticException if an index computation overflows a long
     */
    public static List<Placed> of(List<IndexingMap> maps, long[] dims) {
        return of(maps, dims, MAX_BOXES);
    }

    /**
     * {@return as {@link #of(List, long[])}, giving up past {@code limit} boxes}
     *
     * @throws TooManyBoxes past {@code limit} boxes (at most {@link #CEILING}), or when subtracting
     *     the pieces' boxes from one another takes more than {@code max(MAX_BOXES^2, 64 * limit)} steps
     */
    public static List<Placed> of(List<IndexingMap> maps, long[] dims, int limit) {
        return of(maps, dims, limit, Box.whole(dims));
    }

    /**
     * {@return as {@link #of(List, long[], int)}, inside {@code within} only (a box of step 1)} A
     * cut past {@link #CEILING} boxes is made a band at a time: a range of rows of the first
     * dimension, or, for a row that alone passes the ceiling, a range of the next dimension inside
     * that row (and so on inward), so no more than a band's boxes are cut at once.
     *
     * @throws TooManyBoxes as {@link #of(List, long[], int)}, for the band's boxes
     */
    public static List<Placed> of(List<IndexingMap> maps, long[] dims, int limit, Box within) {
        limit = Math.min(limit, CEILING);
        List<Placed> out = new ArrayList<>();
        long subtractions = 0;
        // Each box is subtracted from the boxes claimed before it whose spans it meets. Those are
        // found by their first dimension (a staircase's boxes are rows or families of rows), but
        // the steps (boxes looked at, subtractions) may still grow with the square of the boxes,
        // so they are bounded: MAX_BOXES squared as before, or STEPS_PER_BOX a box allowed (a
        // step is a few to tens of nanoseconds; a concatenation of 64 narrow parts, reshaped, looks
        // at each claimed box of its row for each of its boxes).
        long budget = Math.max((long) MAX_BOXES * MAX_BOXES, Math.multiplyExact((long) limit, STEPS_PER_BOX));
        List<Box> claimed = new ArrayList<>();
        Claimed near = new Claimed(claimed);
        boolean[][] apart = apart(maps);
        double volume = within == null ? 0 : within.elementCountAsDouble();
        double covered = 0;
        int placedBefore = 0;
        for (int p = 0; p < maps.size(); p++) {
            List<Box> mine = domain(maps.get(p), dims, limit, within);
            boolean alone = true;
            for (int q = 0; q < p; q++) {
                alone &= apart[p][q];
            }
            for (Box b : mine) {
                if (alone) {
                    // No piece before it can hold an index of its domain: nothing to subtract.
                    out.add(new Placed(b, p));
                    continue;
                }
                List<Box> left = List.of(b);
                int[] meet = near.meeting(b);
                subtractions += near.visited + 1;
                if (subtractions > budget) {
                    throw new TooManyBoxes(out.size() + mine.size(), limit);
                }
                // In order of where the claimed boxes start: a part of b left wholly above the next
                // one is above all the rest and is set aside, and the others are cut only by the
                // boxes they meet (a pad's fill, one box, less thousands of data boxes, cut all of
                // its parts by each of them).
                Integer[] byStart = new Integer[meet.length];
                for (int k = 0; k < meet.length; k++) {
                    byStart[k] = meet[k];
                }
                if (b.rank() > 0) {
                    Arrays.sort(byStart, (x, y) -> x.equals(y) ? 0 : claimed.get(x).start()[0] != claimed.get(y).start()[0]
                            ? Long.compare(claimed.get(x).start()[0], claimed.get(y).start()[0]) : Integer.compare(x, y));
                }
                List<Box> done = new ArrayList<>();
                for (int i : byStart) {
                    Box c = claimed.get(i);
                    subtractions += 1 + left.size() / 16;
                    if (subtractions > budget) {
                        throw new TooManyBoxes(out.size() + mine.size(), limit);
                    }
                    List<Box> next = new ArrayList<>(left.size() + 4);
                    for (Box x : left) {
                        if (x.rank() > 0 && x.last(0) < c.start()[0]) {
                            done.add(x);
                        } else if (!x.spansMeet(c)) {
                            next.add(x);
                        } else {
                            subtractions++;
                            next.addAll(x.minus(c));
                        }
                    }
                    left = next;
                }
                done.addAll(left);
                for (Box x : done) {
                    out.add(new Placed(x, p));
                }
                if (out.size() > limit) {
                    throw new TooManyBoxes(out.size(), limit);
                }
            }
            if (out.size() > limit) {
                throw new TooManyBoxes(out.size(), limit);
            }
            for (int k = placedBefore; k < out.size(); k++) {
                covered += out.get(k).box().elementCountAsDouble();
            }
            placedBefore = out.size();
            // As a single domain's cut is projected (refuseHopeless), over the pieces: a reshape of
            // 64 narrow parts is refused after 8 of them, not after 32. Projected by the larger of
            // the part of the view and the part of the pieces cut so far: a concatenation's parts
            // cut into about as many boxes each whatever their widths, so narrow parts first (21
            // parts of 11 to 97 columns) do not project the boxes of all from their small volume.
            double fraction = Math.max(covered / volume, (p + 1.0) / maps.size());
            if (out.size() > MAX_BOXES && fraction >= PROJECT_PIECES_AFTER && p + 1 < maps.size()
                    && out.size() / fraction > limit) {
                throw TooManyBoxes.projected(out.size(), fraction, Math.round(out.size() / fraction), limit,
                        "the view's and the pieces'");
            }
            boolean needed = false;
            for (int q = p + 1; q < maps.size(); q++) {
                needed |= !apart[q][p];
            }
            // Only boxes a later piece may meet are kept for searching: a concatenation's parts,
            // disjoint by their constraints, are never searched (the search grew with the square
            // of a row's boxes, most of a staircase's cut).
            near.add(needed ? mine : List.of());
        }
        return out;
    }

    /**
     * {@return {@code apart[p][q]}: whether pieces {@code p} and {@code q} hold no index in
     * common, read off their maps} Two domains are apart when a dimension's bounds, or one
     * constraint expression both maps bound (a concatenation's parts after a reshape bound the same
     * {@code L mod m}), have disjoint intervals.
     */
    private static boolean[][] apart(List<IndexingMap> maps) {
        int n = maps.size();
        boolean[][] apart = new boolean[n][n];
        // Each map's bounds listed once: a map lists them anew each time it is asked.
        List<List<Interval>> bounds = new ArrayList<>(n);
        for (IndexingMap map : maps) {
            bounds.add(map.dimBounds());
        }
        for (int p = 0; p < n; p++) {
            List<Interval> a = bounds.get(p);
            for (int q = 0; q < p; q++) {
                List<Interval> b = bounds.get(q);
                boolean disjoint = false;
                for (int d = 0; d < a.size() && d < b.size() && !disjoint; d++) {
                    disjoint = a.get(d).intersect(b.get(d)).isEmpty();
                }
                apart[p][q] = disjoint;
                apart[q][p] = disjoint;
            }
        }
        // The pieces bounding each constraint expression, found by one lookup a constraint, not
        // one a pair of pieces (64 parts bound one L mod m: thousands of lookups of a deep key).
        Map<AffineExpr, List<Bound>> bounding = new java.util.HashMap<>();
        for (int p = 0; p < n; p++) {
            for (Map.Entry<AffineExpr, Interval> c : maps.get(p).constraints().entrySet()) {
                List<Bound> pieces = bounding.get(c.getKey());
                if (pieces == null) {
                    pieces = new ArrayList<>();
                    bounding.put(c.getKey(), pieces);
                }
                pieces.add(new Bound(p, c.getValue()));
            }
        }
        for (List<Bound> pieces : bounding.values()) {
            for (int i = 0; i < pieces.size(); i++) {
                Bound x = pieces.get(i);
                for (int j = 0; j < i; j++) {
                    Bound y = pieces.get(j);
                    if (x.interval().intersect(y.interval()).isEmpty()) {
                        apart[x.piece()][y.piece()] = true;
                        apart[y.piece()][x.piece()] = true;
                    }
                }
            }
        }
        return apart;
    }

    /** A piece's interval of a constraint expression. */
    private record Bound(int piece, Interval interval) {
    }

    /** Subtraction steps a cut may take per box it is allowed. */
    private static final long STEPS_PER_BOX = 64;

    /**
     * Claimed boxes sorted by where their first dimension starts, to find those a box meets without
     * visiting all. Each piece's boxes come sorted by their start ({@link #domain}), so they are
     * merged into the order (a piece at a time, linear), not sorted again with all the boxes
     * before them: with 21 pieces of 2,000 boxes each, sorting again was most of the cut.
     */
    private static final class Claimed {
        private final List<Box> boxes;
        /** Positions in {@code boxes}, by first dimension's start. */
        private int[] order = new int[0];
        /** The largest last index of the first dimension among {@code order[0..i]}. */
        private long[] reach = new long[0];
        /** Boxes looked at by the last {@link #meeting} call. */
        long visited;

        /** @param boxes the list the claimed boxes are added to, empty */
        Claimed(List<Box> boxes) {
            this.boxes = boxes;
        }

        /** Claims {@code mine}, sorted by their start, after the boxes claimed before. */
        void add(List<Box> mine) {
            int before = boxes.size();
            boxes.addAll(mine);
            int n = boxes.size();
            boolean ranked = n > 0 && boxes.getFirst().rank() > 0;
            int[] merged = new int[n];
            int i = 0;
            int j = before;
            int k = 0;
            while (i < before || j < n) {
                // Ties keep the earlier claim first, as a stable sort of all of them did.
                boolean takeOld = j == n || i < before && (!ranked || start(order[i]) <= start(j));
                merged[k++] = takeOld ? order[i++] : j++;
            }
            order = merged;
            reach = new long[n];
            for (int m = 0; m < n; m++) {
                long last = ranked ? boxes.get(order[m]).last(0) : Long.MAX_VALUE;
                reach[m] = m == 0 ? last : Math.max(reach[m - 1], last);
            }
        }

        private long start(int position) {
            return boxes.get(position).start()[0];
        }

        /** {@return the positions, ascending, of the claimed boxes whose spans meet {@code b}'s} */
        int[] meeting(Box b) {
            int n = order.length;
            int hi = n;
            if (b.rank() > 0) {
                // The first with a start past b's last: none from there on meets it.
                int lo = 0;
                long end = b.last(0);
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (boxes.get(order[mid]).start()[0] > end) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
            }
            long from = b.rank() > 0 ? b.start()[0] : Long.MIN_VALUE;
            int[] found = new int[8];
            int k = 0;
            visited = 0;
            for (int i = hi - 1; i >= 0 && reach[i] >= from; i--) {
                visited++;
                if (b.spansMeet(boxes.get(order[i]))) {
                    if (k == found.length) {
                        found = Arrays.copyOf(found, 2 * k);
                    }
                    found[k++] = order[i];
                }
            }
            // Subtracted in lookup order, as before the index: the same boxes come out.
            int[] out = Arrays.copyOf(found, k);
            Arrays.sort(out);
            return out;
        }
    }

    /**
     * Boxes a cut of a single domain ({@link #domain(IndexingMap, long[])}) is allowed. A reshape of a
     * concatenation, which cuts into a box per row segment, is regrouped first ({@link #regroupings})
     * into a box a piece; a staircase no regrouping names (a crop or stepped slice of one) is a box
     * per run of its repeating row pattern, each over a residue class of the rows. What still
     * passes it is a pattern whose period passes {@code MAX_PERIOD}.
     */
    public static final int MAX_BOXES = 1024;

    /**
     * Boxes a copy's cut holds at once, whatever its size: a box and the pair it makes hold some
     * hundreds of bytes, so a cut stays under some tens of MiB. A copy past it is cut a band of rows
     * at a time (a staircase of a billion rows is never listed whole).
     */
    public static final int CEILING = 1 << 16;

    /** A side's domains cut into more than the boxes allowed: a copy is then cut a band of rows at a time. */
    public static final class TooManyBoxes extends RuntimeException {
        @java.io.Serial
        private static final long serialVersionUID = 1L;

        private final long boxes;
        private final int limit;

        TooManyBoxes(long boxes, int limit) {
            this("the pieces' domains cut into more than " + limit + " boxes (" + boxes + " so far)", boxes, limit);
        }

        private TooManyBoxes(String message, long boxes, int limit) {
            super(message, null, false, false);
            this.boxes = boxes;
            this.limit = limit;
        }

        /** {@return the refusal of a cut that, at the rate so far, would pass {@code limit} boxes} */
        static TooManyBoxes projected(long boxes, double fraction, long projected, int limit) {
            return projected(boxes, fraction, projected, limit, "a piece's");
        }

        /** As {@link #projected(long, double, long, int)}, from {@code whose} indices the boxes so far hold. */
        static TooManyBoxes projected(long boxes, double fraction, long projected, int limit, String whose) {
            return new TooManyBoxes("the pieces' domains would cut into about " + projected + " boxes, more than " + limit
                    + " (" + boxes + " boxes from " + Math.round(fraction * 100) + "% of " + whose + " indices)", boxes, limit);
        }

        /** {@return the boxes made when the cutting stopped} */
        public long boxes() {
            return boxes;
        }

        /** {@return whether the cutting stopped at {@link #CEILING}, the most boxes any copy is cut into} */
        public boolean atCeiling() {
            return limit >= CEILING;
        }
    }

    /**
     * The same elements in other dims: the view's dims taken in {@code order} (a transpose), then
     * reshaped row-major to {@code dims}. Copying both sides of a copy regrouped the same way
     * copies the same elements to the same places.
     *
     * @param order the view's dimension read as each dimension of the transpose
     * @param dims the dims after the reshape
     */
    public record Regrouping(int[] order, long[] dims) {
        /** {@return whether {@link #order} is the identity: a reshape alone} */
        public boolean keepsOrder() {
            for (int i = 0; i < order.length; i++) {
                if (order[i] != i) {
                    return false;
                }
            }
            return true;
        }

        /** {@return the view's index of the element at {@code index} of the regrouped dims} @param viewDims the view's dims */
        public long[] viewIndex(long[] index, long[] viewDims) {
            long linear = 0;
            for (int d = 0; d < dims.length; d++) {
                linear = Math.addExact(Math.multiplyExact(linear, dims[d]), index[d]);
            }
            long[] out = new long[viewDims.length];
            for (int i = order.length - 1; i >= 0; i--) {
                long n = viewDims[order[i]];
                out[order[i]] = linear % n;
                linear /= n;
            }
            return out;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Regrouping r && Arrays.equals(order, r.order) && Arrays.equals(dims, r.dims);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(order) * 31 + Arrays.hashCode(dims);
        }

        @Override
        public String toString() {
            return Arrays.toString(dims) + (keepsOrder() ? "" : " of dims " + Arrays.toString(order));
        }
    }

    /**
     * {@return ways to regroup {@code dims}' elements in which the pieces' domains may be boxes: for
     * each {@code L mod m} or {@code L floordiv m} in a constraint, where {@code L} is the
     * row-major index of some dimensions taken in some order (a mixed-radix number: coefficient 1,
     * then each the one before times its dimension's size; size {@code S}) and {@code m} divides
     * {@code S}, those dimensions taken in that order after the others and regrouped as
     * {@code [S / m, m]}} A reshape of a concatenation reads its parts' boundary as such a
     * constraint ({@code (d0 * 1024 + d1) mod 200 in [0, 99]} for two {@code [1024, 100]} joined
     * along 1 and reshaped to {@code [200, 1024]}): a staircase of a box per row segment in the
     * view's dims, two boxes in {@code [1024, 200]}; a transpose after the reshape reads it with
     * the dimensions' order swapped.
     *
     * @param maps the pieces' maps, one dimension per logical dimension
     * @param dims the logical dimensions
     */
    public static List<Regrouping> regroupings(List<IndexingMap> maps, long[] dims) {
        List<Regrouping> out = new ArrayList<>();
        long[] coefficients = new long[dims.length];
        long[] constant = new long[1];
        for (IndexingMap map : maps) {
            for (AffineExpr c : map.constraints().keySet()) {
                collect(c, dims, coefficients, constant, out);
            }
        }
        return out;
    }

    private static void collect(AffineExpr e, long[] dims, long[] coefficients, long[] constant, List<Regrouping> out) {
        switch (e) {
            case AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long m)) -> {
                regroup(l, m, dims, coefficients, constant, out);
                collect(l, dims, coefficients, constant, out);
            }
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr.Const(long m)) -> {
                regroup(l, m, dims, coefficients, constant, out);
                collect(l, dims, coefficients, constant, out);
            }
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> {
                collect(l, dims, coefficients, constant, out);
                collect(r, dims, coefficients, constant, out);
            }
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) -> {
                collect(l, dims, coefficients, constant, out);
                collect(r, dims, coefficients, constant, out);
            }
            default -> {
            }
        }
    }

    /** Adds the regrouping by {@code m} when {@code l} is the mixed-radix index of some dimensions. */
    private static void regroup(AffineExpr l, long m, long[] dims, long[] coefficients, long[] constant,
                                List<Regrouping> out) {
        if (m <= 1 || !Linear.extract(l, coefficients, constant) || constant[0] != 0) {
            return;
        }
        int rank = dims.length;
        List<Integer> outer = new ArrayList<>();
        List<Integer> read = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            (coefficients[d] == 0 || dims[d] == 1 ? outer : read).add(d);
        }
        // The dimensions read, minor first: coefficient 1, then each the product of the sizes before it.
        read.sort((x, y) -> Long.compare(coefficients[x], coefficients[y]));
        long size = 1;
        for (int d : read) {
            if (coefficients[d] != size) {
                return;
            }
            try {
                size = Math.multiplyExact(size, dims[d]);
            } catch (ArithmeticException overflow) {
                return;
            }
        }
        if (read.isEmpty() || m >= size || size % m != 0) {
            return;
        }
        int[] order = new int[rank];
        long[] grouped = new long[outer.size() + 2];
        int i = 0;
        for (int d : outer) {
            grouped[i] = dims[d];
            order[i++] = d;
        }
        for (int j = read.size() - 1; j >= 0; j--) {
            order[i++] = read.get(j);
        }
        grouped[outer.size()] = size / m;
        grouped[outer.size() + 1] = m;
        Regrouping r = new Regrouping(order, grouped);
        if (!out.contains(r) && !(r.keepsOrder() && Arrays.equals(grouped, dims))) {
            out.add(r);
        }
    }

    /**
     * A constraint {@code expr in [lo, hi]}, with what the cut asks of it on every box read off
     * its expression once: the dimensions it reads, its terms where it is affine in the dimensions
     * (or, for {@code inner mod m}, its operand's), and whether those terms give its interval over
     * a box exactly as {@link #range} does (each dimension read once, no term near overflow): a
     * staircase is cut in tens of thousands of boxes, each asking this of each constraint.
     */
    private static final class Constraint {
        private final AffineExpr expr;
        private final long lo;
        private final long hi;
        private final boolean[] reads;
        /** {c_0, ..., c_{n-1}, b} where {@code expr} is affine in the dimensions, else null. */
        private final long[] terms;
        /** For {@code expr = inner mod m} (m a constant): {@code m}, else 0. */
        private final long modulus;
        private final AffineExpr inner;
        /** As {@link #terms}, of {@link #inner}. */
        private final long[] innerTerms;
        /** Whether {@link #terms} (or {@link #innerTerms}) give the interval {@link #range} would: each dimension read once. */
        private final boolean exact;

        Constraint(AffineExpr expr, long lo, long hi, int rank) {
            this.expr = expr;
            this.lo = lo;
            this.hi = hi;
            reads = new boolean[rank];
            mark(expr, reads);
            terms = extracted(expr, rank);
            if (expr instanceof AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long m))) {
                modulus = m;
                inner = l;
                innerTerms = extracted(l, rank);
            } else {
                modulus = 0;
                inner = null;
                innerTerms = null;
            }
            exact = terms != null ? readsOnce(expr, rank) : innerTerms != null && modulus != 0 && readsOnce(inner, rank);
        }

        AffineExpr expr() {
            return expr;
        }

        long lo() {
            return lo;
        }

        long hi() {
            return hi;
        }

        /** {@return {@code e}'s terms, or null when it is not affine in the dimensions} */
        private static long[] extracted(AffineExpr e, int rank) {
            long[] coefficients = new long[rank];
            long[] constant = new long[1];
            if (!Linear.extract(e, coefficients, constant)) {
                return null;
            }
            long[] out = Arrays.copyOf(coefficients, rank + 1);
            out[rank] = constant[0];
            return out;
        }

        private static boolean readsOnce(AffineExpr e, int rank) {
            int[] times = new int[rank];
            count(e, times);
            for (int t : times) {
                if (t > 1) {
                    return false;
                }
            }
            return true;
        }

        /** Counts each dimension's reads in {@code e}'s sums and products (the terms of an affine {@code e}). */
        private static void count(AffineExpr e, int[] times) {
            // Type tests: a pattern switch costs a bootstrap on a first copy, longer than this.
            if (e instanceof AffineExpr.Dim dim && dim.index() < times.length) {
                times[dim.index()]++;
            } else if (e instanceof AffineExpr.Add add) {
                count(add.lhs(), times);
                count(add.rhs(), times);
            } else if (e instanceof AffineExpr.Mul mul) {
                count(mul.lhs(), times);
                count(mul.rhs(), times);
            }
        }

        /** Terms past this, in magnitude, are left to the expression: no sum of them overflows, or saturates in {@link #range}. */
        private static final long BOUND = 1L << 56;

        private static boolean big(long x) {
            return x > BOUND || x < -BOUND;
        }

        /**
         * {@return the least and greatest of the terms {@code t} over the indices from
         * {@code from} to {@code to}, each dimension on its own, or null when a term or its
         * product passes {@link #BOUND}}
         */
        private static long[] span(long[] t, long[] from, long[] to) {
            int rank = from.length;
            long b = t[rank];
            if (big(b) || rank > 64) {
                return null;
            }
            long lo = b;
            long hi = b;
            for (int d = 0; d < rank; d++) {
                long c = t[d];
                if (c == 0) {
                    continue;
                }
                if (big(c) || big(from[d]) || big(to[d])) {
                    return null;
                }
                long limit = BOUND / Math.abs(c);
                if (Math.abs(from[d]) > limit || Math.abs(to[d]) > limit) {
                    return null;
                }
                long x = c * from[d];
                long y = c * to[d];
                lo += Math.min(x, y);
                hi += Math.max(x, y);
            }
            return new long[] {lo, hi};
        }

        /** {@return the values {@code expr} may take over {@code box}, as {@link DomainBoxes#range} gives them} */
        Interval range(Box box) {
            if (exact) {
                int rank = box.rank();
                long[] last = new long[rank];
                for (int d = 0; d < rank; d++) {
                    last[d] = box.last(d);
                }
                long[] span = span(terms != null ? terms : innerTerms, box.start(), last);
                if (span != null) {
                    Interval r = new Interval(span[0], span[1]);
                    return terms != null ? r : r.mod(modulus);
                }
            }
            return DomainBoxes.range(expr, box);
        }

        /** {@return {@code expr}'s value at {@code box}'s start (which it holds over the whole box)} */
        long valueAtStart(Box box) {
            if (exact && (terms != null || modulus > 0)) {
                long[] span = span(terms != null ? terms : innerTerms, box.start(), box.start());
                if (span != null) {
                    return terms != null ? span[0] : Math.floorMod(span[0], modulus);
                }
            }
            return expr.evaluate(box.start(), new long[0], new long[0]);
        }

        /**
         * {@return the dimensions that change {@code expr}'s value over {@code box}}: those it
         * reads that take more than one value, except, in {@code (sum a_i * d_i + c) mod m}, a
         * dimension whose every step moves its term by a multiple of {@code m} (a residue class of
         * a staircase's rows), which leaves the value as at the box's start
         */
        List<Integer> effective(Box box) {
            List<Integer> vars = new ArrayList<>();
            for (int d = 0; d < reads.length; d++) {
                if (reads[d] && box.count()[d] > 1) {
                    vars.add(d);
                }
            }
            if (vars.isEmpty() || modulus <= 0) {
                return vars;
            }
            long[] coefficients = new long[box.rank()];
            if (!innerLinear(box, coefficients, new long[1])) {
                return vars;
            }
            List<Integer> out = new ArrayList<>(vars.size());
            for (int d : vars) {
                if (period(coefficients[d], box.step()[d], modulus) != 1) {
                    out.add(d);
                }
            }
            return out;
        }

        /** {@return whether {@link #effective} is empty over {@code box} (asked of every box looked at, so no list is made)} */
        boolean fixed(Box box) {
            boolean varies = false;
            for (int d = 0; d < reads.length && !varies; d++) {
                varies = reads[d] && box.count()[d] > 1;
            }
            if (!varies) {
                return true;
            }
            if (modulus <= 0) {
                return false;
            }
            long[] coefficients = new long[box.rank()];
            if (!innerLinear(box, coefficients, new long[1])) {
                return false;
            }
            for (int d = 0; d < reads.length; d++) {
                if (reads[d] && box.count()[d] > 1 && period(coefficients[d], box.step()[d], modulus) != 1) {
                    return false;
                }
            }
            return true;
        }

        /** {@return whether {@code expr} is affine over {@code box}, as {@link DomainBoxes#linear} reads it, its terms found once} */
        boolean linear(Box box, long[] coefficients, long[] constant) {
            if (terms == null && exact && modulus > 0) {
                // inner mod m is affine where inner has one quotient: inner - q * m, read off its terms.
                int rank = box.rank();
                long[] last = new long[rank];
                for (int d = 0; d < rank; d++) {
                    last[d] = box.last(d);
                }
                long[] span = span(innerTerms, box.start(), last);
                if (span != null) {
                    long q = Math.floorDiv(span[0], modulus);
                    if (q != Math.floorDiv(span[1], modulus)) {
                        return false;
                    }
                    try {
                        long b = Math.subtractExact(innerTerms[rank], Math.multiplyExact(q, modulus));
                        System.arraycopy(innerTerms, 0, coefficients, 0, rank);
                        constant[0] = b;
                        return true;
                    } catch (ArithmeticException overflow) {
                        return false;
                    }
                }
            }
            return read(terms, expr, box, coefficients, constant);
        }

        /** {@return whether {@code expr} is a modulo by a constant whose operand is affine over {@code box}, as {@link #linear}} */
        boolean innerLinear(Box box, long[] coefficients, long[] constant) {
            return inner != null && read(innerTerms, inner, box, coefficients, constant);
        }

        /** {@return whether {@code expr}, or the operand of a modulo {@code expr}, is affine over {@code box}} */
        boolean clean(Box box) {
            long[] coefficients = new long[box.rank()];
            long[] constant = new long[1];
            return linear(box, coefficients, constant) || innerLinear(box, coefficients, constant);
        }

        private static boolean read(long[] known, AffineExpr e, Box box, long[] coefficients, long[] constant) {
            if (known == null) {
                return DomainBoxes.linear(e, box, coefficients, constant);
            }
            System.arraycopy(known, 0, coefficients, 0, coefficients.length);
            constant[0] = known[coefficients.length];
            return true;
        }
    }

    /** A box still to be cut, with the constraints already known to hold throughout it. */
    private record Work(Box box, boolean[] holds) {
    }

    /**
     * {@return the domain of {@code map} inside {@code dims} as disjoint boxes, in row-major order of their first index}
     *
     * @throws IllegalArgumentException if the map's dimensions are not one per logical dimension
     * @throws ArithmeticException if an index computation overflows a long
     */
    public static List<Box> domain(IndexingMap map, long[] dims) {
        return domain(map, dims, MAX_BOXES);
    }

    private static List<Box> domain(IndexingMap map, long[] dims, int limit) {
        return domain(map, dims, limit, Box.whole(dims));
    }

    /** {@return as {@link #domain(IndexingMap, long[])}, inside {@code within} (a box of step 1) only} */
    private static List<Box> domain(IndexingMap map, long[] dims, int limit, Box within) {
        int rank = dims.length;
        if (map.dims().size() != rank) {
            throw new IllegalArgumentException("a piece's map has " + map.dims().size() + " dimensions, its view " + rank
                    + ": " + map);
        }
        if (map.isKnownEmpty() || within == null) {
            return List.of(); // within is null for dims holding no index (Box.whole)
        }
        long[] start = new long[rank];
        long[] step = new long[rank];
        long[] count = new long[rank];
        List<Interval> bounds = map.dimBounds();
        for (int d = 0; d < rank; d++) {
            Interval b = bounds.get(d).intersect(new Interval(Math.max(0, within.start()[d]),
                    Math.min(dims[d] - 1, within.last(d))));
            if (b.isEmpty()) {
                return List.of();
            }
            start[d] = b.lo();
            step[d] = 1;
            count[d] = Math.addExact(Math.subtractExact(b.hi(), b.lo()), 1);
        }
        List<Constraint> constraints = new ArrayList<>();
        for (Map.Entry<AffineExpr, Interval> c : map.constraints().entrySet()) {
            if (c.getValue().isEmpty()) {
                return List.of();
            }
            constraints.add(new Constraint(c.getKey(), c.getValue().lo(), c.getValue().hi(), rank));
        }
        List<Box> out = new ArrayList<>();
        Deque<Work> work = new ArrayDeque<>();
        work.push(new Work(new Box(start, step, count), new boolean[constraints.size()]));
        long steps = 0;
        double volume = new Box(start, step, count).elementCountAsDouble();
        while (!work.isEmpty()) {
            if (out.size() > limit || ++steps > 16L * Math.max(limit, MAX_BOXES)) {
                throw new TooManyBoxes(out.size() + work.size(), limit);
            }
            if (out.size() > MAX_BOXES && (steps & (PROJECT_EVERY - 1)) == 0) {
                refuseHopeless(out.size(), volume, work, limit);
            }
            Work w = work.pop();
            int open = -1;
            int clean = 0;
            boolean empty = false;
            for (int i = 0; i < constraints.size() && !empty; i++) {
                if (w.holds()[i]) {
                    continue;
                }
                Constraint c = constraints.get(i);
                Interval r = c.range(w.box());
                boolean fixed = c.fixed(w.box());
                if (fixed && !r.isPoint()) {
                    r = Interval.point(c.valueAtStart(w.box()));
                }
                if (c.lo() <= r.lo() && r.hi() <= c.hi()) {
                    w.holds()[i] = true;
                } else if (r.hi() < c.lo() || r.lo() > c.hi()) {
                    empty = true;
                } else if (open < 0) {
                    open = i;
                } else if (clean <= 0) {
                    // A constraint affine over the box (or a modulo of one) cuts it cleanly; a
                    // nested one (an interior pad's (L mod m) mod 2) is affine once the others have cut.
                    if (clean == 0) {
                        clean = constraints.get(open).clean(w.box()) ? 1 : -1;
                    }
                    if (clean < 0 && c.clean(w.box())) {
                        open = i;
                        clean = 1;
                    }
                }
            }
            if (empty) {
                continue;
            }
            if (open < 0) {
                out.add(w.box());
                continue;
            }
            split(w, open, constraints.get(open), work);
        }
        out.sort((a, b) -> Arrays.compare(a.start(), b.start()));
        return out;
    }

    /** The part of a view the pieces cut so far hold before the boxes of all of them are projected. */
    private static final double PROJECT_PIECES_AFTER = 1.0 / 8;

    /** Work items popped between two projections of a cut's final size. */
    private static final int PROJECT_EVERY = 256;

    /** The part of a domain cut before its box count is projected from the rate so far. */
    private static final double PROJECT_AFTER = 1.0 / 16;

    /**
     * Refuses a cut whose boxes so far, per index cut so far, project past {@code limit}: a
     * staircase of tiny boxes is refused after a sixteenth of its rows, not after all the boxes
     * allowed (which cost about twice the element pass it falls back to). The boxes of a cut come
     * in row-major order of their start, so the part cut is a prefix of the rows; a staircase's
     * rows are alike, and one whose first sixteenth is tiny boxes and the rest large ones, which
     * this refuses, is copied element by element as past the limit.
     */
    private static void refuseHopeless(int boxes, double volume, Deque<Work> work, int limit) {
        double left = 0;
        for (Work w : work) {
            left += w.box().elementCountAsDouble();
        }
        double fraction = (volume - left) / volume;
        if (fraction >= PROJECT_AFTER) {
            double projected = boxes / fraction;
            if (projected > limit) {
                throw TooManyBoxes.projected(boxes, fraction, Math.round(projected), limit);
            }
        }
    }

    /**
     * Cuts {@code w}'s box by constraint {@code i}, which holds in part of it: each piece pushed
     * either has the constraint marked as holding or a dimension narrower than the box's.
     */
    private static void split(Work w, int i, Constraint c, Deque<Work> work) {
        Box box = w.box();
        int rank = box.rank();
        List<Integer> vars = c.effective(box);
        long[] coefficients = new long[rank];
        long[] constant = new long[1];
        if (vars.size() == 1) {
            int d = vars.getFirst();
            if (c.linear(box, coefficients, constant)) {
                // a * (start + step * k) + rest in [lo, hi]: the k of one run.
                long[] ab = affineInK(box, d, coefficients, constant[0]);
                long[] ks = solve(ab[0], ab[1], c.lo(), c.hi(), box.count()[d]);
                if (ks != null) {
                    work.push(new Work(narrow(box, d, ks[0], ks[1] - ks[0] + 1, 1), held(w, i)));
                }
                return;
            }
            if (c.expr() instanceof AffineExpr.Mod(AffineExpr inner, AffineExpr.Const(long m)) && m != 0 && m != Long.MIN_VALUE
                    && c.innerLinear(box, coefficients, constant)) {
                long mod = Math.abs(m);
                long[] ab = affineInK(box, d, coefficients, constant[0]);
                long period = period(ab[0], 1, mod);
                long count = box.count()[d];
                if (m > 0 && runs(ab[0], ab[1], mod, c, count, i, w, d, Math.min(period, count), work)) {
                    return;
                }
                if (period <= MAX_PERIOD) {
                    for (long r = Math.min(period, count) - 1; r >= 0; r--) {
                        long v = Math.floorMod(Math.addExact(Math.multiplyExact(ab[0], r), ab[1]), mod);
                        if (c.lo() <= v && v <= c.hi()) {
                            long n = (count - r + period - 1) / period;
                            work.push(new Work(narrow(box, d, r, n, period), held(w, i)));
                        }
                    }
                    return;
                }
            }
            if (termLaps(w, c.expr(), d, work)) {
                return;
            }
            halve(w, d, work);
            return;
        }
        if (c.expr() instanceof AffineExpr.Mod(AffineExpr inner, AffineExpr.Const(long m)) && m > 0
                && c.innerLinear(box, coefficients, constant)) {
            // A staircase: (sum a_i * d_i) mod m over several dimensions. The outer dimension's
            // term repeats every m / gcd(a * step, m) of its values, so its residue classes are
            // a box each in which that term is one constant mod m: a strided family of the
            // staircase's rows, not a box per row. The classes are then cut by the other dimensions.
            int d = vars.getFirst();
            for (int v : vars) {
                if (Math.abs(coefficients[v]) > Math.abs(coefficients[d])) {
                    d = v;
                }
            }
            long period = period(coefficients[d], box.step()[d], m);
            long count = box.count()[d];
            if (period <= MAX_PERIOD) {
                for (long r = Math.min(period, count) - 1; r >= 0; r--) {
                    work.push(new Work(narrow(box, d, r, (count - r + period - 1) / period, period), w.holds().clone()));
                }
                return;
            }
            if (laps(w, i, c, d, coefficients, constant[0], m, work)) {
                return;
            }
            halve(w, d, work);
            return;
        }
        if (c.linear(box, coefficients, constant)) {
            // The outer dimension (largest stride): the run of it where the constraint holds
            // whatever the others are, one value at a time where it holds for some of them.
            int d = vars.getFirst();
            for (int v : vars) {
                if (Math.abs(coefficients[v]) > Math.abs(coefficients[d])) {
                    d = v;
                }
            }
            long a = Math.multiplyExact(coefficients[d], box.step()[d]);
            long b = Math.addExact(constant[0], Math.multiplyExact(coefficients[d], box.start()[d]));
            long restLo = 0;
            long restHi = 0;
            for (int e = 0; e < rank; e++) {
                if (e == d || coefficients[e] == 0) {
                    continue;
                }
                long x = Math.multiplyExact(coefficients[e], box.start()[e]);
                long y = Math.multiplyExact(coefficients[e], box.last(e));
                restLo = Math.addExact(restLo, Math.min(x, y));
                restHi = Math.addExact(restHi, Math.max(x, y));
            }
            long count = box.count()[d];
            long[] inside = solve(a, b, Math.subtractExact(c.lo(), restLo), Math.subtractExact(c.hi(), restHi), count);
            long[] touching = solve(a, b, Math.subtractExact(c.lo(), restHi), Math.subtractExact(c.hi(), restLo), count);
            if (touching == null) {
                return;
            }
            if (inside != null) {
                work.push(new Work(narrow(box, d, inside[0], inside[1] - inside[0] + 1, 1), held(w, i)));
            }
            for (long k = touching[0]; k <= touching[1]; k++) {
                if (inside == null || k < inside[0] || k > inside[1]) {
                    work.push(new Work(narrow(box, d, k, 1, 1), w.holds().clone()));
                }
            }
            return;
        }
        halve(w, vars.getFirst(), work);
    }

    /**
     * {@return whether {@code e} is affine over {@code box}}: affine in the dimensions, or so once
     * each floor division and modulo by a positive constant whose operand stays within one multiple
     * of the divisor over the box is replaced by its one quotient (an interior pad's
     * {@code (L mod 13) mod 2} inside one lap of {@code L} is {@code (L - 13q) mod 2}). On true,
     * {@code coefficients} and {@code constant[0]} hold its terms there.
     */
    private static boolean linear(AffineExpr e, Box box, long[] coefficients, long[] constant) {
        if (Linear.extract(e, coefficients, constant)) {
            return true;
        }
        try {
            long[] t = terms(e, box);
            if (t == null) {
                return false;
            }
            System.arraycopy(t, 0, coefficients, 0, coefficients.length);
            constant[0] = t[coefficients.length];
            return true;
        } catch (ArithmeticException overflow) {
            return false;
        }
    }

    /** {@return {c_0, ..., c_{n-1}, b}: {@code e} over {@code box} as {@code sum c_d * d + b}, or null} */
    private static long[] terms(AffineExpr e, Box box) {
        return absolute(inCounters(e, box, false), box);
    }

    /**
     * {@return {@code e} over {@code box} as {@code c_0 * k_0 + ... + c_{n-1} * k_{n-1} + b} in
     * the box's counters {@code k} ({c_0, ..., c_{n-1}, b}; 0 for a dimension of one index), or
     * null when it is not affine there} A floor division or modulo by a positive constant is
     * affine in a box where its operand, less its terms whose coefficients are multiples of the
     * divisor, stays within one multiple of it; the other forms are the affine ones. A copy over
     * pieces reads each piece's map over each box so, as strides.
     */
    public static long[] linearInBox(AffineExpr e, Box box) {
        return inCounters(e, box, true);
    }

    /**
     * The one reading of an expression as linear over a box, in its counters: for
     * {@link #linearInBox} ({@code copy}: a dimension of one index gets coefficient 0, and terms
     * whose coefficients are multiples of a divisor are taken out of it first), and for the cut's
     * {@link #terms} (every dimension's coefficient times its step, a quotient one value over the
     * whole operand), which reads the dimensions' coefficients back ({@link #absolute}).
     */
    private static long[] inCounters(AffineExpr e, Box box, boolean copy) {
        // Tests of type, not a pattern switch: asked for every box of a cut, mostly before the JIT
        // has compiled it, where a switch's type dispatch cost as much as the arithmetic.
        int rank = box.rank();
        if (e instanceof AffineExpr.Const c) {
            long[] out = new long[rank + 1];
            out[rank] = c.value();
            return out;
        }
        if (e instanceof AffineExpr.Dim dim) {
            int i = dim.index();
            if (i >= rank) {
                return null;
            }
            long[] out = new long[rank + 1];
            out[i] = copy && box.count()[i] == 1 ? 0 : box.step()[i];
            out[rank] = box.start()[i];
            return out;
        }
        if (e instanceof AffineExpr.Add add) {
            long[] a = inCounters(add.lhs(), box, copy);
            long[] b = a == null ? null : inCounters(add.rhs(), box, copy);
            if (b == null) {
                return null;
            }
            for (int d = 0; d <= rank; d++) {
                a[d] = Math.addExact(a[d], b[d]);
            }
            return a;
        }
        if (e instanceof AffineExpr.Mul mul) {
            if (mul.rhs() instanceof AffineExpr.Const c) {
                return scaled(inCounters(mul.lhs(), box, copy), c.value());
            }
            if (mul.lhs() instanceof AffineExpr.Const c) {
                return scaled(inCounters(mul.rhs(), box, copy), c.value());
            }
            return null;
        }
        if (e instanceof AffineExpr.FloorDiv div && div.rhs() instanceof AffineExpr.Const(long m) && m > 0) {
            long[] a = inCounters(div.lhs(), box, copy);
            long[] whole = a == null ? null : copy ? multiples(a, m) : new long[rank + 1];
            Long q = whole == null ? null : oneQuotient(a, box, m);
            if (q == null) {
                return null;
            }
            whole[rank] = q;
            return whole;
        }
        if (e instanceof AffineExpr.Mod mod && mod.rhs() instanceof AffineExpr.Const(long m) && m > 0) {
            long[] a = inCounters(mod.lhs(), box, copy);
            if (a != null && copy) {
                multiples(a, m); // those terms leave the remainder as it is
            }
            Long q = a == null ? null : oneQuotient(a, box, m);
            if (q == null) {
                return null;
            }
            a[rank] = Math.subtractExact(a[rank], Math.multiplyExact(q, m));
            return a;
        }
        return null;
    }

    /**
     * {@return {@code k} ({@link #inCounters} without {@code copy}: each coefficient its
     * dimension's times its step) over the dimensions themselves, {c_0, ..., c_{n-1}, b}, in
     * place; null for null}
     */
    private static long[] absolute(long[] k, Box box) {
        if (k != null) {
            int rank = box.rank();
            for (int d = 0; d < rank; d++) {
                k[d] /= box.step()[d];
                k[rank] = Math.subtractExact(k[rank], Math.multiplyExact(k[d], box.start()[d]));
            }
        }
        return k;
    }

    /** {@return {@code a} multiplied by {@code c} in place, overflow-checked; null for null} */
    private static long[] scaled(long[] a, long c) {
        if (a != null) {
            for (int d = 0; d < a.length; d++) {
                a[d] = Math.multiplyExact(a[d], c);
            }
        }
        return a;
    }

    /**
     * Moves the terms of {@code a} (over the box's counters, constant last) whose coefficients
     * are multiples of {@code m} out of it: {@code floor((c . k + b) / m)} is {@code (c' / m) . k}
     * for those plus the floor of the rest, which then has one value over the box or none. A
     * residue class of a staircase's rows steps {@code L} by a multiple of the joined row
     * ({@code L / m} by a constant, {@code L mod m} not at all); an interior pad's stride-2 box
     * reads {@code (2k + b) / 2}, element {@code k + b / 2}.
     *
     * @return the quotient's coefficients so far (its constant left 0), {@code a} keeping the rest
     */
    private static long[] multiples(long[] a, long m) {
        int rank = a.length - 1;
        long[] whole = new long[rank + 1];
        for (int d = 0; d < rank; d++) {
            if (a[d] % m == 0) {
                whole[d] = a[d] / m;
                a[d] = 0;
            }
        }
        return whole;
    }

    /** {@return the one value of {@code floor(a / m)} over the box ({@code a} in its counters), or null when it takes several} */
    private static Long oneQuotient(long[] a, Box box, long m) {
        int rank = box.rank();
        long lo = a[rank];
        long hi = a[rank];
        for (int d = 0; d < rank; d++) {
            long span = Math.multiplyExact(a[d], box.count()[d] - 1);
            lo = Math.addExact(lo, Math.min(span, 0));
            hi = Math.addExact(hi, Math.max(span, 0));
        }
        long q = Math.floorDiv(lo, m);
        return q == Math.floorDiv(hi, m) ? q : null;
    }

    /** {@return the least and greatest of {@code floor((a * k + b) / m)} for {@code k} in {@code [0, count)}} */
    private static long[] quotientSpan(long a, long b, long m, long count) {
        long first = Math.floorDiv(b, m);
        long last = Math.floorDiv(Math.addExact(Math.multiplyExact(a, count - 1), b), m);
        return new long[] {Math.min(first, last), Math.max(first, last)};
    }

    /** Pushes {@code cut} onto {@code work} so that the box starting first along {@code d} is taken first. */
    private static void pushInOrder(List<Work> cut, int d, Deque<Work> work) {
        cut.sort((x, y) -> Long.compare(x.box().start()[d], y.box().start()[d]));
        for (int j = cut.size() - 1; j >= 0; j--) {
            work.push(cut.get(j));
        }
    }

    /**
     * Cuts dimension {@code d} (the only one {@code e} varies with over {@code w}'s box) into the
     * runs where a floor division or modulo inside {@code e}, by a positive constant, of an
     * expression affine over the box, has one quotient: afterwards that term is affine there
     * ({@link #linear}). An interior pad's {@code (L mod 13) mod 2} over a row that wraps {@code L}
     * is then a run per lap, each a residue class of stride 2, not halved down to single elements.
     *
     * @return whether it cut: not when no such term varies, or its laps are as many as the run's indices
     */
    private static boolean termLaps(Work w, AffineExpr e, int d, Deque<Work> work) {
        Box box = w.box();
        long[] t = wrapping(e, box);
        if (t == null) {
            return false;
        }
        int rank = box.rank();
        try {
            long m = t[rank + 1];
            long a = Math.multiplyExact(t[d], box.step()[d]);
            long b = t[rank];
            for (int x = 0; x < rank; x++) {
                b = Math.addExact(b, Math.multiplyExact(t[x], box.start()[x]));
            }
            long count = box.count()[d];
            long[] span = quotientSpan(a, b, m, count);
            long qLo = span[0];
            long qHi = span[1];
            if (Math.subtractExact(qHi, qLo) + 1 >= count) {
                return false;
            }
            List<Work> cut = new ArrayList<>();
            for (long q = qLo; q <= qHi; q++) {
                long[] ks = solve(a, Math.subtractExact(b, Math.multiplyExact(q, m)), 0, m - 1, count);
                if (ks != null) {
                    cut.add(new Work(narrow(box, d, ks[0], ks[1] - ks[0] + 1, 1), w.holds().clone()));
                }
            }
            if (cut.size() < 2) {
                return false;
            }
            pushInOrder(cut, d, work);
            return true;
        } catch (ArithmeticException overflow) {
            return false;
        }
    }

    /**
     * {@return {c_0, ..., c_{n-1}, b, m} for the innermost floor division or modulo by a positive
     * constant {@code m} in {@code e} whose operand {@code sum c_d * d + b} is affine over
     * {@code box} but spans several multiples of {@code m} there, or null when none}
     */
    private static long[] wrapping(AffineExpr e, Box box) {
        return switch (e) {
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> {
                long[] x = wrapping(l, box);
                yield x != null ? x : wrapping(r, box);
            }
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) -> {
                long[] x = wrapping(l, box);
                yield x != null ? x : wrapping(r, box);
            }
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr.Const(long m)) when m > 0 -> wrappingAt(l, m, box);
            case AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long m)) when m > 0 -> wrappingAt(l, m, box);
            default -> null;
        };
    }

    private static long[] wrappingAt(AffineExpr l, long m, Box box) {
        long[] inner = wrapping(l, box);
        if (inner != null) {
            return inner;
        }
        try {
            long[] k = inCounters(l, box, false);
            if (k == null || oneQuotient(k, box, m) != null) {
                return null;
            }
            long[] a = absolute(k, box);
            long[] out = Arrays.copyOf(a, a.length + 1);
            out[a.length] = m;
            return out;
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    /** {@return {a, b}: the expression {@code constant + sum(coefficients * d)} as {@code a * k + b} over dimension d's k, the others at their start} */
    private static long[] affineInK(Box box, int d, long[] coefficients, long constant) {
        long b = constant;
        for (int e = 0; e < coefficients.length; e++) {
            if (coefficients[e] != 0) {
                b = Math.addExact(b, Math.multiplyExact(coefficients[e], box.start()[e]));
            }
        }
        return new long[] {Math.multiplyExact(coefficients[d], box.step()[d]), b};
    }

    /** {@return {first, last} of the k in {@code [0, count)} with {@code a * k + b} in {@code [lo, hi]}, or null} */
    private static long[] solve(long a, long b, long lo, long hi, long count) {
        long first;
        long last;
        if (lo > hi) {
            return null;
        }
        if (a == 0) {
            return lo <= b && b <= hi ? new long[] {0, count - 1} : null;
        }
        long low;
        long high;
        try {
            if (a == Long.MIN_VALUE) {
                throw new ArithmeticException("a quotient by Long.MIN_VALUE may overflow");
            }
            low = Math.subtractExact(lo, b);
            high = Math.subtractExact(hi, b);
        } catch (ArithmeticException overflow) {
            return solveWide(a, b, lo, hi, count);
        }
        // a * k in [low, high], in longs: asked for every box of a cut
        if (a > 0) {
            first = Math.ceilDiv(low, a);
            last = Math.floorDiv(high, a);
        } else {
            first = Math.ceilDiv(high, a);
            last = Math.floorDiv(low, a);
        }
        first = Math.max(first, 0);
        last = Math.min(last, count - 1);
        return first <= last ? new long[] {first, last} : null;
    }

    /** {@return as {@link #solve}, in big integers: {@code lo - b} or {@code hi - b} overflows a long} */
    private static long[] solveWide(long a, long b, long lo, long hi, long count) {
        long first;
        long last;
        // a * k in [lo - b, hi - b]
        BigInteger low = BigInteger.valueOf(lo).subtract(BigInteger.valueOf(b));
        BigInteger high = BigInteger.valueOf(hi).subtract(BigInteger.valueOf(b));
        BigInteger av = BigInteger.valueOf(a);
        if (a > 0) {
            first = ceil(low, av);
            last = floor(high, av);
        } else {
            first = ceil(high, av);
            last = floor(low, av);
        }
        first = Math.max(first, 0);
        last = Math.min(last, count - 1);
        return first <= last ? new long[] {first, last} : null;
    }

    private static long floor(BigInteger x, BigInteger a) {
        BigInteger[] qr = x.divideAndRemainder(a);
        BigInteger q = qr[1].signum() != 0 && qr[1].signum() != a.signum() ? qr[0].subtract(BigInteger.ONE) : qr[0];
        return clamp(q);
    }

    private static long ceil(BigInteger x, BigInteger a) {
        BigInteger[] qr = x.divideAndRemainder(a);
        BigInteger q = qr[1].signum() != 0 && qr[1].signum() == a.signum() ? qr[0].add(BigInteger.ONE) : qr[0];
        return clamp(q);
    }

    private static long clamp(BigInteger q) {
        return q.bitLength() < 63 ? q.longValue() : q.signum() > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    /** {@return {@code box} with dimension d's k in {@code [from, from + n * every)} taken every {@code every}} */
    private static Box narrow(Box box, int d, long from, long n, long every) {
        long[] s = box.start().clone();
        long[] t = box.step().clone();
        long[] c = box.count().clone();
        s[d] = Math.addExact(s[d], Math.multiplyExact(from, t[d]));
        t[d] = n == 1 ? 1 : Math.multiplyExact(t[d], every);
        c[d] = n;
        return new Box(s, t, c);
    }

    private static void halve(Work w, int d, Deque<Work> work) {
        long n = w.box().count()[d];
        long half = n / 2;
        work.push(new Work(narrow(w.box(), d, half, n - half, 1), w.holds().clone()));
        work.push(new Work(narrow(w.box(), d, 0, half, 1), w.holds().clone()));
    }

    private static boolean[] held(Work w, int i) {
        boolean[] h = w.holds().clone();
        h[i] = true;
        return h;
    }

    /**
     * Cuts dimension {@code d} of {@code w}'s box into the runs of its {@code k} where
     * {@code (a * k + b) mod m} holds constraint {@code c}, when the value wraps around {@code m}
     * fewer times than there are residue classes: a staircase's row holds a run or two of the
     * part, which residue classes would cut into a box per element of the run.
     *
     * @return whether it cut
     */
    private static boolean runs(long a, long b, long m, Constraint c, long count, int i, Work w, int d, long classes,
                                Deque<Work> work) {
        long[] span = quotientSpan(a, b, m, count);
        long qLo = span[0];
        long qHi = span[1];
        if (Math.subtractExact(qHi, qLo) + 1 >= classes) {
            return false;
        }
        long lo = Math.max(c.lo(), 0);
        long hi = Math.min(c.hi(), m - 1);
        for (long q = qHi; q >= qLo; q--) {
            // In lap q the value is a * k + b - q * m, inside [0, m): no wrap within it.
            long[] ks = solve(a, Math.subtractExact(b, Math.multiplyExact(q, m)), lo, hi, count);
            if (ks != null) {
                work.push(new Work(narrow(w.box(), d, ks[0], ks[1] - ks[0] + 1, 1), held(w, i)));
            }
        }
        return true;
    }

    /**
     * Cuts dimension {@code d} of {@code w}'s box, where constraint {@code c} is
     * {@code (sum a_e * d_e + constant) mod m} with a pattern too long to take by residue classes,
     * by the laps of the value around {@code m}: in each lap, the run of {@code d} whose rows hold
     * the constraint throughout is one box, the rows where it holds in part one box each (cut by
     * the other dimensions next), the rows where it never holds none. A staircase of short rows
     * (a reshape of a concatenation to rows of a few elements) is then a box per part per lap,
     * not the some thirty boxes of a few rows each that halving leaves around each lap's edge.
     *
     * @return whether it cut: not when a row's values span {@code m} or more (every row wraps),
     *     the value falls along {@code d}, there are more laps than values of {@code d}, or an
     *     index computation overflows
     */
    private static boolean laps(Work w, int i, Constraint c, int d, long[] coefficients, long constant, long m,
                                Deque<Work> work) {
        Box box = w.box();
        try {
            long[] ab = affineInK(box, d, coefficients, constant);
            long a = ab[0];
            long b = ab[1];
            long restLo = 0;
            long restHi = 0;
            for (int e = 0; e < box.rank(); e++) {
                if (e != d && coefficients[e] != 0) {
                    long span = Math.multiplyExact(Math.multiplyExact(coefficients[e], box.step()[e]), box.count()[e] - 1);
                    restLo = Math.addExact(restLo, Math.min(span, 0));
                    restHi = Math.addExact(restHi, Math.max(span, 0));
                }
            }
            long count = box.count()[d];
            if (a <= 0 || Math.subtractExact(restHi, restLo) >= m) {
                return false;
            }
            long qFirst = Math.floorDiv(Math.addExact(b, restLo), m);
            long qLast = Math.floorDiv(Math.addExact(Math.addExact(Math.multiplyExact(a, count - 1), b), restHi), m);
            if (Math.subtractExact(qLast, qFirst) >= count) {
                return false;
            }
            long lo = Math.max(c.lo(), 0);
            long hi = Math.min(c.hi(), m - 1);
            List<long[]> whole = new ArrayList<>();
            java.util.TreeSet<Long> part = new java.util.TreeSet<>();
            for (long q = qFirst; q <= qLast && lo <= hi; q++) {
                long shifted = Math.subtractExact(b, Math.multiplyExact(q, m));
                long[] inside = solve(a, shifted, Math.subtractExact(lo, restLo), Math.subtractExact(hi, restHi), count);
                long[] touching = solve(a, shifted, Math.subtractExact(lo, restHi), Math.subtractExact(hi, restLo), count);
                if (inside != null) {
                    whole.add(inside);
                }
                if (touching != null) {
                    for (long k = touching[0]; k <= touching[1]; k++) {
                        if (inside != null && k == inside[0]) {
                            k = inside[1]; // the run held throughout (inside the rows touching)
                        } else {
                            part.add(k);
                        }
                    }
                }
            }
            // Pushed last first, so they come off the stack in row-major order.
            List<Work> cut = new ArrayList<>(whole.size() + part.size());
            for (long[] run : whole) {
                cut.add(new Work(narrow(box, d, run[0], run[1] - run[0] + 1, 1), held(w, i)));
            }
            for (long k : part) {
                cut.add(new Work(narrow(box, d, k, 1, 1), w.holds().clone()));
            }
            pushInOrder(cut, d, work);
            return true;
        } catch (ArithmeticException overflow) {
            return false;
        }
    }

    /** {@return after how many steps of {@code step} a term {@code a * d} repeats modulo {@code m}} */
    private static long period(long a, long step, long m) {
        // Asked for every constraint of every box looked at: in longs unless a * step overflows.
        long t;
        try {
            t = Math.floorMod(Math.multiplyExact(a, step), m);
        } catch (ArithmeticException overflow) {
            t = BigInteger.valueOf(a).multiply(BigInteger.valueOf(step)).mod(BigInteger.valueOf(m)).longValueExact();
        }
        if (t == 0) {
            return 1;
        }
        long x = t;
        long y = m;
        while (y != 0) {
            long r = x % y;
            x = y;
            y = r;
        }
        return m / x;
    }

    private static void mark(AffineExpr e, boolean[] seen) {
        switch (e) {
            case AffineExpr.Dim(int i) -> {
                if (i < seen.length) {
                    seen[i] = true;
                }
            }
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> {
                mark(l, seen);
                mark(r, seen);
            }
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) -> {
                mark(l, seen);
                mark(r, seen);
            }
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr r) -> {
                mark(l, seen);
                mark(r, seen);
            }
            case AffineExpr.CeilDiv(AffineExpr l, AffineExpr r) -> {
                mark(l, seen);
                mark(r, seen);
            }
            case AffineExpr.Mod(AffineExpr l, AffineExpr r) -> {
                mark(l, seen);
                mark(r, seen);
            }
            case AffineExpr.Min(AffineExpr l, AffineExpr r) -> {
                mark(l, seen);
                mark(r, seen);
            }
            case AffineExpr.Max(AffineExpr l, AffineExpr r) -> {
                mark(l, seen);
                mark(r, seen);
            }
            default -> {
            }
        }
    }

    /** {@return the values {@code e} may take over {@code box}: an interval holding all of them} */
    static Interval range(AffineExpr e, Box box) {
        return switch (e) {
            case AffineExpr.Const(long v) -> Interval.point(v);
            case AffineExpr.Dim(int i) -> i < box.rank() ? new Interval(box.start()[i], box.last(i)) : Interval.UNBOUNDED;
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> range(l, box).plus(range(r, box));
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) -> range(l, box).times(range(r, box));
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr.Const(long c)) when c != 0 -> range(l, box).floorDiv(c);
            case AffineExpr.CeilDiv(AffineExpr l, AffineExpr.Const(long c)) when c != 0 && c != Long.MIN_VALUE -> {
                Interval x = range(l, box);
                // ceil(x / c) = -floor(-x / c); an unbounded end stays unbounded.
                yield x.lo() == Long.MIN_VALUE || x.hi() == Long.MAX_VALUE ? Interval.UNBOUNDED
                        : new Interval(-x.hi(), -x.lo()).floorDiv(c).times(-1);
            }
            case AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long c)) when c != 0 -> range(l, box).mod(c);
            case AffineExpr.Min(AffineExpr l, AffineExpr r) -> range(l, box).min(range(r, box));
            case AffineExpr.Max(AffineExpr l, AffineExpr r) -> range(l, box).max(range(r, box));
            default -> Interval.UNBOUNDED;
        };
    }
}
