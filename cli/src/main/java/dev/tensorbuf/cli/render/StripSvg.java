package dev.tensorbuf.cli.render;

import java.util.ArrayList;
import java.util.List;

/**
 * Draws the memory strip of a {@link LayoutPicture}: slots in physical order, wrapped into lines
 * whose length is a whole number of outer tiles where one fits, each slot with its number above
 * and the logical index it holds inside. Outer tiles get a bold outline and a small gap, inner
 * tiles a purple inset outline: the same tiles the grid outlines.
 * {@snippet :
 * // f32[3,5]{1,0:T(2,2)}: one line of 24 slots; slot 17 reads "2,3"
 * StripSvg.draw(writer, picture, 24, 300, 1100);
 * }
 */
final class StripSvg {
    private static final double BOX_H = 30;
    private static final double LINE_H = 54;
    private static final double TILE_GAP = 5;
    private static final double LABEL_CHAR = 7.3;  // 12px monospace advance, rounded up
    private static final double MIN_STRIP_WIDTH = 1100;

    private StripSvg() {}

    /** Where the strip ended. */
    record Drawn(double bottom, double right) {
    }

    /** One box placed on a line. */
    private record Placed(StripItem item, double x, double w) {
    }

    static Drawn draw(SvgWriter w, LayoutPicture picture, double x0, double y, double maxWidth) {
        Placement p = picture.placement();
        List<StripItem> items = picture.strip();
        w.open("g", "class", "strip");
        w.text("Memory, in physical order", "x", x0, "y", y + 14, "font-family", PictureSvg.SANS, "font-size", 14,
                "font-weight", "bold", "fill", Palette.INK);
        w.text("slot number above each box; inside, the logical index stored there", "x", x0 + 250, "y", y + 14,
                "font-family", PictureSvg.SANS, "font-size", 13, "fill", Palette.MUTED);
        y += 26;
        int maxLabel = 1;
        for (StripItem item : items) {
            if (item instanceof StripItem.Slot s) {
                maxLabel = Math.max(maxLabel, s.label().length());
            }
        }
        double slotW = Math.max(36, 12 + maxLabel * LABEL_CHAR);
        double limit = Math.max(maxWidth, MIN_STRIP_WIDTH);
        int perLine = perLine(items, slotW, limit - x0);
        double right = x0;
        List<Placed> line = new ArrayList<>();
        double x = x0;
        int inLine = 0;
        StripItem.Slot previous = null;
        for (StripItem item : items) {
            double bw = item instanceof StripItem.Gap gap ? gapWidth(gap, p, slotW) : slotW;
            boolean newTile = previous != null && item instanceof StripItem.Slot s && s.tileLevels() > 0
                    && s.tileId(0) != previous.tileId(0);
            double step = (newTile ? TILE_GAP : 0) + bw;
            if (!line.isEmpty() && (inLine >= perLine || x + step > limit)) {
                finishLine(w, line, y, p.paddingWord());
                y += LINE_H;
                line.clear();
                x = x0;
                inLine = 0;
                step = bw;
            }
            line.add(new Placed(item, x + step - bw, bw));
            x += step + 1;
            inLine++;
            right = Math.max(right, x);
            previous = item instanceof StripItem.Slot s ? s : null;
        }
        finishLine(w, line, y, p.paddingWord());
        y += LINE_H - 8;
        if (picture.hiddenSlots() > 0) {
            w.text("... " + picture.hiddenSlots() + " more slots", "class", "more", "x", x0, "y", y + 10,
                    "font-family", PictureSvg.SANS, "font-size", 13, "font-style", "italic", "fill", Palette.INK);
            y += 20;
        }
        w.close("g");
        return new Drawn(y, right);
    }

    /** Slots a line holds: what fits, balanced over the lines needed, in whole outer tiles when one fits. */
    private static int perLine(List<StripItem> items, double slotW, double width) {
        int fit = (int) Math.max(1, width / (slotW + 1 + TILE_GAP / 2));
        int tile = 0;
        if (!items.isEmpty() && items.getFirst() instanceof StripItem.Slot first && first.tileLevels() > 0) {
            for (StripItem item : items) {
                if (!(item instanceof StripItem.Slot s) || s.tileId(0) != first.tileId(0)) {
                    break;
                }
                tile++;
            }
        }
        int lines = Math.ceilDiv(items.size(), fit);
        int balanced = Math.ceilDiv(items.size(), Math.max(1, lines));
        if (tile > 1 && tile <= fit) {
            int rounded = Math.ceilDiv(balanced, tile) * tile;
            return rounded <= fit ? rounded : fit / tile * tile;
        }
        return balanced;
    }

    private static double gapWidth(StripItem.Gap gap, Placement p, double slotW) {
        return Math.max(2 * slotW, 16 + gapLabel(gap, p).length() * LABEL_CHAR);
    }

    private static String gapLabel(StripItem.Gap gap, Placement p) {
        return "... " + gap.length() + " " + p.paddingWord();
    }

