package dev.tensorbuf.ops.indexing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.StringJoiner;

/**
 * Random small fusions for property tests: one parameter, then two to four steps drawn from
 * transpose, reverse, slice, pad, reshape, reduce, broadcast, concatenate (of a value with
 * itself), add (of a value and its reverse: two paths to one input) and a variadic reduce read
 * through get-tuple-element; the root is the last value, or a tuple of it and an earlier one.
 */
final class FusionGenerator {
    private FusionGenerator() {
    }

    private record Value(String name, long[] dims) {
    }

    static String random(Random rnd, String add, String add2) {
        StringBuilder body = new StringBuilder();
        List<Value> values = new ArrayList<>();
        Value p = new Value("p0", InputToOutputPropertyTest.dims(rnd, 1 + rnd.nextInt(3), 4));
        body.append("  p0 = f32").append(InputToOutputPropertyTest.text(p.dims)).append(" parameter(0)\n");
        body.append("  zero = f32[] constant(0)\n");
        values.add(p);
        int steps = 2 + rnd.nextInt(3);
        Value v = p;
        for (int i = 0; i < steps; i++) {
            v = step(rnd, v, "v" + i, body);
            values.add(v);
        }
        String root;
        String shape;
        if (values.size() > 2 && rnd.nextBoolean()) {
            Value other = values.get(1 + rnd.nextInt(values.size() - 2));
            body.append("  ROOT out = (f32").append(InputToOutputPropertyTest.text(v.dims)).append(", f32")
                    .append(InputToOutputPropertyTest.text(other.dims)).append(") tuple(").append(v.name)
                    .append(", ").append(other.name).append(")\n");
            shape = "(f32" + InputToOutputPropertyTest.text(v.dims) + ", f32" + InputToOutputPropertyTest.text(other.dims) + ")";
        } else {
            body.append("  ROOT out = f32").append(InputToOutputPropertyTest.text(v.dims)).append(" copy(").append(v.name)
                    .append(")\n");
            shape = "f32" + InputToOutputPropertyTest.text(v.dims);
        }
        root = "  ROOT fusion = " + shape + " fusion(p0), kind=kLoop, calls=f\n";
        return "HloModule m\n" + add + add2 + "f {\n" + body + "}\nENTRY e {\n  p0 = f32"
                + InputToOutputPropertyTest.text(p.dims) + " parameter(0)\n" + root + "}";
    }

    private static Value step(Random rnd, Value in, String name, StringBuilder body) {
        long[] d = in.dims;
        int rank = d.length;
        int choice = rnd.nextInt(10);
        String t;
        long[] out;
        switch (choice) {
            case 0 -> {
                List<Integer> perm = new ArrayList<>();
                for (int i = 0; i < rank; i++) {
                    perm.add(i);
                }
                Collections.shuffle(perm, rnd);
                out = new long[rank];
                for (int i = 0; i < rank; i++) {
                    out[i] = d[perm.get(i)];
                }
                t = "transpose(" + in.name + "), dimensions={" + join(perm) + "}";
            }
            case 1 -> {
                out = d.clone();
                t = "reverse(" + in.name + "), dimensions={" + rnd.nextInt(rank) + "}";
            }
            case 2 -> {
                out = new long[rank];
                StringJoiner s = new StringJoiner(", ");
                for (int i = 0; i < rank; i++) {
                    long start = rnd.nextInt((int) d[i]);
                    long limit = start + 1 + rnd.nextInt((int) (d[i] - start));
                    long stride = 1 + rnd.nextInt(2);
                    out[i] = (limit - start + stride - 1) / stride;
                    s.add("[" + start + ":" + limit + ":" + stride + "]");
                }
                t = "slice(" + in.name + "), slice={" + s + "}";
            }
            case 3 -> {
                out = new long[rank];
                StringJoiner s = new StringJoiner("x");
                for (int i = 0; i < rank; i++) {
                    long lo = rnd.nextInt(3);
                    long hi = rnd.nextInt(2);
                    long interior = rnd.nextInt(2);
                    out[i] = lo + hi + d[i] + (d[i] - 1) * interior;
                    s.add(lo + "_" + hi + "_" + interior);
                }
                t = "pad(" + in.name + ", zero), padding=" + s;
            }
            case 4 -> {
                long n = Arrays.stream(d).reduce(1, Math::multiplyExact);
                out = rank > 1 ? new long[] {n} : n % 2 == 0 && n > 2 ? new long[] {2, n / 2} : new long[] {1, n};
                t = "reshape(" + in.name + ")";
            }
            case 5 -> {
                if (rank < 2) {
                    return step(rnd, in, name, body);
                }
                int dim = rnd.nextInt(rank);
                out = drop(d, dim);
                t = "reduce(" + in.name + ", zero), dimensions={" + dim + "}, to_apply=add";
            }
            case 6 -> {
                if (rank > 2) {
                    return step(rnd, in, name, body);
                }
                int at = rnd.nextInt(rank + 1);
                out = new long[rank + 1];
                List<Integer> kept = new ArrayList<>();
                for (int i = 0, j = 0; i <= rank; i++) {
                    if (i == at) {
                        out[i] = 2;
                    } else {
                        out[i] = d[j++];
                        kept.add(i);
                    }
                }
                t = "broadcast(" + in.name + "), dimensions={" + join(kept) + "}";
            }
            case 7 -> {
                int dim = rnd.nextInt(rank);
                out = d.clone();
                out[dim] = 2 * d[dim];
                t = "concatenate(" + in.name + ", " + in.name + "), dimensions={" + dim + "}";
            }
            case 8 -> {
                body.append("  ").append(name).append("r = f32").append(InputToOutputPropertyTest.text(d))
                        .append(" reverse(").append(in.name).append("), dimensions={").append(rnd.nextInt(rank)).append("}\n");
                out = d.clone();
                t = "add(" + in.name + ", " + name + "r)";
            }
            default -> {
                if (rank < 2) {
                    return step(rnd, in, name, body);
                }
                int dim = rnd.nextInt(rank);
                long[] r = drop(d, dim);
                String rs = "f32" + InputToOutputPropertyTest.text(r);
                body.append("  ").append(name).append("n = f32").append(InputToOutputPropertyTest.text(d))
                        .append(" negate(").append(in.name).append(")\n");
                body.append("  ").append(name).append("t = (").append(rs).append(", ").append(rs).append(") reduce(")
                        .append(in.name).append(", ").append(name).append("n, zero, zero), dimensions={").append(dim)
                        .append("}, to_apply=add2\n");
                out = r;
                t = "get-tuple-element(" + name + "t), index=" + rnd.nextInt(2);
            }
        }
        body.append("  ").append(name).append(" = f32").append(InputToOutputPropertyTest.text(out)).append(' ')
                .append(t).append('\n');
        return new Value(name, out);
    }

    private static long[] drop(long[] d, int dim) {
        long[] out = new long[d.length - 1];
        for (int i = 0, j = 0; i < d.length; i++) {
            if (i != dim) {
                out[j++] = d[i];
            }
        }
        return out;
    }

    private static String join(List<Integer> xs) {
        StringJoiner j = new StringJoiner(",");
        xs.forEach(x -> j.add(String.valueOf(x)));
        return j.toString();
    }
}
