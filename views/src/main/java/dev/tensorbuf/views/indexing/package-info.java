/**
 * XLA's symbolic indexing maps: {@link dev.tensorbuf.views.indexing.AffineExpr} (dimension,
 * range and runtime variables, {@code + * / ceildiv mod min max}), {@link
 * dev.tensorbuf.views.indexing.Interval}, {@link dev.tensorbuf.views.indexing.IndexingMap} with
 * bounds and constraints, a range-aware simplifier, composition, XLA text in the current and
 * the older MLIR spelling, and a compiled evaluator.
 *
 * {@snippet :
 * IndexingMap reshape = IndexingMap.parse("(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8,"
 *         + " (d0 * 16 + d1 * 4 + d2) mod 8), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]");
 * reshape.simplify().toString();
 * // "(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) / 8, (d1 * 4 + d2) mod 8), domain: d0 in [0, 9], ..."
 * }
 *
 * <p>Rules for every method here: values are immutable and every transformation returns a new
 * one; division and modulo round towards negative infinity; evaluation throws
 * {@link java.lang.IllegalArgumentException} on overflow or division by zero; parsers throw
 * {@link dev.tensorbuf.views.text.TextFormatException} with the position; {@code null} arguments
 * throw {@link java.lang.NullPointerException}. This package uses no other views type: layouts
 * lower themselves to maps.
 */
package dev.tensorbuf.views.indexing;
