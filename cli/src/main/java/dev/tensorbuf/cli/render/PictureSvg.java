package dev.tensorbuf.cli.render;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Draws a {@link LayoutPicture} as one SVG document: title, the grid panels (each cell shows its
 * element offset), the memory strip ({@link StripSvg}), the legend and the captions. Sizes come
 * from character counts, not font metrics, so the output is the same everywhere.
 *
 * <p>Every grid number is a {@code <text class="offset" data-index="i,j">N</text>} (padding cells:
 * {@code class="pad-offset" data-padded-index}), and every strip slot a
 * {@code <text class="slot" data-slot="N" data-index="i,j" data-count="C">}, so tests and tools
 * can read the picture back with an XML parser.
 * {@snippet :
 * String svg = PictureSvg.draw(LayoutPicture.of(
 *         TiledPlacement.of(ArrayShape.parse("f32[3,5]{1,0:T(2,2)}")), Optional.empty()));
 * // contains <text class="offset" data-index="2,3" ...>17</text>
 * }
 */
public final class PictureSvg {
    static final String SANS = "'DejaVu Sans', Verdana, Arial, sans-serif";
    static final String MONO = "'DejaVu Sans Mono', Menlo, Consolas, monospace";
    static final double MARGIN = 24;
    static final double MONO_CHAR = 7.8;   // 13px monospace advance
    static final double SANS_CHAR = 7.2;   // 13px sans, a generous average
    private static final double CELL_H = 30;
    private static final double HEADER_H = 18;
    private static final double CAPTION_H = 24;
    private static final double PANEL_GAP = 32;
    private static final double MAX_ROW_WIDTH = 1600;

    private PictureSvg() {}

