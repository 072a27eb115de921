package dev.tensorbuf.ops.copy;

import static dev.tensorbuf.ops.copy.PieceCopyChecks.assertSameBytes;
import static dev.tensorbuf.ops.copy.PieceCopyChecks.elementCopies;
import static dev.tensorbuf.ops.copy.PieceCopyChecks.reference;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation.Route;
import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Copies over pieces under the 65,536 boxes a cut holds at once (pairs, not a banded table)
 * against a side of one piece laid out in tiles: each box there went through a plan of its own
 * (a slice of the tiled view planned, some 40 us a box); now the boxes run by families of boxes
 * that cross the tiles alike, as a banded copy's do ({@code internal.BoxFamilies}). Every byte of
 * every buffer is checked against a walk of every index through {@link TensorElements} into an
 * identical zeroed buffer: into tiles ({@code {1,0:T(8,128)}} and nested {@code T(8,128)(2,1)}),
 * out of tiles into the parts, in f32, bf16 and u8, with boxes crossing the tiles at different
 * columns (staircase rows of parts of 9 to 15 columns) and boxes of many rows crossing both.
 */
class TiledFamiliesCopyTest {
    private static final Pattern FAMILIES = Pattern.compile(
            "(\\d+) box(?:es)? against the side of one piece in tiles run by (\\d+) famil");
    private static final Pattern BOXES = Pattern.compile("cut into (\\d+) box");

    @ArenaPerTest
    private Allocator arena;

    /** The parts' buffers, and the view over them. */
    private record Parts(List<MemoryBuffer> buffers, TensorView view) {
    }

    /**
     * {@return {@code n} parts of {@code type[rows, w]}, {@code w} 9 to 15, filled from
     * {@code values} (small integers every type here holds), joined along 1 and, when
     * {@code width} is positive, reshaped to rows of {@code width} and cropped a column each side}
     */
    private Parts staircase(DType type, int n, long rows, long width, long seed, Random values) {
        Random widths = new Random(seed);
        List<MemoryBuffer> buffers = new ArrayList<>();
        List<TensorView> parts = new ArrayList<>();
        long joined = 0;
        for (int k = 0; k < n; k++) {
            int w = 9 + widths.nextInt(7);
            MemoryBuffer b = arena.allocate(rows * w * type.byteWidth());
            TensorView part = TensorView.of(b, type + "[" + rows + "," + w + "]{1,0}");
            TensorElements e = TensorElements.of(part);
            e.forEachIndex(i -> e.setDouble(values.nextInt(200), i));
            buffers.add(b);
            parts.add(part);
            joined += w;
        }
        TensorView all = Ops.concatenate(1, parts);
        if (width <= 0) {
            return new Parts(buffers, all);
        }
        long total = rows * joined;
        long viewRows = total / width;
        TensorView flat = Ops.slice(Ops.reshape(all, total), new long[] {0}, new long[] {viewRows * width},
                new long[] {1});
        return new Parts(buffers, Ops.slice(Ops.reshape(flat, viewRows, width), new long[] {0, 1},
                new long[] {viewRows, width - 1}, new long[] {1, 1}));
    }

    /** {@return a zeroed view of {@code dims} of {@code type} in {@code layout} (an XLA layout's text), its buffer added to {@code out}} */
    private TensorView laidOut(DType type, List<Long> dims, String layout, List<MemoryBuffer> out) {
        ArrayShape shape = ArrayShape.parse(type + "[" + dims.get(0) + "," + dims.get(1) + "]" + layout);
        MemoryBuffer b = arena.allocate(shape.physicalByteSize());
        b.segment().fill((byte) 0);
        out.add(b);
        return TensorView.of(b, shape);
    }

