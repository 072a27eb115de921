package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link Planner#planUncached} run by a plain interpreter of its steps over {@code long[]}
 * "memory": every logical index must land where XLA's tiled offset ({@link ArrayShape#linearIndex})
 * or the strides put it, with the source element the same index reads, every padding slot of a
 * tiled destination zeroed, and every data slot written exactly once. Kernels are not
 * run: this checks the loops, offsets and boxes the planner hands them.
 */
// Whether a small map's split is known depends on the copies before: each test starts with none.
@ExtendWith(FreshCopyCaches.class)
class PlannerTest {
    private static final MemorySegment ANY = Arena.ofAuto().allocate(8);

    /** Runs {@code steps}: {@code writes[slot]} counts the writes, {@code dst[slot]} holds the last. */
    private static void interpret(List<Step> steps, long[] src, long[] dst, int[] writes) {
        for (Step step : steps) {
            switch (step) {
                case Step.Run r -> visit(r.loops(), r.srcOffset(), r.dstOffset(), (s, d) -> {
                    dst[Math.toIntExact(d)] = src[Math.toIntExact(s)];
                    writes[Math.toIntExact(d)]++;
                });
                case Step.Zero z -> visit(z.loops(), 0, z.dstOffset(), (s, d) -> {
                    dst[Math.toIntExact(d)] = 0;
                    writes[Math.toIntExact(d)]++;
                });
                default -> fail("unexpected step " + step);
            }
        }
    }

    private interface Move {
        void at(long src, long dst);
    }

    private static void visit(List<Loop> loops, long so, long dO, Move move) {
        long[] i = new long[loops.size()];
        while (true) {
            long s = so;
            long d = dO;
            for (int k = 0; k < i.length; k++) {
                s += i[k] * loops.get(k).srcStride();
                d += i[k] * loops.get(k).dstStride();
            }
            move.at(s, d);
            int k = i.length - 1;
            while (k >= 0 && ++i[k] == loops.get(k).count()) {
                i[k] = 0;
                k--;
            }
            if (k < 0) {
                return;
            }
        }
    }

