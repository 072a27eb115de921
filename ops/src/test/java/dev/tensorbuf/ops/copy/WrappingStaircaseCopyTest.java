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
import dev.tensorbuf.testing.ArenaPerTest;
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
 * Staircases whose every row wraps the whole modulus: narrow parts (12 to 48 columns, a quarter
 * padded a column each side) joined along 1, reshaped to rows longer than the joined rows and
 * cropped (a column or more off each side, sometimes every other row), so each row of the
 * view holds runs of many parts, boxes of a few elements each. These averaged under 64 elements
 * a box and went element by element; now each box is one loop nest of a shared form. Copied both
 * ways (the staircase as the source, and as the destination) in f32, bf16, u8, s8 and packed s4
 * (a packed side of one piece staged whole, the boxes copied through a dense temporary; packed
 * parts unpacked where the pieces reach, the boxes copied over byte-a-slot copies), against a
 * brute-force reference: every index read through one view's element access and written
 * through the other's into an identical destination, compared byte for byte, every byte of the
 * destination's buffers included (so what a crop leaves out stays as it was).
 */
class WrappingStaircaseCopyTest {
    /** The staircase's types are all but the last; the other side's any. */
    private static final List<DType> TYPES = List.of(DType.F32, DType.BF16, DType.U8, DType.S8, DType.S4);
    private static final Pattern FORMS = Pattern.compile("are (\\d+) forms? of loops");

    @ArenaPerTest
    private Allocator arena;

    /** The parts' buffers, and the view over them: joined, reshaped to rows of {@code width}, cropped. */
    private record Staircase(List<MemoryBuffer> buffers, TensorView view, long joinedColumns) {
    }

    /** Small values that every type here holds exactly (s4: 0 to 7). */
    private static void fill(TensorView v, Random random) {
        TensorElements e = TensorElements.of(v);
        e.forEachIndex(i -> e.setDouble(random.nextInt(8), i));
    }

    /** {@return a row-major shape of {@code type}: s4 packed two a byte} */
    private static String shape(DType type, long rows, long cols) {
        return type + "[" + rows + "," + cols + "]{1,0" + (type.bitWidth() < 8 ? ":E(" + type.bitWidth() + ")}" : "}");
    }

    private static long bytes(DType t, long elements) {
        return t.bitWidth() < 8 ? Math.ceilDiv(elements * t.bitWidth(), 8) : elements * t.byteWidth();
    }

    /**
     * {@return a staircase of at least {@code parts} parts and {@code minColumns} joined columns,
     * each part a quarter of {@code maxWidth} to {@code maxWidth} columns wide} With {@code pads}, a
     * quarter of the parts are padded a column each side (fill pieces: a source only). The view's
     * rows are longer than the joined rows; the joined row count equals the view's row length,
     * which keeps the reshape exact.
     */
    private Staircase staircase(Random random, DType type, int parts, long minColumns, int maxWidth, boolean pads,
                                long seed) {
        List<Integer> widths = new ArrayList<>();
        List<Integer> kinds = new ArrayList<>(); // 0 plain, 1 a column each side
        long joined = 0;
        while (widths.size() < parts || joined < minColumns) {
            int w = 1 + random.nextInt(maxWidth);
            w = Math.max(w, maxWidth / 4);
            int kind = pads && random.nextInt(4) == 0 ? 1 : 0;
            widths.add(w);
            kinds.add(kind);
            joined += w + (kind == 1 ? 2 : 0);
        }
        long width = joined + 1 + random.nextInt((int) joined);
        while (java.math.BigInteger.valueOf(width).gcd(java.math.BigInteger.valueOf(joined)).intValue() != 1) {
            // No common factor: the row pattern repeats only every `joined` rows (past MAX_PERIOD in
            // the long staircases), so no residue class of rows is a strided family over them all.
            width++;
        }
        long rows = width;
        Random values = new Random(seed);
        List<MemoryBuffer> buffers = new ArrayList<>();
        List<TensorView> made = new ArrayList<>();
        for (int k = 0; k < widths.size(); k++) {
            int w = widths.get(k);
            MemoryBuffer b = arena.allocate(Math.max(1, bytes(type, rows * w)));
            TensorView part = TensorView.of(b, shape(type, rows, w));
            fill(part, values);
            buffers.add(b);
            made.add(switch (kinds.get(k)) {
                case 1 -> Ops.pad(part, new long[] {0, 1}, new long[] {0, 1}, new long[] {0, 0}, 5.0);
                default -> part;
            });
        }
        TensorView all = Ops.concatenate(1, made);
        assertEquals(joined, all.dims().get(1), "joined columns");
        long viewRows = rows * joined / width;
        TensorView reshaped = Ops.reshape(all, viewRows, width);
        long top = random.nextInt(3);
        long left = 1 + random.nextInt(3);
        long right = 1 + random.nextInt(3);
        long step = random.nextInt(4) == 0 ? 2 : 1;
        TensorView cropped = Ops.slice(reshaped, new long[] {top, left}, new long[] {viewRows, width - right},
                new long[] {step, 1});
        return new Staircase(buffers, cropped, joined);
    }

