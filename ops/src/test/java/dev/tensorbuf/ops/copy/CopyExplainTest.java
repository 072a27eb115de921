package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation.Route;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.Kernel;
import dev.tensorbuf.ops.copy.internal.Loop;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link CopyEngine#explain}: each route a copy of two views takes, with its steps, threads,
 * temporaries, staging and bytes, worked out without touching an element; and that the copy
 * then does what was explained (the bytes it writes).
 */
class CopyExplainTest {
    @ArenaPerTest
    private Allocator allocator;

    private TensorView view(String shape, long bytes) {
        MemoryBuffer b = allocator.allocate(bytes);
        return TensorView.of(b, shape);
    }

    private static TensorView counting(TensorView v) {
        float[] values = new float[(int) v.elementCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = i + 1;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    @Test
    void aTransposeIntoNhwcIsOnePlannedInterleave() {
        TensorView nchw = counting(view("f32[2,3,4,5]{3,2,1,0}", 480));
        TensorView nhwc = view("f32[2,4,5,3]{3,2,1,0}", 480);
        TensorView src = Ops.transpose(nchw, 0, 2, 3, 1);
        Explanation e = CopyEngine.of(1).explain(src, nhwc);
        assertEquals(Route.PLANNED, e.route(), e.toString());
        assertEquals(120, e.elements());
        assertEquals(960, e.bytes(), "120 f32 read and 120 written");
        assertEquals(1, e.threads());
        assertEquals(List.of(new Step.Run(Kernel.INTERLEAVE, 0, 0,
                List.of(new Loop(2, 60, 60), new Loop(20, 1, 3), new Loop(3, 20, 1)), -1)), AccessCopies.steps(e));
        assertEquals(List.of(), e.parts());
        assertTrue(e.toString().contains("run INTERLEAVE: 120 elements, src +0, dst +0, loops [2: 60/60, 20: 1/3, 3: 20/1]"),
                e.toString());
        // Threads follow the engine's threshold: 0 bytes puts every copy on both threads.
        assertEquals(2, CopyEngine.of(2, true, 0).explain(src, nhwc).threads());
        assertEquals(1, CopyEngine.of(2, true, 961).explain(src, nhwc).threads());
        assertEquals(2, CopyEngine.of(2, true, 960).explain(src, nhwc).threads());
        // Nothing was written by explaining; the copy writes what the steps say.
        for (float f : TensorElements.of(nhwc).toFloatArray()) {
            assertEquals(0f, f);
        }
        CopyEngine.of(1).copy(src, nhwc);
        assertEquals(TensorElements.of(nchw).getFloat(1, 2, 3, 4), TensorElements.of(nhwc).getFloat(1, 3, 4, 2));
    }

    @Test
    void theJsonFormHoldsTheSameAsTheRecord() {
        TensorView src = counting(view("f32[2,3]{1,0}", 24));
        TensorView dst = view("f32[3,2]{1,0}", 24);
        Explanation e = CopyEngine.of(1).explain(Ops.transpose(src, 1, 0), dst);
        assertEquals(Route.PLANNED, e.route());
        Step.Run run = (Step.Run) AccessCopies.steps(e).getFirst();
        assertEquals("{\"route\":\"planned\",\"source\":\"" + e.source() + "\",\"destination\":\"" + e.destination()
                + "\",\"elements\":6,\"bytes\":48,\"threads\":1,\"steps\":[{\"step\":\"run\",\"kernel\":\""
                + run.kernel() + "\",\"elements\":6,\"src_offset\":0,\"dst_offset\":0,\"loops\":["
                + "{\"count\":3,\"src_stride\":1,\"dst_stride\":2},{\"count\":2,\"src_stride\":3,\"dst_stride\":1}],"
                + "\"channel_loop\":-1}],\"temporaries\":[],\"staging\":[],\"zeroed_bytes\":0,\"pieces\":[],\"parts\":[],\"reason\":\"\"}",
                e.toJson());
    }

    @Test
    void aConcatenationIsOnePlannedCopyPerPart() {
        TensorView a = counting(view("f32[2,3]{1,0}", 24));
        TensorView b = counting(view("f32[2,3]{1,0}", 24));
        TensorView dst = view("f32[4,3]{1,0}", 48);
        TensorView joined = Ops.concatenate(0, List.of(a, b));
        Explanation e = CopyEngine.of(1).explain(joined, dst);
        assertEquals(Route.PIECES, e.route(), e.toString());
        assertEquals(2, e.parts().size(), e.toString());
        for (int k = 0; k < 2; k++) {
            Explanation part = e.parts().get(k);
            assertEquals(Route.PLANNED, part.route());
            assertEquals(6, part.elements());
            Step.Run r = (Step.Run) AccessCopies.steps(part).getFirst();
            assertEquals(Kernel.BULK, r.kernel());
            assertEquals(6L * k, r.dstOffset(), "part " + k + " lands on rows " + 2 * k + " and " + (2 * k + 1));
        }
        assertEquals(96, e.bytes(), "12 f32 read and 12 written");
        assertTrue(e.toString().startsWith("copy in parts "), e.toString());
        CopyEngine.of(1).copy(joined, dst);
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}, TensorElements.of(dst).toFloatArray());
    }

