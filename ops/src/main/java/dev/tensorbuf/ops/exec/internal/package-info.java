/**
 * How {@code tensorbuf run} executes a module: the {@code Interpreter} walks from the ROOT and
 * makes each instruction a view where it can; {@code copy}, type changes and views whose maps grew
 * too long are copied into new memory through the copy engine, and constants and {@code iota} are
 * written into new memory of their own. Argument checks, literals and XLA's {@code convert} rules
 * sit beside it.
 *
 * <p>Exported only to {@code dev.tensorbuf.cli}, whose {@code run} prints the steps
 * ({@code ExecutedInstruction}) and words an unsupported op ({@code UnsupportedOpException}).
 * Rules: every value is a {@link dev.tensorbuf.views.TensorView}; memory a step
 * allocates comes from the run's allocator and is freed with the
 * {@link dev.tensorbuf.ops.exec.Execution}. A bad module or argument is an
 * {@link java.lang.IllegalArgumentException}, which the interpreter prefixes with the instruction
 * and its line.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>Interpreter.java</code></dt>
 * <dd>walks from the ROOT (each element of a tuple ROOT), one case per opcode, and returns each
 *     output uncopied, with whether it is already memory in its layout; <code>call</code> and
 *     <code>fusion</code> run their computation with its own values, parameters bound to the
 *     operands' views, and count as one step (a copy when anything inside copied); a view whose map
 *     passes <code>MAX_MAP_CHARS</code> (reshapes of transposes nest floor divisions) is copied
 *     where it stands; <code>while</code> runs its condition and body in nested interpreters, each
 *     value copied out into arenas released a generation at a time (64 MiB), and
 *     <code>conditional</code> the branch its selector chooses, its operand and result evaluated
 *     at its edges unless XLA folds the selector and inlines the branch, or makes the conditional
 *     a select of both branches (<code>SelectedConditionals.java</code>: a two-way
 *     <code>pred</code> one of cheap branches, the branch then run inlined)</dd>
 * <dt><code>LoopAnalysis.java</code></dt>
 * <dd>what XLA knows of a <code>while</code> before it runs: whether it counts the trips (a loop
 *     of none is then its initial value, of one its body inlined, so work fuses across its edges)
 *     and which body instructions its loop-invariant code motion hoists (evaluated into memory in
 *     the body's interpreter)</dd>
 * <dt><code>Scatters.java</code></dt>
 * <dd><code>scatter</code> of one operand (batching dims too): a copy of the operand, each update
 *     combined in the updates' row-major order, as XLA's CPU loop applies them, a chunk of distinct
 *     elements at a time through <code>Pointwise</code>; a window reaching outside is skipped
 *     whole</dd>
 * <dt><code>Sorts.java</code></dt>
 * <dd><code>sort</code>: the comparator read as keys in turn, each a strict compare of one
 *     function of an operand's two sides (jax's: NaNs made one NaN, -0 made +0, TOTALORDER;
 *     optimised, a float's bits ordered as an integer), chained as jax's <code>num_keys</code>
 *     comparator chains them; each function evaluated once over its operand, rows ordered by a
 *     stable sort and every operand permuted alike; <code>topk</code> and XLA's <code>TopK</code>
 *     custom-call as a stable sort by the total order, the first k kept</dd>
 * <dt><code>Arguments.java</code>, <code>Literals.java</code>, <code>Conversions.java</code></dt>
 * <dd>argument checks, constant literals (complex <code>(re, im)</code> pairs; a bare integer such
 *     as <code>-0</code> read as an integer, as XLA does; <code>-nan</code> keeps its sign; a
 *     finite value the type rounds to infinity or NaN is refused, as XLA's parser refuses it),
 *     XLA's <code>convert</code> rules for real and complex types, denormals flushed where XLA's
 *     CPU backend converts in f32/f64 arithmetic (checked against it on every pattern of the 8- and
 *     16-bit types, <code>ConvertXlaAgreementTest</code>)</dd>
 * <dt><code>Fusion.java</code></dt>
 * <dd>elementwise ops held as an expression over views (<code>copy.internal.Pointwise</code>, which
 *     the copy engine's per-channel affine shares) and evaluated in one pass where a value
 *     must be memory, with XLA's CPU semantics: a copy plan of one epilogue step
 *     (<code>copy.internal.PointwiseCopy</code>: a lookup table for one 8-bit operand and
 *     per-channel constants, Vector API sweeps for f32 work over f32, bf16 or f16 operands, else
 *     the block evaluator); each held instruction is reported as fused into the instruction
 *     whose copy evaluated it. As XLA's pipeline: work stays held across a call (XLA inlines
 *     it; a copy as the callee's ROOT too) and through a dynamic-update-slice of the whole
 *     operand (its update, to XLA's simplifier). Its expressions' nodes are interned, so a value that later ops
 *     read several times stays one node however each renumbers its leaves, and two leaves that
 *     read the same elements of one buffer are one leaf</dd>
 * <dt><code>FoldedConstants.java</code></dt>
 * <dd>XLA's constant folding read off the module text, one model for both readers: which moves
 *     XLA folds with a constant into a new one, that constant's values, and whether its
 *     simplifier then sees an iota (a divide by one is a true quotient, by other folded constants
 *     a multiply by their reciprocals, in <code>Fusion</code>; the <code>Interpreter</code> hands a
 *     folded constant that counts from -0 on from +0 to its readers and as written to the moves
 *     XLA folds from it). Two folders meet a module from jax: MLIR, which folds ops of literals
 *     before XLA sees them, and XLA's evaluator, which folds what its simplifier has made
 *     constant (a pad reading its padding alone, a maximum of a broadcast array constant) with
 *     denormals as zeros and a maximum of equal values its first operand
 *     (<code>Fusion.foldsLate</code>)</dd>
 * <dt><code>ExactSums.java</code></dt>
 * <dd>f32 and f64 sums (<code>reduce</code>, <code>reduce-window</code>) where no order of adding
 *     rounds: every element a multiple of one normal power of two whose magnitudes add up to at
 *     most 2^24 (2^53, 2^8 through bf16) of it, checked as the module runs; then any order, XLA's
 *     too, gives the exact sum. Others are refused naming the result</dd>
 * <dt><code>Reductions.java</code></dt>
 * <dd><code>reduce</code> and <code>reduce-window</code> by a reducer that is one associative,
 *     commutative op of its parameters, where no order of combining can change a bit (integers and
 *     pred; floats by maximum and minimum): a reduce folds dense rows of the operand copied with
 *     the reduced dims first or last, on the copy engine's threads from its parallel threshold
 *     (kept elements apiece, or a few rows cut in shares that are joined), a held expression
 *     evaluated a chunk (a box whose results are contiguous) at a time into one scratch, in the
 *     order the fold reads, and folded there (<code>Fusion.evaluateBox</code>); a reduce-window
 *     folds strided slices of the operand padded with the init value, one elementwise pass; jax's
 *     argmax and argmin (a variadic reduce of values and indices) element after element. Float sums and other variadic reduces are refused
 *     with the reason</dd>
 * <dt><code>Materialize.java</code></dt>
 * <dd>copies through the copy engine into new buffers</dd>
 * <dt><code>ExecutedInstruction.java</code></dt>
 * <dd>one executed instruction: view, copy, parameter or constant, and its map's form (named apart
 *     from the copy plan's <code>Step</code>)</dd>
 * <dt><code>UnsupportedOpException.java</code></dt>
 * <dd>an {@code IllegalArgumentException}: the op, the instruction and its line; inside a called
 *     computation, the computation and each call site on the way</dd>
 * <dt><code>SourceLines.java</code></dt>
 * <dd>an instruction's line, for errors, looked up in its own computation (names repeat across
 *     computations)</dd>
 * </dl>
 */
package dev.tensorbuf.ops.exec.internal;
