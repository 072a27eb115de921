/**
 * What the public view types compute with, kept out of their API: the XLA shape text lexer,
 * parser and printer; the one nested-tiling implementation ({@code TilingPlan},
 * {@code TiledLayoutMath}) and its lowering to maps; exact overlap and padding tests of strided
 * layouts; reading a map's form; the bounds a view reaches; element reads through padded and
 * concatenated views; the narrow-float codecs; {@code Errors}, the messages this package and
 * {@code dev.tensorbuf.views} both build.
 *
 * <p>Exported to {@code dev.tensorbuf.ops}, which uses five of these classes ({@code MiniFloat},
 * {@code FloatCodec}, {@code ViewBounds}, {@code ViewReader}, {@code ConfinedMemory}), and {@code ViewOrigin}, the op a view kept,
 * for the copy engine's part-by-part copies of pads and concatenations; and to
 * {@code dev.tensorbuf.interop} for {@code ConfinedMemory}; the module's {@code module-info} says
 * where. Rules that hold for every class: sizes, strides and offsets are
 * in elements unless a name ends in {@code Bytes}; what only this arithmetic can find (an
 * overflow, a layout that does not fit its shape) is an {@link java.lang.IllegalArgumentException}
 * naming the numbers.
 */
package dev.tensorbuf.views.internal;