    @Test
    void aPadFillsItsEdgesAndCopiesItsWindow() {
        TensorView src = counting(view("f32[2]{0}", 8));
        TensorView padded = Ops.pad(src, new long[] {1}, new long[] {2}, new long[] {0}, -1.0);
        TensorView dst = view("f32[5]{0}", 20);
        Explanation e = CopyEngine.of(1).explain(padded, dst);
        assertEquals(Route.PIECES, e.route(), e.toString());
        List<Kernel> kernels = e.parts().stream().map(p -> ((Step.Run) AccessCopies.steps(p).getFirst()).kernel()).toList();
        // In index order: the low edge is one element (a one-element fill is a BULK copy of the
        // fill), then the window, then the high edge of two.
        assertEquals(List.of(Kernel.BULK, Kernel.BULK, Kernel.FILL), kernels, e.toString());
        assertEquals(List.of(0L, 1L, 3L), e.parts().stream().map(p -> ((Step.Run) AccessCopies.steps(p).getFirst()).dstOffset()).toList());
        assertEquals(List.of("[0:1]", "[1:3]", "[3:5]"), e.pieces().stream().map(Explanation.Piece::box).toList());
        assertEquals(List.of(true, false, true), e.pieces().stream().map(Explanation.Piece::sourceFill).toList());
        CopyEngine.of(1).copy(padded, dst);
        assertArrayEquals(new float[] {-1, 1, 2, -1, -1}, TensorElements.of(dst).toFloatArray());
    }

    @Test
    void aPackedSourceIsStagedThroughAByteASlotTemporary() {
        TensorView s4 = view("s4[16]{0:E(4)}", 8);
        TensorElements.of(s4).copyFrom(new long[] {-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7});
        TensorView s8 = view("s8[16]{0}", 16);
        Explanation e = CopyEngine.of(1).explain(s4, s8);
        assertEquals(Route.STAGED, e.route(), e.toString());
        assertEquals(List.of(new Explanation.Staged("source", 4, 0, 16, 16, false)), e.staging());
        assertEquals(1, e.temporaries().size());
        assertEquals(16, e.temporaries().getFirst().bytes());
        assertEquals(Route.PLANNED, e.parts().getFirst().route());
        // 8 packed bytes read and 16 written by the unpacking, then 16 + 16 by the plan.
        assertEquals(24 + 32, e.bytes(), e.toString());
        CopyEngine.of(1).copy(s4, s8);
        assertArrayEquals(new long[] {-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7}, TensorElements.of(s8).toLongArray());
    }

    @Test
    void aCopyOntoItselfGoesThroughATemporary() {
        TensorView v = counting(view("f32[4]{0}", 16));
        Explanation e = CopyEngine.of(1).explain(Ops.reverse(v, 0), v);
        assertEquals(Route.THROUGH_TEMPORARY, e.route(), e.toString());
        assertEquals(List.of(new Explanation.Temporary("the source, read whole before the destination is written",
                DType.F32, List.of(4L), 16)), e.temporaries());
        assertEquals(2, e.parts().size());
        assertTrue(e.parts().stream().allMatch(p -> p.route() == Route.PLANNED), e.toString());
        assertArrayEquals(new float[] {1, 2, 3, 4}, TensorElements.of(v).toFloatArray(), "explaining wrote nothing");
        CopyEngine.of(1).copy(Ops.reverse(v, 0), v);
        assertArrayEquals(new float[] {4, 3, 2, 1}, TensorElements.of(v).toFloatArray());
    }

