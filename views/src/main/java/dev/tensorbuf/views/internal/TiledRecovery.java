package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Recovers the XLA tiled layout a floor-division-and-modulo map is, from the map alone: the
 * minor-to-major order, the tiles and, for a view that reads part of such a layout, the box
 * start and element offset ({@link MapForm.Tiled.Layout}). A transpose of a tiled view, the same
 * layout built from text, and the layout's own view give the same map, so the same answer.
 *
 * <p>Steps. (1) The offset must be a sum of terms of one dimension each (XLA's tiling without
 * {@code *} places each logical dimension's digits independently); each dimension's
 * floor-division and modulo constants are its digit boundaries ("cuts"), and the constant inside
 * them its box start. (2) Each digit's stride is read by evaluating the map with that digit at 1;
 * sorted by stride, the digits are the physical order, and the ratio of neighbouring strides a
 * digit's physical radix (padding included). (3) Tile levels are peeled from the minor end: a
 * level's inner digits are a suffix, each paired with its outer digit (the next digit of its
 * dimension) or standing alone (an outer of one tile, or an inner of tile entry 1), and the
 * level's tile entries are the inners' radices. The search is bounded; (4) every candidate is
 * re-derived as a map and must simplify to the given map, or agree with it along every axis
 * (exact for a sum of one-dimension terms), before it is returned. A map none fits, or that the
 * bounded search does not reach, gets no layout: it is then a {@code Tiled} form without one,
 * which is slower, never wrong.
 */
public final class TiledRecovery {
    /** Candidate layouts tried (search nodes) before giving up: the maps XLA makes need a handful. */
    private static final int SEARCH_BUDGET = 1500;
    private static final int MAX_LEVELS = 3;
    private static final int MAX_RANK = 8;
    /** Axis points the exact check walks; beyond them the re-derived map must simplify to the map. */
    private static final long AXIS_CHECK_LIMIT = 1 << 16;

    private TiledRecovery() {
    }

    /** A run of one logical dimension's digits: factors {@code [factor, factor * radix)} (physical radix). */
    private record Entry(int dim, long factor, long radix) {
    }

    /** What the peeling found: the base order (major first) and the tiles, innermost level first. */
    private record Peeled(List<Entry> base, List<long[]> tilesInnermostFirst) {
    }

    /**
     * {@return the XLA layout {@code map} is, verified, or empty} {@code map} is simplified, has
     * one result, no symbols or constraints, and a domain {@code [0, n_i)} per dimension.
     */
    public static Optional<MapForm.Tiled.Layout> recover(IndexingMap map) {
        try {
            return new Search(map).run();
        } catch (ArithmeticException | IllegalArgumentException | IndexOutOfBoundsException unrepresentable) {
            // A candidate whose sizes overflow or that XLA's rules refuse is not the map's layout.
            return Optional.empty();
        }
    }

    private static final class Search {
        private final IndexingMap map;
        private final AffineExpr offset;
        private final int rank;
        private final long[] sizes;
        private final long[] start;
        private final boolean[] started;
        private final List<TreeSet<Long>> cuts = new ArrayList<>();
        private int budget = SEARCH_BUDGET;
        private int maxLevels;
        /** Per entry of the physical order, its digit's own radix (what the strides leave above it is padding or a size-1 dimension). */
        private final List<Long> own = new ArrayList<>();
        private boolean wholePossible;
        private MapForm.Tiled.Layout partial;

        Search(IndexingMap map) {
            this.map = map;
            this.offset = map.results().getFirst();
            this.rank = map.dims().size();
            this.sizes = new long[rank];
            for (int i = 0; i < rank; i++) {
                sizes[i] = map.dims().get(i).bounds().hi() + 1;
                cuts.add(new TreeSet<>(List.of(1L)));
            }
            this.start = new long[rank];
            this.started = new boolean[rank];
        }

