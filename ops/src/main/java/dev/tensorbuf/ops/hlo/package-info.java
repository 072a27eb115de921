/**
 * The HLO text front end: {@link dev.tensorbuf.ops.hlo.HloModule#parse(String)} reads XLA's HLO
 * module text into immutable records ({@link dev.tensorbuf.ops.hlo.HloModule},
 * {@link dev.tensorbuf.ops.hlo.HloComputation}, {@link dev.tensorbuf.ops.hlo.HloInstruction})
 * with attributes typed by name ({@link dev.tensorbuf.ops.hlo.HloInstruction#ints},
 * {@link dev.tensorbuf.ops.hlo.HloInstruction#text}, ...).
 *
 * {@snippet :
 * HloModule m = HloModule.parse("""
 *     HloModule m
 *     ENTRY e {
 *       %p0 = f32[4,4] parameter(0)
 *       ROOT %r = f32[4,4] reverse(f32[4,4] %p0), dimensions={0} // comment
 *     }""");
 * m.entry().root().ints("dimensions"); // [0]
 * }
 *
 * <p>Rules for every type here: names are kept without their {@code %} sigil and looked up with
 * or without it; shapes are {@link dev.tensorbuf.views.XlaShape} values with XLA's default layout
 * where none was written; malformed text throws a {@link dev.tensorbuf.views.text.TextFormatException}
 * with the 1-based line and column; lookups of missing names throw IllegalArgumentException
 * listing the names there are.
 *
 * <p>The HLO text front end and XLA's indexing analysis (output-to-input and input-to-output maps
 * of HLO instructions).
 *
 * <p>Tests in <code>cli/src/test</code>: <code>ReadmeExamplesTest</code> runs every <code>$
 * ./tensorbuf</code> example of README.md (each in its own JVM) and compares the output;
 * <code>DocsPicturesTest</code> redraws <code>docs/*.svg</code>; <code>RunXlaAgreementTest</code>
 * runs random data-movement modules through <code>tensorbuf run</code> and through XLA (jax),
 * complex types among them, and jax's own plain and optimised HLO of <code>jnp.roll</code>,
 * <code>flip</code>, <code>pad</code> and transposes (<code>call</code> and <code>fusion</code>;
 * <code>jax_modules.py</code>) against jax's results; <code>ChromiumScreenshotTest</code>
 * screenshots the pictures. <code>LauncherTest</code> runs the <code>tensorbuf</code> script with
 * bash from a copy of the root whose jar is <code>LauncherProbe</code>: the JVM flags each command
 * gets, arguments passed word for word, <code>TENSORBUF_JAVA_OPTS</code> last, and the messages for
 * a missing JDK 25 and a missing Maven.
 *
 * <p>Tests in <code>ops/src/test</code>: <code>NestedTilingCopyTest</code> copies every small
 * two-level tiling both ways, byte for byte; <code>ConversionNumpyAgreementTest</code> converts
 * between every pair of 30 types (all patterns of those of 16 bits and fewer, rounding ties and
 * range edges of the wider ones; <code>numpy_astype.py</code>) through the planned kernels and the
 * element path and compares with NumPy's <code>astype</code>, value for value, checking that what
 * NumPy leaves undefined is refused; <code>ConvertXlaAgreementTest</code> runs XLA's
 * <code>convert</code> between 28 of the types (not f6, which XLA's CPU backend refuses) on the
 * same values (<code>xla_convert.py</code>) and requires the executor's results bit for bit;
 * <code>HalfNanCopyTest</code> holds every copy path (dense scalar and vector, strided, reversed,
 * element) to one f16 NaN rule; both peer tests share <code>peers/PeerScripts</code> (running a
 * script, raw files, NaN-tolerant comparison); every vector of XLA's and the seeds' indexing files,
 * compared semantically (every domain point, or sampled) and by text; malformed HLO with
 * line:column.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>HloModule.java</code></dt>
 * <dd>a parsed module: header attributes, computations, lookups (<code>entry()</code>,
 *     <code>instruction(name)</code>)</dd>
 * <dt><code>HloComputation.java</code></dt>
 * <dd>a computation: instructions in order, root, parameters</dd>
 * <dt><code>HloInstruction.java</code></dt>
 * <dd><code>name = shape opcode(operands), attrs</code>: typed attribute access, output shapes</dd>
 * <dt><code>internal/HloAttribute.java</code>, <code>internal/HloSyntaxException.java</code></dt>
 * <dd>the typed attribute values and the syntax error (see <code>hlo.internal</code>)</dd>
 * </dl>
 */
package dev.tensorbuf.ops.hlo;