    /** A strided slice of a concatenation went element by element; its rows are a box of one piece each. */
    @Test
    void aStridedSliceOfAConcatenationShowsItsBoxesInTextAndJson() {
        TensorView a = counting(view("f32[2,3]{1,0}", 24));
        TensorView b = counting(view("f32[2,3]{1,0}", 24));
        TensorView src = Ops.slice(Ops.concatenate(0, List.of(a, b)), new long[] {0, 0}, new long[] {4, 3},
                new long[] {2, 1});
        TensorView dst = view("f32[2,3]{1,0}", 24);
        Explanation e = CopyEngine.of(2, true, 0).explain(src, dst);
        assertEquals(Route.PIECES, e.route(), e.toString());
        assertEquals(List.of(new Explanation.Piece(List.of(0L, 0L), List.of(1L, 1L), List.of(1L, 3L), 0, 0, false),
                new Explanation.Piece(List.of(1L, 0L), List.of(1L, 1L), List.of(1L, 3L), 1, 0, false)), e.pieces());
        assertTrue(e.parts().stream().allMatch(p -> p.route() == Route.PLANNED), e.toString());
        assertTrue(e.toString().contains("\n  box [0:1, 0:3]: source piece 0, destination piece 0\n    planned copy "),
                e.toString());
        assertTrue(e.toJson().contains(",\"pieces\":[{\"start\":[0,0],\"step\":[1,1],\"count\":[1,3],\"source_piece\":0,"
                + "\"destination_piece\":0,\"source_fill\":false},{\"start\":[1,0]"), e.toJson());
        assertEquals(48, e.bytes());
        CopyEngine.of(1).copy(src, dst);
        assertArrayEquals(new float[] {1, 2, 3, 1, 2, 3}, TensorElements.of(dst).toFloatArray());
    }

    /**
     * Past 32 parts the text counts the parts per form (route, kernel and loops) and shows the
     * first 8; the JSON holds the same, and the record every part.
     */
    @Test
    void aCopyOfManyPartsIsSummarisedByFormInTextAndJson() {
        List<TensorView> parts = new java.util.ArrayList<>();
        for (int k = 0; k < 40; k++) {
            long rows = k % 4 == 3 ? 4 : 2;
            parts.add(counting(view("f32[" + rows + ",3]{1,0}", rows * 12)));
        }
        // Every other row: one row of each 2-row part, two of each 4-row part, a box per part.
        TensorView src = Ops.slice(Ops.concatenate(0, parts), new long[] {0, 0}, new long[] {100, 3},
                new long[] {2, 1});
        TensorView dst = view("f32[50,3]{1,0}", 600);
        Explanation e = CopyEngine.of(1).explain(src, dst);
        assertEquals(Route.PIECES, e.route(), e.toString());
        assertEquals(40, e.parts().size(), e.reason());
        assertEquals(40, e.pieces().size(), e.reason());
        String text = e.toString();
        assertTrue(text.contains("\n  40 parts in 2 forms, most parts first:\n    30 parts, 90 elements: planned copy, run "),
                text);
        assertTrue(text.contains("\n    10 parts, 60 elements: planned copy, run "), text);
        assertTrue(text.contains("\n  the first 8 parts:\n  box [0:1, 0:3]: source piece 0, destination piece 0\n"), text);
        assertTrue(text.contains("\n  box [8:10, 0:3]: source piece 7, destination piece 0\n"), text);
        assertTrue(text.endsWith("\n  ... 32 more parts\n"), text);
        assertEquals(8, text.lines().filter(l -> l.startsWith("  box [")).count(), text);
        assertEquals(8, text.lines().filter(l -> l.startsWith("    planned copy ")).count(), text);
        String json = e.toJson();
        assertEquals(8, json.split("\"source_piece\":", -1).length - 1, json);
        assertEquals(8, json.split("\\{\"route\":\"planned\"", -1).length - 1, json);
        assertTrue(json.contains("],\"parts_total\":40,\"pieces_total\":40,\"forms\":[{\"form\":\"planned copy, run "),
                json);
        assertTrue(json.contains("\"parts\":30,\"elements\":90},{\"form\":\"planned copy, run "), json);
        assertTrue(json.contains("\"parts\":10,\"elements\":60}],\"reason\":"), json);
        CopyEngine.of(1).copy(src, dst);
        float[] out = TensorElements.of(dst).toFloatArray();
        assertArrayEquals(new float[] {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 7, 8, 9}, java.util.Arrays.copyOf(out, 15));
    }

