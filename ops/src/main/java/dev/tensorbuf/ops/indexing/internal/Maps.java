package dev.tensorbuf.ops.indexing.internal;

import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Small builders shared by the per-op indexing classes. */
final class Maps {
    private Maps() {
    }

    static AffineExpr d(int i) {
        return AffineExpr.dim(i);
    }

    static AffineExpr s(int i) {
        return AffineExpr.sym(i);
    }

    static AffineExpr rt(int i) {
        return AffineExpr.rt(i);
    }

    static AffineExpr c(long v) {
        return AffineExpr.constant(v);
    }

    static List<Long> dims(ArrayShape shape) {
        return shape.dims();
    }

    /** {@return variables {@code [0, n-1]} for each size} */
    static List<Variable> box(List<Long> sizes) {
        List<Variable> out = new ArrayList<>();
        for (long n : sizes) {
            out.add(Variable.of(0, n - 1));
        }
        return out;
    }

    static IndexingMap map(List<Long> dimSizes, List<Long> rangeSizes, List<AffineExpr> results) {
        return IndexingMap.of(box(dimSizes), box(rangeSizes), List.of(), results, Map.of());
    }

    static IndexingMap map(List<Variable> dims, List<Variable> ranges, List<Variable> rts, List<AffineExpr> results,
                           Map<AffineExpr, Interval> constraints) {
        return IndexingMap.of(dims, ranges, rts, results, constraints);
    }

    static IndexingMap identity(ArrayShape shape) {
        List<AffineExpr> res = new ArrayList<>();
        for (int i = 0; i < shape.rank(); i++) {
            res.add(d(i));
        }
        return map(dims(shape), List.of(), res);
    }

    /** {@return {@code (d...) -> ()} on the shape's box: reading a scalar for every element} */
    static IndexingMap toScalar(ArrayShape shape) {
        return map(dims(shape), List.of(), List.of());
    }

    /** {@return {@code ()[s...] -> (s...)}: a scalar that reaches every element of the shape} */
    static IndexingMap fromScalar(ArrayShape shape) {
        List<AffineExpr> res = new ArrayList<>();
        for (int i = 0; i < shape.rank(); i++) {
            res.add(s(i));
        }
        return map(List.of(), dims(shape), res);
    }

    static Set<OperandIndexing> one(IndexingMap m) {
        Set<OperandIndexing> set = new LinkedHashSet<>();
        set.add(OperandIndexing.of(m));
        return set;
    }

    static Set<OperandIndexing> one(OperandIndexing o) {
        Set<OperandIndexing> set = new LinkedHashSet<>();
        set.add(o);
        return set;
    }

    static Set<OperandIndexing> undefined() {
        return one(IndexingMap.undefined());
    }

    static Map<AffineExpr, Interval> constraints() {
        return new LinkedHashMap<>();
    }

    static long[] longs(List<Long> values) {
        return Extents.toArray(values);
    }

    /** {@return dimension numbers as ints} @throws ArithmeticException for one past {@code int} */
    static int[] ints(List<Long> values) {
        int[] out = new int[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.toIntExact(values.get(i));
        }
        return out;
    }
}
