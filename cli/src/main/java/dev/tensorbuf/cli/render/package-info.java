/**
 * Pictures of layouts for {@code tensorbuf render}: an SVG of the logical grid, each cell showing
 * its element offset, tiles outlined and filled per level, padding hatched, and below it the
 * memory strip in physical order. Pure string building, no dependencies.
 *
 * <p>Key types: {@link dev.tensorbuf.cli.render.Placement} (what a layout says about each cell and
 * slot; {@link dev.tensorbuf.cli.render.TiledPlacement} for XLA shapes,
 * {@link dev.tensorbuf.cli.render.StridedPlacement} for strides), {@link dev.tensorbuf.cli.render.LayoutPicture}
 * (what is drawn, summarised past 64 cells a side), {@link dev.tensorbuf.cli.render.PictureSvg}
 * (the drawing) and {@link dev.tensorbuf.cli.render.SvgWriter}.
 * {@snippet :
 * Placement p = TiledPlacement.of(ArrayShape.parse("bf16[4,8]{1,0:T(2,4)(2,1)}"));
 * String svg = PictureSvg.draw(LayoutPicture.of(p, Optional.empty()));
 * // <text class="offset" data-index="1,0" ...>1</text>: rows 0 and 1 pair up in (2,1) tiles
 * }
 *
 * <p>Rules for every type here: output is deterministic (same input, same bytes); offsets and
 * slots are in elements; indices print as {@code "i,j"}, logical order.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>LayoutPicture.java</code>, <code>Placement.java</code>,
 *     <code>TiledPlacement.java</code>, <code>StridedPlacement.java</code>,
 *     <code>SliceSpec.java</code>, <code>StripItem.java</code></dt>
 * <dd>the picture's model: cells, offsets, tile ids per level, sharing, the memory strip,
 *     summarising rules</dd>
 * <dt><code>PictureSvg.java</code>, <code>StripSvg.java</code>, <code>SvgWriter.java</code>,
 *     <code>Palette.java</code></dt>
 * <dd>drawing: deterministic SVG, colour-blind-safe fills</dd>
 * </dl>
 */
package dev.tensorbuf.cli.render;
