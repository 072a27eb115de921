package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation.Route;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Review (issue 36): whole copies over cuts past the 65,536 boxes a cut holds at once, on the two
 * paths only their parts were tested on, every byte of every buffer checked against a walk of
 * every index through {@link TensorElements}:
 * <ul>
 * <li>a side of one piece laid out in tiles ({@code {1,0:T(8,128)}}) against the many parts: its
 *     boxes ran each through a plan of its own (a slice's map composed, simplified and split, some
 *     50 us a box); now by families of boxes that cross tiles alike ({@link BoxFamilies});
 * <li>a cut whose table would pass {@link BoxTable#MAX_BYTES}, cut and copied a band at a time on
 *     every copy, nothing kept: the cap lowered for the test ({@link BoxTable#cappedAt}).
 * </ul>
 * The staircase: some 120 parts {@code f32[601,w]}, {@code w} 8 to 10, joined along 1, reshaped
 * to rows of 601 and cropped a column each side, about 72,000 boxes of 8 elements.
 */
class BandedCopyTest {
    private static final long ROWS = 601;
    @ArenaPerTest
    private Allocator arena;

    /** The parts' buffers and the view over them. */
    private record Staircase(List<MemoryBuffer> buffers, TensorView view) {
    }

    private Staircase staircase(long seed, Random values) {
        Random widths = new Random(seed);
        List<MemoryBuffer> buffers = new ArrayList<>();
        List<TensorView> parts = new ArrayList<>();
        long joined = 0;
        for (int k = 0; k < 120; k++) {
            int w = 8 + widths.nextInt(3);
            MemoryBuffer b = arena.allocate(ROWS * w * 4);
            TensorView part = TensorView.of(b, "f32[" + ROWS + "," + w + "]{1,0}");
            TensorElements e = TensorElements.of(part);
            e.forEachIndex(i -> e.setDouble(values.nextInt(1000), i));
            buffers.add(b);
            parts.add(part);
            joined += w;
        }
        TensorView view = Ops.slice(Ops.reshape(Ops.concatenate(1, parts), joined, ROWS), new long[] {0, 1},
                new long[] {joined, ROWS - 1}, new long[] {1, 1});
        return new Staircase(buffers, view);
    }

    /** {@return a zeroed view of {@code dims} in {@code layout} (an XLA layout's text), its buffer added to {@code out}} */
    private TensorView laidOut(List<Long> dims, String layout, List<MemoryBuffer> out) {
        ArrayShape shape = ArrayShape.parse("f32[" + dims.get(0) + "," + dims.get(1) + "]" + layout);
        MemoryBuffer b = arena.allocate(shape.physicalByteSize());
        b.segment().fill((byte) 0);
        out.add(b);
        return TensorView.of(b, shape);
    }

    private static void reference(TensorView src, TensorView dst) {
        TensorElements from = TensorElements.of(src);
        TensorElements to = TensorElements.of(dst);
        from.forEachIndex(i -> to.setDouble(from.getDouble(i), i));
    }

    private static void assertSameBytes(List<MemoryBuffer> expected, List<MemoryBuffer> actual, String what) {
        assertEquals(expected.size(), actual.size(), what);
        for (int k = 0; k < expected.size(); k++) {
            assertArrayEquals(expected.get(k).segment().toArray(ValueLayout.JAVA_BYTE),
                    actual.get(k).segment().toArray(ValueLayout.JAVA_BYTE), what + ": buffer " + k);
        }
    }

    /** Into tiles: every box of the kept table is run by its family, and the bytes are the reference's. */
    @Test
    void aStaircaseIntoTilesRunsByFamiliesOfBoxesAndWritesWhatTheReferenceWrites() {
        Staircase s = staircase(3701, new Random(1));
        List<MemoryBuffer> planned = new ArrayList<>();
        List<MemoryBuffer> expected = new ArrayList<>();
        TensorView dst = laidOut(s.view().dims(), "{1,0:T(8,128)}", planned);
        reference(s.view(), laidOut(s.view().dims(), "{1,0:T(8,128)}", expected));
        CopyEngine.of(1).copy(s.view(), dst);
        assertSameBytes(expected, planned, "the first copy");
        planned.getFirst().segment().fill((byte) 0x5a); // its tiles' padding too: zeroed again
        CopyEngine.of(2).copy(s.view(), dst);
        assertSameBytes(expected, planned, "the second copy, from the kept table");

        // Box by box: no box is planned on its own, each crossing of a tile is one family's.
        BoxTable table = PiecePairs.keptTable(s.view(), dst);
        assertTrue(table != null && table.size() > 65_536, "kept: " + table);
        CopyExecutor executor = new CopyExecutor(1, false, CopyExecutor.PARALLEL_THRESHOLD_BYTES);
        BoxTable.Pass pass = table.pass(s.view(), dst, new BoxRuns(executor.thresholdBytes()));
        BoxFamilies families = BoxFamilies.of(pass, s.view(), dst, executor.thresholdBytes());
        assertNotNull(families, "the destination is one piece in tiles");
        planned.getFirst().segment().fill((byte) 0);
        for (int i = 0; i < table.size(); i++) {
            assertNull(pass.loops(i), "no loop nest of a form: the tiled side is not strided");
            assertTrue(families.run(i, executor), "box " + i + " " + table.box(i));
        }
        assertSameBytes(expected, planned, "box by box");
    }

    /** Out of tiles into the staircase: what the crop leaves out of the parts is kept. */
    @Test
    void tilesIntoTheStaircaseWriteWhatTheReferenceWrites() {
        Staircase into = staircase(3702, new Random(2));
        Staircase twin = staircase(3702, new Random(2));
        TensorView src = laidOut(into.view().dims(), "{1,0:T(8,128)}", new ArrayList<>());
        TensorElements e = TensorElements.of(src);
        Random values = new Random(3);
        e.forEachIndex(i -> e.setDouble(-values.nextInt(1000), i));
        CopyEngine.of(1).copy(src, into.view());
        reference(src, twin.view());
        assertSameBytes(twin.buffers(), into.buffers(), "into the staircase");
    }

    /**
     * Two tilings ({@code (2,1)} pairs of rows inside {@code (8,128)} tiles): the offset is no sum
     * of one function per dimension, so boxes are families only with the same remainders by the
     * tile, and a family whose first plan is not runs of loops plans each box; the bytes are the
     * reference's either way.
     */
    @Test
    void nestedTilesWriteWhatTheReferenceWrites() {
        Staircase s = staircase(3703, new Random(4));
        List<MemoryBuffer> planned = new ArrayList<>();
        List<MemoryBuffer> expected = new ArrayList<>();
        TensorView dst = laidOut(s.view().dims(), "{1,0:T(8,128)(2,1)}", planned);
        reference(s.view(), laidOut(s.view().dims(), "{1,0:T(8,128)(2,1)}", expected));
        CopyEngine.of(1).copy(s.view(), dst);
        assertSameBytes(expected, planned, "nested tiles");
    }

    /** The first tile's extent per dimension, minor to major, and the layouts it declines. */
    @Test
    void periodsAreTheFirstTilesExtents() {
        assertArrayEquals(new long[] {8, 128}, BoxFamilies.period(ArrayShape.parse("f32[9,300]{1,0:T(8,128)}").requireLayout(), 2));
        assertArrayEquals(new long[] {128, 8}, BoxFamilies.period(ArrayShape.parse("f32[300,9]{0,1:T(8,128)}").requireLayout(), 2));
        assertArrayEquals(new long[] {1, 1, 128}, BoxFamilies.period(ArrayShape.parse("f32[2,3,300]{2,1,0:T(128)}").requireLayout(), 3));
        assertArrayEquals(new long[] {8, 128}, BoxFamilies.period(ArrayShape.parse("bf16[9,300]{1,0:T(8,128)(2,1)}").requireLayout(), 2));
        assertNull(BoxFamilies.period(ArrayShape.parse("f32[9,300]{1,0}").requireLayout(), 2), "no tiles");
        assertNull(BoxFamilies.period(ArrayShape.parse("f32[9,300]{1,0:T(128)(2,1)}").requireLayout(), 2),
                "a later tile wider than the first");
    }

    /**
     * A cut whose table would pass the cap is cut and copied a band at a time on every copy,
     * nothing kept: a strided destination (twice, the second into a scrambled buffer), tiles
     * (scrambled first, their padding zeroed again), and a staircase of other buffers.
     */
    @Test
    void aCutPastTheTableCapIsCopiedABandAtATimeOnEveryCopy() {
        Staircase s = staircase(3704, new Random(5));
        List<MemoryBuffer> planned = new ArrayList<>();
        List<MemoryBuffer> expected = new ArrayList<>();
        List<Long> dims = s.view().dims();
        TensorView dst = Ops.transpose(laidOut(List.of(dims.get(1), dims.get(0)), "{1,0}", planned), 1, 0);
        reference(s.view(), Ops.transpose(laidOut(List.of(dims.get(1), dims.get(0)), "{1,0}", expected), 1, 0));
        List<MemoryBuffer> tiles = new ArrayList<>();
        List<MemoryBuffer> tilesExpected = new ArrayList<>();
        TensorView tiled = laidOut(dims, "{1,0:T(8,128)}", tiles);
        reference(s.view(), laidOut(dims, "{1,0:T(8,128)}", tilesExpected));
        Staircase into = staircase(3704, new Random(6));
        Staircase twin = staircase(3704, new Random(6));
        reference(s.view(), twin.view());
        BoxTable.cappedAt(1 << 20, () -> {
            CopyEngine engine = CopyEngine.of(1);
            Explanation e = engine.explain(s.view(), dst);
            assertEquals(Route.PIECES, e.route(), e.reason());
            assertTrue(e.parts().size() > 65_536, e.parts().size() + " boxes");
            assertTrue(e.reason().contains("cut a band of rows at a time, each band's boxes copied and dropped before the"
                    + " next is cut (a table of them all would pass 1048576 bytes)"), e.reason());
            assertTrue(BoxFamilies.applies(s.view(), tiled), "tiles");
            for (int round = 0; round < 2; round++) {
                planned.getFirst().segment().fill((byte) (0x11 * round));
                engine.copy(s.view(), dst);
                assertSameBytes(expected, planned, "strided, copy " + round);
            }
            tiles.getFirst().segment().fill((byte) 0x22);
            engine.copy(s.view(), tiled);
            assertSameBytes(tilesExpected, tiles, "tiles");
            engine.copy(s.view(), into.view());
            assertSameBytes(twin.buffers(), into.buffers(), "into the staircase");
            assertNull(PiecePairs.keptTable(s.view(), dst), "nothing kept");
            assertNull(PiecePairs.table(s.view(), dst), "no table: it would pass the cap");
        });
        assertThrows(IllegalArgumentException.class, () -> BoxTable.cappedAt(BoxTable.MAX_BYTES + 1, () -> { }));
    }
}