        Optional<MapForm.Tiled.Layout> run() {
            if (rank == 0 || rank > MAX_RANK || Arrays.stream(sizes).anyMatch(n -> n <= 0)) {
                return Optional.empty();
            }
            for (AffineExpr term : terms(offset, new ArrayList<>())) {
                if (!readTerm(term)) {
                    return Optional.empty();
                }
            }
            // The box start is read off the map and the offset follows from it: a whole layout needs
            // both 0, and only then is the search worth continuing past a partial answer.
            wholePossible = Arrays.stream(start).allMatch(x -> x == 0)
                    && offset.evaluate(new long[rank], new long[0], new long[0]) == 0;
            List<Entry> physical = physicalOrder();
            if (physical == null) {
                return Optional.empty();
            }
            Optional<MapForm.Tiled.Layout> whole = search(physical);
            if (whole.isPresent() || !wholePossible) {
                return whole.isPresent() ? whole : Optional.ofNullable(partial);
            }
            // Room above a digit is tile padding, or a digit that is always 0 here, tiled between
            // two others: a size-1 dimension's (u8[23,1]{0,1:T(2,2)}: d1's inner digit sits between
            // d0's two), or a small dimension's upper digit (2 rows in T(8,128)(2,1): the row
            // pair index). Try each at each place, once each.
            int variants = 0;
            for (int k = 1; k < physical.size(); k++) {
                Entry e = physical.get(k);
                long mine = own.get(k);
                if (e.radix() <= mine || e.radix() % mine != 0) {
                    continue;
                }
                for (int u = 0; u < rank && variants < 8; u++) {
                    long factor = 1;
                    for (int j = 0; j < physical.size(); j++) {
                        if (physical.get(j).dim() == u) {
                            factor = Math.max(factor, Math.multiplyExact(physical.get(j).factor(), own.get(j)));
                        }
                    }
                    if (factor == 1 && sizes[u] != 1) {
                        continue;
                    }
                    List<Entry> variant = new ArrayList<>(physical);
                    variant.set(k, new Entry(e.dim(), e.factor(), mine));
                    variant.add(k, new Entry(u, factor, e.radix() / mine));
                    variants++;
                    budget = SEARCH_BUDGET / 4;
                    whole = search(variant);
                    if (whole.isPresent()) {
                        return whole;
                    }
                }
            }
            return Optional.ofNullable(partial);
        }

        /** Fewest tile levels first: the plainest layout that is the map (T(2,2), not an equivalent T(6,2)(2,1)). */
        private Optional<MapForm.Tiled.Layout> search(List<Entry> physical) {
            for (int levels = 0; levels <= MAX_LEVELS && budget >= 0; levels++) {
                maxLevels = levels;
                Optional<MapForm.Tiled.Layout> whole = peel(physical, new ArrayList<>(), 0);
                if (whole.isPresent()) {
                    return whole;
                }
            }
            return Optional.empty();
        }

        /** The addends of a sum. */
        private static List<AffineExpr> terms(AffineExpr e, List<AffineExpr> out) {
            if (e instanceof AffineExpr.Add(AffineExpr l, AffineExpr r)) {
                terms(l, out);
                terms(r, out);
            } else {
                out.add(e);
            }
            return out;
        }

        /** Reads one addend: a constant, or a constant times a digit chain of one dimension. */
        private boolean readTerm(AffineExpr e) {
            return switch (e) {
                case AffineExpr.Const c -> true;
                case AffineExpr.Dim d -> true;
                case AffineExpr.Mul(AffineExpr l, AffineExpr.Const c) -> readTerm(l);
                case AffineExpr.Mul(AffineExpr.Const c, AffineExpr r) -> readTerm(r);
                case AffineExpr.FloorDiv f -> chain(e) != null;
                case AffineExpr.Mod m -> chain(e) != null;
                default -> false;
            };
        }

