package dev.tensorbuf.views.indexing;

import java.util.List;

/**
 * A symbolic integer expression over dimension variables {@code d_i}, range variables
 * {@code s_i} and runtime variables {@code rt_i}, as in XLA's indexing maps.
 *
 * <p>The factories ({@link #dim}, {@link #constant}, {@link #plus}, {@link #times},
 * {@link #floorDiv}, ...) build the canonical form: constants are folded, sums are flattened
 * left-nested with like terms combined and the constant last, a constant factor sits on the
 * right of a product and distributes over a sum ({@code -(d0 + 1)} is {@code -d0 - 1}), and
 * {@code x / 1}, {@code x mod 1}, {@code (x * 6) / 6}, {@code min(x, x)} fold away. The
 * record constructors build a node exactly as given; use them only to print a particular
 * tree. Subtraction and negation are products with {@code -1}, as in XLA. Division rounds
 * towards negative infinity ({@link Math#floorDiv}), ceiling division towards positive infinity,
 * for every sign; {@code x mod c} is, as in XLA, the remainder modulo {@code |c|}, never
 * negative: {@code 5 mod -3} is 2, {@code -5 mod -3} is 1 (so for a negative c it is not
 * {@code x - (x / c) * c}).
 *
 * {@snippet :
 * AffineExpr e = AffineExpr.dim(0).times(4).plus(AffineExpr.dim(1)).floorDiv(4);
 * e.toString();                                  // "(d0 * 4 + d1) / 4"
 * e.evaluate(new long[] {2, 3}, new long[0], new long[0]); // 2
 * }
 */
