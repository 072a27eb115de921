package dev.tensorbuf.ops;

import dev.tensorbuf.ops.internal.Bitcast;
import dev.tensorbuf.ops.internal.Broadcast;
import dev.tensorbuf.ops.internal.Concatenate;
import dev.tensorbuf.ops.internal.DynamicSlice;
import dev.tensorbuf.ops.internal.Pad;
import dev.tensorbuf.ops.internal.Reshape;
import dev.tensorbuf.ops.internal.Reverse;
import dev.tensorbuf.ops.internal.Slice;
import dev.tensorbuf.ops.internal.Transpose;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.XlaShape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;

/**
 * Random chains of view ops: each step applied to a view, to the reference, spelled for NumPy,
 * and applied on the general path (the op's {@code IndexingMap} composed into an eagerly built
 * view map: {@link TensorView#remap(dev.tensorbuf.views.indexing.IndexingMap, long...)},
 * {@link TensorView#padded(dev.tensorbuf.views.indexing.IndexingMap, long[], TensorView)},
 * {@link TensorView#over}), which the fast views must equal element by element.
 */
final class ViewOpChains {
    static final double FILL = -7;
    private static final long MAX_ELEMENTS = 4096;

    private ViewOpChains() {
    }

    record Step(String numpy, UnaryOperator<TensorView> onView, UnaryOperator<Reference> onReference,
                UnaryOperator<TensorView> onGeneral) {
        @Override
        public String toString() {
            return numpy;
        }
    }

    /** A source: dims, a layout (untiled, or tiled by {@code tile}, e.g. {@code "T(2,2)"}), and 3 to 6 steps. */
    record Chain(long[] dims, int[] minorToMajor, String tile, List<Step> steps) {
        String sourceShape() {
            StringBuilder s = new StringBuilder("f32[");
            for (int i = 0; i < dims.length; i++) {
                s.append(i == 0 ? "" : ",").append(dims[i]);
            }
            s.append("]{");
            for (int i = 0; i < minorToMajor.length; i++) {
                s.append(i == 0 ? "" : ",").append(minorToMajor[i]);
            }
            return s.append(tile.isEmpty() ? "" : ":" + tile).append("}").toString();
        }

        @Override
        public String toString() {
            return sourceShape() + " " + steps;
        }
    }

    /** {@return a chain on an untiled source, a bitcast first in a quarter of them} */
    static Chain random(Random rnd) {
        return random(rnd, "");
    }

    /** {@return a chain on a source tiled by one of a few tiles (no bitcast: the reference knows untiled layouts only)} */
    static Chain randomTiled(Random rnd) {
        String[] tiles = {"T(2)", "T(2,2)", "T(4,2)", "T(2,1)", "T(2,2)(1,2)"};
        return random(rnd, tiles[rnd.nextInt(tiles.length)]);
    }

    private static Chain random(Random rnd, String tile) {
        int rank = 1 + rnd.nextInt(3);
        long[] dims = new long[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = 1 + rnd.nextInt(4);
        }
        int[] m2m = permutation(rnd, rank);
        List<Step> steps = new ArrayList<>();
        int n = 3 + rnd.nextInt(4);
        long[] cur = dims.clone();
        if (tile.isEmpty() && rnd.nextInt(4) == 0) {
            Step b = bitcast(rnd, cur, m2m);
            steps.add(b);
            cur = b.onReference().apply(new Reference(cur, new double[(int) Reference.count(cur)])).dims();
        }
        while (steps.size() < n) {
            Step s = randomStep(rnd, cur);
            if (s == null) {
                continue;
            }
            long[] next = s.onReference().apply(new Reference(cur, new double[(int) Reference.count(cur)])).dims();
            if (Reference.count(next) > MAX_ELEMENTS) {
                continue;
            }
            steps.add(s);
            cur = next;
        }
        return new Chain(dims, m2m, tile, steps);
    }

