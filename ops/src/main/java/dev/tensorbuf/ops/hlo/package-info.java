/**
 * The HLO text front end: {@link dev.tensorbuf.ops.hlo.HloModule#parse(String)} reads XLA's HLO
 * module text into immutable records ({@link dev.tensorbuf.ops.hlo.HloModule},
 * {@link dev.tensorbuf.ops.hlo.HloComputation}, {@link dev.tensorbuf.ops.hlo.HloInstruction})
 * with attributes typed by name ({@link dev.tensorbuf.ops.hlo.HloAttribute}).
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
 * where none was written; malformed text throws {@link dev.tensorbuf.ops.hlo.HloSyntaxException}
 * with the 1-based line and column; lookups of missing names throw IllegalArgumentException
 * listing the names there are.
 */
package dev.tensorbuf.ops.hlo;
