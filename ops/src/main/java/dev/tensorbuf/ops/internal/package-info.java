/**
 * What every package of {@code dev.tensorbuf.ops} shares and no user should see: {@code Errors},
 * the messages the module builds in more than one place.
 *
 * <p>Not exported. It imports nothing from the rest of {@code ops}, so the op files, the HLO front
 * end, the indexing analysis, the executor and the copy engine can all use it without a package
 * cycle; its factories therefore take names and numbers, not {@code HloInstruction}s.
 */
package dev.tensorbuf.ops.internal;