    /** A dense destination of {@code dims} laid out transposed, zeroed. */
    private TensorView transposed(DType type, long rows, long cols, List<MemoryBuffer> out) {
        MemoryBuffer b = arena.allocate(Math.max(1, bytes(type, rows * cols)));
        out.add(b);
        return Ops.transpose(TensorView.of(b, shape(type, cols, rows)), 1, 0);
    }




    /**
     * Checks the explanation: box by box (a packed side of one piece staged whole, through a dense
     * temporary the boxes copy to or from), nothing element by element.
     */
    private static void assertPlannedInForms(Explanation e, String what) {
        Explanation pieces = pieces(e);
        assertTrue(pieces != null && (e.route() == Route.PIECES || e.route() == Route.THROUGH_TEMPORARY
                        || e.route() == Route.STAGED),
                what + ": " + e.route() + ", " + e.reason() + (e.parts().isEmpty() ? "" : "; " + e.parts().getFirst().reason()));
        assertEquals(0, elementCopies(e), what + ": " + e.reason());
        for (Explanation part : pieces.parts()) {
            // The message is built only on failure: tens of thousands of parts' texts cost seconds.
            assertTrue(part.route() == Route.PLANNED || part.route() == Route.STAGED, () -> what + ": " + part);
        }
    }

    /** {@return the copy box by box in {@code e} or its parts, or null} */
    private static Explanation pieces(Explanation e) {
        if (e.route() == Route.PIECES) {
            return e;
        }
        for (Explanation p : e.parts()) {
            Explanation found = pieces(p);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** {@return the forms the explanation names, 0 when none} */
    private static int forms(Explanation e) {
        Matcher m = FORMS.matcher(pieces(e).reason());
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /**
     * Copies a staircase of {@code stair} elements into a transposed view of {@code other}
     * elements, and a transposed view of {@code other} elements into a staircase of {@code stair}
     * elements, each against the reference.
     *
     * @return the explanation of the copy from the staircase
     */
    private Explanation roundTrip(Random random, DType stair, DType other, int parts, long minColumns, int maxWidth,
                           CopyEngine engine, String what) {
        DType from = stair;
        DType to = other;
        long seed = random.nextLong();
        // The staircase as the source (pads allowed), into a transposed destination.
        Random shape = new Random(seed);
        Staircase s = staircase(shape, from, parts, minColumns, maxWidth, true, seed);
        long rows = s.view().dims().get(0);
        long cols = s.view().dims().get(1);
        List<MemoryBuffer> planned = new ArrayList<>();
        List<MemoryBuffer> expected = new ArrayList<>();
        TensorView dst = transposed(to, rows, cols, planned);
        TensorView ref = transposed(to, rows, cols, expected);
        Explanation e = engine.explain(s.view(), dst);
        assertPlannedInForms(e, what + " from " + s.view());
        engine.copy(s.view(), dst);
        reference(s.view(), ref);
        assertSameBytes(expected, planned, what + " from the staircase");

        // The staircase as the destination (no pads: a fill is not written), from a transposed source.
        Random again = new Random(seed + 1);
        Staircase into = staircase(again, stair, parts, minColumns, maxWidth, false, seed + 2);
        Staircase twin = staircase(new Random(seed + 1), stair, parts, minColumns, maxWidth, false, seed + 2);
        rows = into.view().dims().get(0);
        cols = into.view().dims().get(1);
        List<MemoryBuffer> unused = new ArrayList<>();
        TensorView src = transposed(other, rows, cols, unused);
        fill(src, new Random(seed + 3));
        Explanation back = engine.explain(src, into.view());
        assertPlannedInForms(back, what + " into " + into.view());
        engine.copy(src, into.view());
        reference(src, twin.view());
        assertSameBytes(twin.buffers(), into.buffers(), what + " into the staircase");
        return e;
    }

    @Test
    void randomWrappingStaircasesCopyAsTheElementReferenceBothWays() {
        Random random = new Random(36);
        for (int round = 0; round < 24; round++) {
            // Packed s4 on the other side only here; staircases of packed parts have their own test.
            DType from = TYPES.get(random.nextInt(TYPES.size() - 1));
            DType to = TYPES.get(random.nextInt(TYPES.size()));
            CopyEngine engine = round % 3 == 0 ? CopyEngine.of(2) : CopyEngine.of(1);
            roundTrip(random, from, to, 3 + random.nextInt(10), 0, 48, engine, "round " + round + " " + from + " -> " + to);
        }
    }

    /**
     * Cuts that went element by element: past 65,536 boxes (96 parts of 3 to 12 columns, about
     * 800,000 elements, cut and copied a band of rows at a time), and under 8 elements a box on
     * average (100 parts of 1 to 6 columns). Both ways, against the reference, no element step.
     */
    @Test
    void cutsPastTheCeilingAndOfTinyBoxesArePlannedBothWays() {
        CopyEngine engine = CopyEngine.of(1);
        Explanation big = roundTrip(new Random(3636), DType.F32, DType.F32, 96, 0, 12, engine, "past the ceiling");
        assertTrue(big.parts().size() > 65_536, big.parts().size() + " boxes: " + big.reason());
        assertTrue(big.reason().contains("a band of rows at a time"), big.reason());
        assertSummarised(big);

        for (DType[] types : new DType[][] {{DType.F32, DType.U8}, {DType.BF16, DType.S4}}) {
            Explanation tiny = roundTrip(new Random(3637), types[0], types[1], 100, 0, 6, engine,
                    "tiny " + types[0] + " -> " + types[1]);
            Explanation boxes = pieces(tiny);
            assertTrue(boxes.elements() < 8 * boxes.parts().size() && boxes.parts().size() > 1024,
                    boxes.parts().size() + " boxes for " + boxes.elements() + " elements");
        }
    }

    /**
     * The explanation of a cut past the ceiling stays readable: tens of lines naming the boxes, the
     * forms' counts adding up to them, the first parts in full; the JSON form the same.
     */
    private static void assertSummarised(Explanation e) {
        int boxes = e.parts().size();
        String text = e.toString();
        assertTrue(text.lines().count() <= 80 && text.length() <= 16_000,
                () -> text.lines().count() + " lines, " + text.length() + " characters: " + text.substring(0, Math.min(text.length(), 4000)));
        assertTrue(text.contains("\n  " + boxes + " parts in "), text);
        assertTrue(text.contains("\n  ... " + (boxes - 8) + " more parts\n"), text);
        assertEquals(8, text.lines().filter(l -> l.startsWith("  box [")).count(), text);
        Matcher counts = Pattern.compile("\n    (\\d+) parts?, \\d+ elements?: |\n    \\.\\.\\. \\d+ more forms, (\\d+) parts?\n")
                .matcher(text);
        long counted = 0;
        while (counts.find()) {
            counted += Long.parseLong(counts.group(counts.group(1) != null ? 1 : 2));
        }
        assertEquals(boxes, counted, text);
        String json = e.toJson();
        assertTrue(json.length() <= 200_000, json.length() + " characters of JSON");
        assertTrue(json.contains(",\"parts_total\":" + boxes + ",\"pieces_total\":" + boxes + ",\"forms\":[{"),
                json.substring(0, Math.min(json.length(), 4000)));
        Matcher jsonCounts = Pattern.compile("\\{\"form\":\"[^\"]*\",\"parts\":(\\d+),").matcher(json);
        long inJson = 0;
        while (jsonCounts.find()) {
            inJson += Long.parseLong(jsonCounts.group(1));
        }
        assertEquals(boxes, inJson, "forms' parts in the JSON");
    }

    /**
     * Staircases whose own parts are packed s4: the slots the pieces reach in each buffer of the
     * parts are unpacked into a byte a slot, and the boxes are copied over the same maps there in
     * shared forms (staged box by box before, a family of rows reaching too many slots went element
     * by element); as a destination, the copies are packed back into those bytes, so what the crop
     * leaves keeps its bits.
     */
    @Test
    void staircasesOfPackedS4PartsAreUnpackedWholeAndPlannedInForms() {
        Random random = new Random(3638);
        for (int round = 0; round < 5; round++) {
            DType other = TYPES.get(random.nextInt(TYPES.size()));
            CopyEngine engine = round % 3 == 0 ? CopyEngine.of(2) : CopyEngine.of(1);
            roundTrip(random, DType.S4, other, 3 + random.nextInt(10), round == 0 ? 1025 : 0, 48, engine,
                    "s4 round " + round + " -> " + other);
        }
        long seed = 36;
        Staircase s = staircase(new Random(seed), DType.S4, 6, 0, 40, false, seed);
        Explanation e = CopyEngine.of(1).explain(s.view(), transposed(DType.S8, s.view().dims().get(0),
                s.view().dims().get(1), new ArrayList<>()));
        assertEquals(Route.STAGED, e.route(), e.reason());
        // A run of the slots its pieces reach per part's buffer (the crop leaves a few off the ends).
        assertEquals(s.buffers().size(), e.staging().size(), e.reason());
        long slots = 0;
        for (Explanation.Staged staged : e.staging()) {
            assertEquals("source", staged.side());
            assertEquals(0, staged.firstSlot() % 2, e.toString());
            slots += staged.slots();
        }
        long all = s.buffers().stream().mapToLong(b -> 2 * b.byteSize()).sum();
        // At most two rows and a few columns cropped off the start, a few off the end, an edge slot per run.
        long cropped = 2 * (s.view().dims().get(1) + 6) + 6 + 2L * s.buffers().size();
        assertTrue(slots <= all && slots >= all - cropped, slots + " of " + all + ": " + e);
        assertEquals(Route.PIECES, e.parts().getFirst().route(), e.parts().getFirst().reason());
    }

    /**
     * A reshape over an interior pad: the joined parts padded with one fill column between every
     * two columns, reshaped and cropped. The pad's {@code (L mod m) mod 2} is cut by the laps of
     * {@code L mod m} into boxes of stride 2 (it halved down to boxes of about one element, and
     * went element by element).
     */
    @Test
    void aReshapeOverAnInteriorPadIsPlannedInStridedBoxes() {
        Random random = new Random(3637);
        for (int round = 0; round < 6; round++) {
            DType type = TYPES.get(random.nextInt(TYPES.size() - 1));
            List<TensorView> parts = new ArrayList<>();
            List<MemoryBuffer> buffers = new ArrayList<>();
            long rows = 40 + random.nextInt(400);
            long joined = 0;
            for (int k = 0, n = 2 + random.nextInt(4); k < n; k++) {
                long w = 3 + random.nextInt(200);
                MemoryBuffer b = arena.allocate(bytes(type, rows * w));
                TensorView part = TensorView.of(b, shape(type, rows, w));
                fill(part, random);
                parts.add(part);
                joined += w;
            }
            TensorView padded = Ops.pad(Ops.concatenate(1, parts), new long[] {0, 0}, new long[] {0, 0},
                    new long[] {0, 1}, 5.0);
            long cols = 2 * joined - 1;
            // Rows of the view: a divisor of rows * cols past a few columns, so the reshape is exact.
            long width = cols + 1 + random.nextInt((int) cols);
            while (rows * cols % width != 0) {
                width++;
            }
            long viewRows = rows * cols / width;
            TensorView src = Ops.slice(Ops.reshape(padded, viewRows, width), new long[] {0, 1},
                    new long[] {viewRows, width - 1}, new long[] {1, 1});
            DType to = TYPES.get(random.nextInt(TYPES.size()));
            List<MemoryBuffer> planned = new ArrayList<>();
            List<MemoryBuffer> expected = new ArrayList<>();
            TensorView dst = transposed(to, viewRows, width - 2, planned);
            TensorView ref = transposed(to, viewRows, width - 2, expected);
            CopyEngine engine = CopyEngine.of(1 + round % 2);
            String what = "round " + round + " " + src + " -> " + to;
            Explanation e = engine.explain(src, dst);
            assertPlannedInForms(e, what);
            assertTrue(src.elementCount() >= 16 * e.parts().size(), what + ": " + e.parts().size() + " boxes");
            engine.copy(src, dst);
            reference(src, ref);
            assertSameBytes(expected, planned, what);
        }
    }

    /**
     * Joined rows past {@code MAX_PERIOD} columns: no repeating row pattern for residue classes to
     * take, and rows of the view longer than the joined rows, so no lap holds a whole row. The
     * thousands of boxes of some tens of elements each are a few hundred forms.
     */
    @Test
    void longWrappingStaircasesArePlannedInSharedForms() {
        Random random = new Random(2026);
        for (DType[] types : new DType[][] {{DType.F32, DType.F32}, {DType.BF16, DType.U8}}) {
            long seed = random.nextLong();
            Staircase s = staircase(new Random(seed), types[0], 2, 1025, 150, true, seed);
            long rows = s.view().dims().get(0);
            long cols = s.view().dims().get(1);
            List<MemoryBuffer> planned = new ArrayList<>();
            List<MemoryBuffer> expected = new ArrayList<>();
            TensorView dst = transposed(types[1], rows, cols, planned);
            TensorView ref = transposed(types[1], rows, cols, expected);
            CopyEngine engine = CopyEngine.of(1);
            Explanation e = engine.explain(s.view(), dst);
            String what = types[0] + " -> " + types[1] + " " + s.view();
            assertPlannedInForms(e, what);
            long boxes = e.parts().size();
            assertTrue(boxes > 4096 && s.view().elementCount() / boxes < 64, what + ": " + boxes + " boxes");
            int forms = forms(e);
            assertTrue(forms > 0 && forms * 8L < boxes, what + ": " + forms + " forms, " + boxes + " boxes");
            engine.copy(s.view(), dst);
            reference(s.view(), ref);
            assertSameBytes(expected, planned, what);
        }
    }
}
