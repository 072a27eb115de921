package dev.tensorbuf.cli;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.XlaShape;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code tensorbuf layout}: an XLA shape's layout, its tiled physical shape and byte size, and
 * where given logical indices and buffer offsets land.
 */
final class LayoutCommand implements Command {
    private static final Option INDEX = Option.value("index", "I0,I1,..", true,
            "a logical index to map to its element offset in the tiled buffer");
    private static final Option OFFSET = Option.value("offset", "N", true,
            "an element offset in the tiled buffer to map back to its logical index (or padding)");

    @Override
    public String name() {
        return "layout";
    }

    @Override
    public String summary() {
        return "describe an XLA shape's tiled layout; map indices to element offsets and back";
    }

    @Override
    public String synopsis() {
        return "tensorbuf layout SHAPE [--index I0,I1,..]... [--offset N]... [--json] [--batch]";
    }

    @Override
    public String description() {
        return """
                Reads XLA shape text (any spacing; a missing layout is the default {n-1,...,0}),
                prints its canonical form, the physical shape after every tile level, the
                element slots (padding included) and XLA's ArraySize in bytes. --index maps a
                logical index to its element offset; --offset maps an offset back to the logical
                index, or says it is padding. --batch reads {"shape", "indices", "offsets"} per
                stdin line and writes one JSON result per line ({"error": ...} on failure,
                unknown keys included). In --json and --batch results, "indices" is a list of
                {"index", "linear"} and "offsets" a list of {"linear", "index"}: "linear" is the
                element offset the text calls "offset" (null "index": padding).

                example:
                  tensorbuf layout 'f32[3,5]{1,0:T(2,2)}' --index 2,3 --offset 9
                  shape: f32[3,5]{1,0:T(2,2)}
                  dtype: f32, dims: [3, 5], minor_to_major: [1, 0]
                  tiles: (2,2)
                  physical dims: [2, 3, 2, 2] (24 element slots, padding included)
                  byte size: 96
                  index [2, 3] -> offset 17
                  offset 9 -> padding
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(INDEX, OFFSET, Option.JSON, Option.BATCH);
    }

    @Override
    public int run(Invocation in) throws Exception {
        if (in.flag("batch")) {
            return Batch.run(in, List.of("shape", "indices", "offsets"), LayoutCommand::answer);
        }
        in.expectAtMostPositionals(1);
        ArrayShape shape = arrayShape(in.positional(0, "SHAPE"));
        List<long[]> indices = new ArrayList<>();
        for (String v : in.values("index")) {
            indices.add(Invocation.parseLongs(v, "--index"));
        }
        List<Long> offsets = new ArrayList<>();
        for (String v : in.values("offset")) {
            long[] parsed = Invocation.parseLongs(v, "--offset");
            if (parsed.length != 1) {
                throw new UsageException("--offset: '" + v + "' is not one integer");
            }
            offsets.add(parsed[0]);
        }
        Map<String, Object> result = describe(shape, indices, offsets);
        if (in.flag("json")) {
            in.printJson(result);
        } else {
            printText(in.out(), shape, result);
        }
        return 0;
    }

    /** One --batch request: {"shape": "...", "indices": [[...], ...], "offsets": [...]}. */
    private static Object answer(BatchRequest request) {
        ArrayShape shape = arrayShape(request.requiredString("shape", "the shape text"));
        long[] offsets = request.longs("offsets");
        return describe(shape, request.longLists("indices"),
                offsets == null ? List.of() : Arrays.stream(offsets).boxed().toList());
    }

    private static ArrayShape arrayShape(String text) {
        XlaShape shape = XlaShape.parse(text);
        if (!(shape instanceof ArrayShape a)) {
            throw Errors.notAnArray("layout", shape);
        }
        return a;
    }

    static Map<String, Object> describe(ArrayShape shape, List<long[]> indices, List<Long> offsets) {
        XlaLayout layout = shape.requireLayout();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("shape", shape.toString());
        r.put("dtype", shape.dtype().xlaName());
        r.put("dims", shape.dims());
        r.put("minor_to_major", layout.minorToMajor());
        List<List<Object>> tiles = new ArrayList<>();
        for (Tile t : layout.tiles()) {
            List<Object> entries = new ArrayList<>();
            for (int i = 0; i < t.rank(); i++) {
                entries.add(t.isCombined(i) ? "*" : (Object) t.dim(i));
            }
            tiles.add(entries);
        }
        r.put("tiles", tiles);
        r.put("tail_padding_alignment", layout.tailPaddingAlignment());
        r.put("element_size_in_bits", layout.elementSizeInBits());
        r.put("memory_space", layout.memorySpaceId());
        r.put("physical_dims", shape.physicalDims());
        r.put("physical_elements", shape.physicalElementCount());
        r.put("byte_size", shape.arraySize());
        List<Map<String, Object>> mapped = new ArrayList<>();
        for (long[] index : indices) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", index);
            m.put("linear", shape.linearIndex(index));
            mapped.add(m);
        }
        r.put("indices", mapped);
        List<Map<String, Object>> back = new ArrayList<>();
        long slots = shape.physicalElementCount();
        long bits = layout.elementSizeInBits() == 0 ? 8L * shape.dtype().byteWidth() : layout.elementSizeInBits();
        long sized = shape.arraySize() * 8 / bits;
        for (long offset : offsets) {
            // Past the tiles' slots but inside ArraySize (an L(n) tail) is padding too.
            if (offset < 0 || offset >= Math.max(slots, sized)) {
                throw new IndexOutOfBoundsException("element offset " + offset + " out of bounds [0, "
                        + Math.max(slots, sized) + ") of " + shape);
            }
            Optional<List<Long>> logical = offset >= slots ? Optional.empty() : shape.logicalIndex(offset);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("linear", offset);
            m.put("index", logical.orElse(null));
            back.add(m);
        }
        r.put("offsets", back);
        return r;
    }

    @SuppressWarnings("unchecked")
    private static void printText(PrintStream out, ArrayShape shape, Map<String, Object> r) {
        XlaLayout layout = shape.requireLayout();
        out.println("shape: " + r.get("shape"));
        out.println("dtype: " + r.get("dtype") + ", dims: " + r.get("dims") + ", minor_to_major: " + r.get("minor_to_major"));
        if (!layout.tiles().isEmpty()) {
            out.println("tiles: " + layout.tiles().stream().map(Tile::toString).reduce("", String::concat));
        }
        if (layout.tailPaddingAlignment() != 1 || layout.elementSizeInBits() != 0 || layout.memorySpaceId() != 0) {
            out.println("tail padding alignment: " + layout.tailPaddingAlignment() + ", element size in bits: "
                    + layout.elementSizeInBits() + ", memory space: " + layout.memorySpaceId());
        }
        out.println("physical dims: " + r.get("physical_dims") + " (" + Counts.of((Long) r.get("physical_elements"),
                "element slot") + ", padding included)");
        long addressed = shape.physicalByteSize();
        if (addressed > shape.arraySize()) {
            // XLA's ArraySize counts the first tile only; a view over that many bytes would be refused.
            out.println("byte size: " + r.get("byte_size") + " (XLA's ArraySize, by the first tile; the tiles address "
                    + addressed + " bytes because a later tile pads inside an earlier one)");
        } else {
            out.println("byte size: " + r.get("byte_size"));
        }
        for (Map<String, Object> m : (List<Map<String, Object>>) r.get("indices")) {
            out.println("index " + Arrays.toString((long[]) m.get("index")) + " -> offset " + m.get("linear"));
        }
        for (Map<String, Object> m : (List<Map<String, Object>>) r.get("offsets")) {
            Object index = m.get("index");
            out.println("offset " + m.get("linear") + " -> " + (index == null ? "padding" : "index " + index));
        }
    }
}
