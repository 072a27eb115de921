package dev.tensorbuf.cli;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The steps of {@code tensorbuf demo}, each self-checking. */
final class DemoSteps {
    private DemoSteps() {}

    /** What a step shows: one line, optional detail lines, and facts for {@code --json}. */
    record Result(String name, String line, List<String> detail, Map<String, Object> facts) {}

    /** One step of the demo. */
    interface Step {
        Result run();
    }

    static List<Step> all() {
        return List.of(DemoSteps::tiledLayout, DemoSteps::acceleratorTiling, DemoSteps::indexingMap);
    }

    /** Seed 000's Figure 1: where each element of a 3x5 array lands under 2x2 tiles. */
    static Result tiledLayout() {
        ArrayShape shape = (ArrayShape) XlaShape.parse("f32[3,5]{1,0:T(2,2)}");
        List<String> grid = new ArrayList<>();
        List<List<Long>> rows = new ArrayList<>();
        for (long i = 0; i < shape.dim(0); i++) {
            StringBuilder sb = new StringBuilder();
            List<Long> row = new ArrayList<>();
            for (long j = 0; j < shape.dim(1); j++) {
                long slot = shape.linearIndex(i, j);
                row.add(slot);
                sb.append(String.format("%4d", slot));
            }
            rows.add(row);
            grid.add(sb.toString());
        }
        check(shape.linearIndex(2, 4) == 20, "Figure 1 puts element [2,4] at slot 20");
        long padding = shape.physicalElementCount() - shape.elementCount();
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("shape", shape.toString());
        facts.put("slots", shape.physicalElementCount());
        facts.put("padding_slots", padding);
        facts.put("byte_size", shape.arraySize());
        facts.put("linear_indices", rows);
        grid.addFirst("memory slot of each element (row-major grid):");
        return new Result("tiled_layout", "tiled layout " + shape + ": " + shape.elementCount() + " elements in "
                + shape.physicalElementCount() + " slots (" + padding + " padding), " + shape.arraySize() + " bytes",
                grid, facts);
    }

    /** A TPU-style bf16 layout: two tiling levels and a memory space. */
    static Result acceleratorTiling() {
        ArrayShape shape = (ArrayShape) XlaShape.parse("bf16[8, 1, 1280, 16384] {3,2,0,1 : T(8,128)(2,1) S(1)}");
        long last = shape.linearIndex(7, 0, 1279, 16383);
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("shape", shape.toString());
        facts.put("physical_dims", shape.physicalDims());
        facts.put("byte_size", shape.arraySize());
        facts.put("last_element_slot", last);
        return new Result("accelerator_tiling", "parsed " + shape + " (canonical text): physical dims "
                + shape.physicalDims() + ", " + shape.arraySize() + " bytes, element [7,0,1279,16383] at slot " + last,
                List.of(), facts);
    }

    /** Seed 004: a reshape round trip whose floordiv/mod the simplifier removes. */
    static Result indexingMap() {
        IndexingMap map = IndexingMap.parse(
                "(d0, d1) -> ((d0 * 16 + d1) floordiv 16, (d0 * 16 + d1) mod 16), domain: d0 in [0, 7], d1 in [0, 15]");
        IndexingMap simplified = map.simplify();
        check(simplified.equals(IndexingMap.parse("(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]")),
                "reshape [8,16] -> [128] -> [8,16] simplifies to the identity");
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("map", map.toString());
        facts.put("simplified", simplified.toString());
        return new Result("indexing_map", "indexing map of reshape [8,16] -> [128] -> [8,16] simplifies to "
                + simplified, List.of("before: " + map), facts);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("demo check failed: " + what);
        }
    }
}
