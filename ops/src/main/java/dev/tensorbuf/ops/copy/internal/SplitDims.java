package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;
import dev.tensorbuf.views.internal.Linear;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A mapped side whose map is strided once some of its dimensions are written in a mixed radix.
 * A reshape of a transpose is the common case: flattening {@code f32[4,6,5]} transposed to
 * {@code [5,4,6]} gives {@code (d0) -> ((d0 / 6) mod 4) * 30 + (d0 mod 6) * 5 + d0 / 24}, which
 * no stride describes, but with {@code d0 = 24 a + 6 b + c} it is {@code a + 30 b + 5 c}: a
 * strided copy of {@code [5,4,6]}, which the planner hands to the transpose kernels instead of
 * gathering element by element (about 10 ns an element, where the kernels run at memory speed).
 *
 * <p>The split is found by the simplifier, not by pattern: while the map is not affine, a floor
 * division or modulo by {@code c} whose operand is affine names a dimension {@code d} with
 * coefficient {@code k}, and {@code d} is split by {@code c / gcd(k, c)} (when that divides its
 * size) and the map simplified again, which removes the division over the new bounds. The
 * result is only kept when the simplified map is affine: the simplifier's rewrites keep every
 * value (property-tested), so the digits address exactly what the map does. The cuts that the
 * divisions of single dimensions name are made first, all at once, so that a reshape of a
 * rank-4 transpose costs one simplify instead of three.
 */
final class SplitDims {
    /** More splits than any reshape of a transpose of rank 8 needs; past it the map is gathered. */
    private static final int MAX_SPLITS = 16;

    /**
     * Larger expressions (long chains of reshapes whose divisions the simplifier cannot undo, as
     * {@code run} meets them) are not tried: each step simplifies the whole map again.
     */
    private static final int MAX_NODES = 256;

    private static final int CAPACITY = 512;