        /**
         * {@return {dim, unit} of a digit chain ({@code (d + c) / q}, {@code (d + c) mod q}, nested),
         * recording its cuts and the box start {@code c}; null when it is none}
         */
        private long[] chain(AffineExpr e) {
            switch (e) {
                case AffineExpr.FloorDiv(AffineExpr l, AffineExpr.Const(long q)) when q > 0 -> {
                    long[] in = chain(l);
                    if (in == null) {
                        return null;
                    }
                    long cut = Math.multiplyExact(in[1], q);
                    cuts.get((int) in[0]).add(cut);
                    return new long[] {in[0], cut};
                }
                case AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long q)) when q > 0 -> {
                    long[] in = chain(l);
                    if (in == null) {
                        return null;
                    }
                    cuts.get((int) in[0]).add(Math.multiplyExact(in[1], q));
                    return in;
                }
                default -> {
                    long[] coefficients = new long[rank];
                    long[] constant = new long[1];
                    if (!Linear.extract(e, coefficients, constant)) {
                        return null;
                    }
                    int dim = -1;
                    for (int i = 0; i < rank; i++) {
                        if (coefficients[i] != 0) {
                            if (dim >= 0 || coefficients[i] != 1) {
                                return null;
                            }
                            dim = i;
                        }
                    }
                    if (dim < 0 || constant[0] < 0 || started[dim] && start[dim] != constant[0]) {
                        return null;
                    }
                    started[dim] = true;
                    start[dim] = constant[0];
                    return new long[] {dim, 1};
                }
            }
        }

        /** The offset at {@code d_dim = x - start_dim}, every other dimension at 0. */
        private long along(int dim, long x) {
            long[] point = new long[rank];
            point[dim] = x - start[dim];
            return offset.evaluate(point, new long[0], new long[0]);
        }

        /** {@return the digits sorted by stride, major first, each with its physical radix; null when they are no mixed radix} */
        private List<Entry> physicalOrder() {
            List<long[]> digits = new ArrayList<>(); // {dim, factor, logical radix (0: top), stride}
            for (int i = 0; i < rank; i++) {
                Long[] c = cuts.get(i).toArray(Long[]::new);
                long top = start[i] + sizes[i]; // one past the largest x
                long zero = along(i, 0);
                for (int j = 0; j < c.length; j++) {
                    if (j + 1 < c.length && c[j + 1] % c[j] != 0) {
                        return null;
                    }
                    if (c[j] >= top) {
                        break; // this digit and those above are 0 over the box
                    }
                    long stride = along(i, c[j]) - zero;
                    boolean isTop = j + 1 == c.length || c[j + 1] >= top;
                    long radix = isTop ? Math.ceilDiv(top, c[j]) : c[j + 1] / c[j];
                    if (stride != 0 && radix > 1) {
                        digits.add(new long[] {i, c[j], radix, stride, isTop ? 1 : 0});
                    } else if (stride != 0 || radix > 1 && sizes[i] > 1 && !isTop) {
                        return null;
                    }
                }
            }
            if (digits.isEmpty()) {
                return null;
            }
            digits.sort((a, b) -> Long.compare(b[3], a[3]));
            List<Entry> out = new ArrayList<>();
            own.clear();
            for (int k = 0; k < digits.size(); k++) {
                long[] d = digits.get(k);
                if (d[3] <= 0 || k > 0 && d[3] == digits.get(k - 1)[3]) {
                    return null;
                }
                long radix = d[2];
                if (k > 0) {
                    long above = digits.get(k - 1)[3];
                    if (above % d[3] != 0 || above / d[3] < d[2]) {
                        return null; // overlapping digits: no layout places them
                    }
                    radix = above / d[3];
                }
                out.add(new Entry((int) d[0], d[1], radix));
                own.add(d[2]);
            }
            long minor = digits.getLast()[3];
            if (minor != 1) {
                // The most minor physical dimension reads only 0 here: a dimension of size 1 tiled
                // wider (bf16[16,1] in T(8,128)), whose tile gives the stride.
                int phantom = -1;
                for (int i = 0; i < rank && phantom < 0; i++) {
                    if (sizes[i] == 1 && !started[i]) {
                        phantom = i;
                    }
                }
                if (phantom < 0) {
                    return null;
                }
                out.add(new Entry(phantom, 1, minor));
                own.add(minor);
            }
            return out;
        }

        /** Peels tile levels off the minor end of {@code list}; returns the first whole layout that checks. */
        private Optional<MapForm.Tiled.Layout> peel(List<Entry> list, List<long[]> tiles, int depth) {
            if (--budget < 0) {
                return Optional.empty();
            }
            MapForm.Tiled.Layout found = depth == maxLevels ? atBase(list, tiles) : null;
            if (found != null) {
                if (found.isWhole(map)) {
                    return Optional.of(found);
                }
                if (partial == null) {
                    partial = found;
                }
                if (!wholePossible) {
                    return Optional.of(found);
                }
            }
            if (depth == maxLevels) {
                return Optional.empty();
            }
            for (int q = 1; q <= Math.min(list.size(), 6); q++) {
                List<Entry> inners = list.subList(list.size() - q, list.size());
                List<Entry> rest = list.subList(0, list.size() - q);
                for (int mask = (1 << q) - 1; mask >= 0; mask--) {
                    Optional<MapForm.Tiled.Layout> r = level(rest, inners, mask, tiles, depth);
                    if (r.isPresent()) {
                        return r;
                    }
                    if (budget < 0) {
                        return Optional.empty();
                    }
                }
            }
            return Optional.empty();
        }

        /** One level: inners whose bit is set in {@code mask} pair with their outer digit in {@code rest}. */
        private Optional<MapForm.Tiled.Layout> level(List<Entry> rest, List<Entry> inners, int mask, List<long[]> tiles,
                                                     int depth) {
            int q = inners.size();
            int[] partner = new int[q];
            int first = rest.size();
            for (int k = 0; k < q; k++) {
                partner[k] = -1;
                if ((mask & (1 << k)) == 0) {
                    continue;
                }
                Entry in = inners.get(k);
                int best = -1;
                for (int p = 0; p < rest.size(); p++) {
                    Entry o = rest.get(p);
                    if (o.dim() == in.dim() && o.factor() > in.factor()
                            && (best < 0 || o.factor() < rest.get(best).factor())) {
                        best = p;
                    }
                }
                if (best < 0) {
                    return Optional.empty();
                }
                Entry o = rest.get(best);
                if (o.factor() % in.factor() != 0 || o.factor() / in.factor() > in.radix()) {
                    return Optional.empty();
                }
                for (int j = 0; j < k; j++) {
                    if (partner[j] == best) {
                        return Optional.empty();
                    }
                }
                partner[k] = best;
                first = Math.min(first, best);
            }
            // Outers of the level: the partners and whatever lies between them and the inners
            // (outers of tile entry 1). Paired outers keep their inners' order.
            int last = -1;
            for (int k = 0; k < q; k++) {
                if (partner[k] >= 0) {
                    if (partner[k] < last) {
                        return Optional.empty();
                    }
                    last = partner[k];
                }
            }
            if (first == rest.size()) {
                // No pairs: the level only reorders, which needs outers of tile entry 1 before it.
                for (int p = rest.size() - 1; p >= 0; p--) {
                    Optional<MapForm.Tiled.Layout> r = merged(rest, inners, partner, p, tiles, depth);
                    if (r.isPresent() || budget < 0) {
                        return r;
                    }
                }
                return Optional.empty();
            }
            return merged(rest, inners, partner, first, tiles, depth);
        }

        /** Interleaves the level's entries (outers from {@code first}, inners) in every order their pairs allow. */
        private Optional<MapForm.Tiled.Layout> merged(List<Entry> rest, List<Entry> inners, int[] partner, int first,
                                                      List<long[]> tiles, int depth) {
            int[] innerOf = new int[rest.size()];
            Arrays.fill(innerOf, -1);
            for (int k = 0; k < partner.length; k++) {
                if (partner[k] >= 0) {
                    innerOf[partner[k]] = k;
                }
            }
            return interleave(rest, inners, innerOf, first, first, 0, new ArrayList<>(), new ArrayList<>(), tiles, depth);
        }

        /**
         * Builds the pre-level list: the outer block ({@code rest[first..]}) and the inners are one
         * sequence of virtual dimensions, outers in order and inners in order; a pair is one of them.
         */
        private Optional<MapForm.Tiled.Layout> interleave(List<Entry> rest, List<Entry> inners, int[] innerOf, int first,
                                                          int p, int k, List<Entry> seq, List<Long> tile,
                                                          List<long[]> tiles, int depth) {
            if (budget < 0) {
                return Optional.empty();
            }
            if (p == rest.size() && k == inners.size()) {
                if (tile.stream().allMatch(t -> t == 1)) {
                    return Optional.empty();
                }
                List<Entry> next = new ArrayList<>(rest.subList(0, first));
                next.addAll(seq);
                List<Entry> before = new ArrayList<>(rest);
                before.addAll(inners);
                if (next.equals(before)) {
                    return Optional.empty(); // the level changed nothing
                }
                List<long[]> more = new ArrayList<>(tiles);
                more.add(tile.stream().mapToLong(Long::longValue).toArray());
                return peel(next, more, depth + 1);
            }
            if (p < rest.size() && innerOf[p] < 0) {
                // An outer of tile entry 1.
                Optional<MapForm.Tiled.Layout> r = interleave(rest, inners, innerOf, first, p + 1, k,
                        with(seq, rest.get(p)), with(tile, 1L), tiles, depth);
                if (r.isPresent() || budget < 0) {
                    return r;
                }
            }
            if (k < inners.size()) {
                Entry in = inners.get(k);
                if (p < rest.size() && innerOf[p] == k) {
                    Entry out = rest.get(p);
                    long t = out.factor() / in.factor();
                    Entry merged = new Entry(in.dim(), in.factor(), Math.multiplyExact(out.radix(), t));
                    return interleave(rest, inners, innerOf, first, p + 1, k + 1, with(seq, merged), with(tile, t),
                            tiles, depth);
                }
                if (!pairedInner(innerOf, k)) {
                    // An inner whose outer is a single tile (absent from the offset).
                    return interleave(rest, inners, innerOf, first, p, k + 1, with(seq, in), with(tile, in.radix()),
                            tiles, depth);
                }
            }
            return Optional.empty();
        }

        private static boolean pairedInner(int[] innerOf, int k) {
            for (int v : innerOf) {
                if (v == k) {
                    return true;
                }
            }
            return false;
        }

        private static <T> List<T> with(List<T> list, T item) {
            List<T> out = new ArrayList<>(list);
            out.add(item);
            return out;
        }

        /** {@return the checked layout when {@code list} is one whole dimension each, else null} */
        private MapForm.Tiled.Layout atBase(List<Entry> list, List<long[]> tilesInnermostFirst) {
            boolean[] seen = new boolean[rank];
            for (Entry e : list) {
                if (e.factor() != 1 || seen[e.dim()]) {
                    return null;
                }
                seen[e.dim()] = true;
            }
            List<Integer> majorFirst = new ArrayList<>();
            for (int i = 0; i < rank; i++) {
                if (!seen[i]) {
                    if (sizes[i] != 1) {
                        return null; // a dimension the offset ignores (a broadcast) is in no layout
                    }
                    majorFirst.add(i);
                }
            }
            int missing = majorFirst.size();
            for (Entry e : list) {
                majorFirst.add(e.dim());
            }
            long[] firstTile = tilesInnermostFirst.isEmpty() ? new long[0] : tilesInnermostFirst.getLast();
            long[] reach = new long[rank];
            for (int i = 0; i < rank; i++) {
                reach[i] = start[i] + sizes[i];
            }
            // Two guesses at the whole array's dims: the box's reach (a whole view's own dims),
            // then, for a slice of a bigger array, the fewest elements that fill as many tiles
            // as the strides say each dimension has.
            long[] wider = reach.clone();
            for (int k = 0; k < list.size(); k++) {
                Entry e = list.get(k);
                int position = missing + k;
                int tilePosition = position - (majorFirst.size() - firstTile.length);
                long t = tilePosition >= 0 ? firstTile[tilePosition] : 1;
                long need = reach[e.dim()];
                if (e.radix() < need || t > 1 && e.radix() % t != 0) {
                    return null;
                }
                if (position > 0) { // the most major dimension's size is the box's reach
                    wider[e.dim()] = t <= 1 ? e.radix() : Math.max(need, e.radix() - t + 1);
                }
            }
            int[] minorToMajor = new int[rank];
            for (int j = 0; j < rank; j++) {
                minorToMajor[j] = majorFirst.get(rank - 1 - j);
            }
            List<Tile> tiles = new ArrayList<>();
            for (int l = tilesInnermostFirst.size() - 1; l >= 0; l--) {
                tiles.add(Tile.of(tilesInnermostFirst.get(l)));
            }
            XlaLayout layout = XlaLayout.of(minorToMajor).withTiles(tiles);
            MapForm.Tiled.Layout found = candidate(layout, reach);
            return found != null || Arrays.equals(reach, wider) ? found : candidate(layout, wider);
        }

        /** {@return the layout over {@code dims} if it is the map, else null} */
        private MapForm.Tiled.Layout candidate(XlaLayout layout, long[] dims) {
            ArrayShape shape = ArrayShape.of(DType.U8, dims).withLayout(layout);
            long base = offset.evaluate(new long[rank], new long[0], new long[0]) - shape.linearIndex(start.clone());
            if (base < 0) {
                return null;
            }
            MapForm.Tiled.Layout candidate = new MapForm.Tiled.Layout(layout, Arrays.stream(dims).boxed().toList(),
                    Arrays.stream(start).boxed().toList(), base);
            return matches(candidate, shape) ? candidate : null;
        }

        /** The candidate's map, re-derived, is this map: the same text once simplified, or the same offsets on every axis. */
        private boolean matches(MapForm.Tiled.Layout candidate, ArrayShape shape) {
            // Cheap probes first: each cut and the box's ends along each axis.
            for (int i = 0; i < rank; i++) {
                for (long c : cuts.get(i)) {
                    for (long x : new long[] {c - 1, c, c + 1, start[i], start[i] + sizes[i] - 1}) {
                        if (x >= start[i] && x < start[i] + sizes[i] && !sameAt(i, x, shape, candidate.offset())) {
                            return false;
                        }
                    }
                }
            }
            long points = 0;
            for (long n : sizes) {
                points += n;
            }
            if (points > AXIS_CHECK_LIMIT) {
                // Too many points to walk: the re-derived map must simplify to this one.
                return rederived(candidate).equals(map);
            }
            // Both maps are sums of one-dimension terms, so agreeing on every axis through the
            // box's corner is agreeing everywhere; cheaper than simplifying the re-derived map.
            for (int i = 0; i < rank; i++) {
                for (long x = start[i]; x < start[i] + sizes[i]; x++) {
                    if (!sameAt(i, x, shape, candidate.offset())) {
                        return false;
                    }
                }
            }
            return true;
        }

        private boolean sameAt(int dim, long x, ArrayShape shape, long base) {
            long[] index = start.clone();
            index[dim] = x;
            return along(dim, x) == base + shape.linearIndex(index);
        }

        private IndexingMap rederived(MapForm.Tiled.Layout candidate) {
            return MapForms.simplified(candidate.toIndexingMap(map.dims().stream().map(v -> v.bounds().hi() + 1)
                    .mapToLong(Long::longValue).toArray()));
        }
    }

    /** {@return {@code offset + layout(d + start)} over {@code [0, sizes_i)}: a recovered layout's map, not simplified} */
    public static IndexingMap toIndexingMap(MapForm.Tiled.Layout layout, long[] sizes) {
        ArrayShape shape = ArrayShape.of(DType.U8, layout.dims().stream().mapToLong(Long::longValue).toArray())
                .withLayout(layout.layout());
        IndexingMap full = TiledLayoutMaps.toIndexingMap(shape);
        List<Variable> box = new ArrayList<>(sizes.length);
        List<AffineExpr> shifted = new ArrayList<>(sizes.length);
        for (int i = 0; i < sizes.length; i++) {
            box.add(Variable.of(0, sizes[i] - 1));
            shifted.add(AffineExpr.dim(i).plus(layout.start().get(i)));
        }
        IndexingMap composed = IndexingMap.compose(full, IndexingMap.of(box, List.of(), shifted));
        return IndexingMap.of(composed.dims(), composed.rangeVars(),
                List.of(composed.results().getFirst().plus(layout.offset())));
    }
}
