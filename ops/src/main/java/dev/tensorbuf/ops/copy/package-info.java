/**
 * The copy engine: copies and converts between any two layouts (strided with zero and negative
 * strides, XLA tiled with padding and {@code E(n)}, general indexing maps). {@link
 * dev.tensorbuf.ops.copy.CopyPlan} decides, {@link dev.tensorbuf.ops.copy.CopyEngine} runs.
 * {@snippet :
 * TensorView rows = TensorView.of(src, "f32[4096,4096]{1,0}");
 * TensorView tiles = TensorView.of(dst, "f32[4096,4096]{1,0:T(8,128)}");
 * CopyEngine.defaults().copy(rows, tiles);   // one MemorySegment.copy per 512-byte tile row
 * }
 *
 * <p>A copy of two {@code TensorView}s takes one route, chosen in {@code CopyEngine.route} from the
 * views alone (nothing is read or written to choose it): one {@link dev.tensorbuf.ops.copy.CopyPlan}
 * when each side is one access; a dense temporary first when the sides share memory; for views
 * over several pieces, both sides' pieces cut into boxes by their maps' domains and paired by
 * intersection ({@code internal.PiecePairs} over {@code views.internal.DomainBoxes}), a flat list
 * of one-piece copies each routed as below (boxes strided on both sides in shared loop nests,
 * {@code internal.BoxRuns}; boxes against a side of one piece in tiles run by families of boxes
 * that meet the tiles alike, {@code internal.BoxFamilies}; a packed one-piece side against pieces
 * through a dense temporary, so that it is staged whole; packed pieces unpacked where they reach,
 * {@code internal.PackedPieces}; a cut past 65,536 boxes made a band of rows at a time into a table
 * kept between copies, {@code internal.BoxTable}, its boxes run the same ways); packed sub-byte sides
 * staged through byte-a-slot temporaries ({@code internal.SubByteStaging}: the span a view reaches
 * unpacked whole, or, for a view reaching far more slots than it has elements, its own slots
 * gathered one by one, {@code internal.GatheredSlots}); else element by element
 * ({@code internal.ViewAdapter.copyElements}: only packed destinations the element path refuses,
 * read-only or written twice, and maps with constraints). {@code CopyEngine.explain} returns that
 * route as a {@link dev.tensorbuf.ops.copy.CopyPlan.Explanation}, and the engine's settings are
 * one {@link dev.tensorbuf.ops.copy.CopyEngine.Config}.
 *
 * <p>Rules for every method: sizes, strides and offsets are in elements unless named
 * {@code ...Bytes}; elements are little-endian; a plan checks every bound once, so kernels do not.
 * Conversions round floats to nearest even, truncate floats to integers toward zero and throw
 * {@link java.lang.IllegalArgumentException} for values the destination cannot hold.
 *
 * <p>Planning is pure (<code>CopyPlan</code>), execution is the kernels'. The Vector API is used
 * only by the <code>Vector*</code> kernels (<code>requires static jdk.incubator.vector</code>);
 * without the module, scalar kernels run. With it, <code>ScalarFirst</code> can hold each kernel to
 * its scalar version for its first N bytes in this JVM
 * (<code>-Dtensorbuf.copy.scalarFirstBytes</code>, 0 by default, 256 MiB from the launcher for
 * <code>convert</code> and <code>run</code>): before C2 has compiled it a Vector API kernel is
 * slower than scalar code.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>CopyEngine.java</code></dt>
 * <dd>runs plans on one or more threads (at most <code>MAX_PARALLELISM</code>, 4096);
 *     <code>copy</code>/<code>materialize</code> for <code>Access</code> and for
 *     <code>TensorView</code> (every materialize closes its new buffer if the copy fails); view
 *     copies hold every buffer; a view over several pieces (pad, concatenation, any op over them)
 *     goes box by box through <code>internal/PiecePairs</code>, each box one-piece on both sides
 *     and planned (or staged) as any one-piece copy, boxes strided on both sides by their form's
 *     loop nest (<code>internal/BoxRuns</code>); <code>explain</code> lists the boxes and says how
 *     many forms they share</dd>
 * <dt><code>CopyFailures.java</code></dt>
 * <dd>how a copy's failures are told: FFM's closed-arena and wrong-thread exceptions renamed with
 *     the side (an <code>Access</code> by type, dims and size, a view by its text); a value the
 *     destination type cannot hold (<code>RefusedValue</code>) named with the index of the first
 *     such element in logical order (<code>FirstRefused</code>, run on the failure path only), the
 *     refusal the copy met as its cause; every hold a view copy took ends, a throwing foreign
 *     deleter's included</dd>
 * <dt><code>internal/ScratchMemory.java</code></dt>
 * <dd>what <code>CopyExecutor.scratchMemory()</code> reports: the staging scratch held (in use and
 *     kept), its peak and buffers allocated; <code>CopyEngine.releaseScratch()</code> frees the
 *     kept ones</dd>
 * <dt><code>internal/Access.java</code></dt>
 * <dd>one side of a copy below the views (exported to interop, bench and cli only; users copy
 *     views): segment, dtype, dims, and strided, tiled or mapped addressing, whose
 *     sizes (layout sizes, shape dims, map dimension bounds <code>[0, d - 1]</code>) must be the
 *     dims</dd>
 * <dt><code>CopyPlan.java</code>, <code>internal/Step.java</code>, <code>internal/Loop.java</code>,
 *     <code>internal/Kernel.java</code></dt>
 * <dd>the checked plan: runs of loops with a kernel each, zero fills for tile padding, gathers with
 *     a reason; every side is bounds-checked before anything moves (mapped sides through
 *     <code>ViewBounds</code>)</dd>
 * <dt><code>internal/AccessCopies.java</code></dt>
 * <dd>the friend of this package: plans, copies and materializes over raw <code>Access</code>
 *     sides and reads a plan's sides and steps, which the public types do not show;
 *     <code>CopyPlan</code>'s class initializer lends it the plan's fields</dd>
 * <dt><code>ChannelAffine.java</code></dt>
 * <dd>per-channel scale and bias (image staging): <code>fma(x, scale, bias)</code> in doubles into
 *     f64, in floats into every other type; <code>checkFits</code>, the one check of dims and
 *     destination type, which <code>CopyPlan</code> and staging's normalised targets both call</dd>
 * </dl>
 */
package dev.tensorbuf.ops.copy;
