/**
 * What the public view types compute with, kept out of their API: the XLA shape text lexer,
 * parser and printer; the one nested-tiling implementation ({@code TilingPlan},
 * {@code TiledLayoutMath}) and its lowering to maps; exact overlap and padding tests of strided
 * layouts; reading a map's form; the bounds a view reaches; element reads through padded and
 * concatenated views; the narrow-float codecs; {@code Errors}, the messages this package and
 * {@code dev.tensorbuf.views} both build.
 *
 * <p>Exported to {@code dev.tensorbuf.ops}, which uses five of these classes ({@code MiniFloat},
 * {@code FloatCodec}, {@code ViewBounds}, {@code ViewReader}, {@code ConfinedMemory}), and {@code DomainBoxes}, a view's pieces as boxes
 * of logical indices, for the copy engine's box-by-box copies of pads and concatenations; and to
 * {@code dev.tensorbuf.interop} for {@code ConfinedMemory}; the module's {@code module-info} says
 * where. Rules that hold for every class: sizes, strides and offsets are
 * in elements unless a name ends in {@code Bytes}; what only this arithmetic can find (an
 * overflow, a layout that does not fit its shape) is an {@link java.lang.IllegalArgumentException}
 * naming the numbers.
 *
 * <p><code>dev.tensorbuf.views.internal</code> (exported to <code>dev.tensorbuf.ops</code>, which
 * uses nine of its classes: the narrow-float codecs <code>MiniFloat</code> and
 * <code>FloatCodec</code> in the copy engine's conversion loops and in <code>run</code>'s convert
 * (<code>exec/internal/Conversions</code>); <code>ViewBounds</code> in <code>CopyPlan</code>'s
 * bounds check of mapped and tiled sides; <code>DistinctSlots</code> in
 * <code>copy/internal/SelfOverlap</code> and <code>ViewAdapter</code>'s refusal of a destination
 * that overlaps itself or writes a pad's fill or read-only memory; <code>ConfinedMemory</code> in
 * the copy engine's wording of a confined arena's refusal; <code>Suggestions</code> in the HLO
 * parser's "did you mean" for a misspelt opcode; <code>Linear</code> in
 * <code>copy/internal/SplitDims</code>' reading of a split map as strides; <code>DomainBoxes</code>
 * and <code>ViewReader</code> in <code>copy/internal/PiecePairs</code>, which cuts views over
 * several pieces into boxes and words a write into a pad's fill as the element path does. And to
 * <code>dev.tensorbuf.interop</code> for <code>ConfinedMemory</code>, which staging's submit uses,
 * and to <code>dev.tensorbuf.cli</code> for <code>Suggestions</code>, its commands', options' and
 * batch keys' hints. A change to any of these is a change to <code>ops</code>, <code>interop</code>
 * or <code>cli</code> too):
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>XlaShapeLexer.java</code></dt>
 * <dd>tokens of shape text, whitespace skipped, positions kept</dd>
 * <dt><code>XlaShapeParser.java</code></dt>
 * <dd>the grammar in XLA's fixed attribute order, validation reported at the offending
 *     construct</dd>
 * <dt><code>XlaShapePrinter.java</code></dt>
 * <dd>canonical text as XLA prints it (tuple <code>/*index=5*&#47;</code>, <code>b(...)</code>,
 *     scalar-layout rule)</dd>
 * <dt><code>TilingPlan.java</code></dt>
 * <dd>the one nested-tiling implementation (combined <code>*</code> dimensions included): forward
 *     and inverse index. The last plan made is kept by its shape's identity, so sizes, physical
 *     dims and element reads of one shape object do not rebuild it (a fifth of a small
 *     <code>materialize</code>)</dd>
 * <dt><code>TiledLayoutMath.java</code></dt>
 * <dd>layout validation against a shape, <code>ElementsIn</code>, <code>ArraySize</code>,
 *     <code>ArrayDataSize</code>, <code>MaxSplitSize</code>, byte strides</dd>
 * <dt><code>TiledLayoutMaps.java</code></dt>
 * <dd>lowers a layout to its floordiv/mod <code>IndexingMap</code></dd>
 * <dt><code>TiledRecovery.java</code></dt>
 * <dd>the inverse: the XLA layout (minor-to-major order, tiles, box start, offset) a
 *     floordiv/mod map is, found from the map's digit boundaries and strides by peeling tile
 *     levels from the minor end in a bounded search, each candidate checked against the map
 *     (along every axis, or by simplifying its re-derived map); <code>MapForm.Tiled</code>
 *     carries it</dd>
 * <dt><code>InteropNames.java</code></dt>
 * <dd>one exhaustive switch per ecosystem's dtype names</dd>
 * <dt><code>FloatCodec.java</code>, <code>MiniFloat.java</code>, <code>E8M0.java</code></dt>
 * <dd>narrow floats (f16, bf16, f8, f6, f4, e8m0) bit-exact with ml_dtypes: round-to-nearest-even,
 *     NaN and overflow as ml_dtypes does, except where XLA differs and we follow it (a double
 *     rounds once into f8, f6 and f4; the fnuz NaN decodes positive; an f16 NaN is quieted both
 *     ways, as the JDK's x86 intrinsics behind the dense copies quiet it; RELIABILITY.md).
 *     <code>MiniFloat.encode(float)</code> rounds with integer arithmetic on the float's bits, held
 *     to the exact double arithmetic (<code>encodeExact</code>) on all 2^32 floats; its constants
 *     (<code>Rounding</code>) serve the copy engine's vector encoder</dd>
 * <dt><code>StrideAnalysis.java</code></dt>
 * <dd>exact overlap and unused-offset (padding) tests for strided layouts, with their cost
 *     bounds</dd>
 * <dt><code>Linear.java</code>, <code>MapForms.java</code></dt>
 * <dd>reading affine and quasi-affine maps; classifying a map's form and explaining non-strided
 *     steps</dd>
 * <dt><code>Ranges.java</code>, <code>ViewBounds.java</code></dt>
 * <dd>interval evaluation over narrowed bounds; the buffer-reach check and first offending
 *     index</dd>
 * <dt><code>ViewReader.java</code></dt>
 * <dd>element reads through padded and concatenated views, maps compiled once; why an index may not
 *     be written (a pad's fill, read-only memory), asked by element writes and by the copy's check
 *     before it writes</dd>
 * <dt><code>DistinctSlots.java</code></dt>
 * <dd>the first two indices that write one slot, found by visiting (a bit set over the slots, or
 *     sorted slots for sparse reaches); a view's slots are bit addresses over all its pieces.
 *     Behind <code>ViewTransfer</code>'s refusal of <code>copyFrom</code> into a view without
 *     strides and the copy engine's <code>SelfOverlap</code></dd>
 * <dt><code>RemapChains.java</code></dt>
 * <dd>a view remapped through several steps in one call (the bitcast's transpose, reshape,
 *     transpose), for ops' <code>Bitcast</code>; installed by <code>TensorView</code>, whose
 *     implementation (<code>OpViews</code>) is package-private</dd>
 * <dt><code>DomainBoxes.java</code></dt>
 * <dd>a view's pieces as disjoint boxes of logical indices (per dimension a start, step and count),
 *     each with the first piece in lookup order whose domain holds it: a piece's domain minus those
 *     before it (box intersection by the Chinese remainder theorem, difference dimension by
 *     dimension). A domain that is not a box is cut by its own constraints: one on a dimension
 *     narrows it (affine), keeps the residues that hold (a modulo: an interior pad is one strided
 *     box) or halves it; one over several dimensions cuts the dimension with the largest
 *     coefficient into the run where it holds throughout and unit ranges where it holds in part
 *     (a reshape's staircase); a modulo over several dimensions whose row pattern repeats
 *     within <code>MAX_PERIOD</code> rows by residue classes, else by the laps of its value (a run
 *     of whole rows a lap, edge rows one by one). Each cut marks a constraint as holding or narrows
 *     a dimension, so it ends without a cap; a cut whose boxes so far project past its limit stops
 *     there. <code>regroupings</code> names the dims in which a reshape's pieces
 *     are boxes: a constraint on the mixed-radix index of some dims modulo (or divided by) a
 *     width that divides their size. Each constraint's terms and dims are read off its expression
 *     once per cut (<code>Constraint</code>), not walked per box; <code>linearInBox</code> is the
 *     one reading of an expression as affine in a box's counters, the cut's and
 *     <code>PiecePairs</code>' strides alike. For the copy engine's <code>PiecePairs</code></dd>
 * <dt><code>ConfinedMemory.java</code></dt>
 * <dd>the one wording for a confined arena's memory reached from another thread (what failed, the
 *     thread, the cure): bulk transfers, the copy engine and staging's submit</dd>
 * <dt><code>Suggestions.java</code></dt>
 * <dd>"did you mean": edit distance with adjacent transpositions as one edit, a suggestion only
 *     within a third of the word; for the HLO parser's opcodes and the CLI's commands, options and
 *     batch keys</dd>
 * <dt><code>Errors.java</code></dt>
 * <dd>the messages <code>views</code> and <code>views.internal</code> build in more than one place:
 *     an index out of bounds for a dim or of the wrong rank, a negative size (<code>size -1 of dim
 *     1 is negative in sizes [2, -1]</code>), an overflow of a size, an unknown name (element type,
 *     NumPy descr, safetensors and DirectML types, tensor format), an integer a type cannot hold, a
 *     type without elements, XLA's <code>minor_to_major</code> out-of-bounds words (layout, shape
 *     check and parser), an empty concatenation. Not used by <code>views.indexing</code>, which
 *     imports nothing from the rest of <code>views</code>: the algebra's evaluation errors are in
 *     <code>Exprs</code> and <code>internal/EvalNode</code></dd>
 * <dt><code>JsonStrings.java</code></dt>
 * <dd>the one escaping of a string as JSON, for <code>interop.json.Json</code> and the copy
 *     engine's plan explanations (<code>ops</code> cannot see <code>interop</code>)</dd>
 * </dl>
 */
package dev.tensorbuf.views.internal;
