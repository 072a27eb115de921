/**
 * Benchmarks: JMH classes and the cases {@code tensorbuf bench} runs in-process.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>PoolAllocationBenchmark.java</code></dt>
 * <dd>JMH: pool vs fresh confined arena, allocate+free</dd>
 * <dt><code>IndexingBenchmark.java</code></dt>
 * <dd>JMH: simplifier on reshape and tiling maps; compiled evaluator per point</dd>
 * <dt><code>ViewAccessBenchmark.java</code>, <code>ViewOpBenchmark.java</code></dt>
 * <dd>JMH: element access through strided and tiled views; cost of making each view op on 1
 *     GiB</dd>
 * <dt><code>CopyPlanBenchmark.java</code></dt>
 * <dd>JMH: planning a copy (<code>CopyEngine.plan</code>) on three of the cases</dd>
 * <dt><code>ReduceBenchmark.java</code></dt>
 * <dd>JMH: <code>tensorbuf run</code>'s reduce of 96 MiB in process (f32 max over both, the inner
 *     and the outer dim; s32 sum) beside <code>MemorySegment.copy</code> of the operand</dd>
 * <dt><code>ChannelAffineBenchmark.java</code></dt>
 * <dd>JMH: copies with a per-channel scale and bias on the general paths (f32 NCHW -&gt; NHWC with
 *     the channel innermost, f16 -&gt; f32, u8 -&gt; bf16) and u8 -&gt; f32 staging; its
 *     <code>main</code> compares two builds in one JVM, in turns, by thread CPU time</dd>
 * <dt><code>CopyCase.java</code>, <code>CopyBenchRunner.java</code>,
 *     <code>CopyBenchmark.java</code></dt>
 * <dd>the copy cases of issue 5 and an f64 -&gt; f32 conversion, run in-process (<code>tensorbuf
 *     bench</code>; a <code>Session</code> keeps one case warm for <code>--paced</code> samples on
 *     demand, timed by <code>inTurns</code> in blocks, at least 3 a side, that alternate with the
 *     baseline's, odd samples starting with the baseline; the baseline's slowest and fastest block
 *     medians, and <code>noise</code>, which calls a ratio noisy past a 2x spread or above 2) and
 *     under JMH, each against <code>MemorySegment.copy</code> of the same bytes</dd>
 * <dt><code>BenchMemory.java</code></dt>
 * <dd>where the cases and their baseline get memory: a <code>HugePageAllocator</code>, since
 *     NumPy's and (with <code>THP_MEM_ALLOC_ENABLE=1</code>) PyTorch's arrays are on huge pages
 *     too; <code>-Dtensorbuf.bench.hugePages=false</code> for a shared arena</dd>
 * <dt><code>ParallelCopy.java</code></dt>
 * <dd>that baseline: <code>MemorySegment.copy</code> cut across as many threads as the engine runs
 *     the case on (the caller and polling helpers), as issue 5 defines "ratio to copy"; the demo
 *     uses it too. Confined segments are refused when it is made, and a part that fails ends
 *     <code>run()</code> with its exception instead of leaving it waiting</dd>
 * <dt><code>peers/copy_peers.py</code>, <code>peers/copy_report.py</code></dt>
 * <dd>the same cases in NumPy and PyTorch, several expressions where a library has more than one
 *     way (the fastest counts); joins both into <code>bench/RESULTS.md</code>, the verdict on the
 *     median of each round's paired ratio</dd>
 * <dt><code>peers/compare.py</code>, <code>peers/copy-notes.md</code></dt>
 * <dd>for N rounds, warms each case up in <code>tensorbuf bench --paced --threads 2</code> (the jar
 *     built once, then <code>TENSORBUF_NO_BUILD=1</code>) and in <code>copy_peers.py --paced</code>
 *     at once, then samples them in turn, A B B A (B A A B in odd rounds), so the two sides are
 *     measured a fraction of a second apart, and writes the medians (min-max) and each round's
 *     ratio to the faster peer with the notes under the table through <code>copy_report.py</code>;
 *     raw rounds in <code>peers/rounds/</code> (ignored by git), from which
 *     <code>--from-rounds</code> rebuilds the report</dd>
 * <dt><code>experiments/</code></dt>
 * <dd>standalone single-file measurements behind the copy-engine notes (write bandwidth, loop
 *     shapes of the slice, the tiling and the transposes, the copy stub's streaming threshold,
 *     thread wake-up, huge pages, the broadcast written or duplicated, the engine against a
 *     standalone fill, PyTorch's bandwidth swings), <code>ab_paced.py</code> (two engine option
 *     sets sampled in turns), not built by Maven</dd>
 * </dl>
 */
package dev.tensorbuf.bench;
