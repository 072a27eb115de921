package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.Interval;

/** Interval evaluation of an expression over per-dimension bounds that the caller narrows (for searches). */
final class Ranges {
    private Ranges() {
    }

    static Interval of(AffineExpr e, long[] lo, long[] hi) {
        return switch (e) {
            case AffineExpr.Const(long v) -> Interval.point(v);
            case AffineExpr.Dim(int i) -> new Interval(lo[i], hi[i]);
            case AffineExpr.Add(AffineExpr l, AffineExpr r) -> of(l, lo, hi).plus(of(r, lo, hi));
            case AffineExpr.Mul(AffineExpr l, AffineExpr r) -> of(l, lo, hi).times(of(r, lo, hi));
            case AffineExpr.FloorDiv(AffineExpr l, AffineExpr.Const(long c)) -> of(l, lo, hi).floorDiv(c);
            case AffineExpr.Mod(AffineExpr l, AffineExpr.Const(long c)) -> of(l, lo, hi).mod(c);
            case AffineExpr.Min(AffineExpr l, AffineExpr r) -> of(l, lo, hi).min(of(r, lo, hi));
            case AffineExpr.Max(AffineExpr l, AffineExpr r) -> of(l, lo, hi).max(of(r, lo, hi));
            case AffineExpr.CeilDiv(AffineExpr l, AffineExpr.Const(long c)) -> {
                Interval x = of(l, lo, hi).plus(Interval.point(c > 0 ? c - 1 : c + 1));
                yield x.floorDiv(c);
            }
            default -> Interval.UNBOUNDED;
        };
    }
}