public sealed interface AffineExpr
        permits AffineExpr.Dim, AffineExpr.Sym, AffineExpr.Rt, AffineExpr.Const, AffineExpr.Add,
                AffineExpr.Mul, AffineExpr.FloorDiv, AffineExpr.CeilDiv, AffineExpr.Mod,
                AffineExpr.Min, AffineExpr.Max {

    /** Dimension variable {@code d<index>}. @param index 0-based position among the dimensions */
    record Dim(int index) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        public Dim {
            Exprs.checkIndex(index, "dimension");
        }
    }

    /** Range (symbol) variable {@code s<index>}. @param index 0-based position among range vars */
    record Sym(int index) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        public Sym {
            Exprs.checkIndex(index, "range variable");
        }
    }

    /** Runtime variable {@code rt<index>}. @param index 0-based position among runtime vars */
    record Rt(int index) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        public Rt {
            Exprs.checkIndex(index, "runtime variable");
        }
    }

    /** Integer constant. @param value the value */
    record Const(long value) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }
    }

    /** {@code lhs + rhs}. @param lhs left operand @param rhs right operand */
    record Add(AffineExpr lhs, AffineExpr rhs) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        @Override
        public int hashCode() {
            return Exprs.boundedHash(this);
        }

        public Add {
            Exprs.checkOperands(lhs, rhs);
        }
    }

    /** {@code lhs * rhs}. @param lhs left operand @param rhs right operand */
    record Mul(AffineExpr lhs, AffineExpr rhs) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        @Override
        public int hashCode() {
            return Exprs.boundedHash(this);
        }

        public Mul {
            Exprs.checkOperands(lhs, rhs);
        }
    }

    /** {@code lhs / rhs} rounded towards negative infinity. @param lhs dividend @param rhs divisor */
    record FloorDiv(AffineExpr lhs, AffineExpr rhs) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        @Override
        public int hashCode() {
            return Exprs.boundedHash(this);
        }

        public FloorDiv {
            Exprs.checkOperands(lhs, rhs);
        }
    }

    /** {@code lhs ceildiv rhs} rounded towards positive infinity. @param lhs dividend @param rhs divisor */
    record CeilDiv(AffineExpr lhs, AffineExpr rhs) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        @Override
        public int hashCode() {
            return Exprs.boundedHash(this);
        }

        public CeilDiv {
            Exprs.checkOperands(lhs, rhs);
        }
    }

    /** {@code lhs mod rhs} with the sign of {@code rhs}. @param lhs dividend @param rhs modulus */
    record Mod(AffineExpr lhs, AffineExpr rhs) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        @Override
        public int hashCode() {
            return Exprs.boundedHash(this);
        }

        public Mod {
            Exprs.checkOperands(lhs, rhs);
        }
    }

    /** {@code min(lhs, rhs)}. @param lhs first operand @param rhs second operand */
    record Min(AffineExpr lhs, AffineExpr rhs) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        @Override
        public int hashCode() {
            return Exprs.boundedHash(this);
        }

        public Min {
            Exprs.checkOperands(lhs, rhs);
        }
    }

    /** {@code max(lhs, rhs)}. @param lhs first operand @param rhs second operand */
    record Max(AffineExpr lhs, AffineExpr rhs) implements AffineExpr {
        @Override
        public String toString() {
            return toText();
        }

        @Override
        public int hashCode() {
            return Exprs.boundedHash(this);
        }

        public Max {
            Exprs.checkOperands(lhs, rhs);
        }
    }

    /** {@return dimension variable {@code d<index>}} @param index 0-based */
    static AffineExpr dim(int index) {
        return new Dim(index);
    }

    /** {@return range variable {@code s<index>}} @param index 0-based */
    static AffineExpr sym(int index) {
        return new Sym(index);
    }

    /** {@return runtime variable {@code rt<index>}} @param index 0-based */
    static AffineExpr rt(int index) {
        return new Rt(index);
    }

    /** {@return the constant {@code value}} @param value the value */
    static AffineExpr constant(long value) {
        return new Const(value);
    }

    /** {@return the canonical {@code this + other}} @param other the addend */
    default AffineExpr plus(AffineExpr other) {
        return Exprs.add(this, other);
    }

    /** {@return the canonical {@code this + c}} @param c the constant addend */
    default AffineExpr plus(long c) {
        return Exprs.add(this, new Const(c));
    }

    /** {@return the canonical {@code this - other}} @param other the subtrahend */
    default AffineExpr minus(AffineExpr other) {
        return Exprs.add(this, Exprs.mul(other, new Const(-1)));
    }

    /** {@return the canonical {@code this - c}} @param c the constant subtrahend */
    default AffineExpr minus(long c) {
        return Exprs.add(this, new Const(Math.negateExact(c)));
    }

    /** {@return the canonical {@code -this}} */
    default AffineExpr negate() {
        return Exprs.mul(this, new Const(-1));
    }

    /** {@return the canonical {@code this * other}} @param other the factor */
    default AffineExpr times(AffineExpr other) {
        return Exprs.mul(this, other);
    }

    /** {@return the canonical {@code this * c}} @param c the constant factor */
    default AffineExpr times(long c) {
        return Exprs.mul(this, new Const(c));
    }

    /** {@return the canonical {@code this / other}, rounding down} @param other the divisor */
    default AffineExpr floorDiv(AffineExpr other) {
        return Exprs.floorDiv(this, other);
    }

    /** {@return the canonical {@code this / c}, rounding down} @param c the divisor */
    default AffineExpr floorDiv(long c) {
        return Exprs.floorDiv(this, new Const(c));
    }

    /** {@return the canonical {@code this ceildiv other}} @param other the divisor */
    default AffineExpr ceilDiv(AffineExpr other) {
        return Exprs.ceilDiv(this, other);
    }

    /** {@return the canonical {@code this ceildiv c}} @param c the divisor */
    default AffineExpr ceilDiv(long c) {
        return Exprs.ceilDiv(this, new Const(c));
    }

    /** {@return the canonical {@code this mod other}} @param other the modulus */
    default AffineExpr mod(AffineExpr other) {
        return Exprs.mod(this, other);
    }

    /** {@return the canonical {@code this mod c}} @param c the modulus */
    default AffineExpr mod(long c) {
        return Exprs.mod(this, new Const(c));
    }

    /** {@return the canonical {@code min(this, other)}} @param other the other operand */
    default AffineExpr min(AffineExpr other) {
        return Exprs.min(this, other);
    }

    /** {@return the canonical {@code max(this, other)}} @param other the other operand */
    default AffineExpr max(AffineExpr other) {
        return Exprs.max(this, other);
    }

    /**
     * {@return this expression rebuilt bottom-up through the canonicalising factories}
     * Useful for a tree built with the record constructors.
     */
    default AffineExpr canonical() {
        return Exprs.canonical(this);
    }

    /**
     * Evaluates with floor semantics for {@code /} and {@code mod}.
     *
     * @param dims values of {@code d0, d1, ...}
     * @param rangeVars values of {@code s0, s1, ...}
     * @param runtimeVars values of {@code rt0, rt1, ...}
     * @return the value
     * @throws IllegalArgumentException on overflow or division by zero
     * @throws IndexOutOfBoundsException when a variable has no value
     */
    default long evaluate(long[] dims, long[] rangeVars, long[] runtimeVars) {
        return Exprs.evaluate(this, dims, rangeVars, runtimeVars);
    }

    /**
     * {@return this expression with variables replaced}
     * A {@code null} list leaves that kind of variable as it is; a {@code null} entry leaves
     * that one variable as it is.
     *
     * @param dims replacement of {@code d_i}
     * @param rangeVars replacement of {@code s_i}
     * @param runtimeVars replacement of {@code rt_i}
     */
    default AffineExpr replace(List<AffineExpr> dims, List<AffineExpr> rangeVars,
                               List<AffineExpr> runtimeVars) {
        return Exprs.replace(this, dims, rangeVars, runtimeVars);
    }

    /**
     * {@return the text in XLA's current syntax with default names ({@code d0}, {@code s0},
     * {@code rt0})}
     */
    default String toText() {
        return ExprPrinter.print(this, Names.DEFAULT, IndexingMap.Notation.XLA);
    }

    /**
     * {@return the text with the given variable names and syntax}
     *
     * @param dimNames names of {@code d_i}
     * @param rangeNames names of {@code s_i}
     * @param runtimeNames names of {@code rt_i}
     * @param style current XLA or legacy MLIR spelling
     */
    default String toText(List<String> dimNames, List<String> rangeNames, List<String> runtimeNames,
                          IndexingMap.Notation style) {
        return ExprPrinter.print(this, new Names(dimNames, rangeNames, runtimeNames), style);
    }

    /**
     * Parses one expression. Identifiers are the given names, or {@code d<i>}, {@code s<i>},
     * {@code rt<i>} when the lists are empty.
     *
     * @param text the expression, e.g. {@code "d0 * 4 + s0 floordiv 2"}
     * @param dimNames names of the dimensions
     * @param rangeNames names of the range variables
     * @param runtimeNames names of the runtime variables
     * @return the canonical expression
     * @throws dev.tensorbuf.views.text.TextFormatException on malformed text
     */
    static AffineExpr parse(String text, List<String> dimNames, List<String> rangeNames,
                            List<String> runtimeNames) {
        return MapParser.parseExpr(text, dimNames, rangeNames, runtimeNames);
    }
}