    /**
     * Copies {@code src} into tiles of {@code layout} twice (the second over scrambled bytes,
     * the tiles' padding zeroed again) and checks every byte against the reference.
     *
     * @return the copy's explanation
     */
    private Explanation intoTiles(TensorView src, DType to, String layout, String what) {
        List<MemoryBuffer> planned = new ArrayList<>();
        List<MemoryBuffer> expected = new ArrayList<>();
        TensorView dst = laidOut(to, src.dims(), layout, planned);
        reference(src, laidOut(to, src.dims(), layout, expected));
        CopyEngine.of(1).copy(src, dst);
        assertSameBytes(expected, planned, what + ", the first copy");
        planned.getFirst().segment().fill((byte) 0x5a);
        CopyEngine.of(2).copy(src, dst);
        assertSameBytes(expected, planned, what + ", again over scrambled bytes");
        return CopyEngine.of(1).explain(src, dst);
    }

    /** {@return the boxes run by families and the families, from {@code e}'s reason; {0, 0} when none} */
    private static long[] families(Explanation e) {
        Matcher m = FAMILIES.matcher(e.reason());
        return m.find() ? new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))} : new long[] {0, 0};
    }

    private static long boxes(Explanation e) {
        Matcher m = BOXES.matcher(e.reason());
        assertTrue(m.find(), e.reason());
        return Long.parseLong(m.group(1));
    }

    /** Asserts {@code e} is a copy by boxes, none element by element, none through a gather, each part runs of loops. */
    private static void assertRunsOfLoops(Explanation e, String what) {
        assertEquals(Route.PIECES, e.route(), what + ": " + e.reason());
        assertEquals(0, elementCopies(e), what);
        for (Explanation part : e.parts()) {
            assertEquals(Route.PLANNED, part.route(), () -> what + ": " + part);
            for (Step s : AccessCopies.steps(part)) {
                assertTrue(s instanceof Step.Run, () -> what + ": not runs of loops: " + part);
            }
        }
    }

    /**
     * A staircase of 40 parts (rows of 300, crossing tiles at columns 128 and 256) into
     * {@code {1,0:T(8,128)}}: every box is run by a family, a few hundred families for some
     * 2,000 boxes, each box explained as its family's runs of loops at its offsets (a box crossing
     * tiles as one run a tile, not a gather), and the bytes are the reference's, in f32, bf16 and u8.
     */
    @Test
    void aStaircaseIntoTilesRunsEveryBoxByItsFamily() {
        for (DType type : List.of(DType.F32, DType.BF16, DType.U8)) {
            Parts s = staircase(type, 40, 120, 300, 3601, new Random(1));
            Explanation e = intoTiles(s.view(), type, "{1,0:T(8,128)}", type.toString());
            long boxes = boxes(e);
            long[] f = families(e);
            assertTrue(boxes > 2_000 && boxes < 65_536, boxes + " boxes");
            assertEquals(boxes, f[0], type + ": every box by its family: " + e.reason());
            assertTrue(f[1] > 1 && f[1] * 5 < boxes, type + ": " + f[1] + " families of " + boxes + " boxes");
            assertRunsOfLoops(e, type.toString());
            long crossing = e.parts().stream().filter(p -> AccessCopies.steps(p).size() > 1).count();
            assertTrue(crossing > 100, type + ": " + crossing + " boxes crossing a tile, each a run a tile");
        }
    }

    /**
     * Past the 65,536 boxes a cut holds at once (a banded copy, its boxes in a kept table) the
     * same families run the boxes, and the explanation shows them as under the ceiling: each box
     * its family's runs at its offsets, the boxes and families counted.
     */
    @Test
    void aBandedCopyIntoTilesIsExplainedByTheSameFamilies() {
        Parts s = staircase(DType.F32, 120, 601, 601, 3606, new Random(7));
        List<MemoryBuffer> planned = new ArrayList<>();
        TensorView dst = laidOut(DType.F32, s.view().dims(), "{1,0:T(8,128)}", planned);
        Explanation e = CopyEngine.of(1).explain(s.view(), dst);
        assertTrue(e.reason().contains("cut a band of rows at a time"), e.reason());
        long boxes = boxes(e);
        long[] f = families(e);
        assertTrue(boxes > 65_536, boxes + " boxes");
        assertEquals(boxes, f[0], e.reason());
        assertTrue(f[1] > 1 && f[1] * 20 < boxes, f[1] + " families of " + boxes + " boxes");
        assertRunsOfLoops(e, "banded");
    }

    /** Converting on the way (f32 parts into bf16 tiles, u8 parts into f32 tiles): the same families. */
    @Test
    void aConvertingStaircaseIntoTilesRunsByFamilies() {
        for (DType[] types : new DType[][] {{DType.F32, DType.BF16}, {DType.U8, DType.F32}}) {
            Parts s = staircase(types[0], 24, 90, 257, 3602, new Random(2));
            String what = types[0] + " into " + types[1];
            Explanation e = intoTiles(s.view(), types[1], "{1,0:T(8,128)}", what);
            assertEquals(boxes(e), families(e)[0], what + ": " + e.reason());
            assertRunsOfLoops(e, what);
        }
    }

    /**
     * Parts joined along 1, not reshaped: boxes of all 21 rows crossing tiles along both
     * dimensions (rows at 8 and 16, columns wherever a part meets 128), a family each.
     */
    @Test
    void boxesOfManyRowsCrossingTilesBothWaysRunByFamilies() {
        Parts s = staircase(DType.F32, 30, 21, 0, 3603, new Random(3));
        Explanation e = intoTiles(s.view(), DType.F32, "{1,0:T(8,128)}", "parts joined");
        assertEquals(30, boxes(e), e.reason());
        assertEquals(30, families(e)[0], e.reason());
        assertRunsOfLoops(e, "parts joined");
    }

    /**
     * Nested tiles ({@code (2,1)} pairs of rows inside {@code (8,128)}, bf16 as XLA lays it out):
     * no later tile cuts the columns, so a row segment's family is found from where it crosses
     * tiles as under one tiling; a box of several rows is keyed by its start's remainder by the
     * tile instead, its family learned from its first box's plan. The bytes are the reference's.
     */
    @Test
    void nestedTilesRunByFamiliesOfTheSameRemainders() {
        Parts s = staircase(DType.BF16, 40, 120, 300, 3604, new Random(4));
        Explanation e = intoTiles(s.view(), DType.BF16, "{1,0:T(8,128)(2,1)}", "nested tiles");
        long boxes = boxes(e);
        long[] f = families(e);
        // 1,251 of 3,089 boxes in 62 families: the row segments; a box of several rows crossing
        // the (2,1) pairs of rows is keyed by its start's remainder, and mostly planned on its own.
        assertTrue(f[0] > boxes / 3 && f[1] * 10 < f[0], f[0] + " of " + boxes + " boxes in " + f[1] + " families");
        assertEquals(0, elementCopies(e));
    }

    /**
     * Out of tiles (one tiling and nested) into the staircase's parts: what the crop leaves out of
     * them is kept, and every box (a row segment) runs by its family.
     */
    @Test
    void tilesIntoTheStaircaseRunByFamilies() {
        for (DType type : List.of(DType.F32, DType.BF16, DType.U8)) {
            for (String layout : List.of("{1,0:T(8,128)}", "{1,0:T(8,128)(2,1)}")) {
                Parts into = staircase(type, 40, 120, 300, 3605, new Random(5));
                Parts twin = staircase(type, 40, 120, 300, 3605, new Random(5));
                TensorView src = laidOut(type, into.view().dims(), layout, new ArrayList<>());
                TensorElements e = TensorElements.of(src);
                Random values = new Random(6);
                e.forEachIndex(i -> e.setDouble(values.nextInt(250), i));
                CopyEngine.of(1).copy(src, into.view());
                reference(src, twin.view());
                String what = type + " out of " + layout;
                assertSameBytes(twin.buffers(), into.buffers(), what);
                Explanation x = CopyEngine.of(1).explain(src, into.view());
                long[] f = families(x);
                assertTrue(f[0] == boxes(x) && f[1] * 10 < f[0], what + ": " + x.reason());
            }
        }
    }
}
