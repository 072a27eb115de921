/**
 * Executing HLO modules of data-movement ops as lazy views: {@link dev.tensorbuf.ops.exec.HloExecutor}
 * runs the entry computation, {@link dev.tensorbuf.ops.exec.Execution} holds the root's value and
 * one {@link dev.tensorbuf.ops.exec.ExecutedInstruction} per instruction (view, copy, parameter or constant, and
 * the form of its map).
 *
 * {@snippet :
 * try (Execution x = HloExecutor.execute("""
 *         HloModule m
 *         ENTRY e {
 *           p0 = s32[4]{0} parameter(0)
 *           ROOT s = s32[2]{0} slice(p0), slice={[1:4:2]}
 *         }""", Map.of("p0", p0))) {          // p0 = [10, 11, 12, 13]
 *     x.rowMajor().toLongArray();            // [11, 13]
 * }
 * }
 *
 * <p>Rules for every type here: values are logical (a layout matters only to {@code bitcast},
 * which reads its operand's declared physical order, and to the root's memory); errors are
 * {@link java.lang.IllegalArgumentException} naming the instruction ({@code %name}) and, when the
 * module text was given, its 1-based line.
 */
package dev.tensorbuf.ops.exec;
