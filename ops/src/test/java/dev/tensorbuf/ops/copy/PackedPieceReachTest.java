package dev.tensorbuf.ops.copy;

import static dev.tensorbuf.ops.copy.PieceCopyChecks.assertSameBytes;
import static dev.tensorbuf.ops.copy.PieceCopyChecks.reference;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation.Route;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A small staircase over two large packed {@code s4} parts ({@code s4[2048,2048]} each, 4M slots
 * of 2 MiB): the parts joined along 1, flattened, cut to rows of 1,000 and cropped to a few rows
 * of a few hundred columns that cross from one part into the other. Only the slots the pieces
 * reach are staged, whole bytes (the explanation's runs are checked against the reach computed
 * here from the joined layout, index by index), copied into f32 and s8 and back into a packed
 * staircase whose buffers hold a pattern first: every byte of both parts compared with the
 * element-by-element reference, so the slots the copy does not write (the edge bytes' other
 * slots, the columns between rows, the rest of the 4M) keep their bits.
 */
class PackedPieceReachTest {
    private static final long ROWS = 2048;
    private static final long PART = 2048;
    private static final long JOINED = 2 * PART;
    private static final long WIDTH = 1000;

    @ArenaPerTest
    private Allocator arena;

    /** A crop of the staircase: {@code rows} rows from {@code top}, every {@code step}th, columns {@code [left, right)}. */
    private record Crop(long top, long rows, long step, long left, long right) {
        Crop(long top, long rows, long left, long right) {
            this(top, rows, 1, left, right);
        }
    }

