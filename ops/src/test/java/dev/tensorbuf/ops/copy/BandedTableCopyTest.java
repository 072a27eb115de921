package dev.tensorbuf.ops.copy;

import static dev.tensorbuf.ops.copy.PieceCopyChecks.assertSameBytes;
import static dev.tensorbuf.ops.copy.PieceCopyChecks.elementCopies;
import static dev.tensorbuf.ops.copy.PieceCopyChecks.reference;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation.Route;
import dev.tensorbuf.ops.copy.internal.BoxTable;
import dev.tensorbuf.ops.copy.internal.PiecePairs;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Copies whose cut passes the 65,536 boxes a cut holds at once: some 120 parts of 8 to 10 columns
 * joined along 1 (over 1,024 columns, so no residue class of rows is a box), reshaped to rows of
 * 601 (a prime: the joined rows' pattern does not repeat) and cropped a column each side, about
 * 72,000 boxes of 8 elements. The cut is made a band of rows at a time into a table kept between
 * copies ({@link BoxTable}); a second copy (and a copy of other views with the same pieces' maps)
 * is served from it. A destination that refuses an index (a pad's fill, read-only memory) is
 * refused over the table before anything is written, in the element path's words; a row that
 * alone passes the ceiling is cut by ranges of its next dimension. Every byte of every
 * destination buffer is checked against a walk of every index through {@link TensorElements}.
 */
class BandedTableCopyTest {
    private static final long ROWS = 601;

    @ArenaPerTest
    private Allocator arena;

    /** The parts' buffers, and the view over them: joined, reshaped, cropped. */
    private record Staircase(List<MemoryBuffer> buffers, TensorView view) {
    }

    /**
     * {@return {@code parts} parts {@code f32[601,w]} joined along 1, every fourth padded a column
     * each side when {@code pads}, part {@code readOnly} over read-only memory (-1: none), reshaped
     * to rows of 601 (with a leading dimension of 1 when {@code leadingOne}) and cropped a column
     * each side} The widths come from {@code seed}; the values from {@code values}.
     */
    private Staircase staircase(long seed, Random values, int parts, boolean pads, int readOnly, boolean leadingOne) {
        Random widths = new Random(seed);
        List<MemoryBuffer> buffers = new ArrayList<>();
        List<TensorView> made = new ArrayList<>();
        long joined = 0;
        for (int k = 0; k < parts; k++) {
            int w = 8 + widths.nextInt(3);
            MemoryBuffer b = arena.allocate(ROWS * w * 4);
            TensorView part = TensorView.of(b, "f32[" + ROWS + "," + w + "]{1,0}");
            TensorElements e = TensorElements.of(part);
            e.forEachIndex(i -> e.setDouble(values.nextInt(1000), i));
            buffers.add(b);
            if (k == readOnly) {
                part = TensorView.of(b.asReadOnly(), "f32[" + ROWS + "," + w + "]{1,0}");
            }
            boolean padded = pads && k % 4 == 1;
            made.add(padded ? Ops.pad(part, new long[] {0, 1}, new long[] {0, 1}, new long[] {0, 0}, 5.0) : part);
            joined += w + (padded ? 2 : 0);
        }
        assertTrue(joined > 1024 && joined % ROWS != 0, joined + " joined columns");
        TensorView all = Ops.concatenate(1, made);
        TensorView view = leadingOne
                ? Ops.slice(Ops.reshape(all, 1, joined, ROWS), new long[] {0, 0, 1}, new long[] {1, joined, ROWS - 1},
                        new long[] {1, 1, 1})
                : Ops.slice(Ops.reshape(all, joined, ROWS), new long[] {0, 1}, new long[] {joined, ROWS - 1},
                        new long[] {1, 1});
        return new Staircase(buffers, view);
    }

    /** {@return a zeroed f32 view of {@code dims} laid out with its dimensions reversed} */
    private TensorView reversed(List<Long> dims, List<MemoryBuffer> out) {
        long n = 1;
        StringBuilder shape = new StringBuilder("f32[");
        for (int d = dims.size() - 1; d >= 0; d--) {
            n *= dims.get(d);
            shape.append(dims.get(d)).append(d > 0 ? "," : "]");
        }
        MemoryBuffer b = arena.allocate(n * 4);
        out.add(b);
        int[] order = new int[dims.size()];
        for (int d = 0; d < order.length; d++) {
            order[d] = order.length - 1 - d;
        }
        return Ops.transpose(TensorView.of(b, shape.toString()), order);
    }


    private static List<byte[]> bytes(List<MemoryBuffer> buffers) {
        return buffers.stream().map(b -> b.segment().toArray(ValueLayout.JAVA_BYTE)).toList();
    }



    /** Asserts a banded copy over a kept table of more boxes than a cut holds at once, nothing element by element. */
    private static void assertBandedAndKept(Explanation e, String how) {
        assertEquals(Route.PIECES, e.route(), e.reason());
        assertTrue(e.parts().size() > 65_536, e.parts().size() + " boxes: " + e.reason());
        assertTrue(e.reason().contains("a band of rows at a time into a table of its boxes kept between copies"), e.reason());
        assertTrue(e.reason().contains(how), e.reason());
        assertEquals(0, elementCopies(e), e.reason());
        for (Explanation part : e.parts()) {
            assertTrue(part.route() == Route.PLANNED, () -> part.toString());
        }
    }

    @Test
    void aBandedCopyIsCutOnceAndItsSecondCopyServedFromTheKeptTable() {
        Staircase s = staircase(3601, new Random(1), 120, false, -1, false);
        List<MemoryBuffer> planned = new ArrayList<>();
        List<MemoryBuffer> expected = new ArrayList<>();
        TensorView dst = reversed(s.view().dims(), planned);
        TensorView ref = reversed(s.view().dims(), expected);
        reference(s.view(), ref);
        CopyEngine engine = CopyEngine.of(1);
        assertEquals(null, PiecePairs.keptTable(s.view(), dst), "no table before the first copy");
        engine.copy(s.view(), dst);
        assertSameBytes(expected, planned, "the first copy");
        BoxTable table = PiecePairs.keptTable(s.view(), dst);
        assertTrue(table != null && table.size() > 65_536, "kept: " + table);
        assertBandedAndKept(engine.explain(s.view(), dst), "kept from an earlier copy");

        // Again, into a destination scrambled first: the same table, every byte written again.
        planned.getFirst().segment().fill((byte) 0x5A);
        engine.copy(s.view(), dst);
        assertSameBytes(expected, planned, "the second copy");
        assertTrue(table == PiecePairs.keptTable(s.view(), dst), "the same table");

        // Other views with the same pieces' maps (other buffers, other values) are served by it too:
        // the buffers are read each copy, not kept.
        Staircase twin = staircase(3601, new Random(2), 120, false, -1, false);
        List<MemoryBuffer> other = new ArrayList<>();
        List<MemoryBuffer> otherExpected = new ArrayList<>();
        TensorView otherDst = reversed(twin.view().dims(), other);
        reference(twin.view(), reversed(twin.view().dims(), otherExpected));
        assertTrue(table == PiecePairs.keptTable(twin.view(), otherDst), "served by the kept table");
        CopyEngine.of(2).copy(twin.view(), otherDst);
        assertSameBytes(otherExpected, other, "the twin's copy");
        assertFalse(java.util.Arrays.equals(bytes(other).getFirst(), bytes(planned).getFirst()), "other values");
    }

    @Test
    void theStaircaseAsTheDestinationIsCutIntoATableToo() {
        Staircase into = staircase(3602, new Random(3), 120, false, -1, false);
        Staircase twin = staircase(3602, new Random(3), 120, false, -1, false);
        List<MemoryBuffer> unused = new ArrayList<>();
        TensorView src = reversed(into.view().dims(), unused);
        TensorElements e = TensorElements.of(src);
        Random values = new Random(4);
        e.forEachIndex(i -> e.setDouble(-values.nextInt(1000), i));
        CopyEngine engine = CopyEngine.of(1);
        assertBandedAndKept(engine.explain(src, into.view()), "cut now");
        engine.copy(src, into.view());
        reference(src, twin.view());
        assertSameBytes(twin.buffers(), into.buffers(), "into the staircase (what the crop leaves out kept)");
    }

    /**
     * Asserts {@code copy} into {@code dst} (over {@code buffers}) is refused with the element
     * path's words and writes nothing.
     */
    private static void assertRefusedAsTheElementPath(TensorView src, TensorView dst, List<MemoryBuffer> buffers,
                                                      String words) {
        List<byte[]> before = bytes(buffers);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.of(1).copy(src, dst));
        List<byte[]> after = bytes(buffers);
        for (int k = 0; k < before.size(); k++) {
            assertArrayEquals(before.get(k), after.get(k), "nothing written: buffer " + k);
        }
        IllegalArgumentException elements = assertThrows(IllegalArgumentException.class,
                () -> ViewAdapter.copyElements(src, dst));
        assertEquals(elements.getMessage(), e.getMessage());
        assertTrue(e.getMessage().contains(words), e.getMessage());
    }

    @Test
    void aDestinationWithAPadsFillIsRefusedOverTheTableAtTheElementPathsIndex() {
        Staircase into = staircase(3603, new Random(5), 120, true, -1, false);
        TensorView src = reversed(into.view().dims(), new ArrayList<>());
        assertTrue(PiecePairs.table(src, into.view()).size() > 65_536, "past the ceiling");
        assertRefusedAsTheElementPath(src, into.view(), into.buffers(), "is padding: it reads the fill value");
        // Cut a band at a time with no table (a cut past BoxTable.MAX_BYTES), the same index is refused.
        IllegalArgumentException banded = assertThrows(IllegalArgumentException.class,
                () -> PiecePairs.refuseUnwritable(src, into.view()));
        IllegalArgumentException elements = assertThrows(IllegalArgumentException.class,
                () -> ViewAdapter.copyElements(src, into.view()));
        assertEquals(elements.getMessage(), banded.getMessage());
    }

    @Test
    void aDestinationOverReadOnlyMemoryIsRefusedOverTheTableAtTheElementPathsIndex() {
        Staircase into = staircase(3604, new Random(6), 120, false, 37, false);
        TensorView src = reversed(into.view().dims(), new ArrayList<>());
        assertTrue(PiecePairs.table(src, into.view()).size() > 65_536, "past the ceiling");
        assertRefusedAsTheElementPath(src, into.view(), into.buffers(), "its memory is read-only");
        IllegalArgumentException banded = assertThrows(IllegalArgumentException.class,
                () -> PiecePairs.refuseUnwritable(src, into.view()));
        assertTrue(banded.getMessage().contains("its memory is read-only"), banded.getMessage());

        // A destination of one piece over read-only memory, from the staircase.
        Staircase from = staircase(3604, new Random(7), 120, false, -1, false);
        List<MemoryBuffer> frozen = new ArrayList<>();
        TensorView dst = reversed(from.view().dims(), frozen);
        List<Long> dims = from.view().dims();
        TensorView readOnly = Ops.transpose(TensorView.of(frozen.getFirst().asReadOnly(),
                "f32[" + dims.get(1) + "," + dims.get(0) + "]{1,0}"), 1, 0);
        assertTrue(dst.dims().equals(readOnly.dims()));
        assertRefusedAsTheElementPath(from.view(), readOnly, frozen, "its memory is read-only");
    }

    @Test
    void theBandsOfACutWithNoTableAreTheTablesBoxes() {
        Staircase s = staircase(3605, new Random(8), 120, true, -1, false);
        TensorView dst = reversed(s.view().dims(), new ArrayList<>());
        BoxTable table = PiecePairs.table(s.view(), dst);
        List<String> banded = new ArrayList<>();
        PiecePairs.forEachBand(s.view(), dst, band -> {
            for (int i = 0; i < band.size(); i++) {
                banded.add(band.box(i) + " " + band.sourcePiece(i) + " " + band.destinationPiece(i));
            }
        });
        assertEquals(table.size(), banded.size());
        for (int i = 0; i < table.size(); i++) {
            assertEquals(table.box(i) + " " + table.sourcePiece(i) + " " + table.destinationPiece(i), banded.get(i),
                    "box " + i);
        }
    }

    @Test
    void aSingleRowPastTheCeilingIsCutByRangesOfItsNextDimension() {
        Staircase s = staircase(3606, new Random(9), 120, false, -1, true);
        assertEquals(1L, s.view().dims().getFirst());
        List<MemoryBuffer> planned = new ArrayList<>();
        List<MemoryBuffer> expected = new ArrayList<>();
        TensorView dst = reversed(s.view().dims(), planned);
        TensorView ref = reversed(s.view().dims(), expected);
        CopyEngine engine = CopyEngine.of(1);
        Explanation e = engine.explain(s.view(), dst);
        assertBandedAndKept(e, "cut now");
        engine.copy(s.view(), dst);
        reference(s.view(), ref);
        assertSameBytes(expected, planned, "a single row");
    }
}
