package dev.tensorbuf.views.indexing;

import dev.tensorbuf.views.indexing.AffineExpr.Add;
import dev.tensorbuf.views.indexing.AffineExpr.CeilDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Const;
import dev.tensorbuf.views.indexing.AffineExpr.Dim;
import dev.tensorbuf.views.indexing.AffineExpr.FloorDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Max;
import dev.tensorbuf.views.indexing.AffineExpr.Min;
import dev.tensorbuf.views.indexing.AffineExpr.Mod;
import dev.tensorbuf.views.indexing.AffineExpr.Mul;
import dev.tensorbuf.views.indexing.AffineExpr.Rt;
import dev.tensorbuf.views.indexing.AffineExpr.Sym;

/**
 * Prints expressions. XLA style: {@code +} binds at 1, {@code * / ceildiv mod} at 2; a child of
 * the same level is wrapped when it is a different operator, when it is a division or modulo on
 * the right, or a sum on the right of a subtraction. MLIR style wraps every compound operand
 * of a non-sum operator.
 */
final class ExprPrinter {
    private ExprPrinter() {}

    static String print(AffineExpr e, Names names, IndexingMap.Notation style) {
        StringBuilder sb = new StringBuilder();
        new ExprPrinter.Run(names, style, sb).expr(e);
        return sb.toString();
    }

    /** Operator classes: the printed operator of a node. */
    private enum Op { ATOM, ADD, MUL, NEG, DIV, CEILDIV, MOD }

    private static Op op(AffineExpr e) {
        return switch (e) {
            case Add a -> Op.ADD;
            case Mul(AffineExpr l, Const(long c)) when c == -1 -> Op.NEG;
            case Mul m -> Op.MUL;
            case FloorDiv f -> Op.DIV;
            case CeilDiv c -> Op.CEILDIV;
            case Mod m -> Op.MOD;
            case Dim d -> Op.ATOM;
            case Sym s -> Op.ATOM;
            case Rt r -> Op.ATOM;
            case Const c -> Op.ATOM;
            case Min m -> Op.ATOM;
            case Max m -> Op.ATOM;
        };
    }

    private static int precedence(Op op) {
        return switch (op) {
            case ADD -> 1;
            case MUL, NEG, DIV, CEILDIV, MOD -> 2;
            case ATOM -> 3;
        };
    }

    private record Run(Names names, IndexingMap.Notation style, StringBuilder sb) {
        void expr(AffineExpr e) {
            switch (e) {
                case Dim(int i) -> sb.append(names.dim(i));
                case Sym(int i) -> sb.append(names.range(i));
                case Rt(int i) -> sb.append(names.runtime(i));
                case Const(long v) -> sb.append(v);
                case Add(AffineExpr l, AffineExpr r) -> add(l, r);
                case Mul(AffineExpr l, Const(long c)) when c == -1 -> {
                    sb.append('-');
                    child(l, Op.NEG, false);
                }
                case Mul(AffineExpr l, AffineExpr r) -> binary(l, " * ", r, Op.MUL);
                case FloorDiv(AffineExpr l, AffineExpr r) ->
                        binary(l, style == IndexingMap.Notation.XLA ? " / " : " floordiv ", r, Op.DIV);
                case CeilDiv(AffineExpr l, AffineExpr r) -> binary(l, " ceildiv ", r, Op.CEILDIV);
                case Mod(AffineExpr l, AffineExpr r) -> binary(l, " mod ", r, Op.MOD);
                case Min(AffineExpr l, AffineExpr r) -> call("min(", l, r);
                case Max(AffineExpr l, AffineExpr r) -> call("max(", l, r);
            }
        }

        private void call(String name, AffineExpr l, AffineExpr r) {
            sb.append(name);
            expr(l);
            sb.append(", ");
            expr(r);
            sb.append(')');
        }

        private void add(AffineExpr l, AffineExpr r) {
            expr(l);
            if (r instanceof Const(long c) && c < 0 && c != Long.MIN_VALUE) {
                sb.append(" - ").append(-c);
                return;
            }
            if (r instanceof Mul(AffineExpr x, Const(long c)) && c < 0 && c != Long.MIN_VALUE) {
                sb.append(" - ");
                AffineExpr positive = c == -1 ? x : new Mul(x, new Const(-c));
                if (op(positive) == Op.ADD) {
                    paren(positive);
                } else {
                    expr(positive);
                }
                return;
            }
            sb.append(" + ");
            if (style == IndexingMap.Notation.MLIR && op(r) == Op.ADD) {
                paren(r);
            } else {
                expr(r);
            }
        }

        private void binary(AffineExpr l, String symbol, AffineExpr r, Op parent) {
            child(l, parent, false);
            sb.append(symbol);
            child(r, parent, true);
        }

        private void child(AffineExpr c, Op parent, boolean right) {
            Op op = op(c);
            boolean wrap;
            if (style == IndexingMap.Notation.MLIR) {
                wrap = op != Op.ATOM && !(c instanceof Const);
            } else {
                int pc = precedence(op);
                int pp = precedence(parent);
                wrap = pc < pp
                        || pc == pp && (op != parent || parent == Op.NEG
                                || right && parent != Op.MUL);
            }
            if (wrap) {
                paren(c);
            } else {
                expr(c);
            }
        }

        private void paren(AffineExpr e) {
            sb.append('(');
            expr(e);
            sb.append(')');
        }
    }
}