    /** Two packed parts, each byte random. */
    private List<MemoryBuffer> parts(long seed) {
        Random random = new Random(seed);
        List<MemoryBuffer> out = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
            MemoryBuffer b = arena.allocate(ROWS * PART / 2);
            byte[] bytes = new byte[(int) b.byteSize()];
            random.nextBytes(bytes);
            b.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(bytes));
            out.add(b);
        }
        return out;
    }

    private static TensorView staircase(List<MemoryBuffer> parts, Crop c) {
        List<TensorView> views = new ArrayList<>();
        for (MemoryBuffer b : parts) {
            views.add(TensorView.of(b, "s4[" + ROWS + "," + PART + "]{1,0:E(4)}"));
        }
        long total = ROWS * JOINED;
        long rows = total / WIDTH;
        TensorView flat = Ops.slice(Ops.reshape(Ops.concatenate(1, views), total), new long[] {0}, new long[] {rows * WIDTH},
                new long[] {1});
        return Ops.slice(Ops.reshape(flat, rows, WIDTH), new long[] {c.top(), c.left()},
                new long[] {c.top() + (c.rows() - 1) * c.step() + 1, c.right()}, new long[] {c.step(), 1});
    }

    /**
     * {@return the runs the crop reaches, part by part: {first slot, slots}, rounded out to whole
     * bytes} From the joined layout: index {@code (i, j)} is flat {@code L}, joined row
     * {@code L / 4096}, column {@code L mod 4096}, the first 2048 columns part 0's.
     */
    private static List<long[]> reached(Crop c) {
        long[] lo = {Long.MAX_VALUE, Long.MAX_VALUE};
        long[] hi = {-1, -1};
        for (long i = 0; i < c.rows(); i++) {
            for (long j = c.left(); j < c.right(); j++) {
                long flat = (c.top() + i * c.step()) * WIDTH + j;
                long column = flat % JOINED;
                int part = column < PART ? 0 : 1;
                long slot = flat / JOINED * PART + column - part * PART;
                lo[part] = Math.min(lo[part], slot);
                hi[part] = Math.max(hi[part], slot);
            }
        }
        List<long[]> runs = new ArrayList<>();
        for (int part = 0; part < 2; part++) {
            if (hi[part] >= 0) {
                long first = lo[part] / 2 * 2;
                long end = (hi[part] / 2 + 1) * 2;
                runs.add(new long[] {first, end - first});
            }
        }
        return runs;
    }

    private static List<Explanation.Staged> staged(String side, List<long[]> runs) {
        // A destination's runs are marked, not unpacked: nothing is read from them first.
        boolean destination = side.equals("destination");
        return runs.stream().map(r -> new Explanation.Staged(side, 4, r[0], r[1], destination ? 0 : r[1], destination)).toList();
    }



    /** {@return a dense {@code type} view of {@code rows x cols} laid out transposed, zeroed} */
    private TensorView transposed(DType type, long rows, long cols) {
        MemoryBuffer b = arena.allocate(rows * cols * type.byteWidth());
        return Ops.transpose(TensorView.of(b, type + "[" + cols + "," + rows + "]{1,0}"), 1, 0);
    }

    /**
     * {@return each part's interval over a crop of consecutive rows inside one joined row, rounded
     * out to whole bytes: {first slot, slots}} The crop's flat indices {@code [a, b]} lie in joined
     * row {@code q}; part {@code k}'s map, {@code L mod 4096 - 2048k + 2048q} where its constraint
     * holds, spans {@code [a mod 4096, b mod 4096] - 2048k + 2048q} over the crop's box (the
     * interval arithmetic does not use the constraint).
     */
    private static List<long[]> intervals(Crop c) {
        long a = c.top() * WIDTH + c.left();
        long b = (c.top() + c.rows() - 1) * WIDTH + c.right() - 1;
        assertEquals(a / JOINED, b / JOINED, "one joined row");
        List<long[]> runs = new ArrayList<>();
        for (int part = 0; part < 2; part++) {
            long lo = a / JOINED * PART + a % JOINED - part * PART;
            long hi = a / JOINED * PART + b % JOINED - part * PART;
            runs.add(new long[] {lo / 2 * 2, (hi / 2 + 1) * 2 - lo / 2 * 2});
        }
        return runs;
    }

    /**
     * Copies the crop out of random parts into f32 and s8 and back into patterned parts, each
     * explanation staging {@code runs}, found as {@code how}.
     */
    private void roundTrip(Crop crop, List<long[]> runs, String how, String what) {
        long stagedSlots = runs.stream().mapToLong(r -> r[1]).sum();
        // Whatever is staged holds what the crop reaches.
        for (long[] reached : reached(crop)) {
            assertTrue(runs.stream().anyMatch(r -> r[0] <= reached[0] && reached[0] + reached[1] <= r[0] + r[1]), what);
        }
        TensorView src = staircase(parts(36), crop);
        assertEquals(crop.rows() * (crop.right() - crop.left()), src.elementCount());
        for (DType type : List.of(DType.F32, DType.S8)) {
            for (CopyEngine engine : List.of(CopyEngine.of(1), CopyEngine.of(2))) {
                TensorView out = transposed(type, crop.rows(), crop.right() - crop.left());
                TensorView ref = transposed(type, crop.rows(), crop.right() - crop.left());
                Explanation e = engine.explain(src, out);
                assertEquals(Route.STAGED, e.route(), e.toString());
                assertEquals(staged("source", runs), e.staging(), e.toString());
                assertTrue(e.reason().contains("the slots the pieces reach in each buffer (" + how + ")"), e.reason());
                assertEquals(List.of(stagedSlots), e.temporaries().getFirst().dims(), e.toString());
                engine.copy(src, out);
                reference(src, ref);
                assertSameBytes(List.of(ref.buffer()), List.of(out.buffer()), what + " into " + type);

                // Back into packed parts whose every byte holds a pattern first.
                List<MemoryBuffer> into = parts(37);
                List<MemoryBuffer> twin = parts(37);
                TensorView dst = staircase(into, crop);
                Explanation back = engine.explain(out, dst);
                assertEquals(Route.STAGED, back.route(), back.toString());
                assertEquals(staged("destination", runs), back.staging(), back.toString());
                assertTrue(back.toString().contains("only the slots the copy writes packed back into those bytes"), back.toString());
                engine.copy(out, dst);
                reference(out, staircase(twin, crop));
                assertSameBytes(twin, into, what + " from " + type);
            }
        }
    }

    private static final String INTERVALS = "their maps' intervals over their bounds";
    private static final String LOOKED_UP = "every index looked up";

    /**
     * Three rows of 200 columns: the first in part 0, the other two in part 1 (their joined row
     * crosses the parts' boundary between them). Each part stages its map's interval over the
     * crop, 2,200 slots (it reaches 200 and 1,200), starting and ending on a whole byte.
     */
    @Test
    void aSmallStaircaseOfLargePackedPartsStagesTheSlotsItReaches() {
        Crop crop = new Crop(4097, 3, 100, 300);
        List<long[]> reached = reached(crop);
        assertArrayEquals(new long[] {1000 * PART + 1100, 200}, reached.get(0));
        assertArrayEquals(new long[] {1000 * PART + 52, 1200}, reached.get(1));
        List<long[]> runs = intervals(crop);
        assertArrayEquals(new long[] {1000 * PART + 1100, 2200}, runs.get(0));
        assertArrayEquals(new long[] {1000 * PART - 948, 2200}, runs.get(1));
        roundTrip(crop, runs, INTERVALS, "even edges");
        String text = CopyEngine.of(1).explain(staircase(parts(1), crop), transposed(DType.F32, 3, 200)).toString();
        assertTrue(text.contains("staged source: 4-bit slots [2049100, 2051300) a byte each, 2200 unpacked first\n"), text);
        assertTrue(text.contains("staged source: 4-bit slots [2047052, 2049252) a byte each, 2200 unpacked first\n"), text);
        assertTrue(text.contains("temporary s4[4400], 4400 bytes: the slots the source's pieces reach, 2 runs"), text);
    }

    /**
     * The same rows cropped to 198 columns from an odd one: each part's interval starts on a
     * byte's high slot and ends on a low one, so both edge bytes hold a slot the copy must not
     * change.
     */
    @Test
    void reachesThatStartAndEndMidByteKeepTheEdgeSlots() {
        Crop crop = new Crop(4097, 3, 101, 299);
        List<long[]> runs = intervals(crop);
        assertArrayEquals(new long[] {1000 * PART + 1100, 2200}, runs.get(0));
        assertArrayEquals(new long[] {1000 * PART - 948, 2200}, runs.get(1));
        assertEquals(1, (1000 * PART + 1101) % 2, "starts on a high slot");
        assertEquals(0, (1000 * PART + 3298) % 2, "ends on a low slot");
        roundTrip(crop, runs, INTERVALS, "odd edges");
    }

    /**
     * Three rows 200 apart: the pieces' intervals span a hundred joined rows each (412K slots),
     * far more than 600 elements, so every index is looked up: part 1 holds one row segment and
     * stages its 200 slots, part 0 the 100K between its two.
     */
    @Test
    void rowsFarApartAreLookedUp() {
        Crop crop = new Crop(4000, 3, 200, 100, 300);
        List<long[]> runs = reached(crop);
        assertEquals(200, runs.get(1)[1]);
        assertTrue(runs.get(0)[1] < 101_000, runs.get(0)[1] + " slots");
        // Part 0 is reached first in the pieces' order, so its run comes first.
        roundTrip(crop, runs, LOOKED_UP, "far apart");
    }

    /** Rows 4,096 apart, each inside part 0: part 1 is reached nowhere, and staged nowhere. */
    @Test
    void aPartTheCropDoesNotReachIsNotStaged() {
        Crop crop = new Crop(0, 3, 4096, 101, 299);
        assertEquals(1, reached(crop).size());
        roundTrip(crop, reached(crop), LOOKED_UP, "one part");
    }

    /**
     * A view too large to look every index up stages its pieces' intervals: still a few rows of
     * the parts, not all of them, and the copy the reference's.
     */
    @Test
    void aLargerCropStagesItsPiecesIntervals() {
        Crop crop = new Crop(4000, 300, 7, 993);
        TensorView src = staircase(parts(36), crop);
        TensorView out = transposed(DType.S8, crop.rows(), crop.right() - crop.left());
        TensorView ref = transposed(DType.S8, crop.rows(), crop.right() - crop.left());
        CopyEngine engine = CopyEngine.of(2);
        Explanation e = engine.explain(src, out);
        long slots = e.staging().stream().mapToLong(Explanation.Staged::slots).sum();
        assertTrue(e.reason().contains("(their maps' intervals over their bounds)"), e.reason());
        // 300 rows of 1,000 are about 74 joined rows of 2,048 slots a part, plus a joined row each.
        assertTrue(slots >= 2 * 73 * PART && slots <= 2 * 76 * PART, slots + " slots: " + e);
        engine.copy(src, out);
        reference(src, ref);
        assertSameBytes(List.of(ref.buffer()), List.of(out.buffer()), "larger crop");

        List<MemoryBuffer> into = parts(37);
        List<MemoryBuffer> twin = parts(37);
        engine.copy(out, staircase(into, crop));
        reference(out, staircase(twin, crop));
        assertSameBytes(twin, into, "larger crop back");
    }

    /**
     * Forty parts of one row each: a run per part, the text showing the first eight and counting
     * the rest, the JSON every one.
     */
    @Test
    void manyRunsAreCountedInTheText() {
        List<TensorView> rows = new ArrayList<>();
        List<MemoryBuffer> buffers = new ArrayList<>();
        Random random = new Random(40);
        for (int k = 0; k < 40; k++) {
            MemoryBuffer b = arena.allocate(3);
            b.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) random.nextInt());
            b.segment().set(ValueLayout.JAVA_BYTE, 1, (byte) random.nextInt());
            b.segment().set(ValueLayout.JAVA_BYTE, 2, (byte) random.nextInt());
            buffers.add(b);
            rows.add(Ops.slice(TensorView.of(b, "s4[1,6]{1,0:E(4)}"), new long[] {0, 1}, new long[] {1, 4}, new long[] {1, 1}));
        }
        TensorView src = Ops.concatenate(0, rows);
        TensorView out = transposed(DType.S8, 40, 3);
        TensorView ref = transposed(DType.S8, 40, 3);
        Explanation e = CopyEngine.of(1).explain(src, out);
        // Slots 1 to 3 of each part: bytes 0 and 1, slots [0, 4).
        assertEquals(java.util.Collections.nCopies(40, new Explanation.Staged("source", 4, 0, 4, 4, false)), e.staging());
        String text = e.toString();
        assertEquals(8, text.lines().filter(l -> l.startsWith("  staged source: 4-bit slots [0, 4)")).count(), text);
        assertTrue(text.contains("\n  ... 32 more staged runs, 128 slots\n"), text);
        assertEquals(40, e.toJson().split("\"side\":\"source\"", -1).length - 1, e.toJson());
        CopyEngine.of(1).copy(src, out);
        reference(src, ref);
        assertSameBytes(List.of(ref.buffer()), List.of(out.buffer()), "forty parts");
    }

    /**
     * A destination with a read-only part is not staged (packing back would write it): refused
     * as before, naming the read-only memory, and the writable part keeps every byte.
     */
    @Test
    void aReadOnlyPartIsRefusedAsBefore() {
        Crop crop = new Crop(4097, 3, 100, 300);
        List<MemoryBuffer> into = parts(37);
        List<MemoryBuffer> twin = parts(37);
        List<MemoryBuffer> guarded = List.of(into.get(0), into.get(1).asReadOnly());
        TensorView src = transposed(DType.S8, crop.rows(), crop.right() - crop.left());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.of(1).copy(src, staircase(guarded, crop)));
        assertTrue(refused.getMessage().contains("read-only"), refused.getMessage());
        assertSameBytes(twin, into, "refused");
    }
}