    private static void forEachIndex(long[] dims, java.util.function.Consumer<long[]> f) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        long[] idx = new long[dims.length];
        for (long e = 0; e < n; e++) {
            long rest = e;
            for (int k = dims.length - 1; k >= 0; k--) {
                idx[k] = rest % dims[k];
                rest /= dims[k];
            }
            f.accept(idx.clone());
        }
    }

    /** Plans, interprets and checks a copy whose sides address index {@code i} at {@code srcAt(i)} and {@code dstAt(i)}. */
    private static void check(Access src, Access dst, ChannelAffine affine, ToLongFunction<long[]> srcAt,
                              ToLongFunction<long[]> dstAt, int srcSlots, int dstSlots, boolean dstOwnsAllSlots) {
        String what = src.addressing() + " -> " + dst.addressing();
        List<Step> steps = Planner.planUncached(src, dst, affine);
        long[] srcMem = new long[srcSlots];
        for (int k = 0; k < srcSlots; k++) {
            srcMem[k] = 1000 + k;
        }
        long[] dstMem = new long[dstSlots];
        Arrays.fill(dstMem, -1);
        int[] writes = new int[dstSlots];
        interpret(steps, srcMem, dstMem, writes);
        long[] dims = src.dims().stream().mapToLong(Long::longValue).toArray();
        boolean[] data = new boolean[dstSlots];
        forEachIndex(dims, i -> {
            int d = Math.toIntExact(dstAt.applyAsLong(i));
            data[d] = true;
            assertEquals(srcMem[Math.toIntExact(srcAt.applyAsLong(i))], dstMem[d], what + " at " + Arrays.toString(i));
        });
        for (int k = 0; k < dstSlots; k++) {
            if (data[k]) {
                assertEquals(1, writes[k], what + ": writes of data slot " + k);
            } else if (dstOwnsAllSlots) {
                // Each dimension's padding boxes span the other dimensions' whole digits: a slot
                // that pads two dimensions is zeroed twice.
                assertTrue(writes[k] >= 1, what + ": padding slot " + k + " not zeroed");
                assertEquals(0, dstMem[k], what + ": padding slot " + k);
            } else {
                assertEquals(0, writes[k], what + ": slot " + k + " is not the destination's");
            }
        }
    }

    private static final String[] LAYOUTS = {
        "{1,0:T(2,4)}", "{0,1:T(2,4)}", "{1,0:T(4)}", "{1,0:T(8,128)}", "{1,0:T(2,4)(2,1)}", "{1,0:T(4,2)(2)}",
        "{1,0:T(1,4)}", "{1,0:T(3,2)}", "{1,0}", "{0,1}",
    };

    @Test
    void stridedToTiledAndBackAtEveryPaddingBoundary() {
        for (String layout : LAYOUTS) {
            for (long r = 1; r <= 9; r += 2) {
                for (long c = 1; c <= 10; c += 3) {
                    long rows = r;
                    long cols = c;
                    ArrayShape tiled = ArrayShape.parse("f32[" + rows + "," + cols + "]" + layout);
                    int slots = Math.toIntExact(tiled.physicalElementCount());
                    Access t = Access.tiled(ANY, tiled);
                    // A transposed source with a gap of 3 between rows and an offset of 5.
                    long rowStride = 1;
                    long colStride = rows + 3;
                    Access s = Access.strided(ANY, DType.F32,
                            StridedLayout.of(new long[] {rows, cols}, new long[] {rowStride, colStride}, 5));
                    int sSlots = Math.toIntExact(5 + (cols - 1) * colStride + rows);
                    check(s, t, null, i -> 5 + i[0] * rowStride + i[1] * colStride, tiled::linearIndex, sSlots, slots, true);
                    // Back into dense rows in reverse order: element [i, j] at (rows - 1 - i) * cols + j.
                    Access d = Access.strided(ANY, DType.F32, StridedLayout.of(new long[] {rows, cols},
                            new long[] {-cols, 1}, (rows - 1) * cols));
                    check(t, d, null, tiled::linearIndex, i -> (rows - 1 - i[0]) * cols + i[1], slots,
                            Math.toIntExact(rows * cols), false);
                    // Tiled to the same tiling: slot for slot, padding zeroed.
                    check(t, t, null, tiled::linearIndex, tiled::linearIndex, slots, slots, true);
                }
            }
        }
    }

    @Test
    void aTileOfHigherRankThanTheShapeAddsDigitsOnlyThePaddingUses() {
        for (long n = 1; n <= 9; n++) {
            // f32[n] under T(2,4): a pseudo row of size 1 padded to 2, only ever padding past row 0.
            ArrayShape tiled = ArrayShape.parse("f32[" + n + "]{0:T(2,4)}");
            int slots = Math.toIntExact(tiled.physicalElementCount());
            Access t = Access.tiled(ANY, tiled);
            Access s = Access.strided(ANY, DType.F32, StridedLayout.of(new long[] {n}, new long[] {2}, 1));
            check(s, t, null, i -> 1 + 2 * i[0], tiled::linearIndex, Math.toIntExact(2 * n), slots, true);
            Access d = Access.strided(ANY, DType.F32, StridedLayout.packed(n));
            check(t, d, null, tiled::linearIndex, i -> i[0], slots, Math.toIntExact(n), false);
        }
    }

    @Test
    void aChannelThatStaysOneDigitIsPlannedAndATiledOneGathers() {
        ArrayShape hwc = ArrayShape.parse("f32[5,3]{1,0:T(2,4)}");
        Access t = Access.tiled(ANY, hwc);
        Access s = Access.strided(ANY, DType.U8, StridedLayout.packed(5, 3));
        ChannelAffine channels = new ChannelAffine(1, List.of(1f, 1f, 1f), List.of(0f, 0f, 0f));
        check(s, t, channels, i -> i[0] * 3 + i[1], hwc::linearIndex, 15, Math.toIntExact(hwc.physicalElementCount()), true);
        for (Step step : Planner.planUncached(s, t, channels)) {
            if (step instanceof Step.Run r) {
                assertTrue(r.channelLoop() >= 0, "a run over the channel says which loop it is: " + r);
                Loop channel = r.loops().get(r.channelLoop());
                assertEquals(1, channel.dstStride(), "channel loop " + channel);
                assertEquals(1, channel.srcStride(), "channel loop " + channel);
            }
        }
        // The rows, split by the tile into two digits, cannot be a channel.
        ChannelAffine rows = new ChannelAffine(0, List.of(1f, 1f, 1f, 1f, 1f), List.of(0f, 0f, 0f, 0f, 0f));
        List<Step> gather = Planner.planUncached(s, t, rows);
        assertEquals(List.of(new Step.Zero(0, List.of(new Loop(24, 0, 1))), new Step.Gather("the channel dimension 0 is tiled")),
                gather);
        // A channel of size 1 has no digit: its run has none either.
        ArrayShape one = ArrayShape.parse("f32[5,1]{1,0:T(2,1)}");
        for (Step step : Planner.planUncached(Access.strided(ANY, DType.U8, StridedLayout.packed(5, 1)), Access.tiled(ANY, one),
                new ChannelAffine(1, List.of(1f), List.of(0f)))) {
            if (step instanceof Step.Run r) {
                assertEquals(-1, r.channelLoop(), r.toString());
            }
        }
    }

    @Test
    void sidesTiledDifferentlyGatherAfterZeroingTheDestination() {
        Access a = Access.tiled(ANY, ArrayShape.parse("f32[6,8]{1,0:T(2,4)}"));
        Access b = Access.tiled(ANY, ArrayShape.parse("f32[6,8]{1,0:T(4,4)}"));
        assertEquals(List.of(new Step.Zero(0, List.of(new Loop(64, 0, 1))), new Step.Gather("source and destination are tiled differently")),
                Planner.planUncached(a, b, null));
        // Into a strided destination: nothing of its own to zero.
        Access packed = Access.tiled(ANY, ArrayShape.parse("s4[3,5]{1,0:T(2,4)E(4)}"));
        assertEquals(List.of(new Step.Zero(0, List.of(new Loop(16, 0, 1))), new Step.Gather("packed E(4) elements")),
                Planner.planUncached(Access.strided(ANY, DType.S4, StridedLayout.packed(3, 5)), packed, null));
        assertEquals(List.of(new Step.Gather("packed E(4) elements")),
                Planner.planUncached(packed, Access.strided(ANY, DType.S4, StridedLayout.packed(3, 5)), null));
    }

    @Test
    void anEmptyCopyHasNoSteps() {
        assertEquals(List.of(), Planner.planUncached(Access.strided(ANY, DType.F32, StridedLayout.packed(0, 4)),
                Access.tiled(ANY, ArrayShape.parse("f32[0,4]{1,0:T(2,4)}")), null));
    }

    /** A [3,4] transpose read flattened: d0 = 4 a + b reads 3 b + a. */
    private static final String TRANSPOSED = "(d0) -> ((d0 mod 4) * 3 + d0 floordiv 4), domain: d0 in [0, 11]";

    private static long transposed(long d0) {
        return (d0 % 4) * 3 + d0 / 4;
    }

    @Test
    void aSplitMapMeetsStridedAndTiledSides() {
        Access mapped = Access.mapped(ANY, DType.F32, IndexingMap.parse(TRANSPOSED));
        // The first copy of a small map gathers without looking; the second finds the split.
        assertEquals(List.of(new Step.Gather("a general element map")),
                Planner.planUncached(mapped, Access.strided(ANY, DType.F32, StridedLayout.packed(12)), null));
        Access dense = Access.strided(ANY, DType.F32, StridedLayout.packed(12));
        check(mapped, dense, null, i -> transposed(i[0]), i -> i[0], 12, 12, false);
        check(dense, mapped, null, i -> i[0], i -> transposed(i[0]), 12, 12, false);
        check(mapped, mapped, null, i -> transposed(i[0]), i -> transposed(i[0]), 12, 12, false);
        // Reversed dense side: element i at 11 - i.
        Access reversed = Access.strided(ANY, DType.F32, StridedLayout.of(new long[] {12}, new long[] {-1}, 11));
        check(mapped, reversed, null, i -> transposed(i[0]), i -> 11 - i[0], 12, 12, false);
        // Tiles of 4 hold whole runs of the map's digits (cuts at 1, 4, 12): planned.
        ArrayShape t4 = ArrayShape.parse("f32[12]{0:T(4)}");
        check(mapped, Access.tiled(ANY, t4), null, i -> transposed(i[0]), t4::linearIndex, 12, 12, true);
        ArrayShape t8 = ArrayShape.parse("f32[12]{0:T(8)}");
        // Tiles of 8 cut the digit of 4 (cut points 1, 8, 16 against 1, 4, 12): gathered.
        assertEquals(List.of(new Step.Zero(0, List.of(new Loop(16, 0, 1))),
                        new Step.Gather("a general element map cuts dimension 0 inside a tile")),
                Planner.planUncached(mapped, Access.tiled(ANY, t8), null));
    }

    @Test
    void channelZeroKeepsItsLoopAgainstTiledAndMappedSides() {
        // Rows of 3 under a tile of 4: one digit, so channel 0 is planned, not gathered.
        ArrayShape tiled = ArrayShape.parse("f32[3,5]{1,0:T(4,8)}");
        ChannelAffine rows = new ChannelAffine(0, List.of(1f, 1f, 1f), List.of(0f, 0f, 0f));
        Access s = Access.strided(ANY, DType.U8, StridedLayout.packed(3, 5));
        check(s, Access.tiled(ANY, tiled), rows, i -> i[0] * 5 + i[1], tiled::linearIndex, 15,
                Math.toIntExact(tiled.physicalElementCount()), true);
        Step.Run run = (Step.Run) Planner.planUncached(s, Access.tiled(ANY, tiled), rows).getFirst();
        assertEquals(new Loop(3, 5, 8), run.loops().get(run.channelLoop()), run.toString());
        // An affine map (a transpose) does not split the channel: one loop of 3, source stride 4.
        Access transposed = Access.mapped(ANY, DType.F32,
                IndexingMap.parse("(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 3]"));
        Access dense = Access.strided(ANY, DType.U8, StridedLayout.packed(3, 4));
        Step.Run mapped = (Step.Run) Planner.planUncached(dense, transposed, rows).getFirst();
        assertEquals(new Loop(3, 4, 1), mapped.loops().get(mapped.channelLoop()), mapped.toString());
        check(dense, transposed, rows, i -> i[0] * 4 + i[1], i -> i[1] * 3 + i[0], 12, 12, false);
    }

    @Test
    void splitsWhoseRadicesDoNotNestGather() {
        // [3,4] transposed against [2,6] transposed, both flattened: cut points 4 and 6 do not nest.
        Access a = Access.mapped(ANY, DType.F32, IndexingMap.parse(TRANSPOSED));
        Access b = Access.mapped(ANY, DType.F32,
                IndexingMap.parse("(d0) -> ((d0 mod 6) * 2 + d0 floordiv 6), domain: d0 in [0, 11]"));
        Planner.planUncached(a, b, null);
        assertEquals(List.of(new Step.Gather("the two sides split dimension 0 in radices that do not nest")),
                Planner.planUncached(a, b, null));
        // A channel the map splits cannot keep one scale per loop.
        Access dense = Access.strided(ANY, DType.U8, StridedLayout.packed(12));
        ChannelAffine twelve = new ChannelAffine(0, java.util.Collections.nCopies(12, 1f), java.util.Collections.nCopies(12, 0f));
        assertEquals(List.of(new Step.Gather("the channel dimension 0 is split by a general element map")),
                Planner.planUncached(dense, a, twelve));
    }
}