    /**
     * Splits found before, and maps that have none, by map: a view made per call hands an equal
     * map each time, and a search costs a compose and a simplify or two (0.1-0.3 ms).
     */
    private static final Map<IndexingMap, Optional<Split>> SPLITS = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<IndexingMap, Optional<Split>> eldest) {
            return size() > CAPACITY;
        }
    };

    /**
     * Maps gathered once without looking for a split, as their copy was small: a second copy
     * of an equal map looks.
     */
    private static final Map<IndexingMap, Boolean> SEEN = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<IndexingMap, Boolean> eldest) {
            return size() > CAPACITY;
        }
    };

    /** Forgets every split found and every map seen. For tests. */
    static void clear() {
        synchronized (SPLITS) {
            SPLITS.clear();
            SEEN.clear();
        }
    }

    /**
     * Below this many elements a first copy gathers without looking: finding a split costs
     * 0.1-0.3 ms (a compose and a simplify or two), the gather about 10 ns an element.
     */
    static final long LOOK_AT_ONCE_FROM = 16_384;

    private SplitDims() {
    }

    /**
     * A map as a strided layout over digits.
     *
     * @param digits each with its logical dimension, radix, factor (weight in that dimension's
     *     index) and element stride; radix-1 digits left out, each dimension's largest factor first
     * @param offset the element offset of index 0
     */
    record Split(List<TiledDigits.Digit> digits, long offset) {
        Split {
            digits = List.copyOf(digits);
        }
    }

    /**
     * {@return {@code map} (one result, no symbols or constraints) as strided digits, if it is
     * strided over some split; empty without looking the first time a map is copied with fewer
     * than {@link #LOOK_AT_ONCE_FROM} elements} A program that copies a small
     * general view once gathers it, as cheaply as it can; one that copies it again pays the
     * search once and runs loops from then on.
     */
    static Optional<Split> of(IndexingMap map, long elements) {
        List<long[]> dims = dims(map);
        if (dims == null) {
            return Optional.empty();
        }
        long[] coefficients = new long[dims.size()];
        long[] constant = new long[1];
        if (Linear.extract(map.results().getFirst(), coefficients, constant)) {
            // Affine as it stands: no search, nothing to keep.
            return Optional.of(split(dims, coefficients, constant[0]));
        }
        synchronized (SPLITS) {
            Optional<Split> known = SPLITS.get(map);
            if (known != null) {
                return known;
            }
            if (elements < LOOK_AT_ONCE_FROM && SEEN.put(map, Boolean.TRUE) == null) {
                return Optional.empty();
            }
        }
        Optional<Split> found = find(map, dims);
        synchronized (SPLITS) {
            SPLITS.put(map, found);
        }
        return found;
    }

    /**
     * {@return {logical dim, radix, factor} for each dimension of {@code map}, or null when the map
     * is not one offset over dimensions from 0 (no range or runtime variables, no constraints)}
     */
    private static List<long[]> dims(IndexingMap map) {
        if (map.results().size() != 1 || !map.rangeVars().isEmpty() || !map.runtimeVars().isEmpty()
                || !map.constraints().isEmpty() || map.isKnownEmpty() || map.isUndefined()) {
            return null;
        }
        List<long[]> dims = new ArrayList<>(map.dims().size());
        for (int i = 0; i < map.dims().size(); i++) {
            var bounds = map.dimBounds().get(i);
            if (bounds.lo() != 0 || bounds.hi() < 0) {
                return null;
            }
            dims.add(new long[] {i, bounds.hi() + 1, 1});
        }
        return dims;
    }

    private static Optional<Split> find(IndexingMap map, List<long[]> dims) {
        AffineExpr offset = map.results().getFirst();
        if (!Linear.isQuasiAffine(offset) || nodes(offset, 0) > MAX_NODES) {
            return Optional.empty();
        }
        try {
            return splitting(map, dims);
        } catch (ArithmeticException overflow) {
            // A factor or stride past a long: no strided form to run, the gather addresses it.
            return Optional.empty();
        }
    }

    /** {@return the nodes of {@code e}, counting stopped past {@value #MAX_NODES}} */
    private static int nodes(AffineExpr e, int seen) {
        if (seen > MAX_NODES) {
            return seen;
        }
        return switch (e) {
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> nodes(r, nodes(l, seen + 1));
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) -> nodes(r, nodes(l, seen + 1));
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr r) -> nodes(r, nodes(l, seen + 1));
            case AffineExpr.Mod(AffineExpr l, AffineExpr r) -> nodes(r, nodes(l, seen + 1));
            default -> seen + 1;
        };
    }

    /** @param dims {logical dim, radix, factor} of each dimension of {@code map}: none split yet */
    private static Optional<Split> splitting(IndexingMap map, List<long[]> dims) {
        // {logical dim, radix, factor} per dimension of the current map.
        List<long[]> digits = dims;
        IndexingMap current = map;
        List<long[]> atOnce = cutsAtOnce(map, digits);
        if (atOnce != null) {
            current = IndexingMap.compose(map, splitter(digits, atOnce));
            digits = atOnce;
        }
        for (int step = 0; ; step++) {
            current = current.simplify(IndexingMap.PointDims.PRESERVE);
            if (!current.constraints().isEmpty() || current.isKnownEmpty() || current.dims().size() != digits.size()) {
                return Optional.empty();
            }
            long[] coefficients = new long[digits.size()];
            long[] constant = new long[1];
            if (Linear.extract(current.results().getFirst(), coefficients, constant)) {
                return Optional.of(split(digits, coefficients, constant[0]));
            }
            if (step == MAX_SPLITS) {
                return Optional.empty();
            }
            long[] cut = cut(current.results().getFirst(), digits);
            if (cut == null) {
                return Optional.empty();
            }
            List<long[]> next = new ArrayList<>(digits);
            long[] old = digits.get((int) cut[0]);
            next.set((int) cut[0], new long[] {old[0], cut[1], old[2]});
            next.add((int) cut[0], new long[] {old[0], old[1] / cut[1], Math.multiplyExact(old[2], cut[1])});
            current = IndexingMap.compose(current, splitter(digits, next));
            digits = next;
        }
    }

    /**
     * {@return {dimension, radix} of the first split a floor division or modulo asks for, innermost
     * first, or null} The operand must be affine: then splitting a dimension whose coefficient
     * {@code k} has {@code c / gcd(k, c)} as a factor of its size lets the simplifier take the
     * division apart.
     */
    private static long[] cut(AffineExpr e, List<long[]> digits) {
        return switch (e) {
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> either(cut(l, digits), r, digits);
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) -> either(cut(l, digits), r, digits);
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr.Const(long c)) -> divided(l, c, digits);
            case AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long c)) -> divided(l, c, digits);
            default -> null;
        };
    }

    private static long[] either(long[] first, AffineExpr other, List<long[]> digits) {
        return first != null ? first : cut(other, digits);
    }

    private static long[] divided(AffineExpr operand, long c, List<long[]> digits) {
        long[] inner = cut(operand, digits);
        if (inner != null || c <= 1) {
            return inner;
        }
        long[] coefficients = new long[digits.size()];
        if (!Linear.extract(operand, coefficients, new long[1])) {
            return null;
        }
        for (int j = 0; j < coefficients.length; j++) {
            long k = coefficients[j];
            if (k == 0 || k == Long.MIN_VALUE) {
                continue;
            }
            // The JDK's gcd: this runs once per search, never per element.
            long radix = c / BigInteger.valueOf(k).gcd(BigInteger.valueOf(c)).longValueExact();
            long size = digits.get(j)[1];
            if (radix > 1 && radix < size && size % radix == 0) {
                return new long[] {j, radix};
            }
        }
        return null;
    }

    /**
     * {@return the map from {@code after}'s dimensions to {@code before}'s} {@code after} cuts
     * each digit of {@code before} into digits of the same logical dimension, in order, their
     * factors within the cut one's range.
     */
    private static IndexingMap splitter(List<long[]> before, List<long[]> after) {
        List<Variable> dims = new ArrayList<>(after.size());
        List<AffineExpr> results = new ArrayList<>(before.size());
        int k = 0;
        for (long[] cut : before) {
            AffineExpr sum = AffineExpr.constant(0);
            long covered = 1;
            while (covered < cut[1]) {
                long[] part = after.get(k);
                dims.add(Variable.of(0, part[1] - 1));
                sum = sum.plus(AffineExpr.dim(k).times(part[2] / cut[2]));
                covered = Math.multiplyExact(covered, part[1]);
                k++;
            }
            if (cut[1] == 1) {
                dims.add(Variable.of(0, 0));
                k++;
            }
            results.add(sum);
        }
        return IndexingMap.of(dims, List.of(), results);
    }

    /**
     * {@return every cut the map's floor divisions and modulos of single dimensions ask for, made
     * at once, or null when there are none or they do not nest} {@code (d0 / 6) mod 4} cuts
     * {@code d0} at 6 and 24: one compose and one simplify, where cutting one radix at a time
     * simplifies the map once per cut (a reshape of a rank-4 transpose has three).
     */
    private static List<long[]> cutsAtOnce(IndexingMap map, List<long[]> digits) {
        List<TreeSet<Long>> cuts = new ArrayList<>();
        for (int i = 0; i < digits.size(); i++) {
            cuts.add(new TreeSet<>());
        }
        unit(map.results().getFirst(), cuts);
        List<long[]> out = new ArrayList<>();
        boolean any = false;
        for (int i = 0; i < digits.size(); i++) {
            long size = digits.get(i)[1];
            List<Long> chain = new ArrayList<>(cuts.get(i).subSet(2L, true, Math.max(2L, size), false));
            long below = 1;
            List<long[]> parts = new ArrayList<>();
            for (long c : chain) {
                if (c % below != 0) {
                    return null;
                }
                parts.addFirst(new long[] {i, c / below, below});
                below = c;
            }
            if (size % below != 0) {
                return null;
            }
            parts.addFirst(new long[] {i, size / below, below});
            any |= parts.size() > 1;
            out.addAll(parts);
        }
        return any ? out : null;
    }

    /**
     * {@return {dim, unit} when {@code e} is a chain of floor divisions and modulos of one
     * dimension: one step of {@code e} is {@code unit} steps of that dimension (until a modulo
     * wraps)} Collects in
     * {@code cuts} where each division and modulo cuts its dimension, in the whole expression.
     */
    private static long[] unit(AffineExpr e, List<TreeSet<Long>> cuts) {
        switch (e) {
            case AffineExpr.Dim(int i) -> {
                return i < cuts.size() ? new long[] {i, 1} : null;
            }
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr.Const(long c)) when c > 0 -> {
                long[] u = unit(l, cuts);
                if (u == null) {
                    return null;
                }
                long at = Math.multiplyExact(u[1], c);
                cuts.get((int) u[0]).add(at);
                return new long[] {u[0], at};
            }
            case AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long c)) when c > 0 -> {
                long[] u = unit(l, cuts);
                if (u != null) {
                    cuts.get((int) u[0]).add(Math.multiplyExact(u[1], c));
                }
                // Steps as its operand does, up to the cut: (d0 mod 24) / 6 cuts d0 at 6.
                return u;
            }
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> {
                unit(l, cuts);
                unit(r, cuts);
                return null;
            }
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) -> {
                unit(l, cuts);
                unit(r, cuts);
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    private static Split split(List<long[]> digits, long[] strides, long offset) {
        List<TiledDigits.Digit> out = new ArrayList<>();
        for (int j = 0; j < digits.size(); j++) {
            long[] d = digits.get(j);
            if (d[1] != 1) {
                out.add(new TiledDigits.Digit((int) d[0], d[1], d[2], strides[j]));
            }
        }
        return new Split(out, offset);
    }
}