    private static void finishLine(SvgWriter w, List<Placed> line, double y, String paddingWord) {
        double boxY = y + 14;
        for (Placed placed : line) {
            switch (placed.item()) {
                case StripItem.Slot s -> slot(w, s, placed.x(), boxY, placed.w());
                case StripItem.Gap gap -> gap(w, gap, placed.x(), boxY, placed.w(), paddingWord);
            }
        }
        int levels = line.stream().filter(pl -> pl.item() instanceof StripItem.Slot)
                .mapToInt(pl -> ((StripItem.Slot) pl.item()).tileLevels()).max().orElse(0);
        for (int k = levels - 1; k >= 0; k--) {
            outlineRuns(w, line, k, boxY);
        }
    }

    /** Outlines each run of neighbouring slots that share their tile at levels {@code 0..k}. */
    private static void outlineRuns(SvgWriter w, List<Placed> line, int k, double boxY) {
        StringBuilder d = new StringBuilder();
        int start = -1;
        for (int i = 0; i <= line.size(); i++) {
            boolean same = i < line.size() && start >= 0 && sameTile(line.get(start), line.get(i), k);
            if (same) {
                continue;
            }
            if (start >= 0) {
                Placed a = line.get(start);
                Placed b = line.get(i - 1);
                double inset = k == 0 ? -0.5 : 3;
                d.append("M").append(SvgWriter.number(a.x() + inset)).append(' ').append(SvgWriter.number(boxY + inset))
                        .append('H').append(SvgWriter.number(b.x() + b.w() - inset))
                        .append('V').append(SvgWriter.number(boxY + BOX_H - inset))
                        .append('H').append(SvgWriter.number(a.x() + inset)).append("Z ");
            }
            start = i < line.size() && line.get(i).item() instanceof StripItem.Slot s && s.tileLevels() > k ? i : -1;
        }
        if (!d.isEmpty()) {
            w.empty("path", "class", k == 0 ? "outer-tile" : "inner-tile level-" + k, "d", d.toString().strip(),
                    "fill", "none", "stroke", k == 0 ? Palette.INK : Palette.INNER, "stroke-width", k == 0 ? 2.5 : 1.8,
                    "stroke-dasharray", k >= 2 ? "5 3" : null);
        }
    }

    private static boolean sameTile(Placed a, Placed b, int k) {
        if (!(a.item() instanceof StripItem.Slot sa) || !(b.item() instanceof StripItem.Slot sb)) {
            return false;
        }
        for (int level = 0; level <= k; level++) {
            if (sa.tileId(level) != sb.tileId(level)) {
                return false;
            }
        }
        return true;
    }

    private static void slot(SvgWriter w, StripItem.Slot s, double x, double y, double bw) {
        w.text(Long.toString(s.slot()), "class", "slot-number", "x", x + bw / 2, "y", y - 4, "text-anchor", "middle",
                "font-family", PictureSvg.MONO, "font-size", 10, "fill", Palette.MUTED);
        if (s.padding()) {
            w.empty("rect", "class", "slot-box padding", "data-slot", s.slot(), "x", x, "y", y, "width", bw,
                    "height", BOX_H, "fill", Palette.fill(s.colourKey()), "fill-opacity", 0.35,
                    "stroke", Palette.MUTED, "stroke-width", 0.75);
            w.empty("rect", "x", x, "y", y, "width", bw, "height", BOX_H, "fill", "url(#hatch)");
            return;
        }
        w.empty("rect", "class", "slot-box", "data-slot", s.slot(), "x", x, "y", y, "width", bw, "height", BOX_H,
                "fill", Palette.fill(s.colourKey()), "stroke", Palette.MUTED, "stroke-width", 0.75);
        w.text(s.label(), "class", "slot", "data-slot", s.slot(), "data-index", s.index(), "data-count", s.count(),
                "x", x + bw / 2, "y", y + BOX_H / 2 + 4, "text-anchor", "middle", "font-family", PictureSvg.MONO,
                "font-size", 12, "fill", Palette.INK);
    }

    private static void gap(SvgWriter w, StripItem.Gap gap, double x, double y, double bw, String paddingWord) {
        w.text(gap.from() + "-" + (gap.from() + gap.length() - 1), "class", "slot-number", "x", x + bw / 2, "y", y - 4,
                "text-anchor", "middle", "font-family", PictureSvg.MONO, "font-size", 10, "fill", Palette.MUTED);
        w.empty("rect", "class", "gap", "data-from", gap.from(), "data-length", gap.length(), "x", x, "y", y,
                "width", bw, "height", BOX_H, "fill", "#FFFFFF", "stroke", Palette.MUTED, "stroke-dasharray", "4 3");
        w.empty("rect", "x", x, "y", y, "width", bw, "height", BOX_H, "fill", "url(#hatch)", "fill-opacity", 0.6);
        w.text("... " + gap.length() + " " + paddingWord, "class", "gap-label", "x", x + bw / 2, "y", y + BOX_H / 2 + 4,
                "text-anchor", "middle", "font-family", PictureSvg.MONO, "font-size", 12, "fill", Palette.INK);
    }
}