    /** {@return {@code -Dtensorbuf.seed} or a new seed, printed with the way to rerun {@code test} with it} */
    static long seed(String test) {
        String fixed = System.getProperty("tensorbuf.seed");
        long seed = fixed != null ? Long.parseLong(fixed) : System.nanoTime();
        System.out.println(test + ": seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        return seed;
    }

    /** {@return random dims of {@code count} elements in all: up to three random divisors, then the rest} */
    static long[] regroup(Random rnd, long count) {
        List<Long> out = new ArrayList<>();
        long left = count;
        while (left > 1 && out.size() < 3) {
            List<Long> divisors = new ArrayList<>();
            for (long d = 2; d <= left; d++) {
                if (left % d == 0) {
                    divisors.add(d);
                }
            }
            long d = divisors.get(rnd.nextInt(divisors.size()));
            out.add(d);
            left /= d;
        }
        if (left != 1 || out.isEmpty()) {
            out.add(left);
        }
        return Extents.toArray(out);
    }

    static int[] permutation(Random rnd, int n) {
        List<Integer> p = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            p.add(i);
        }
        java.util.Collections.shuffle(p, rnd);
        return p.stream().mapToInt(Integer::intValue).toArray();
    }

    private static String list(long[] v) {
        return Arrays.toString(v).replace(" ", "");
    }

    private static String list(int[] v) {
        return Arrays.toString(v).replace(" ", "");
    }

    private static Step bitcast(Random rnd, long[] dims, int[] m2m) {
        long count = Reference.count(dims);
        long a = 1;
        for (long d = 1; d <= count; d++) {
            if (count % d == 0 && rnd.nextInt(3) == 0) {
                a = d;
            }
        }
        long[] target = {a, count / a};
        int[] tm2m = permutation(rnd, 2);
        String shape = "f32[" + target[0] + "," + target[1] + "]{" + tm2m[0] + "," + tm2m[1] + "}";
        ArrayShape parsed = (ArrayShape) XlaShape.parse(shape);
        return new Step("bitcast " + list(m2m) + " " + list(target) + " " + list(tm2m),
                v -> Bitcast.apply(v, shape), r -> r.bitcast(m2m, target, tm2m),
                v -> TensorView.over(new ViewMap.Single(v.buffer(), parsed.toIndexingMap()), v.access(), target));
    }

