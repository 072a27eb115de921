package dev.tensorbuf.ops;

import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;

/** Random chains of view ops: each step applied to a view, to the reference, and spelled for NumPy. */
final class ViewOpChains {
    static final double FILL = -7;
    private static final long MAX_ELEMENTS = 4096;

    private ViewOpChains() {
    }

    record Step(String numpy, UnaryOperator<TensorView> onView, UnaryOperator<Reference> onReference) {
        @Override
        public String toString() {
            return numpy;
        }
    }

    /** A source: dims, an untiled layout, and 3 to 6 steps. */
    record Chain(long[] dims, int[] minorToMajor, List<Step> steps) {
        String sourceShape() {
            StringBuilder s = new StringBuilder("f32[");
            for (int i = 0; i < dims.length; i++) {
                s.append(i == 0 ? "" : ",").append(dims[i]);
            }
            s.append("]{");
            for (int i = 0; i < minorToMajor.length; i++) {
                s.append(i == 0 ? "" : ",").append(minorToMajor[i]);
            }
            return s.append("}").toString();
        }

        @Override
        public String toString() {
            return sourceShape() + " " + steps;
        }
    }

    static Chain random(Random rnd) {
        int rank = 1 + rnd.nextInt(3);
        long[] dims = new long[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = 1 + rnd.nextInt(4);
        }
        int[] m2m = permutation(rnd, rank);
        List<Step> steps = new ArrayList<>();
        int n = 3 + rnd.nextInt(4);
        long[] cur = dims.clone();
        if (rnd.nextInt(4) == 0) {
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
        return new Chain(dims, m2m, steps);
    }

    private static int[] permutation(Random rnd, int n) {
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
        return new Step("bitcast " + list(m2m) + " " + list(target) + " " + list(tm2m),
                v -> Bitcast.apply(v, shape), r -> r.bitcast(m2m, target, tm2m));
    }

    private static Step randomStep(Random rnd, long[] dims) {
        int rank = dims.length;
        switch (rnd.nextInt(8)) {
            case 0 -> {
                int[] perm = permutation(rnd, rank);
                return new Step("transpose " + list(perm), v -> Transpose.apply(v, perm), r -> r.transpose(perm));
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
                return new Step("slice " + list(start) + " " + list(limit) + " " + list(stride),
                        v -> Slice.apply(v, start, limit, stride), r -> r.slice(start, limit, stride));
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
                return new Step("reverse " + list(w), v -> Reverse.apply(v, w), r -> r.reverse(rev));
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
                        r -> r.broadcast(out, bd));
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
                return new Step("pad " + list(low) + " " + list(high) + " " + list(interior),
                        v -> Pad.apply(v, low, high, interior, FILL), r -> r.pad(low, high, interior, FILL));
            }
            case 5 -> {
                long count = Reference.count(dims);
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
                long[] o = out.stream().mapToLong(Long::longValue).toArray();
                return new Step("reshape " + list(o), v -> Reshape.apply(v, o), r -> r.reshape(o));
            }
            case 6 -> {
                int dim = rnd.nextInt(rank);
                boolean[] rev = new boolean[rank];
                rev[dim] = true;
                return new Step("concatenate_reversed " + dim,
                        v -> Concatenate.apply(dim, v, Reverse.apply(v, dim)),
                        r -> r.concatenate(dim, r.reverse(rev)));
            }
            default -> {
                long[] sizes = new long[rank];
                long[] offsets = new long[rank];
                for (int i = 0; i < rank; i++) {
                    sizes[i] = rnd.nextLong(dims[i] + 1);
                    offsets[i] = rnd.nextLong(dims[i] + 5) - 2;
                }
                return new Step("dynamic_slice " + list(offsets) + " " + list(sizes),
                        v -> DynamicSlice.apply(v, offsets, sizes), r -> r.dynamicSlice(offsets, sizes));
            }
        }
    }
}
