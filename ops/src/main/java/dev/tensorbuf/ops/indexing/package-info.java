/**
 * HLO indexing analysis (seed 004): {@link dev.tensorbuf.ops.indexing.HloIndexing} computes, for
 * an instruction of an {@link dev.tensorbuf.ops.hlo.HloModule}, the
 * {@link dev.tensorbuf.views.indexing.IndexingMap}s from an output index to the operand elements
 * it reads, or from an operand index to the output elements it reaches.
 *
 * {@snippet :
 * HloModule m = HloModule.parse("""
 *     HloModule m
 *     ENTRY e {
 *       p0 = f32[4,8] parameter(0)
 *       ROOT r = f32[32] reshape(p0)
 *     }""");
 * HloIndexing.outputToInput(m, m.entry().root()).toString();
 * // "operand id = 0 (d0) -> (d0 / 8, d0 mod 8), domain: d0 in [0, 31]\n"
 * }
 *
 * <p>Rules for every method: results print as XLA's {@code ToString()} (current spelling, or
 * MLIR's via {@code toText(IndexingMap.Notation.MLIR)}); a runtime variable {@code rt_i} of a map is
 * described by the i-th {@link dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable} of its
 * {@link dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing}; the view ops' maps (transpose,
 * slice, reverse, broadcast, pad, reshape, concatenate) are the ones {@code Ops} composes, built
 * in one place per op ({@code ops.internal}); an op without a model gives
 * {@code unknown indexing} (an undefined map), never an exception.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>HloIndexing.java</code></dt>
 * <dd>entry point: <code>outputToInput</code>, <code>inputToOutput</code>, grouped and epilogue
 *     indexing, <code>physical</code> layouts; its results, nested:
 *     <code>InstructionIndexing</code> (maps per operand, printed as XLA's
 *     <code>HloInstructionIndexing::ToString()</code>), <code>OperandIndexing</code> (one map with
 *     the instructions its runtime variables stand for, <code>RuntimeVariable</code>)</dd>
 * </dl>
 */
package dev.tensorbuf.ops.indexing;
