/**
 * The copy engine's implementation: the planner and its loop nests, the kernels (scalar ones,
 * and Vector API ones named {@code Vector...}), type conversions, the executor and its helper
 * threads, and the checks a plan makes before any byte moves ({@code Reach},
 * {@code SelfOverlap}).
 *
 * <p>Exported only to {@code dev.tensorbuf.interop}, {@code dev.tensorbuf.bench} and
 * {@code dev.tensorbuf.cli}, for {@code Access} (a copy side over a bare segment) and the scratch
 * report. Rules that hold for every class: planning works in elements (the offsets,
 * strides and counts of {@code Access} and {@code Loop}); a {@link dev.tensorbuf.ops.copy.internal.Task}
 * handed to a kernel is in bytes (byte offsets, byte strides, element widths in bytes).
 * Everything is validated once, by {@code CopyPlan} and the planner, before anything runs;
 * kernels trust their task. The Vector API kernels run only when {@code VectorSupport} finds
 * {@code jdk.incubator.vector}, else the scalar ones do. Every conversion follows
 * {@code ValueMover}'s rules, and a value a fast path finds out of range is handed to
 * {@code ValueMover}, which throws the message.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>Access.java</code>, <code>Step.java</code>, <code>Loop.java</code>, <code>Kernel.java</code>,
 *     <code>ScratchMemory.java</code></dt>
 * <dd>a copy side below the views, a plan's steps, loops and kernels, and what
 *     <code>CopyExecutor.scratchMemory()</code> reports: read through <code>AccessCopies</code> and
 *     <code>CopyEngine</code>, described in <code>ops.copy</code>'s package-info</dd>
 * <dt><code>Planner.java</code>, <code>TiledDigits.java</code></dt>
 * <dd>the one planner: tiled layouts as mixed-radix digits (each dimension's top digit tracked,
 *     radix-1 digits dropped; a later tile that pads inside an earlier one has no digit form and
 *     goes to the gather), boxes of data or padding, loops in destination order; a mapped side that
 *     <code>SplitDims</code> makes strided meets a strided or another split side in one loop nest
 *     over the digits both sides' radices refine to (per dimension, the sorted cut points of both
 *     must each divide the next; a channel of a scale and bias must stay one digit), or meets a
 *     tiled side as a strided side does when each tiled digit lies inside one of its digits (the
 *     tiled side's digits are cut into data and padding boxes, so they are not cut further); it
 *     gathers with the reason otherwise; last, zero steps for the bytes a destination owns past
 *     what its addressing reads (<code>Access.ownedBytes</code>: a tail past a smaller layout
 *     read off the map, <code>L(n)</code>, gaps between strided rows), so every plan into a
 *     view, a copy's, a staged copy's or a dequantization's, writes its padding</dd>
 * <dt><code>SplitDims.java</code></dt>
 * <dd>a mapped side's map as a strided layout over split dimensions: while the map is not affine, a
 *     floor division or modulo by <code>c</code> of an affine operand splits a dimension with
 *     coefficient <code>k</code> by <code>c / gcd(k, c)</code> (when that divides its size) and the
 *     simplifier runs again over the new bounds; kept only when the result is affine, so the digits
 *     address what the map does. A reshape of a transpose (a flatten after NHWC -&gt; NCHW) then
 *     runs the transpose kernels instead of the gather (about 10 ns an element). Found once per map
 *     and kept (512 maps, least recently used out; maps without a split too), as a step costs a
 *     compose and a simplify</dd>
 * <dt><code>PlanCache.java</code></dt>
 * <dd>the steps of copies planned before, keyed by all a plan reads (both types, dims, both
 *     addressings, the channel of a scale and bias; no segment): a copy of a shape seen before
 *     skips planning (a tiled side costs 1.5-25 us to plan). Bounded at 512 plans, then it starts
 *     over. A mapped side is keyed by its map (its hash kept in the map, compared at identity
 *     first); a gather of a mapped side is not kept, as a small map's first copy gathers without
 *     looking for its split and the next one looks. The key's numbers (types, channel, dims,
 *     strides, offsets) are packed in one <code>long[]</code> hashed once; a tiled side's shape is
 *     compared but not hashed. A destination that overlaps itself is refused before its plan is
 *     held, and the checks against each call's segments (bounds, overlap with the source) still run
 *     per call in <code>CopyPlan.of</code></dd>
 * <dt><code>PlannedSteps.java</code></dt>
 * <dd>a plan's steps with what <code>CopyPlan.of</code> checks against the segments, worked out
 *     once per plan: the elements each side's loop nests reach, the bytes a tiled destination's
 *     slots take, and whether a step gathers</dd>
 * <dt><code>LoopNest.java</code></dt>
 * <dd>drop, flip, sort and fuse loops; around short bulk runs, put the loop with fewer rows inside
 *     (<code>fewerStreams</code>); pick the kernel from the two innermost loops' strides and counts
 *     and the element types</dd>
 * <dt><code>CopyExecutor.java</code>, <code>Task.java</code>, <code>Odometer.java</code></dt>
 * <dd>a plan's steps run as one batch; from 4 MiB cut into pieces shared by the caller and the
 *     workers; one call site per kernel</dd>
 * <dt><code>ScalarFirst.java</code></dt>
 * <dd>per kernel and per JVM: the bytes moved so far, and whether the next step runs the vector
 *     version (<code>-Dtensorbuf.copy.scalarFirstBytes</code>)</dd>
 * <dt><code>VectorWarmup.java</code></dt>
 * <dd>a kernel's first step runs scalar while one daemon thread warms its vector version on the
 *     step's own loops; the first two batches so held back stay on the caller, later ones split
 *     across the engine's threads when it has more than two</dd>
 * <dt><code>CopyWorkers.java</code></dt>
 * <dd>the helper threads (<code>tensorbuf-copy-E-I</code>, E the engine): poll 500 us for the next
 *     batch, then park (no polling after a batch that came later than that: it would only burn a
 *     core; an interrupt is cleared, not spun on); end after 30 s idle; a helper that cannot start
 *     leaves its share to the caller and is tried again 1 s later; each thread takes its own share
 *     of a batch (the same run of every step, call after call) before what the others left, so
 *     data a repeated copy keeps in cache stays with one core; every piece ends before a copy
 *     returns or throws, on every way out</dd>
 * <dt><code>FillKernel.java</code> (<code>replicas</code>)</dt>
 * <dd>a broadcast with short runs over dense blocks, or with long runs over blocks of 2.5 MiB or
 *     more (whose copies stream: no read of the destination's lines) where streamed copies write
 *     faster than plain stores (Intel's CPUs, not AMD's): one block filled, the rest one bulk-copy
 *     task split across threads</dd>
 * <dt><code>CpuInfo.java</code></dt>
 * <dd>the CPU's vendor and feature flags from <code>/proc/cpuinfo</code>, for the choices above
 *     that depend on how its memory takes stores, and for <code>run</code>'s f16 multiply-adds,
 *     which XLA contracts only where the CPU has native f16 arithmetic</dd>
 * <dt><code>Bf16Pairs.java</code></dt>
 * <dd>recognises f32 -&gt; bf16 into XLA's <code>(2,1)</code> pairs (and back) for
 *     <code>LoopNest</code>; the scalar pair loops used without the Vector API</dd>
 * <dt><code>VectorBf16Pairs.java</code></dt>
 * <dd>the fused convert + pair (de)interleave kernels: round-to-nearest-even in int lanes, no
 *     shuffles</dd>
 * <dt><code>VectorFill.java</code></dt>
 * <dd>broadcast runs of 1 KiB or more: wide vector stores of the repeated 1/2/4/8-byte element</dd>
 * <dt><code>BulkKernel.java</code>, <code>FillKernel.java</code>, <code>ZeroKernel.java</code>,
 *     <code>ElementKernel.java</code>, <code>ScalarTranspose.java</code>,
 *     <code>ConvertKernel.java</code>, <code>ValueMover.java</code>,
 *     <code>GatherKernel.java</code></dt>
 * <dd>scalar kernels; <code>ValueMover</code> holds the conversion rules for every pair of types
 *     (complex ones too: reals gain an imaginary 0, complex to real is refused in
 *     <code>CopyPlan</code>) and is the one place that refuses a value, as a
 *     <code>RefusedValue</code></dd>
 * <dt><code>RefusedValue.java</code>, <code>FirstRefused.java</code></dt>
 * <dd>a refused value as its own <code>IllegalArgumentException</code> (so the engine tells it from
 *     its other refusals), worded with an index by <code>at</code>; the search for the first
 *     element of a source (an <code>Access</code>, or a view element by element) that
 *     <code>ValueMover.move</code> refuses, in logical row-major order, on the failure path only:
 *     kernels work in byte offsets and chunks, and parallel ones may meet a later element
 *     first</dd>
 * <dt><code>VectorTranspose.java</code>, <code>VectorPairInterleave.java</code>,
 *     <code>VectorSupport.java</code></dt>
 * <dd>Vector API kernels (16x16/8x8 <code>selectFrom</code> transposes walked in L2-sized bands,
 *     bf16 pair interleave) and the module check</dd>
 * <dt><code>SubByteStaging.java</code></dt>
 * <dd>copies with a packed sub-byte side (<code>s4</code>/<code>u4</code> under <code>E(4)</code>,
 *     2- and 1-bit types; single-piece views) through the planned kernels: a packed source's
 *     reached slots are unpacked into a byte-a-slot temporary (eight slots a step by shift-and-mask
 *     bit spreading) read through the same map (strides shifted to the temporary, an
 *     <code>E(0)</code> copy of a tiled shape, or the map itself), and a packed destination is
 *     written by the plan into such a temporary, its slots first marked unwritten (0x80, which no
 *     conversion writes; a raw byte-a-slot sub-byte source that holds it is told apart by the copy
 *     run again into zeros), and only the slots written are packed back
 *     (<code>packWritten</code>): a byte written whole stored, a byte written in part merged with
 *     its bits read then, a byte not written neither read nor written (a tiled layout is written
 *     whole, its padding as zero); a refusal leaves the destination as it was. So a thread writing
 *     other elements of the same packed buffer during the copy keeps its writes, except one
 *     writing another slot of a byte the copy writes in part (an edge byte, a strided crop's
 *     byte): that byte's read and store are two accesses, and the later store wins, as with any
 *     store of part of a byte (memory is written a byte at least at a time; a bitmap's store is a
 *     read-modify-write too). The element path's store of each element has the same race. A view reaching more than 8 slots
 *     per element (plus 4096) is not unpacked by its span but staged through a temporary of exactly
 *     its elements (<code>GatheredSlots</code>). Declines, leaving the element path and saying why
 *     (<code>declined</code>), for several-piece views (<code>PiecePairs</code> hands it one piece a
 *     side), read-only or self-overlapping destinations, and maps with constraints or range
 *     variables or reaching past their buffer</dd>
 * <dt><code>GatheredSlots.java</code></dt>
 * <dd>the slots of one packed view in the row-major order of its indices, through its strides (the
 *     innermost dimension along its stride, the outer ones by an odometer) or its compiled map (a
 *     crop of a tiled layout): gathered a byte each into a temporary of exactly its elements, or
 *     scattered back from one, each slot merged into its byte so the slots the view does not reach
 *     keep their bits. A step per element where unpacking the span reached would take one per slot
 *     (every 1000th element of <code>s4[16M]</code> into f32: about 0.2x the element path's
 *     time)</dd>
 * <dt><code>BlockSource.java</code>, <code>DequantizeKernel.java</code>, <code>ScratchRows.java</code></dt>
 * <dd>a block-quantized side: planned as its f32 rows (<code>Planner.planBlocks</code>), each run a
 *     <code>Step.Dequantize</code> reading whole blocks, straight into f32/bf16/f16 rows or through a
 *     per-thread tile of f32 rows for the run's kernel; a destination with no loop form (several
 *     pieces, packed, a map no strides give) goes a chunk of rows at a time through a 256 KiB scratch
 *     of f32 rows: dequantize steps into it, then the engine's own route from it (flat where only
 *     that splits the map, chunks cut on its digits)</dd>
 * <dt><code>StagedDestination.java</code></dt>
 * <dd>for transposes that write the destination in strided passes
 *     (<code>VectorTranspose.writesInPasses</code>: NCHW -&gt; NHWC): the kernel writes a pooled 6
 *     MiB scratch (at most one kept per core, each in its own shared arena so one dropped is freed
 *     at once; counted for <code>ScratchMemory</code>) and each 2.5-5 MiB chunk goes out in one
 *     <code>MemorySegment.copy</code>, whose stub streams (no write-allocate) from 2.5 MiB; dense
 *     destinations only; <code>-Dtensorbuf.copy.stageDestination=false</code> turns it off</dd>
 * <dt><code>VectorPlanes.java</code></dt>
 * <dd>interleave/de-interleave of 2-4 planes of 4-byte elements (NCHW &lt;-&gt; NHWC with few
 *     channels)</dd>
 * <dt><code>VectorEvenGather.java</code></dt>
 * <dd>stride-2 gathers (<code>::2</code> slices) with an even-lane shuffle</dd>
 * <dt><code>VectorBytePlanes.java</code></dt>
 * <dd>u8 with 2-4 interleaved channels to f32 planes with per-channel scale and bias (image
 *     staging)</dd>
 * <dt><code>ChunkConvert.java</code></dt>
 * <dd>conversions from pred, s8-s64, u8-u64, f16, bf16, f32 and f64 to any real type (and c64
 *     &lt;-&gt; c128 part by part) for <code>ConvertKernel</code>: a chunk of up to 512 (its arrays
 *     sized to the task's runs, so a small copy does not allocate 13.8 KB) read into an
 *     <code>int[]</code> (pred and integers that fit), <code>long[]</code>, <code>double[]</code>
 *     or <code>float[]</code> (<code>ChunkReads</code>), converted and range-checked in branch-free
 *     array loops (min/max reductions in <code>ChunkRanges</code>, pred as a sign bit), and written
 *     from the destination's form (<code>float[]</code> for f32, <code>double[]</code> for f64,
 *     <code>long[]</code> for 64-bit integers, <code>int[]</code> for the rest); a chunk with a
 *     value out of range goes through <code>ValueMover</code>, which throws its message. A double
 *     meets a narrow float through a float rounded to odd (<code>FloatCodec.roundToOdd</code>), so
 *     it rounds once as the codecs do (bf16 through a float rounded to nearest, as XLA; f8e8m0fnu
 *     through its codec); f16, bf16 and one-byte NaNs into f8e5m2 become XLA's 0x7f. A dense run
 *     first goes through <code>DenseConvert</code>, which may stop early at a value out of range
 *     (or do nothing, for a pair without a loop of its own) and leave the rest to the chunks;
 *     strided runs of every pair go through the chunks</dd>
 * <dt><code>ChunkReads.java</code></dt>
 * <dd><code>ChunkConvert</code>'s first step: a run of source elements read exactly into the chunk
 *     array of its form (<code>int[]</code>, <code>long[]</code>, <code>double[]</code>,
 *     <code>float[]</code>; f16 and bf16 decoded, NaN payloads kept), dense runs with one bulk
 *     <code>MemorySegment.copy</code>, strided ones element by element, widened through
 *     <code>VectorChunks</code> when the Vector API runs</dd>
 * <dt><code>ChunkRanges.java</code></dt>
 * <dd><code>ChunkConvert</code>'s step into an integer destination: min/max range checks of a chunk
 *     (u64 read unsigned) and truncation of floats and doubles into the range, false sending the
 *     chunk to <code>ValueMover</code>; the float bounds (<code>truncatesAbove</code>,
 *     <code>truncatesBelow</code>) <code>DenseConvert</code>'s loops share, so both paths refuse
 *     the same values</dd>
 * <dt><code>DenseConvert.java</code></dt>
 * <dd>the one place with a loop of its own per common pair, for dense runs, from segment to
 *     segment: plain loops C2 vectorises (f64 &lt;-&gt; f32, f32 &lt;-&gt; f16) and
 *     <code>VectorDenseConvert</code>'s loops where it does not or does poorly (s8/u8/pred/s16/u16
 *     -&gt; f32 and s32, s32/u32 -&gt; f32, bf16 -&gt; f32, f32/f64 -&gt; bf16, f32 -&gt;
 *     s8/u8/s16/u16/s32, f64/bf16 -&gt; s32, f32/f64 -&gt; s64, s32/s64 -&gt; f64, s64 -&gt; f32,
 *     s64 &lt;-&gt; s32); returns how many elements it converted. <code>ConvertKernel</code>'s u8
 *     -&gt; f32 with scale and bias (image staging) uses its byte loop</dd>
 * <dt><code>VectorDenseConvert.java</code></dt>
 * <dd><code>DenseConvert</code>'s Vector API loops, one a pair (and one a store width: a vector
 *     merged from branches is boxed), from segment to segment: s8/u8/pred -&gt; f32 (with scale and
 *     bias) and s32, s16/u16 -&gt; f32 and s32, s32/u32 -&gt; f32 (u32 as its two halves, exact in
 *     floats, summed: one rounding), bf16 -&gt; f32, f32/f64 -&gt; bf16, f32 -&gt;
 *     s8/u8/s16/u16/s32, f64/bf16 -&gt; s32, f32/f64 -&gt; s64, s32/s64 -&gt; f64, s64 -&gt; f32
 *     and s64 &lt;-&gt; s32. Those with a range stop before a vector holding a value out of it,
 *     which the chunk path then reports</dd>
 * <dt><code>ConvertSpecies.java</code></dt>
 * <dd>the vector species <code>VectorChunks</code> and <code>VectorDenseConvert</code> share: ints,
 *     floats, bytes and shorts of as many lanes, and longs and doubles with ints, floats and shorts
 *     of theirs</dd>
 * <dt><code>VectorChunks.java</code></dt>
 * <dd>the passes C2 leaves scalar (it skips loops whose element widths differ), with the Vector
 *     API, over <code>ChunkConvert</code>'s chunk arrays: widening, long -&gt; int narrowing, float
 *     and double -&gt; int with their range checks as masks, float -&gt; pred, bf16 decoding, and
 *     vector stores of a chunk into dense destinations (a bulk copy from the array wrote DRAM-sized
 *     destinations at half the speed).</dd>
 * <dt><code>ByteTable.java</code></dt>
 * <dd>conversions from the one-byte types <code>ChunkConvert</code> does not read (f8, f6, f4, and
 *     the unpacked sub-byte types) to any type of up to 8 bytes: a 256-entry table of destination
 *     bits per pair, filled once by <code>ValueMover.move</code> (refused bytes marked, and the run
 *     then goes through <code>ValueMover</code>); written through
 *     <code>ChunkConvert.writeWords</code> / <code>writeLongs</code></dd>
 * <dt><code>Pointwise.java</code>, <code>ChannelExpression.java</code></dt>
 * <dd>an elementwise expression and its evaluator, a column of values per op: XLA's CPU rules
 *     (denormals flushed) for <code>run</code>'s epilogues (<code>PointwiseCopy</code>),
 *     IEEE's for the copy engine's per-channel affine, which <code>ChannelExpression</code> writes as
 *     <code>fma(convert&lt;f32&gt;(%0), %1, %2)</code> and evaluates for gathers and the forms no
 *     loop recognises (f64 arithmetic, 64-bit and u32 sources, f8 destinations). An expression is
 *     a graph: a node several ops read is one node, computed once and printed once
 *     (<code>$0 = ...;</code>); <code>Pointwise.Interner</code> makes equal nodes one; every walk of
 *     a whole expression (evaluating, printing, lowering to lanes) keeps its own stack, as a Python
 *     loop's chain runs thousands of ops deep</dd>
 * <dt><code>AffineChunks.java</code></dt>
 * <dd>the convert kernel's loops for the affine's recognised form
 *     <code>[convert&lt;T&gt;](fma(convert&lt;f32&gt;(%0), %1, %2))</code> (8-32-bit integers, f16, bf16,
 *     f32 into f32, bf16, f16): <code>ChunkReads</code> into a float chunk, the fma across it, the
 *     codec's writes; a channel loop innermost taken with the loop outside it, a channel at a
 *     time over a chunk; the evaluator's values bit for bit (<code>AffineChunksTest</code>)</dd>
 * <dt><code>PointwiseCopy.java</code>, <code>PointwiseTable.java</code>, <code>PointwiseLanes.java</code></dt>
 * <dd>a plan's <code>Step.Epilogue</code>: an expression over operand views evaluated into the
 *     destination in one pass of cache-sized blocks, each block's operands copied dense by the
 *     engine running the pass (on the block's thread), its decisions kept in <code>PlanCache</code>; as a lookup table for one 8-bit operand and per-channel constants, as
 *     f32 vector sweeps (<code>VectorPointwise</code>) for f32, bf16 or f16 operands and per-channel
 *     constants, else the block evaluator. <code>CopyExecutor</code>'s threads take the blocks in
 *     turn; <code>CopyEngine.explain</code> shows the pass with its expression as the epilogue. <code>run</code>'s fused pointwise HLO and <code>tensorbuf plan
 *     --epilogue</code> plan through it. An operand whose innermost dim is a few interleaved
 *     channels (u8 NHWC read as NCHW) makes blocks span that dim whole, a run per channel</dd>
 * <dt><code>PixelPlanes.java</code></dt>
 * <dd>the lanes' chain of at most two ops over u8 pixels of 3 interleaved channels, fused with the
 *     de-interleaving (<code>VectorBytePlanes</code>' byte shuffles) and the store into planes: image
 *     staging in one pass over registers; a pass uses it only where it gives the lookup table's
 *     bits on every pixel value in every channel</dd>
 * <dt><code>PointwiseSyntax.java</code></dt>
 * <dd>reads an expression in the text <code>Pointwise</code> prints (so a printed epilogue pastes
 *     back, its <code>$k = ...;</code> bindings one node each), constants typed by their sibling operands; each problem a
 *     <code>TextFormatException</code> at its position</dd>
 * <dt><code>ScalarLiteral.java</code></dt>
 * <dd>one float literal as XLA prints it, rounded once from the decimal to a float type (the double
 *     moved to round-to-odd where it could be a midpoint), out-of-range values refused by name:
 *     HLO constants (<code>exec.internal.Literals</code>) and <code>PointwiseSyntax</code>'s
 *     constants both read through it</dd>
 * <dt><code>VectorPointwise.java</code></dt>
 * <dd>f32 elementwise ops over dense float blocks for <code>PointwiseLanes</code>
 *     (add, subtract, multiply, divide, fused multiply-add, maximum, minimum, clamp, negate, abs;
 *     convert to bf16, f16, u8, s8) with XLA's CPU rules: denormals flushed in and out, canonical
 *     NaN from maximum/minimum, sign-bit-only negate and abs</dd>
 * <dt><code>Folds.java</code>, <code>VectorFolds.java</code></dt>
 * <dd>the loops <code>exec.internal.Reductions</code> folds dense rows with: memory read straight
 *     into typed accumulators by one associative, commutative op with XLA's rules (floats read
 *     flushed, NaN wins, -0 below +0; integers wrapped when the fold is done; f32 flushed once at
 *     the end, which gives the same bits); f32 maximum and minimum and s32 sums on Vector API
 *     lanes, a whole row in registers as four streams, rows into accumulators four a pass</dd>
 * <dt><code>EngineThreads.java</code></dt>
 * <dd>an engine's executor for this module's loops that are not copies (a reduce's folds), handed
 *     over by <code>CopyEngine</code> as it initializes, so a process runs one set of copy threads
 *     and the public API gains nothing</dd>
 * <dt><code>VectorMiniFloat.java</code></dt>
 * <dd><code>MiniFloat.encode(float)</code> 8-16 lanes at a time for <code>ChunkConvert</code> (f16,
 *     bf16, f8, f6, f4 destinations): both rounding cases computed and blended, so the speed does
 *     not depend on the data; bf16, which keeps float's exponent, in one case (<code>bf16</code>,
 *     shared with the dense f32 -&gt; bf16 loop)</dd>
 * <dt><code>ViewAdapter.java</code></dt>
 * <dd>a <code>TensorView</code> as an <code>Access</code>: a view made by stride arithmetic (every
 *     op on a strided view, <code>TensorView.strided</code> and untiled <code>TensorView.of</code>)
 *     by its strides, with no map composed or simplified (for a view made per call that was 5-30
 *     us, several times a small copy); others by their map form: a tiled form whose recovered
 *     layout (<code>MapForm.Tiled.layout()</code>) the map reads whole is addressed by that
 *     layout's tiles, and as a destination owns their padding when its buffer ends within the
 *     layout's slots (<code>tiledLayout</code>), however the view was made: the destination
 *     access carries the bytes of the view's whole layout (<code>Access.owning</code>), which the
 *     planner zeroes; a packed whole layout's gaps and the rest of its last byte are zeroed here;
 *      *     element-by-element copies (each converted value passes through <code>ValueMover</code> in
 *     one-element scratch segments, so both paths share one set of rules; c128 by real and
 *     imaginary parts), refusing a destination that writes one slot twice by the bit address of
 *     every element; used only for packed sub-byte views <code>SubByteStaging</code> declines
 *     (a read-only or self-overlapping destination, whose refusal it words)</dd>
 * <dt><code>PiecePairs.java</code></dt>
 * <dd>a copy with a side over several pieces as a flat list of one-piece copies: each side's
 *     pieces cut into disjoint boxes by their (simplified) maps' domains, a piece holding its domain
 *     minus the earlier pieces' (<code>views.internal.DomainBoxes</code>; a one-piece side is one
 *     box, no map simplified), and every non-empty intersection of a source box with a
 *     destination box one pair: the piece's buffer through its map with the box's start and step
 *     put in (a one-piece side sliced instead), which the engine routes as any two one-piece views
 *     (planned; staged for packed sides; a pad's fill is a constant map, a broadcast). Pairs run
 *     in row-major order of their first index; nothing recurses and no op history is read. A
 *     box strided over whole bytes on both sides is handed on as strides (<code>Pair.sourceStrides</code>),
 *     its one-piece views made only when asked (explain, or a box planned on its own). A
 *     destination box on a pad's fill or read-only memory is refused before anything is written,
 *     at its first index in the element path's words; destination pieces sharing a buffer are
 *     checked slot by slot (<code>DistinctSlots</code>); a tiled destination's slots are zeroed
 *     first, as the element path zeroes them; a refused value is named afresh over the whole
 *     source by <code>CopyFailures</code>. A reshape over pieces (or a transpose of one) cuts its
 *     own dims in a staircase, a box per row segment; both sides are then cut regrouped
 *     (<code>DomainBoxes.regroupings</code>: a transpose and a row-major reshape, the same for both,
 *     to the dims where the pieces are boxes) when that makes fewer boxes. The boxes and their maps
 *     depend on the pieces' maps alone and are kept (256 cuts, then it starts over), up to
 *     <code>DomainBoxes.CEILING</code> boxes; a copy past it is cut a band of rows of the first
 *     dimension at a time (a row that alone passes it, a band of its next dimension, and so on
 *     inward), each band's boxes put into a <code>BoxTable</code> and dropped before the next band
 *     is cut (<code>PiecePairs.table</code>); the table is kept as the cuts are. A table that would
 *     pass <code>BoxTable.MAX_BYTES</code> is not made: that copy is cut and run a band at a time
 *     (<code>forEachBand</code>), its refusals found first by a pass over the destination's own
 *     boxes a band at a time (<code>refuseUnwritable</code>)</dd>
 * <dt><code>BoxTable.java</code></dt>
 * <dd>the boxes of a cut past the ceiling as primitive arrays in row-major order: per box its
 *     start, its shape (counts, steps, and the strides of a side of several pieces: a
 *     staircase's 129,049 boxes are 20 shapes), its pieces and its offsets on a side of several
 *     pieces; no box, view or lambda per box (about 44 bytes a box of rank 2, at most 64 MiB a
 *     table and 256 MiB for all kept). A side of one piece, the buffers, fills and read-only
 *     memory are read each copy (<code>Pass</code>): refusals first (the first refused box in
 *     row-major order starts at the first refused index, named in the element path's words),
 *     then each shape's loops resolved once (<code>BoxRuns.resolve</code>) and every box of it
 *     run at its offsets (<code>CopyExecutor.runAt</code>), its spans checked in a few additions.
 *     A box whose map is not affine over it keeps its map and is planned on its own. A test caps
 *     the table lower for the copies it runs (<code>cappedAt</code>, a scoped value on its
 *     thread), so the table-less banded path is copied whole with some 72,000 boxes</dd>
 * <dt><code>BoxFamilies.java</code></dt>
 * <dd>the boxes of a copy over pieces against a side of one piece in tiles (an XLA
 *     <code>T(8,128)</code> layout, not strided, so no form's loop nest), a <code>BoxTable</code>'s
 *     past the ceiling and a cut's pairs under it alike (<code>BoxFamilies.Boxes</code>), which
 *     were planned one by one through a slice's map (some 40 to 50 us a box): a family is the boxes of one shape that
 *     meet the tiles alike (under one tiling, the same places where their indices cross a tile
 *     boundary; under nested tilings, the same remainders by the first tile), as a tiled offset is
 *     linear in whole tiles and, under one tiling, a sum of <code>a*i + b*floor(i/t)</code> per
 *     dimension. A family's first box is cut at those crossings into sub-boxes strided on both
 *     sides, each run by its form's loops (<code>BoxRuns</code>, the first form checked through
 *     <code>CopyPlan.of</code>); every later box runs them at its offsets, spans checked. A family
 *     whose sub-boxes are too many (64), or whose plan is not runs of loops, plans each box as
 *     before. 71,000 boxes into <code>f32{1,0:T(8,128)}</code>: 2.5 s a copy, now 30 ms. Under
 *     the ceiling the route makes each box's member (its family's runs at its offsets) as it
 *     routes the pairs, and an explanation shows those runs and counts the families</dd>
 * <dt><code>PackedPieces.java</code></dt>
 * <dd>a side over several pieces of packed sub-byte storage (a staircase of <code>s4</code> parts):
 *     the slots its pieces reach in each buffer (the interval of each map over its bounds,
 *     <code>ViewBounds.reach</code>; every index looked up for a small view whose intervals are far
 *     wider than it; a whole buffer only where an interval is unbounded), rounded out to whole
 *     bytes, unpacked into byte-a-slot
 *     temporaries, the same maps shifted over them a view of whole bytes copied as any pieces
 *     (shared loop nests); a destination's runs not unpacked but marked unwritten, and only the
 *     slots the copy writes packed back into those bytes, as <code>SubByteStaging</code> packs
 *     (a byte no piece writes is not touched, a byte written in part merged then); staged box by box, each box
 *     unpacked its own slots and a family of rows reaching far more slots than it holds went
 *     element by element</dd>
 * <dt><code>BoxRuns.java</code></dt>
 * <dd>the boxes of one copy over pieces that are strided on both sides, run without a plan each:
 *     boxes of one form (counts and both sides' strides, offsets aside) share the loop nest and
 *     kernel <code>LoopNest</code> chose for the form's first box, moved to each box's offsets, and
 *     <code>CopyExecutor.runLoops</code> runs it on the calling thread (a <code>BoxTable</code>'s
 *     boxes: <code>resolve</code> once a shape, <code>CopyExecutor.runAt</code> each box). The copy's first box is
 *     planned and checked through <code>CopyPlan.of</code> (types, read-only), each form's first
 *     through <code>SelfOverlap</code> and the planner (no <code>PlanCache</code> entry), every box's
 *     spans against its segments before anything runs. Boxes of 4 MiB moved or more (the
 *     executor's threshold) and plans other than one loop nest keep a plan of their own. A
 *     staircase's thousands of row segments are a few hundred forms</dd>
 * <dt><code>Reach.java</code></dt>
 * <dd>the bytes one side of a copy can touch (exact for strides, every slot for tiles, the map's
 *     range for mapped sides): <code>CopyPlan</code> refuses overlapping sides by what they
 *     address, not by segment, and <code>CopyEngine.copy</code> of two views that share bytes goes
 *     through a temporary</dd>
 * <dt><code>SelfOverlap.java</code></dt>
 * <dd>refuses a destination that writes one slot from two indices: zero strides, strides that do
 *     not nest and maps that are not one-to-one (both visited by views'
 *     <code>DistinctSlots</code>); a map whose <code>SplitDims</code> digits nest is accepted
 *     without a visit</dd>
 * <dt><code>Layouts.java</code></dt>
 * <dd>little-endian value layouts</dd>
 * </dl>
 */
package dev.tensorbuf.ops.copy.internal;
