/**
 * The HLO text reader behind {@link dev.tensorbuf.ops.hlo.HloModule#parse}: a recursive-descent
 * {@code HloParser} over a {@code Scanner} (comments, strings, balanced values), typed attribute
 * reading, and XLA's opcodes with the attributes each takes.
 *
 * <p>Exported only to {@code dev.tensorbuf.cli}, whose failure messages read a syntax error's
 * line and column. Rules: positions are character offsets into the module's text; every error is
 * an {@link dev.tensorbuf.ops.hlo.internal.HloSyntaxException} made through {@code ErrorAt}, so it names
 * the line and column; shapes in the text are read by {@code XlaShape.parse(text, ParsePosition)}.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>HloAttribute.java</code></dt>
 * <dd>sealed typed attribute values: ints, slices, padding, window, dim labels, sharding, text
 *     (<code>HloInstructions.attribute</code>)</dd>
 * <dt><code>HloInstructions.java</code></dt>
 * <dd>the friend of <code>ops.hlo</code>: makes instructions and reads their typed attributes,
 *     which the public <code>HloInstruction</code> does not show (its class initializer lends them)</dd>
 * <dt><code>HloSyntaxException.java</code></dt>
 * <dd>a <code>TextFormatException</code> with line and column, the one type users catch</dd>
 * <dt><code>HloParser.java</code></dt>
 * <dd>recursive-descent reader; StableHLO (MLIR) text (<code>module</code>, <code>func.func</code>,
 *     <code>#loc</code> first) refused naming jax's HLO export; shapes go to
 *     <code>XlaShape.parse(text, ParsePosition)</code>; skips the stack-frame sections XLA prints
 *     for compiled modules; refuses, as XLA's parser does, call cycles, operands used above their
 *     definition (so instructions form no cycle), attributes an opcode does not take, and
 *     parameters not numbered 0 to n - 1</dd>
 * <dt><code>Scanner.java</code></dt>
 * <dd>comments, strings, balanced values (metadata, backend_config skipped)</dd>
 * <dt><code>Attributes.java</code></dt>
 * <dd>typed attributes by name (<code>slice</code>, <code>padding</code>, <code>window</code>,
 *     dot/gather numbers, <code>dim_labels</code>, ...)</dd>
 * <dt><code>Opcodes.java</code>, <code>ErrorAt.java</code></dt>
 * <dd>XLA's opcodes and the attributes its parser takes on each; positioned errors</dd>
 * </dl>
 */
package dev.tensorbuf.ops.hlo.internal;
