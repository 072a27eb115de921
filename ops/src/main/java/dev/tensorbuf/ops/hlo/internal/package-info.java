/**
 * The HLO text reader behind {@link dev.tensorbuf.ops.hlo.HloModule#parse}: a recursive-descent
 * {@code HloParser} over a {@code Scanner} (comments, strings, balanced values), typed attribute
 * reading, and XLA's opcode list.
 *
 * <p>Not exported. Rules: positions are character offsets into the module's text; every error is
 * an {@link dev.tensorbuf.ops.hlo.HloSyntaxException} made through {@code ErrorAt}, so it names
 * the line and column; shapes in the text are read by {@code XlaShape.parse(text, ParsePosition)}.
 */
package dev.tensorbuf.ops.hlo.internal;
