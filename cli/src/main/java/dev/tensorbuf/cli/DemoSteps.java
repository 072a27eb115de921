package dev.tensorbuf.cli;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
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
        return List.of(DemoSteps::memorySpaces, DemoSteps::pooledAllocator, DemoSteps::tiledLayout,
                DemoSteps::acceleratorTiling, DemoSteps::indexingMap, DemoSteps::viewsAndCopies);
    }

    /** Host memory from arenas, and a device buffer that refuses host access with a clear error. */
    static Result memorySpaces() {
        List<String> detail = new ArrayList<>();
        Map<String, Object> facts = new LinkedHashMap<>();
        try (Allocator confined = Allocators.confined(); Allocator shared = Allocators.shared(4096)) {
            MemoryBuffer a = confined.allocate(1 << 20);
            MemoryBuffer b = shared.allocate(1 << 16);
            check(a.isAligned(64) && b.isAligned(4096), "arena buffers honour their alignment");
            detail.add("confined arena: 1 MiB in " + a.memorySpace().describe() + ", 64-byte aligned, owner " + a.owner());
            detail.add("shared arena: 64 KiB, 4096-byte aligned, usable from any thread");
            facts.put("host_space", a.memorySpace().toXlaText());
        }
        MemoryBuffer device = MemoryBuffer.foreign(0x7f00_0000_0000L, 4096, MemorySpace.DEVICE, "demo device", () -> { });
        String refusal;
        try {
            device.segment();
            throw new IllegalStateException("demo check failed: device memory was handed to Java");
        } catch (UnsupportedOperationException e) {
            refusal = e.getMessage();
        } finally {
            device.close();
        }
        detail.add("device buffer: " + refusal);
        facts.put("device_refusal", refusal);
        return new Result("memory_spaces", "memory spaces: host buffers in S(5) from confined and shared arenas;"
                + " S(0) device memory is never touched from Java", detail, facts);
    }

    /** The pooled allocator: reuse, exact accounting, and the leak report at close. */
    static Result pooledAllocator() {
        PooledAllocator pool = PooledAllocator.builder().name("demo").byteLimit(64L << 20).trackLeaks(true).build();
        for (int i = 0; i < 1000; i++) {
            pool.allocate(4096).close();
        }
        MemoryBuffer kept = pool.allocate(1 << 20);
        PooledAllocator.Stats stats = pool.stats();
        check(stats.reuses() == 999 && stats.liveCount() == 1, "999 of 1000 4 KiB cycles reuse one block");
        kept.close();
        var report = pool.closeAndReport();
        check(report.isEmpty(), "nothing left open");
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("allocations", stats.allocations());
        facts.put("reuses", stats.reuses());
        facts.put("peak_live_bytes", stats.peakLiveBytes());
        facts.put("leaks", report.leaks().size());
        return new Result("pooled_allocator", "pooled allocator: 1000 allocate/free cycles of 4 KiB reused one block "
                + stats.reuses() + " times; leak report at close: " + report,
                List.of("accounting with a 1 MiB buffer open: " + stats), facts);
    }

    /** Seed 000's Figure 1: where each element of a 3x5 array lands under 2x2 tiles. */
    static Result tiledLayout() {
        ArrayShape shape = ArrayShape.parse("f32[3,5]{1,0:T(2,2)}");
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
        ArrayShape shape = ArrayShape.parse("bf16[8, 1, 1280, 16384] {3,2,0,1 : T(8,128)(2,1) S(1)}");
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

    /** Ops as views, then one copy: NCHW to NHWC as a transpose view, materialised as bf16 tiles. */
    static Result viewsAndCopies() {
        try (Allocator arena = Allocators.confined()) {
            TensorView nchw = TensorView.of(arena.allocate(2 * 8 * 16 * 128 * 4), "f32[2,8,16,128]{3,2,1,0}");
            float[] values = new float[(int) nchw.elementCount()];
            for (int i = 0; i < values.length; i++) {
                values[i] = (i % 251) * 0.25f;
            }
            TensorElements.of(nchw).copyFrom(values);
            TensorView nhwc = Ops.transpose(nchw, 0, 2, 3, 1);
            ArrayShape target = ArrayShape.parse("bf16[2,16,128,8]{3,2,1,0:T(8,128)(2,1)}");
            TensorView tiled = CopyEngine.defaults().materialize(nhwc, target, arena);
            long[] mismatches = {0};
            TensorElements.of(nhwc).forEachIndex(i -> {
                if (TensorElements.of(tiled).getFloat(i) != TensorElements.of(nhwc).getFloat(i)) {
                    mismatches[0]++;
                }
            });
            check(mismatches[0] == 0, "every value survives f32 -> bf16 (all are multiples of 1/4 below 64)");
            Map<String, Object> facts = new LinkedHashMap<>();
            facts.put("view", nhwc.toString());
            facts.put("view_form", nhwc.isStrided() ? "strided" : "not strided");
            facts.put("materialized", tiled.toString());
            return new Result("views_and_copies", "transpose NCHW -> NHWC is a view (" + (nhwc.isStrided() ? "strided" : "general")
                    + ", no bytes moved); one copy materialises it as " + target + ", every element checked",
                    List.of("view: " + nhwc), facts);
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("demo check failed: " + what);
        }
    }
}
