package dev.tensorbuf.cli;

import dev.tensorbuf.cli.render.LayoutPicture;
import dev.tensorbuf.cli.render.PictureSvg;
import dev.tensorbuf.cli.render.Placement;
import dev.tensorbuf.cli.render.SliceSpec;
import dev.tensorbuf.cli.render.StridedPlacement;
import dev.tensorbuf.cli.render.TiledPlacement;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.XlaShape;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code tensorbuf render}: an SVG picture of a layout: the logical grid with each element's
 * offset, tiles and padding, and the memory strip in physical order.
 */
final class RenderCommand implements Command {
    @Override
    public String name() {
        return "render";
    }

    @Override
    public String summary() {
        return "draw a layout as SVG: grid of element offsets, tiles, padding, memory strip";
    }

    @Override
    public String synopsis() {
        return "tensorbuf render (SHAPE | --dtype T --sizes S0,S1,..) [--strides T0,T1,.. | --format NAME] "
                + "[--offset N] [--slice I0,:,:,..] [--out FILE.svg] [--json]";
    }

    @Override
    public String description() {
        return """
                Draws the logical grid (each cell: the element offset of that index), tiles
                filled per outer tile and outlined per level (bold: outer, purple: inner),
                padding cells hatched, and below it memory in physical order (each slot: the
                logical index it holds, or hatched padding). Rank 1 and 2 draw one grid; rank 3
                and 4 draw a small multiple per leading index, or one --slice (e.g. 0,:,:,1);
                rank 5 and up need --slice. Grids over 64 cells a side show 16 and say so.
                A strided layout takes --sizes/--dtype/--strides/--format/--offset as in
                'tensorbuf strides' (or SHAPE for dtype and sizes): cells sharing an offset
                (broadcast) are marked, unused slots are padding; the strip starts at slot 0, so
                the slots before --offset are unused too. The SVG goes to --out, else to stdout; --json
                prints {"svg", "cells", "padding_slots", "summarised"} instead (svg: the file, or
                null without --out).

                example:
                  tensorbuf render 'f32[3,5]{1,0:T(2,2)}' --out fig1.svg --json
                  {"svg":"fig1.svg","cells":15,"padding_slots":9,"summarised":false}
                """;
    }

    /**
     * Render draws SVG only: written under another name ({@code fig.png}) the file is SVG text that
     * image viewers refuse, and nothing said so.
     */
    private static void requireSvgName(String out) {
        if (!out.toLowerCase(java.util.Locale.ROOT).endsWith(".svg")) {
            String name = Path.of(out).getFileName().toString();
            int dot = name.lastIndexOf('.');
            throw new UsageException("--out " + out + ": render writes SVG only, so the name must end in .svg"
                    + (dot > 0 ? ", not " + name.substring(dot) : "") + " (convert the SVG to another format with"
                    + " a tool such as rsvg-convert)");
        }
    }

    @Override
    public List<Option> options() {
        return List.of(
                Option.value("out", "FILE.svg", false, "write the SVG here (default: stdout)"),
                Option.value("slice", "I0,:,..", false, "draw one slice: an index or ':' per dim, one or two ':'"),
                Option.value("dtype", "T", false, "strided: element type, XLA or DirectML name (as tensorbuf strides)"),
                Option.value("sizes", "S0,S1,..", false, "strided: size of each dim, logical order"),
                Option.value("strides", "T0,T1,..", false, "strided: element stride of each dim (0 broadcasts)"),
                Option.value("format", "NAME", false, "strided: packed strides of a named format (NHWC, ...)"),
                Option.value("offset", "N", false, "strided: " + StridesCommand.OFFSET.help()),
                Option.JSON);
    }

    @Override
    public int run(Invocation in) throws IOException {
        in.expectAtMostPositionals(1);
        Placement placement = placement(in);
        String sliceText = in.value("slice");
        Optional<SliceSpec> slice = sliceText == null ? Optional.empty()
                : Optional.of(SliceSpec.parse(sliceText, placement.dims()));
        LayoutPicture picture = LayoutPicture.of(placement, slice);
        String svg = PictureSvg.draw(picture);
        String out = in.value("out");
        if (out != null) {
            CliFiles.outputFile(Path.of(out), "--out");
            requireSvgName(out);
            Files.writeString(Path.of(out), svg, StandardCharsets.UTF_8);
        }
        if (in.flag("json")) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("svg", out);
            r.put("cells", picture.cells());
            r.put("padding_slots", placement.paddingSlots());
            r.put("summarised", picture.summarised());
            in.printJson(r);
        } else if (out == null) {
            in.out().print(svg);
        }
        return 0;
    }

    private static Placement placement(Invocation in) {
        boolean strided = in.value("sizes") != null || in.value("strides") != null || in.value("format") != null
                || in.value("dtype") != null || in.value("offset") != null;
        String shapeText = in.positionals().isEmpty() ? null : in.positionals().getFirst();
        if (!strided) {
            return TiledPlacement.of(arrayShape(in.positional(0, "SHAPE")));
        }
        String dtypeText = in.value("dtype");
        long[] sizes = in.longs("sizes");
        DType dtype;
        if (shapeText != null) {
            if (dtypeText != null || sizes != null) {
                throw new UsageException("give SHAPE or --dtype and --sizes, not both");
            }
            if (shapeText.contains("{")) {
                List<String> given = Stream.of("strides", "format", "offset")
                        .filter(o -> in.value(o) != null).map(o -> "--" + o).toList();
                throw new UsageException("SHAPE '" + shapeText + "' has a layout, but " + String.join(" and ", given)
                        + " make" + (given.size() == 1 ? "s" : "") + " this a strided picture, whose layout --strides or"
                        + " --format give; drop the {...} part");
            }
            ArrayShape shape = arrayShape(shapeText);
            dtype = shape.dtype();
            sizes = Extents.toArray(shape.dims());
        } else if (dtypeText == null || sizes == null) {
            throw Errors.withUsage("a strided picture needs --dtype and --sizes, or SHAPE",
                    "tensorbuf render (SHAPE | --dtype T --sizes S0,S1,..) [--strides T0,T1,.. | --format NAME] ...");
        } else {
            dtype = DTypeNames.parse(dtypeText, "--dtype");
        }
        StridesCommand.Answer answer = StridesCommand.answer(dtype, sizes, in.longs("strides"), StridesCommand.offset(in),
                "pass --offset", in.value("format"), List.of());
        return StridedPlacement.of(answer.type(), answer.layout());
    }

    private static ArrayShape arrayShape(String text) {
        XlaShape shape = XlaShape.parse(text);
        if (!(shape instanceof ArrayShape a)) {
            throw Errors.notAnArray("render", shape);
        }
        return a;
    }
}
