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
 *
 * <p>XLA's indexing-map algebra. It imports nothing from <code>views</code>: layouts lower
 * themselves to maps, never the other way round. The one error type both packages throw for bad
 * text, <code>TextFormatException</code> (input and 0-based position), is in
 * <code>dev.tensorbuf.views.text</code>, below both.
 *
 * <p>Tests in <code>views/src/test</code>: conformance vectors under
 * <code>resources/conformance/</code> (XLA's and the seeds'), one parameterised test per file
 * (<code>XlaLayoutConformanceTest</code>, <code>DirectMLConformanceTest</code>,
 * <code>SimplifierConformanceTest</code>); property tests against brute force
 * (<code>TiledLayoutPropertyTest</code>, <code>StridedLayoutTest</code>,
 * <code>IndexingMapPropertyTest</code>; seed printed, <code>-Dtensorbuf.seed=N</code>);
 * <code>FloatCodecOracleTest</code> compares every bf16/f16/f8 pattern with ml_dtypes (skips with a
 * reason without it) and <code>ElementAccessTest</code> pins a committed golden file; malformed
 * inputs with their messages (<code>XlaShapeParserErrorTest</code>,
 * <code>IndexingMapTextTest</code>).
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>AffineExpr.java</code></dt>
 * <dd>sealed expression records (<code>Dim</code>, <code>Sym</code>, <code>Rt</code>,
 *     <code>Const</code>, <code>Add</code>, <code>Mul</code>, <code>FloorDiv</code>,
 *     <code>CeilDiv</code>, <code>Mod</code>, <code>Min</code>, <code>Max</code>); factories build
 *     the canonical form</dd>
 * <dt><code>Interval.java</code></dt>
 * <dd>inclusive intervals, saturating arithmetic, three-valued comparisons</dd>
 * <dt><code>Variable.java</code></dt>
 * <dd>a variable's name and bounds</dd>
 * <dt><code>IndexingMap.java</code></dt>
 * <dd>the immutable map: dims, range vars, runtime vars, results, constraints; evaluate, simplify,
 *     compose, parse, print; its hash kept once worked out (the copy engine keys plans by map)</dd>
 * <dt><code>IndexingMap.Builder</code> (nested in <code>IndexingMap.java</code>)</dt>
 * <dd>builds maps with many parts</dd>
 * <dt><code>IndexingMap.Compiled</code> (nested)</dt>
 * <dd>the fast evaluator interface (<code>IndexingMap.compile()</code>)</dd>
 * <dt><code>IndexingMap.Notation</code> (nested; was <code>IndexingMap.Notation</code>, a name <code>java.time.format</code> has)</dt>
 * <dd>XLA's current text or the older MLIR spelling</dd>
 * <dt><code>Exprs.java</code></dt>
 * <dd>canonical construction, evaluation, substitution</dd>
 * <dt><code>ExprPrinter.java</code>, <code>MapPrinter.java</code></dt>
 * <dd>printing with XLA's precedence rules; constraints sorted by text</dd>
 * <dt><code>MapParser.java</code></dt>
 * <dd>both spellings, errors with position</dd>
 * <dt><code>Names.java</code></dt>
 * <dd>default variable names</dd>
 * <dt><code>RangeEvaluator.java</code></dt>
 * <dd>bounds of expressions over the domain</dd>
 * <dt><code>ExprSimplifier.java</code></dt>
 * <dd>range-aware floordiv/mod/sum rewrites; last, a probe-gated retry that writes moduli as
 *     quotients and keeps the result when it is affine</dd>
 * <dt><code>MapSimplifier.java</code></dt>
 * <dd>constraint rewriting, bound tightening, known-empty detection, point dimensions</dd>
 * <dt><code>Composer.java</code></dt>
 * <dd><code>compose(bToC, aToB)</code>: symbols of <code>bToC</code> first, then
 *     <code>aToB</code>'s</dd>
 * <dt><code>MapOps.java</code>, <code>Rescaler.java</code></dt>
 * <dd>removing/converting variables, <code>rescaleSymbols</code></dd>
 * <dt><code>MapCompiler.java</code></dt>
 * <dd>lowers a map to an evaluator</dd>
 * </dl>
 */
package dev.tensorbuf.views.indexing;
