package dev.tensorbuf.cli;

import dev.tensorbuf.views.DType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Random valid HLO modules of the ops whose positions come from values: a {@code gather}, a
 * {@code scatter}, a {@code dynamic-update-slice}, a stable {@code sort} or a {@code topk} (see
 * {@link #sort}); the first three with random dimension numbers (batching dims,
 * collapsed and inserted dims, the index vector anywhere or implied, slices of size 0), index types
 * and index values a little past both ends of the dims (clamped by a gather and a
 * dynamic-update-slice, a scatter's window skipped), at times more index rows than a gather keeps
 * as a view. The operand is at times a view (a transpose, a reverse, every second element), the
 * indices a transpose, the result reversed or sliced and copied to another layout. A scatter
 * combines by assignment or by one op, repeated indices and overlapping windows included.
 */
final class RandomIndexedModules {
    private static final List<DType> VALUE_TYPES = List.of(DType.F32, DType.S32, DType.U8, DType.BF16, DType.F16,
            DType.S8, DType.PRED, DType.F64, DType.C64);
    private static final List<DType> INDEX_TYPES = List.of(DType.S32, DType.S64, DType.S8, DType.U8, DType.U32, DType.S16);

    /**
     * A generated module and, for each index parameter, the bound its values are drawn under:
     * from -2 (0 for unsigned types) up to the bound plus 2.
     */
    record Indexed(RandomHloModules.Module module, Map<String, Long> indexBounds) {
    }

    private final Random rnd;
    private final StringBuilder entry = new StringBuilder();
    private final List<RandomHloModules.Param> params = new ArrayList<>();
    private final Map<String, Long> bounds = new TreeMap<>();
    private final Map<String, Integer> opcodes = new TreeMap<>();
    private String computations = "";
    private DType resultType;

    private RandomIndexedModules(Random rnd) {
        this.rnd = rnd;
    }

    static Indexed generate(Random rnd) {
        return new RandomIndexedModules(rnd).build();
    }

    private Indexed build() {
        DType t = VALUE_TYPES.get(rnd.nextInt(VALUE_TYPES.size()));
        int rank = 1 + rnd.nextInt(4);
        long[] dims = new long[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = 1 + rnd.nextInt(rank > 2 ? 4 : 6);
        }
        String operand = operand(t, dims);
        DType indexType = INDEX_TYPES.get(rnd.nextInt(INDEX_TYPES.size()));
        long maxDim = Arrays.stream(dims).max().orElse(1);
        resultType = t;
        long[] out = switch (rnd.nextInt(4)) {
            case 0 -> gather(t, operand, dims, indexType, maxDim);
            case 1 -> scatter(t, operand, dims, indexType, maxDim);
            case 2 -> t == DType.C64 || t == DType.PRED ? updateSlice(t, operand, dims, indexType) : sort(t, operand, dims);
            default -> updateSlice(t, operand, dims, indexType);
        };
        t = resultType;
        String root = "r";
        if (out.length > 0 && rnd.nextInt(3) == 0) {
            // A view of the result: a reverse, or a slice from the second element on.
            if (rnd.nextBoolean()) {
                line("v", t, out, null, "reverse(r), dimensions={" + join(sortedSubset(out.length, 1 + rnd.nextInt(out.length))) + "}");
                count("reverse");
            } else {
                List<String> spec = new ArrayList<>();
                long[] sliced = out.clone();
                for (int i = 0; i < out.length; i++) {
                    long start = out[i] > 1 ? 1 : 0;
                    sliced[i] = out[i] - start;
                    spec.add("[" + start + ":" + out[i] + "]");
                }
                line("v", t, sliced, null, "slice(r), slice={" + String.join(", ", spec) + "}");
                count("slice");
                out = sliced;
            }
            root = "v";
        }
        if (rnd.nextBoolean() && out.length > 0) {
            List<Integer> perm = shuffled(out.length);
            line("out", t, out, "{" + join(perm) + "}", "copy(" + root + ")");
            count("copy");
            root = "out";
        }
        String text = "HloModule indexed\n\n" + computations + "ENTRY main {\n"
                + entry.toString().replace("  " + root + " = ", "  ROOT " + root + " = ") + "}\n";
        return new Indexed(new RandomHloModules.Module(text, List.copyOf(params), Map.copyOf(opcodes), t), Map.copyOf(bounds));
    }

    /**
     * The operand: the first parameter, or a view of it: a transpose of a parameter in another
     * order, a reverse, or every second element of a longer one.
     */
    private String operand(DType t, long[] dims) {
        switch (rnd.nextInt(6)) {
            case 0 -> transposeOf("p0", "x", t, dims, stored -> param("p0", t, stored));
            case 1 -> {
                param("p0", t, dims);
                line("x", t, dims, null, "reverse(p0), dimensions={" + join(sortedSubset(dims.length, 1 + rnd.nextInt(dims.length))) + "}");
                count("reverse");
            }
            case 2 -> {
                long[] stored = new long[dims.length];
                List<String> spec = new ArrayList<>();
                for (int i = 0; i < dims.length; i++) {
                    long start = rnd.nextInt(2);
                    stored[i] = start + 2 * dims[i] - 1 + rnd.nextInt(2);
                    spec.add("[" + start + ":" + (start + 2 * dims[i] - 1) + ":2]");
                }
                param("p0", t, stored);
                line("x", t, dims, null, "slice(p0), slice={" + String.join(", ", spec) + "}");
                count("slice");
            }
            default -> {
                param("p0", t, dims);
                return "p0";
            }
        }
        return "x";
    }

    /** Index dims: the batch dims in a random order, with the index vector's dim inserted or implied. */
    private record IndexDims(long[] dims, int vectorDim, List<Integer> batchPositions, int[] batchingPositions) {
    }

    /**
     * @param batching the operand's batching dims, whose sizes the indices repeat
     * @param k the length of an index vector
     */
    private IndexDims indexDims(long[] operandDims, int[] batching, int k, boolean extraOfOne) {
        int extra = rnd.nextInt(3);
        List<Long> batch = new ArrayList<>();
        List<Integer> origin = new ArrayList<>();   // -1 for an extra dim, else which batching dim
        for (int i = 0; i < extra; i++) {
            // At times more rows than a gather keeps as a view (IndexedMoves.MAX_VIEW_ROWS, 256).
            batch.add(extraOfOne ? 1L : i == 0 && rnd.nextInt(10) == 0 ? 200L + rnd.nextInt(200) : 1L + rnd.nextInt(4));
            origin.add(-1);
        }
        for (int j = 0; j < batching.length; j++) {
            batch.add(operandDims[batching[j]]);
            origin.add(j);
        }
        List<Integer> order = shuffled(batch.size());
        boolean implied = k == 1 && rnd.nextInt(3) == 0;
        int vectorDim = implied ? batch.size() : rnd.nextInt(batch.size() + 1);
        long[] dims = new long[batch.size() + (implied ? 0 : 1)];
        List<Integer> positions = new ArrayList<>();
        int[] batchingPositions = new int[batching.length];
        for (int i = 0, b = 0; i < dims.length; i++) {
            if (i == vectorDim && !implied) {
                dims[i] = k;
                continue;
            }
            int which = order.get(b++);
            dims[i] = batch.get(which);
            positions.add(i);
            if (origin.get(which) >= 0) {
                batchingPositions[origin.get(which)] = i;
            }
        }
        return new IndexDims(dims, vectorDim, positions, batchingPositions);
    }

    private long[] gather(DType t, String operand, long[] dims, DType indexType, long maxDim) {
        int rank = dims.length;
        int[] batching = batchingDims(rank);
        List<Integer> indexed = indexedDims(rank, batching);
        List<Integer> collapsed = new ArrayList<>();
        long[] sizes = new long[rank];
        for (int i = 0; i < rank; i++) {
            boolean isBatching = contains(batching, i);
            if (!isBatching && rnd.nextInt(3) == 0) {
                collapsed.add(i);
            }
            sizes[i] = isBatching || collapsed.contains(i) ? 1 : rnd.nextInt(12) == 0 ? 0 : 1 + rnd.nextInt((int) dims[i]);
        }
        IndexDims idx = indexDims(dims, batching, indexed.size(), false);
        String indices = indexParam(indexType, idx.dims(), maxDim);
        List<Integer> offsets = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            if (!contains(batching, i) && !collapsed.contains(i)) {
                offsets.add(i);
            }
        }
        int outRank = idx.batchPositions().size() + offsets.size();
        List<Integer> offsetDims = sortedSubset(outRank, offsets.size());
        long[] out = new long[outRank];
        for (int i = 0, o = 0, b = 0; i < outRank; i++) {
            out[i] = offsetDims.contains(i) ? sizes[offsets.get(o++)] : idx.dims()[idx.batchPositions().get(b++)];
        }
        String rhs = "gather(" + operand + ", " + indices + "), offset_dims={" + join(offsetDims) + "}, collapsed_slice_dims={"
                + join(collapsed) + "}, start_index_map={" + join(indexed) + "}, index_vector_dim=" + idx.vectorDim()
                + ", slice_sizes={" + join(Arrays.stream(sizes).boxed().toList()) + "}"
                + batchingAttributes("operand_batching_dims", batching, "start_indices_batching_dims", idx.batchingPositions());
        line("r", t, out, null, rhs);
        count("gather");
        if (t == DType.BF16) {
            // XLA gathers bf16 in f32, and its conversion back flushes a denormal in some shapes and
            // keeps it in others (jax 0.10.2, seed 10: [4,4,3] by batching dim 2; RELIABILITY).
            params.replaceAll(p -> p.name().equals("p0") ? new RandomHloModules.Param("p0", t, p.dims(), false) : p);
        }
        return out;
    }

    private long[] scatter(DType t, String operand, long[] dims, DType indexType, long maxDim) {
        int rank = dims.length;
        int[] batching = batchingDims(rank);
        List<Integer> indexed = indexedDims(rank, batching);
        List<Integer> inserted = new ArrayList<>();
        List<Integer> window = new ArrayList<>();
        List<Long> windowSizes = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            if (contains(batching, i)) {
                continue;
            }
            if (rnd.nextInt(3) == 0) {
                inserted.add(i);
            } else {
                window.add(i);
                windowSizes.add(rnd.nextInt(12) == 0 ? 0L : 1L + rnd.nextInt((int) dims[i]));
            }
        }
        // With no index vector every update of a batch lands in one place, and XLA's CPU code then
        // combines each with the operand's value, not with the others (jax 0.10.2: add of 10 and
        // 100 to 1 gives 101, not 111), which run does not mirror: those updates come one a place.
        IndexDims idx = indexDims(dims, batching, indexed.size(), indexed.isEmpty());
        String indices = indexParam(indexType, idx.dims(), maxDim);
        int updatesRank = idx.batchPositions().size() + window.size();
        List<Integer> windowDims = sortedSubset(updatesRank, window.size());
        long[] updates = new long[updatesRank];
        for (int i = 0, w = 0, b = 0; i < updatesRank; i++) {
            updates[i] = windowDims.contains(i) ? windowSizes.get(w++) : idx.dims()[idx.batchPositions().get(b++)];
        }
        param("u", t, updates);
        String combiner = combiner(t);
        String rhs = "scatter(" + operand + ", " + indices + ", u), update_window_dims={" + join(windowDims)
                + "}, inserted_window_dims={" + join(inserted) + "}, scatter_dims_to_operand_dims={" + join(indexed)
                + "}, index_vector_dim=" + idx.vectorDim()
                + batchingAttributes("input_batching_dims", batching, "scatter_indices_batching_dims", idx.batchingPositions())
                + ", to_apply=" + combiner;
        line("r", t, dims, null, rhs);
        count("scatter");
        return dims;
    }

    /**
     * A stable sort along a random dim of the operand and up to two more of other types, by one
     * key or two in jax's lexicographic chain, ascending or descending, floats compared in total
     * order as they are or as jax maps them (NaNs to one NaN, -0 to +0); or a {@code topk} along
     * the last dim. The result is one of the outputs.
     */
    private long[] sort(DType t, String operand, long[] dims) {
        int rank = dims.length;
        if (rnd.nextInt(4) == 0) {
            long k = 1 + rnd.nextInt((int) dims[rank - 1]);
            long[] out = dims.clone();
            out[rank - 1] = k;
            boolean values = rnd.nextBoolean();
            entry.append("  tk = (").append(RandomHloModules.shape(t, out)).append(", ").append(RandomHloModules.shape(DType.S32, out))
                    .append(") topk(").append(operand).append("), k=").append(k).append(", largest=").append(rnd.nextBoolean()).append('\n');
            resultType = values ? t : DType.S32;
            line("r", resultType, out, null, "get-tuple-element(tk), index=" + (values ? 0 : 1));
            count("topk");
            if (t == DType.BF16) {
                // XLA orders bf16 in f32 converted back, which flushes denormals with AVX512-BF16 (as in sorts).
                params.replaceAll(p -> p.name().equals("p0") ? new RandomHloModules.Param("p0", t, p.dims(), false) : p);
            }
            return out;
        }
        List<String> names = new ArrayList<>(List.of(operand));
        List<DType> types = new ArrayList<>(List.of(t));
        int extra = rnd.nextInt(3);
        for (int i = 1; i <= extra; i++) {
            DType u = VALUE_TYPES.get(rnd.nextInt(VALUE_TYPES.size() - 1));   // not c64, which run does not sort
            param("w" + i, u, dims);   // not "s1", which XLA reads as a type
            names.add("w" + i);
            types.add(u);
        }
        List<Integer> keyable = IntStream.range(0, types.size())
                .filter(i -> types.get(i) != DType.C64 && types.get(i) != DType.PRED).boxed().collect(Collectors.toList());
        Collections.shuffle(keyable, rnd);
        List<Integer> keys = keyable.subList(0, Math.min(keyable.size(), 1 + rnd.nextInt(2)));
        StringBuilder c = new StringBuilder("order {\n");
        for (int i = 0; i < types.size(); i++) {
            String s1 = types.get(i).xlaName() + "[]";
            c.append("  a").append(i).append(" = ").append(s1).append(" parameter(").append(2 * i).append(")\n");
            c.append("  b").append(i).append(" = ").append(s1).append(" parameter(").append(2 * i + 1).append(")\n");
        }
        for (int j = 0; j < keys.size(); j++) {
            int k = keys.get(j);
            DType kt = types.get(k);
            String kind = kt.kind() == DType.Kind.FLOAT ? "TOTALORDER" : kt.kind() == DType.Kind.UNSIGNED ? "UNSIGNED" : "SIGNED";
            String a = "a" + k;
            String b = "b" + k;
            // bf16 always as jax maps it, which reads a denormal as zero: XLA compares bf16 keys in
            // f32 converted back, and AVX512-BF16's conversion flushes denormals where others keep them
            // (jax 0.10.2, indexed seed 46; RELIABILITY).
            if (kt.kind() == DType.Kind.FLOAT && (rnd.nextBoolean() || kt == DType.BF16)) {
                a = canonical(c, kt, a, j);
                b = canonical(c, kt, b, j);
            }
            String dir = rnd.nextBoolean() ? "LT" : "GT";
            c.append(keys.size() == 1 ? "  ROOT k" : "  k").append(j).append(" = pred[] compare(").append(a).append(", ").append(b)
                    .append("), direction=").append(dir).append(", type=").append(kind).append('\n');
            if (j == 0 && keys.size() > 1) {
                c.append("  e0 = pred[] compare(").append(a).append(", ").append(b).append("), direction=EQ, type=").append(kind).append('\n');
            }
        }
        if (keys.size() > 1) {
            c.append("  t1 = pred[] and(e0, k1)\n  ROOT o = pred[] or(k0, t1)\n");
        }
        computations += c.append("}\n\n");
        int d = rnd.nextInt(rank);
        StringBuilder tuple = new StringBuilder("(");
        for (int i = 0; i < types.size(); i++) {
            tuple.append(i == 0 ? "" : ", ").append(RandomHloModules.shape(types.get(i), dims));
        }
        tuple.append(')');
        String rhs = "sort(" + String.join(", ", names) + "), dimensions={" + d + "}, is_stable=true, to_apply=order";
        if (types.size() == 1) {
            line("r", t, dims, null, rhs);
        } else {
            entry.append("  st = ").append(tuple).append(' ').append(rhs).append('\n');
            int pick = rnd.nextInt(types.size());
            resultType = types.get(pick);
            line("r", resultType, dims, null, "get-tuple-element(st), index=" + pick);
        }
        count("sort");
        return dims;
    }

    /** {@return the name of {@code x} as jax compares a float: every NaN one NaN, -0 as +0} */
    private static String canonical(StringBuilder c, DType t, String x, int key) {
        String s = t.xlaName() + "[]";
        String p = x + "c" + key;
        c.append("  ").append(p).append("n = pred[] compare(").append(x).append(", ").append(x).append("), direction=NE\n");
        c.append("  ").append(p).append("nan = ").append(s).append(" constant(nan)\n");
        c.append("  ").append(p).append("z = ").append(s).append(" constant(0)\n");
        c.append("  ").append(p).append("e = pred[] compare(").append(x).append(", ").append(p).append("z), direction=EQ\n");
        c.append("  ").append(p).append("s = ").append(s).append(" select(").append(p).append("e, ").append(p).append("z, ").append(x).append(")\n");
        c.append("  ").append(p).append(" = ").append(s).append(" select(").append(p).append("n, ").append(p).append("nan, ").append(p).append("s)\n");
        return p;
    }

    /** {@return the name of a scalar computation that combines an old value with an update} */
    private String combiner(DType t) {
        List<String> ops = switch (t.kind()) {
            case BOOLEAN -> List.of("assign", "or", "and", "xor");
            case COMPLEX -> List.of("assign");   // run refuses a complex scatter by an op, naming it
            case FLOAT -> List.of("assign", "add", "maximum", "minimum");
            default -> List.of("assign", "add", "maximum", "minimum", "multiply");
        };
        String op = ops.get(rnd.nextInt(ops.size()));
        String s = t.xlaName() + "[]";
        boolean swapped = rnd.nextBoolean();
        String body = op.equals("assign") ? "  ROOT b = " + s + " parameter(1)\n"
                : "  b = " + s + " parameter(1)\n  ROOT c = " + s + " " + op + "(" + (swapped ? "b, a" : "a, b") + ")\n";
        computations += "combine {\n  a = " + s + " parameter(0)\n" + body + "}\n\n";
        return "combine";
    }

    private long[] updateSlice(DType t, String operand, long[] dims, DType indexType) {
        long[] sizes = new long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            sizes[i] = rnd.nextInt(12) == 0 ? 0 : 1 + rnd.nextInt((int) dims[i]);
        }
        param("u", t, sizes);
        List<String> starts = new ArrayList<>();
        for (int i = 0; i < dims.length; i++) {
            String name = "st" + i;   // not "s1", which XLA reads as a type
            if (rnd.nextBoolean()) {
                long v = rnd.nextLong(dims[i] + 4) - (indexType.kind() == DType.Kind.UNSIGNED ? 0 : 2);
                line(name, indexType, new long[0], null, "constant(" + v + ")");
                count("constant");
            } else {
                indexParam(name, indexType, new long[0], dims[i]);
            }
            starts.add(name);
        }
        line("r", t, dims, null, "dynamic-update-slice(" + operand + ", u, " + String.join(", ", starts) + ")");
        count("dynamic-update-slice");
        return dims;
    }

    /** {@return operand dims an index vector addresses, in a random order: some of those not batching} */
    private List<Integer> indexedDims(int rank, int[] batching) {
        List<Integer> rest = notIn(rank, batching);
        List<Integer> indexed = new ArrayList<>(rest);
        Collections.shuffle(indexed, rnd);
        return indexed.subList(0, rnd.nextInt(rest.size() + 1));
    }

    private int[] batchingDims(int rank) {
        if (rank < 2 || rnd.nextInt(3) > 0) {
            return new int[0];
        }
        return sortedSubset(rank, 1 + rnd.nextInt(rank - 1)).stream().mapToInt(Integer::intValue).toArray();
    }

    private static String batchingAttributes(String operandName, int[] operandDims, String indicesName, int[] indicesDims) {
        if (operandDims.length == 0) {
            return "";
        }
        return ", " + operandName + "={" + join(IntStream.of(operandDims).boxed().toList()) + "}, " + indicesName + "={"
                + join(IntStream.of(indicesDims).boxed().toList()) + "}";
    }

    /** {@return an index parameter, or at times a transpose of one stored in another order} */
    private String indexParam(DType t, long[] dims, long bound) {
        String name = "i" + bounds.size();
        if (dims.length < 2 || rnd.nextInt(4) > 0) {
            indexParam(name, t, dims, bound);
            return name;
        }
        return transposeOf(name, "t" + name, t, dims, stored -> indexParam(name, t, stored, bound));
    }

    /**
     * {@return {@code name}, a transpose to {@code dims} of the parameter {@code param}, which
     * {@code declare} declares with its dims in a random order}
     */
    private String transposeOf(String param, String name, DType t, long[] dims, java.util.function.Consumer<long[]> declare) {
        List<Integer> perm = shuffled(dims.length);
        long[] stored = new long[dims.length];
        int[] back = new int[dims.length];
        for (int i = 0; i < dims.length; i++) {
            stored[i] = dims[perm.get(i)];
            back[perm.get(i)] = i;
        }
        declare.accept(stored);
        line(name, t, dims, null, "transpose(" + param + "), dimensions={" + join(IntStream.of(back).boxed().toList()) + "}");
        count("transpose");
        return name;
    }

    private void indexParam(String name, DType t, long[] dims, long bound) {
        line(name, t, dims, null, "parameter(" + params.size() + ")");
        params.add(new RandomHloModules.Param(name, t, dims, false));
        bounds.put(name, bound);
    }

    private void param(String name, DType t, long[] dims) {
        line(name, t, dims, null, "parameter(" + params.size() + ")");
        params.add(new RandomHloModules.Param(name, t, dims, true));
    }

    private void line(String name, DType t, long[] dims, String layout, String rhs) {
        entry.append("  ").append(name).append(" = ").append(RandomHloModules.shape(t, dims))
                .append(layout == null ? "" : layout).append(' ').append(rhs).append('\n');
    }

    private void count(String op) {
        opcodes.merge(op, 1, Integer::sum);
    }

    private List<Integer> shuffled(int n) {
        return RandomHloModules.shuffled(rnd, n);
    }

    /** {@return {@code k} of {@code 0..n-1}, ascending} */
    private List<Integer> sortedSubset(int n, int k) {
        List<Integer> picked = new ArrayList<>(shuffled(n).subList(0, k));
        Collections.sort(picked);
        return picked;
    }

    private static List<Integer> notIn(int rank, int[] dims) {
        return IntStream.range(0, rank).filter(i -> !contains(dims, i)).boxed().collect(Collectors.toList());
    }

    private static boolean contains(int[] values, int v) {
        return IntStream.of(values).anyMatch(x -> x == v);
    }

    private static String join(List<? extends Number> values) {
        return RandomHloModules.join(values);
    }
}
