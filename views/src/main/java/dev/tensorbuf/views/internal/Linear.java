package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an expression as {@code constant + sum(coefficient_i * d_i)} when it is one: the check
 * that keeps strided composition free of the general simplifier (canonical factories already
 * fold constants and like terms of affine expressions).
 */
public final class Linear {
    private Linear() {
    }

    /**
     * {@return whether {@code e} is affine in the dimensions with constant coefficients}; on true,
     * {@code coefficients} (one per dimension, zeroed here) and {@code constant[0]} hold its terms
     */
    public static boolean extract(AffineExpr e, long[] coefficients, long[] constant) {
        java.util.Arrays.fill(coefficients, 0);
        constant[0] = 0;
        try {
            return add(e, 1, coefficients, constant);
        } catch (ArithmeticException overflow) {
            return false;
        }
    }

    private static boolean add(AffineExpr e, long scale, long[] coefficients, long[] constant) {
        return switch (e) {
            case AffineExpr.Const(long v) -> {
                constant[0] = Math.addExact(constant[0], Math.multiplyExact(scale, v));
                yield true;
            }
            case AffineExpr.Dim(int i) -> {
                if (i >= coefficients.length) {
                    yield false;
                }
                coefficients[i] = Math.addExact(coefficients[i], scale);
                yield true;
            }
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> add(l, scale, coefficients, constant)
                    && add(r, scale, coefficients, constant);
            case AffineExpr.Mul(AffineExpr l, AffineExpr.Const(long c)) -> add(l, Math.multiplyExact(scale, c),
                    coefficients, constant);
            case AffineExpr.Mul(AffineExpr.Const(long c), AffineExpr r) -> add(r, Math.multiplyExact(scale, c),
                    coefficients, constant);
            default -> false;
        };
    }

    /**
     * {@return {@code (d0, ..., dn) -> (base + sum(strides_i * d_i))} over {@code [0, sizes_i)}}:
     * the map of a strided view, built when it is first asked for
     */
    public static IndexingMap toMap(long[] sizes, long[] strides, long base) {
        List<Variable> dims = new ArrayList<>(sizes.length);
        AffineExpr result = AffineExpr.constant(base);
        for (int d = 0; d < sizes.length; d++) {
            dims.add(Variable.of(0, sizes[d] - 1));
            result = result.plus(AffineExpr.dim(d).times(strides[d]));
        }
        return IndexingMap.of(dims, List.of(), List.of(result));
    }

    /** {@return whether {@code e} uses only {@code + * / mod} with constant factors and positive divisors over dimensions} */
    public static boolean isQuasiAffine(AffineExpr e) {
        return switch (e) {
            case AffineExpr.Const c -> true;
            case AffineExpr.Dim d -> true;
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> isQuasiAffine(l) && isQuasiAffine(r);
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) ->
                    (r instanceof AffineExpr.Const && isQuasiAffine(l)) || (l instanceof AffineExpr.Const && isQuasiAffine(r));
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr.Const(long c)) -> c > 0 && isQuasiAffine(l);
            case AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long c)) -> c > 0 && isQuasiAffine(l);
            default -> false;
        };
    }
}