    /** {@return the SVG document} */
    public static String draw(LayoutPicture picture) {
        Geometry g = Geometry.of(picture);
        SvgWriter body = new SvgWriter();
        double y = MARGIN;
        Placement p = picture.placement();
        body.text(p.title(), "class", "title", "x", MARGIN, "y", y + 20, "font-family", MONO, "font-size", 20,
                "font-weight", "bold", "fill", Palette.INK);
        body.text(p.subtitle(), "class", "subtitle", "x", MARGIN, "y", y + 42, "font-family", SANS, "font-size", 13,
                "fill", Palette.MUTED);
        double width = Math.max(MARGIN + p.title().length() * 12.5, MARGIN + p.subtitle().length() * SANS_CHAR);
        y += 64;
        double panelsBottom = y;
        for (int i = 0; i < picture.panels().size(); i++) {
            int col = i % g.columns;
            int row = i / g.columns;
            double x = MARGIN + col * (g.panelW + PANEL_GAP);
            double top = y + row * (g.panelH + PANEL_GAP);
            panel(body, picture, picture.panels().get(i), g, x, top);
            width = Math.max(width, x + g.panelW);
            panelsBottom = Math.max(panelsBottom, top + g.panelH);
        }
        y = panelsBottom;
        if (picture.hiddenPanels() > 0) {
            body.text("... " + picture.hiddenPanels() + " more slices", "class", "more", "x", MARGIN, "y", y + 18,
                    "font-family", SANS, "font-size", 13, "font-style", "italic", "fill", Palette.INK);
            y += 24;
        }
        y += 28;
        StripSvg.Drawn strip = StripSvg.draw(body, picture, MARGIN, y, Math.max(width - MARGIN, 720));
        y = strip.bottom() + 28;
        width = Math.max(width, strip.right());
        double[] legendWidth = {width};
        y = legend(body, picture, g, y, legendWidth);
        width = legendWidth[0];
        for (String caption : picture.captions()) {
            body.text(caption, "class", "caption", "x", MARGIN, "y", y + 14, "font-family", SANS, "font-size", 13,
                    "font-style", "italic", "fill", Palette.INK);
            width = Math.max(width, MARGIN + caption.length() * SANS_CHAR);
            y += 20;
        }
        double w = Math.ceil(width + MARGIN);
        double h = Math.ceil(y + MARGIN);
        SvgWriter doc = new SvgWriter();
        doc.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        doc.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", w, "height", h,
                "viewBox", "0 0 " + SvgWriter.number(w) + " " + SvgWriter.number(h), "data-shape", p.title());
        doc.element("title", p.title());
        doc.element("desc", "Grid: each cell shows the element offset of that logical index. Strip: memory in "
                + "physical order; each slot shows the logical index it holds. " + p.subtitle());
        doc.raw("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                + "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#444444\" "
                + "stroke-width=\"1.5\" stroke-opacity=\"0.5\"/></pattern></defs>\n");
        doc.empty("rect", "x", 0, "y", 0, "width", w, "height", h, "fill", "#FFFFFF");
        doc.raw(body.toString());
        doc.close("svg");
        return doc.toString();
    }

    /** Sizes shared by every panel of a picture. */
    private record Geometry(double cellW, double headerW, double panelW, double panelH, int columns,
                            int colourRowDim, int colourColDim) {
        static Geometry of(LayoutPicture picture) {
            LayoutPicture.Panel first = picture.panels().getFirst();
            int digits = 1;
            for (LayoutPicture.Panel panel : picture.panels()) {
                for (LayoutPicture.Cell cell : panel.cells()) {
                    digits = Math.max(digits, Long.toString(cell.offset()).length());
                }
            }
            double cellW = Math.max(34, 14 + digits * MONO_CHAR);
            double headerW = 12 + Long.toString(Math.max(0, first.rows() - 1)).length() * 7;
            double moreW = first.shownCols() < first.cols() ? 96 : 0;
            double panelW = Math.max(headerW + first.shownCols() * cellW + moreW,
                    first.slice().toString().length() * SANS_CHAR + 260);
            double moreH = first.shownRows() < first.rows() ? 22 : 0;
            double panelH = CAPTION_H + HEADER_H + first.shownRows() * CELL_H + moreH;
            int fit = (int) Math.max(1, (MAX_ROW_WIDTH + PANEL_GAP) / (panelW + PANEL_GAP));
            int columns = Math.max(1, Math.min(picture.panelColumns(), fit));
            return new Geometry(cellW, headerW, panelW, panelH, columns,
                    first.slice().rowDim(), first.slice().colDim());
        }
    }

    private static void panel(SvgWriter w, LayoutPicture picture, LayoutPicture.Panel panel, Geometry g, double x, double y) {
        SliceSpec s = panel.slice();
        String axes = s.rowDim() < 0 ? "columns: dim " + s.colDim()
                : "rows: dim " + s.rowDim() + ", columns: dim " + s.colDim();
        w.open("g", "class", "panel", "data-slice", s.toString());
        w.text("x" + s + "   " + axes, "class", "panel-caption", "x", x, "y", y + 15, "font-family", SANS,
                "font-size", 13, "font-weight", "bold", "fill", Palette.INK);
        double gx = x + g.headerW;
        double gy = y + CAPTION_H + HEADER_H;
        for (int c = 0; c < panel.shownCols(); c++) {
            w.text(Long.toString(c), "class", "col-header", "x", gx + (c + 0.5) * g.cellW, "y", gy - 5,
                    "text-anchor", "middle", "font-family", MONO, "font-size", 11, "fill", Palette.MUTED);
        }
        for (int r = 0; r < panel.shownRows(); r++) {
            if (s.rowDim() >= 0) {
                w.text(Long.toString(r), "class", "row-header", "x", gx - 6, "y", gy + (r + 0.5) * CELL_H + 4,
                        "text-anchor", "end", "font-family", MONO, "font-size", 11, "fill", Palette.MUTED);
            }
            for (int c = 0; c < panel.shownCols(); c++) {
                cell(w, panel.cell(r, c), gx + c * g.cellW, gy + r * CELL_H, g.cellW);
            }
        }
        edges(w, picture.placement().tileLevels(), panel, gx, gy, g.cellW);
        double right = gx + panel.shownCols() * g.cellW;
        double bottom = gy + panel.shownRows() * CELL_H;
        if (panel.shownCols() < panel.cols()) {
            w.text("... " + (panel.cols() - panel.shownCols()) + " more", "class", "more", "x", right + 8,
                    "y", gy + Math.min(panel.shownRows(), 3) * CELL_H / 2 + 4, "font-family", SANS, "font-size", 13,
                    "font-style", "italic", "fill", Palette.INK);
        }
        if (panel.shownRows() < panel.rows()) {
            w.text("... " + (panel.rows() - panel.shownRows()) + " more rows", "class", "more", "x", gx,
                    "y", bottom + 17, "font-family", SANS, "font-size", 13, "font-style", "italic", "fill", Palette.INK);
        }
        w.close("g");
    }

    private static void cell(SvgWriter w, LayoutPicture.Cell cell, double x, double y, double cellW) {
        String fill = Palette.fill(cell.colourKey());
        String index = Placement.indexText(cell.index());
        if (cell.padding()) {
            w.empty("rect", "class", "cell padding", "x", x, "y", y, "width", cellW, "height", CELL_H, "fill", fill,
                    "fill-opacity", 0.35, "stroke", "#FFFFFF", "stroke-width", 1);
            w.empty("rect", "x", x, "y", y, "width", cellW, "height", CELL_H, "fill", "url(#hatch)");
            w.text(Long.toString(cell.offset()), "class", "pad-offset", "data-padded-index", index,
                    "x", x + cellW / 2, "y", y + CELL_H / 2 + 4.5, "text-anchor", "middle", "font-family", MONO,
                    "font-size", 12, "font-style", "italic", "fill", "#555555");
            return;
        }
        w.empty("rect", "class", "cell", "x", x, "y", y, "width", cellW, "height", CELL_H, "fill", fill,
                "stroke", "#FFFFFF", "stroke-width", 1);
        if (cell.sharing() > 1) {
            w.empty("path", "class", "shared", "d", "M" + SvgWriter.number(x + cellW - 11) + " " + SvgWriter.number(y + 1)
                    + "h10v10z", "fill", Palette.INK);
        }
        w.text(Long.toString(cell.offset()), "class", "offset", "data-index", index,
                "data-sharing", cell.sharing() > 1 ? cell.sharing() : null,
                "x", x + cellW / 2, "y", y + CELL_H / 2 + 4.5, "text-anchor", "middle", "font-family", MONO,
                "font-size", 13, "fill", Palette.INK);
    }

    /**
     * Tile outlines: a line between two neighbouring cells of different tiles, inner levels first so
     * the outer outline is drawn over them; the panel border where the grid ends.
     */
    private static void edges(SvgWriter w, int levels, LayoutPicture.Panel panel, double gx, double gy, double cellW) {
        w.open("g", "class", "tile-edges", "stroke-linecap", "square");
        for (int k = levels - 1; k >= 0; k--) {
            StringBuilder d = new StringBuilder();
            if (k > 0 && innerBoxes(d, k, panel, gx, gy, cellW)) {
                w.empty("path", "class", "inner-tile level-" + k, "d", d.toString().strip(), "fill", "none",
                        "stroke", Palette.INNER, "stroke-width", 2, "stroke-dasharray", k >= 2 ? "5 3" : null);
                continue;
            }
            for (int r = 0; r < panel.shownRows(); r++) {
                for (int c = 0; c < panel.shownCols(); c++) {
                    long id = panel.cell(r, c).tileId(k);
                    if (c + 1 < panel.shownCols() && panel.cell(r, c + 1).tileId(k) != id) {
                        d.append(line(gx + (c + 1) * cellW, gy + r * CELL_H, 0, CELL_H));
                    }
                    if (r + 1 < panel.shownRows() && panel.cell(r + 1, c).tileId(k) != id) {
                        d.append(line(gx + c * cellW, gy + (r + 1) * CELL_H, cellW, 0));
                    }
                }
            }
            if (!d.isEmpty()) {
                w.empty("path", "class", k == 0 ? "outer-tile" : "inner-tile level-" + k, "d", d.toString().strip(),
                        "fill", "none", "stroke", k == 0 ? Palette.INK : Palette.INNER,
                        "stroke-width", k == 0 ? 3 : 2, "stroke-dasharray", k >= 2 ? "5 3" : null);
            }
        }
        double right = gx + panel.shownCols() * cellW;
        double bottom = gy + panel.shownRows() * CELL_H;
        double border = levels > 0 ? 3 : 1.5;
        boolean cutRight = panel.shownCols() < panel.cols();
        boolean cutBottom = panel.shownRows() < panel.rows();
        w.empty("path", "class", "border", "d", (line(gx, gy, right - gx, 0) + line(gx, gy, 0, bottom - gy)
                + (cutRight ? "" : line(right, gy, 0, bottom - gy)) + (cutBottom ? "" : line(gx, bottom, right - gx, 0))).strip(),
                "fill", "none", "stroke", Palette.INK, "stroke-width", border);
        if (cutRight || cutBottom) {
            w.empty("path", "class", "cut", "d", ((cutRight ? line(right, gy, 0, bottom - gy) : "")
                    + (cutBottom ? line(gx, bottom, right - gx, 0) : "")).strip(),
                    "fill", "none", "stroke", Palette.MUTED, "stroke-width", 1.5, "stroke-dasharray", "4 4");
        }
        w.close("g");
    }

    /**
     * Appends an inset box per level-{@code k} tile when every such tile covers a rectangle of the
     * drawn cells (as in seed 000's Figure 2); {@return false, appending nothing, when one does not}
     */
    private static boolean innerBoxes(StringBuilder d, int k, LayoutPicture.Panel panel, double gx, double gy, double cellW) {
        Map<String, int[]> boxes = new LinkedHashMap<>();
        for (int r = 0; r < panel.shownRows(); r++) {
            for (int c = 0; c < panel.shownCols(); c++) {
                long[] ids = panel.cell(r, c).tileIds();
                String key = Arrays.toString(Arrays.copyOf(ids, k + 1));
                int[] b = boxes.computeIfAbsent(key, x -> new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE, -1, -1, 0});
                b[0] = Math.min(b[0], r);
                b[1] = Math.min(b[1], c);
                b[2] = Math.max(b[2], r);
                b[3] = Math.max(b[3], c);
                b[4]++;
            }
        }
        for (int[] b : boxes.values()) {
            if ((b[2] - b[0] + 1) * (b[3] - b[1] + 1) != b[4]) {
                return false;
            }
        }
        double inset = 3.5;
        for (int[] b : boxes.values()) {
            double x = gx + b[1] * cellW + inset;
            double y = gy + b[0] * CELL_H + inset;
            d.append("M").append(SvgWriter.number(x)).append(' ').append(SvgWriter.number(y))
                    .append('h').append(SvgWriter.number((b[3] - b[1] + 1) * cellW - 2 * inset))
                    .append('v').append(SvgWriter.number((b[2] - b[0] + 1) * CELL_H - 2 * inset))
                    .append('H').append(SvgWriter.number(x)).append("Z ");
        }
        return true;
    }

    static String line(double x, double y, double dx, double dy) {
        return "M" + SvgWriter.number(x) + " " + SvgWriter.number(y) + (dx != 0 ? "h" + SvgWriter.number(dx) : "")
                + (dy != 0 ? "v" + SvgWriter.number(dy) : "") + " ";
    }

    /** {@return the bottom of the legend}; widens {@code width[0]} to the longest line */
    private static double legend(SvgWriter w, LayoutPicture picture, Geometry g, double y, double[] width) {
        Placement p = picture.placement();
        List<String[]> items = new ArrayList<>();
        items.add(new String[] {"fills", p.colourMeaning(g.colourRowDim, g.colourColDim)
                + " (" + Palette.size() + " colour-blind-safe fills, repeating)"});
        if (p.tileLevels() > 0) {
            items.add(new String[] {"outer", "bold outline: outer tile " + p.tileNames().getFirst()});
        }
        for (int k = 1; k < p.tileLevels(); k++) {
            items.add(new String[] {k >= 2 ? "inner-dashed" : "inner", "purple outline: tile " + p.tileNames().get(k)
                    + " (level " + (k + 1) + ", tiles the result of level " + k + ")"});
        }
        boolean padCells = picture.panels().stream().flatMap(x -> x.cells().stream()).anyMatch(LayoutPicture.Cell::padding);
        boolean padSlots = picture.strip().stream().anyMatch(i -> i instanceof StripItem.Slot s && s.padding());
        if (padCells || padSlots) {
            items.add(new String[] {"padding", "hatched: " + p.paddingWord() + " slot (padding), holds no element"
                    + (padCells ? "; in the grid it shows its slot number" : "")});
        }
        if (picture.strip().stream().anyMatch(i -> i instanceof StripItem.Gap)) {
            items.add(new String[] {"gap", "a run of more than " + LayoutPicture.GAP_COLLAPSE + " " + p.paddingWord()
                    + " slots, drawn as one box"});
        }
        if (picture.panels().stream().flatMap(x -> x.cells().stream()).anyMatch(c -> c.sharing() > 1)) {
            items.add(new String[] {"shared", "corner mark: this offset holds several logical elements; in the strip "
                    + "* marks a broadcast (stride 0) dim and xN counts overlaps"});
        }
        items.add(new String[] {"text", "grid: the number is the element offset (slot) of that index; strip: slot "
                + "number above, logical index inside"});
        w.open("g", "class", "legend");
        w.text("Legend", "x", MARGIN, "y", y + 14, "font-family", SANS, "font-size", 14, "font-weight", "bold",
                "fill", Palette.INK);
        y += 24;
        for (String[] item : items) {
            swatch(w, item[0], MARGIN, y);
            width[0] = Math.max(width[0], MARGIN + 70 + item[1].length() * SANS_CHAR);
            w.text(item[1], "class", "legend-" + item[0], "x", MARGIN + 70, "y", y + 12, "font-family", SANS,
                    "font-size", 13, "fill", Palette.INK);
            y += 22;
        }
        w.close("g");
        return y + 10;
    }

    private static void swatch(SvgWriter w, String kind, double x, double y) {
        switch (kind) {
            case "fills" -> {
                for (int i = 0; i < 4; i++) {
                    w.empty("rect", "x", x + i * 15, "y", y, "width", 14, "height", 16, "fill", Palette.fill(i));
                }
            }
            case "outer" -> w.empty("rect", "x", x + 1.5, "y", y + 1.5, "width", 57, "height", 13, "fill", Palette.fill(0),
                    "stroke", Palette.INK, "stroke-width", 3);
            case "inner", "inner-dashed" -> w.empty("rect", "x", x + 1, "y", y + 1, "width", 58, "height", 14,
                    "fill", Palette.fill(0), "stroke", Palette.INNER, "stroke-width", 2,
                    "stroke-dasharray", kind.equals("inner") ? null : "5 3");
            case "padding", "gap" -> {
                w.empty("rect", "x", x, "y", y, "width", 60, "height", 16, "fill", "#FFFFFF", "stroke", Palette.MUTED,
                        "stroke-dasharray", kind.equals("gap") ? "4 3" : null);
                w.empty("rect", "x", x, "y", y, "width", 60, "height", 16, "fill", "url(#hatch)");
            }
            case "shared" -> {
                w.empty("rect", "x", x, "y", y, "width", 60, "height", 16, "fill", Palette.fill(1));
                w.empty("path", "d", "M" + SvgWriter.number(x + 50) + " " + SvgWriter.number(y) + "h10v10z", "fill", Palette.INK);
            }
            default -> w.text("17", "x", x + 30, "y", y + 13, "text-anchor", "middle", "font-family", MONO,
                    "font-size", 13, "fill", Palette.INK);
        }
    }
}