    /**
     * A few slots of a large packed buffer went element by element (staging declined to unpack the
     * span they reach): their slots are gathered, a byte each, and the copy planned from there.
     */
    @Test
    void aSparsePackedViewIsGatheredAndSaysSo() {
        long n = 1 << 16;
        TensorView s4 = view("s4[" + n + "]{0:E(4)}", n / 2);
        TensorView sparse = Ops.slice(s4, new long[] {0}, new long[] {n}, new long[] {n / 4});
        TensorView dst = view("f32[4]{0}", 16);
        Explanation e = CopyEngine.of(2, true, 0).explain(sparse, dst);
        assertEquals(Route.STAGED, e.route(), e.toString());
        assertEquals(List.of(new Explanation.Staged("source", 4, 0, 4, 4, false, "strides")), e.staging());
        assertEquals(Route.PLANNED, e.parts().getFirst().route(), e.toString());
        assertTrue(e.toString().contains("staged source: its 4 4-bit slots (the lowest 0) gathered a byte each in row-major"
                + " order through its strides"), e.toString());
        assertTrue(e.toJson().contains("\"unpacked\":4,\"packed_back\":false,\"gather\":\"strides\"}"), e.toJson());
        // 4 slots read and 4 bytes written, then the planned copy's 4 bytes read and 16 written.
        assertEquals(4 + 2 + 4 + 16, e.bytes(), e.toString());
    }

    /** What is left to the element path: a packed destination it refuses, which it names. */
    @Test
    void aReadOnlyPackedDestinationGoesElementByElementAndSaysWhy() {
        TensorView src = view("s8[16]{0}", 16);
        TensorView dst = TensorView.of(dev.tensorbuf.memory.MemoryBuffer.foreign(
                java.lang.foreign.Arena.ofAuto().allocate(8).asReadOnly(), dev.tensorbuf.memory.MemorySpace.HOST, "test",
                () -> {
                }), "s4[16]{0:E(4)}");
        Explanation e = CopyEngine.of(2, true, 0).explain(src, dst);
        assertEquals(Route.ELEMENTS, e.route(), e.toString());
        assertEquals(1, e.threads(), "the element path runs on the caller");
        assertTrue(e.reason().contains("staging declines: a read-only packed destination"), e.reason());
    }

    @Test
    void aTiledDestinationZeroesItsPaddingInZeroSteps() {
        TensorView src = counting(view("f32[3,5]{1,0}", 60));
        TensorView dst = view("f32[3,5]{1,0:T(2,2)}", 96);
        Explanation e = CopyEngine.of(1).explain(src, dst);
        assertEquals(Route.PLANNED, e.route(), e.toString());
        long zeroSteps = AccessCopies.steps(e).stream().filter(s -> s instanceof Step.Zero).count();
        assertTrue(zeroSteps > 0, e.toString());
        assertEquals(60 + 96, e.bytes(), "15 f32 read, 24 slots written");
        CopyPlan plan = AccessCopies.plan(ViewAdapter.access(src).orElseThrow(), ViewAdapter.destination(dst).orElseThrow());
        assertEquals(AccessCopies.steps(e), AccessCopies.steps(plan.explain()), "an Access plan explains the same steps");
    }

    @Test
    void differentDimsAreRefusedAsTheCopyRefusesThem() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.of(1).explain(view("f32[2]{0}", 8), view("f32[3]{0}", 12)));
        assertTrue(e.getMessage().contains("differ"), e.getMessage());
    }

    @Test
    void explainingReadsAndWritesNoElement() {
        TensorView src = counting(view("f32[64,64]{1,0}", 64 * 64 * 4));
        MemoryBuffer out = allocator.allocate(64 * 64 * 2);
        out.segment().fill((byte) 0x5A);
        TensorView dst = TensorView.of(out, "bf16[64,64]{0,1}");
        CopyEngine.defaults().explain(src, dst);
        for (byte x : out.segment().toArray(ValueLayout.JAVA_BYTE)) {
            assertEquals((byte) 0x5A, x);
        }
    }
}