    private static Step randomStep(Random rnd, long[] dims) {
        int rank = dims.length;
        switch (rnd.nextInt(8)) {
            case 0 -> {
                int[] perm = permutation(rnd, rank);
                long[] out = new long[rank];
                for (int i = 0; i < rank; i++) {
                    out[i] = dims[perm[i]];
                }
                return new Step("transpose " + list(perm), v -> Transpose.apply(v, perm), r -> r.transpose(perm),
                        v -> v.remap(Transpose.outputToInput(out, perm), out));
            }
            case 1 -> {
                long[] start = new long[rank];
                long[] limit = new long[rank];
                long[] stride = new long[rank];
                for (int i = 0; i < rank; i++) {
                    start[i] = rnd.nextLong(dims[i] + 1);
                    limit[i] = start[i] + rnd.nextLong(dims[i] - start[i] + 1);
                    stride[i] = 1 + rnd.nextInt(2);
                }
                long[] out = new long[rank];
                for (int i = 0; i < rank; i++) {
                    out[i] = Math.ceilDiv(limit[i] - start[i], stride[i]);
                }
                return new Step("slice " + list(start) + " " + list(limit) + " " + list(stride),
                        v -> Slice.apply(v, start, limit, stride), r -> r.slice(start, limit, stride),
                        v -> v.remap(Slice.outputToInput(out, start, stride), out));
            }
            case 2 -> {
                boolean[] rev = new boolean[rank];
                List<Integer> which = new ArrayList<>();
                for (int i = 0; i < rank; i++) {
                    if (rnd.nextBoolean()) {
                        rev[i] = true;
                        which.add(i);
                    }
                }
                int[] w = which.stream().mapToInt(Integer::intValue).toArray();
                return new Step("reverse " + list(w), v -> Reverse.apply(v, w), r -> r.reverse(rev),
                        v -> v.remap(Reverse.outputToInput(dims, rev), dims));
            }
            case 3 -> {
                if (rank >= 4) {
                    return null;
                }
                int at = rnd.nextInt(rank + 1);
                long[] out = new long[rank + 1];
                int[] bd = new int[rank];
                for (int i = 0, j = 0; i <= rank; i++) {
                    if (i == at) {
                        out[i] = 1 + rnd.nextInt(3);
                    } else {
                        out[i] = dims[j];
                        bd[j++] = i;
                    }
                }
                return new Step("broadcast " + list(out) + " " + list(bd), v -> Broadcast.apply(v, out, bd),
                        r -> r.broadcast(out, bd), v -> v.remap(Broadcast.outputToInput(out, bd), out));
            }
            case 4 -> {
                long[] low = new long[rank];
                long[] high = new long[rank];
                long[] interior = new long[rank];
                for (int i = 0; i < rank; i++) {
                    interior[i] = rnd.nextInt(2);
                    low[i] = rnd.nextInt(4) - 1;
                    high[i] = rnd.nextInt(4) - 1;
                    long size = low[i] + high[i] + dims[i] + Math.max(dims[i] - 1, 0) * interior[i];
                    if (size < 0) {
                        low[i] = 0;
                        high[i] = 0;
                    }
                }
                long[] out = new long[rank];
                for (int i = 0; i < rank; i++) {
                    out[i] = low[i] + high[i] + dims[i] + Math.max(dims[i] - 1, 0) * interior[i];
                }
                // A pad that only crops reads no fill: Pad.apply makes it the slice it is, one piece fewer.
                boolean cropsOnly = true;
                for (int i = 0; i < rank; i++) {
                    cropsOnly &= low[i] <= 0 && high[i] <= 0 && interior[i] == 0;
                }
                boolean crop = cropsOnly;
                return new Step("pad " + list(low) + " " + list(high) + " " + list(interior),
                        v -> Pad.apply(v, low, high, interior, FILL), r -> r.pad(low, high, interior, FILL),
                        v -> crop ? v.remap(Pad.outputToInput(dims, low, high, interior), out)
                                : v.padded(Pad.outputToInput(dims, low, high, interior), out, TensorView.scalar(DType.F32, FILL)));
            }
            case 5 -> {
                long[] o = regroup(rnd, Reference.count(dims));
                return new Step("reshape " + list(o), v -> Reshape.apply(v, o), r -> r.reshape(o),
                        v -> v.remap(Reshape.outputToInput(dims, o), o));
            }
            case 6 -> {
                int dim = rnd.nextInt(rank);
                boolean[] rev = new boolean[rank];
                rev[dim] = true;
                long[] out = dims.clone();
                out[dim] = 2 * dims[dim];
                return new Step("concatenate_reversed " + dim,
                        v -> Concatenate.apply(dim, v, Reverse.apply(v, dim)),
                        r -> r.concatenate(dim, r.reverse(rev)),
                        v -> concatenateOnGeneralPath(dim, out, v, v.remap(Reverse.outputToInput(dims, rev), dims)));
            }
            default -> {
                long[] sizes = new long[rank];
                long[] offsets = new long[rank];
                for (int i = 0; i < rank; i++) {
                    sizes[i] = rnd.nextLong(dims[i] + 1);
                    offsets[i] = rnd.nextLong(dims[i] + 5) - 2;
                }
                long[] ones = new long[rank];
                Arrays.fill(ones, 1);
                long[] start = DynamicSlice.clampedStarts(dims, offsets, sizes);
                return new Step("dynamic_slice " + list(offsets) + " " + list(sizes),
                        v -> DynamicSlice.apply(v, offsets, sizes), r -> r.dynamicSlice(offsets, sizes),
                        v -> v.remap(Slice.outputToInput(sizes, start, ones), sizes));
            }
        }
    }

    /** {@return the parts joined as the general path joins them: each part's map composed with its slab's, now} */
    private static TensorView concatenateOnGeneralPath(int dim, long[] out, TensorView a, TensorView b) {
        long n = a.dims().get(dim);
        if (n == 0) {
            return a.remap(Transpose.outputToInput(out, identity(out.length)), out);
        }
        ViewMap joined = new ViewMap.Concatenated(List.of(a.map().remap(Concatenate.outputToPart(out, dim, 0, n)),
                b.map().remap(Concatenate.outputToPart(out, dim, n, n))));
        return TensorView.over(joined, ElementAccess.of(DType.F32), out);
    }

    private static int[] identity(int rank) {
        int[] p = new int[rank];
        for (int i = 0; i < rank; i++) {
            p[i] = i;
        }
        return p;
    }
}
