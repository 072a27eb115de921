package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Planner#planBlocks}: gguf-py's Q4_0 blocks ({@code conformance/gguf_quants/Q4_0.*}, 12
 * rows of 2 blocks) planned against destinations built by hand, the steps it chooses (straight
 * into the destination or through the f32 tile), the values they write when run, and its refusals
 * of destinations that overlap themselves or reach outside their segment, named before anything
 * is written.
 */
@ExtendWith(FreshCopyCaches.class)
class PlanBlocksTest {
    private static final long ROWS = 12;
    private static final long COLS = 64;
    private static final long N = ROWS * COLS;

    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private MemorySegment resource(String name) throws IOException {
        try (InputStream in = PlanBlocksTest.class.getResourceAsStream("/conformance/gguf_quants/" + name)) {
            assertNotNull(in, "missing test resource conformance/gguf_quants/" + name);
            byte[] bytes = in.readAllBytes();
            MemorySegment s = arena.allocate(bytes.length, 8);
            MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
            return s;
        }
    }

    private BlockSource source() throws IOException {
        MemorySegment blocks = resource("Q4_0.blocks");
        assertEquals(ROWS * 2 * BlockType.Q4_0.blockBytes(), blocks.byteSize());
        return BlockSource.of(BlockType.Q4_0, blocks, 0, new long[] {ROWS, COLS}, new long[] {2L * BlockType.Q4_0.blockBytes()}, 0);
    }

    /** gguf-py's f32 values of the same blocks, row-major. */
    private Access reference() throws IOException {
        MemorySegment f32 = resource("Q4_0.f32");
        assertEquals(4 * N, f32.byteSize());
        return Access.strided(f32, DType.F32, StridedLayout.packed(ROWS, COLS));
    }

    private MemorySegment filled(long bytes) {
        MemorySegment s = arena.allocate(bytes, 8);
        s.fill((byte) 0x5a);
        return s;
    }

    private static void run(BlockSource src, Access dst, List<Step> steps) {
        CopyEngine.of(1, false).execute(AccessCopies.unchecked(src.virtual(), dst, Optional.empty(), steps));
    }

    /** The bytes the engine writes copying gguf-py's f32 into {@code layout} of {@code to}, over a segment of {@code bytes}. */
    private byte[] engineCopyOfReference(DType to, StridedLayout layout, long bytes) throws IOException {
        MemorySegment want = filled(bytes);
        Access src = reference();
        Access dst = Access.strided(want, to, layout);
        CopyEngine.of(1, false).execute(AccessCopies.unchecked(src, dst, Optional.empty(), Planner.planUncached(src, dst, null)));
        return want.toArray(ValueLayout.JAVA_BYTE);
    }

    private static void assertAllDequantize(List<Step> steps, DType into, boolean direct) {
        assertFalse(steps.isEmpty());
        for (Step s : steps) {
            assertTrue(s instanceof Step.Dequantize d && d.into() == into && d.direct() == direct,
                    "want every step a " + (direct ? "direct" : "tiled") + " dequantize into " + into + ": " + steps);
        }
    }

    @Test
    void rowsOfF32AreDequantizedStraightIntoTheDestinationBitForBit() throws IOException {
        BlockSource src = source();
        MemorySegment out = filled(4 * N);
        Access dst = Access.strided(out, DType.F32, StridedLayout.packed(ROWS, COLS));
        List<Step> steps = Planner.planBlocks(src, dst);
        assertAllDequantize(steps, DType.F32, true);
        run(src, dst, steps);
        int[] want = reference().segment().toArray(ValueLayout.JAVA_INT);
        assertArrayEquals(want, out.toArray(ValueLayout.JAVA_INT));
        // And the scalar kernels' own dequantization of the same blocks.
        MemorySegment scalar = filled(4 * N);
        dev.tensorbuf.ops.quant.internal.BlockKernels.of(false).dequantize(BlockType.Q4_0, src.segment(), 0, scalar, 0,
                N / BlockType.Q4_0.blockValues());
        assertArrayEquals(scalar.toArray(ValueLayout.JAVA_INT), out.toArray(ValueLayout.JAVA_INT));
    }

    @Test
    void rowsOfBf16AndF16AreDirectAndF64GoesThroughTheTile() throws IOException {
        BlockSource src = source();
        for (DType to : List.of(DType.BF16, DType.F16, DType.F64)) {
            long bytes = to.byteWidth() * N;
            StridedLayout rows = StridedLayout.packed(ROWS, COLS);
            MemorySegment out = filled(bytes);
            Access dst = Access.strided(out, to, rows);
            List<Step> steps = Planner.planBlocks(src, dst);
            assertAllDequantize(steps, to, to != DType.F64);
            run(src, dst, steps);
            assertArrayEquals(engineCopyOfReference(to, rows, bytes), out.toArray(ValueLayout.JAVA_BYTE), to.toString());
        }
    }

    @Test
    void aTransposeOrAStridedRowGoesThroughTheTile() throws IOException {
        BlockSource src = source();
        // Transposed: the destination's innermost loop walks a column, the source's f32 rows by COLS.
        StridedLayout transposed = StridedLayout.of(new long[] {ROWS, COLS}, new long[] {1, ROWS}, 0);
        // Every other slot: unit stride on the source's side only.
        StridedLayout spaced = StridedLayout.of(new long[] {ROWS, COLS}, new long[] {2 * COLS, 2}, 0);
        for (StridedLayout layout : List.of(transposed, spaced)) {
            for (DType to : List.of(DType.F32, DType.BF16)) {
                long bytes = to.byteWidth() * 2 * N;
                MemorySegment out = filled(bytes);
                Access dst = Access.strided(out, to, layout);
                List<Step> steps = Planner.planBlocks(src, dst);
                assertAllDequantize(steps, to, false);
                run(src, dst, steps);
                // The gaps of the spaced layout keep their fill: the bytes match the engine's copy everywhere.
                assertArrayEquals(engineCopyOfReference(to, layout, bytes), out.toArray(ValueLayout.JAVA_BYTE),
                        to + " " + layout);
            }
        }
    }

    @Test
    void aDestinationOverlappingItselfIsRefusedByName() throws IOException {
        BlockSource src = source();
        MemorySegment out = filled(4 * N);
        Access broadcast = Access.strided(out, DType.F32, StridedLayout.of(new long[] {ROWS, COLS}, new long[] {0, 1}, 0));
        assertEquals("destination writes " + ROWS + " elements to one slot (stride 0): a destination may not overlap itself",
                assertThrows(IllegalArgumentException.class, () -> Planner.planBlocks(src, broadcast)).getMessage());
        // Rows of 64 values 16 apart: row 1 starts inside row 0.
        Access overlapping = Access.strided(out, DType.F32, StridedLayout.of(new long[] {ROWS, COLS}, new long[] {16, 1}, 0));
        String message = assertThrows(IllegalArgumentException.class, () -> Planner.planBlocks(src, overlapping)).getMessage();
        assertTrue(message.endsWith("a destination may not overlap itself"), message);
        // Nothing was written.
        assertTrue(out.elements(ValueLayout.JAVA_BYTE).allMatch(b -> b.get(ValueLayout.JAVA_BYTE, 0) == 0x5a));
    }

    @Test
    void aDestinationReachingPastEitherEndOfItsSegmentIsRefused() throws IOException {
        BlockSource src = source();
        StridedLayout rows = StridedLayout.packed(ROWS, COLS);
        // Exactly its segment: slots 0 to N - 1.
        assertAllDequantize(Planner.planBlocks(src, Access.strided(filled(4 * N), DType.F32, rows)), DType.F32, true);
        assertAllDequantize(Planner.planBlocks(src, Access.strided(filled(2 * N), DType.BF16, rows)), DType.BF16, true);
        // One slot short, in f32 and in bf16 (an odd byte count rounds down to whole slots).
        for (DType to : List.of(DType.F32, DType.BF16)) {
            long bytes = to.byteWidth() * N - 1;
            Access dst = Access.strided(filled(bytes), to, rows);
            assertEquals("destination elements [0, " + (N - 1) + "] of " + to + "[12, 64] fall outside its segment of "
                    + bytes + " bytes", assertThrows(IndexOutOfBoundsException.class, () -> Planner.planBlocks(src, dst)).getMessage());
        }
        // Rows in reverse order fit from element 0 (the last row) to N - 1; a layout reaching below
        // element 0 is refused by StridedLayout itself, before a plan.
        Access fits = Access.strided(filled(4 * N), DType.F32,
                StridedLayout.of(new long[] {ROWS, COLS}, new long[] {-COLS, 1}, (ROWS - 1) * COLS));
        assertAllDequantize(Planner.planBlocks(src, fits), DType.F32, true);
    }

    @Test
    void oneValueIsCheckedAsAnyOther() throws IOException {
        // The second value of row 0: one element, lowest and highest slot the same.
        BlockSource one = BlockSource.of(BlockType.Q4_0, source().segment(), 0, new long[] {1, 1}, new long[] {36}, 1);
        StridedLayout single = StridedLayout.packed(1, 1);
        assertEquals("destination elements [0, 0] of f32[1, 1] fall outside its segment of 3 bytes",
                assertThrows(IndexOutOfBoundsException.class,
                        () -> Planner.planBlocks(one, Access.strided(filled(3), DType.F32, single))).getMessage());
        MemorySegment out = filled(4);
        Access dst = Access.strided(out, DType.F32, single);
        List<Step> steps = Planner.planBlocks(one, dst);
        assertAllDequantize(steps, DType.F32, true);
        run(one, dst, steps);
        assertEquals(reference().segment().get(ValueLayout.JAVA_INT, 4), out.get(ValueLayout.JAVA_INT, 0));
    }

    @Test
    void aDequantizeStepReachesItsRunsDestinationElements() throws IOException {
        BlockSource src = source();
        // Destination 7 + 100 i - j (i < 3, j < 4): 4..207; the source side (the virtual rows) is not counted.
        Step.Run run = new Step.Run(Kernel.ELEMENT, 5, 7, List.of(new Loop(3, 64, 100), new Loop(4, 1, -1)), -1);
        Step.Dequantize d = new Step.Dequantize(src, run, DType.F32, false);
        Access dst = Access.strided(filled(4 * 256), DType.F32, StridedLayout.packed(256));
        assertEquals(new PlannedSteps(List.of(d), Long.MAX_VALUE, Long.MIN_VALUE, 4, 207, -1, false),
                PlannedSteps.of(List.of(d), dst));
    }
    @Test
    void aGeneralMapIsLeftToTheCallerAndAnEmptySourceHasNoSteps() throws IOException {
        BlockSource src = source();
        // Each row's values scattered by 5 mod 64: no loop form, so no plan (the caller dequantizes rows first).
        Access scattered = Access.mapped(filled(4 * N), DType.F32, dev.tensorbuf.views.indexing.IndexingMap.parse(
                "(d0, d1) -> (d0 * 64 + (d1 * 5) mod 64), domain: d0 in [0, 11], d1 in [0, 63]"));
        assertNull(Planner.planBlocks(src, scattered));
        BlockSource empty = BlockSource.of(BlockType.Q4_0, src.segment(), 0, new long[] {0, COLS}, new long[] {36}, 0);
        assertEquals(List.of(), Planner.planBlocks(empty, Access.strided(filled(8), DType.F32, StridedLayout.packed(0, COLS))));
    }

    @Test
    void aPlainPlanRefusesAnOverlappingDestinationToo() throws IOException {
        // Rows 16 apart: the loops alone (Planner.planUncached) take it; plan() checks the destination first.
        Access overlapping = Access.strided(filled(4 * N), DType.F32, StridedLayout.of(new long[] {ROWS, COLS}, new long[] {16, 1}, 0));
        assertEquals(1, Planner.planUncached(reference(), overlapping, null).size());
        String message = assertThrows(IllegalArgumentException.class, () -> Planner.plan(reference(), overlapping, null)).getMessage();
        assertTrue(message.endsWith("a destination may not overlap itself"), message);
    }
    @Test
    void aPlainPlanIsTheUncachedOneAndZeroesOwnedBytesOnlyWhenItCopies() throws IOException {
        Access rows = Access.strided(filled(4 * N), DType.F32, StridedLayout.packed(ROWS, COLS));
        List<Step> steps = Planner.plan(reference(), rows, null);
        assertEquals(Planner.planUncached(reference(), rows, null), steps);
        assertEquals(List.of(new Step.Run(Kernel.BULK, 0, 0, List.of(new Loop(N, 1, 1)), -1)), steps);
        // Four f32 in a view owning 64 bytes: its 12 slots past them are zeroed after the copy.
        Access four = Access.strided(filled(64), DType.F32, StridedLayout.packed(4)).owning(64);
        Access src = Access.strided(filled(16), DType.F32, StridedLayout.packed(4));
        List<Step> planned = Planner.planUncached(src, four, null);
        assertEquals(new Step.Zero(4, List.of(new Loop(12, 0, 1))), planned.getLast(), planned.toString());
        // Nothing to copy: nothing written, the owned bytes included.
        Access none = Access.strided(filled(64), DType.F32, StridedLayout.packed(0)).owning(64);
        assertEquals(List.of(), Planner.planUncached(Access.strided(filled(16), DType.F32, StridedLayout.packed(0)), none, null));
    }
    /** Runs {@link Planner#ownedPadding}: every owned slot no element of {@code data} is written exactly once, and no other. */
    private static void assertZeroesTheGaps(Access dst, java.util.Set<Long> data, long ownedSlots) {
        int[] writes = new int[Math.toIntExact(ownedSlots) + 64];
        for (Step.Zero z : Planner.ownedPadding(dst)) {
            long[] i = new long[z.loops().size()];
            while (true) {
                long at = z.dstOffset();
                for (int k = 0; k < i.length; k++) {
                    at += i[k] * z.loops().get(k).dstStride();
                }
                writes[Math.toIntExact(at)]++;
                int k = i.length - 1;
                while (k >= 0 && ++i[k] == z.loops().get(k).count()) {
                    i[k] = 0;
                    k--;
                }
                if (k < 0) {
                    break;
                }
            }
        }
        for (int slot = 0; slot < writes.length; slot++) {
            int want = slot < ownedSlots && !data.contains((long) slot) ? 1 : 0;
            assertEquals(want, writes[slot], dst.addressing() + " owning " + ownedSlots + " slots: writes of slot " + slot);
        }
    }

    @Test
    void ownedBytesPastTheElementsAreZeroedOnce() {
        // Rows of 4 values 8 apart, from offset 0: gaps [4, 8) after each row and [20, 40) past the last.
        StridedLayout spaced = StridedLayout.of(new long[] {3, 4}, new long[] {8, 1}, 0);
        java.util.Set<Long> rowsData = new java.util.HashSet<>();
        for (long r = 0; r < 3; r++) {
            for (long c = 0; c < 4; c++) {
                rowsData.add(r * 8 + c);
            }
        }
        assertZeroesTheGaps(Access.strided(filled(160), DType.F32, spaced).owning(160), rowsData, 40);
        // Every other value of one row: the slot after each, and slot 8 past the last.
        StridedLayout even = StridedLayout.of(new long[] {4}, new long[] {2}, 0);
        assertZeroesTheGaps(Access.strided(filled(64), DType.F32, even).owning(36), java.util.Set.of(0L, 2L, 4L, 6L), 9);
        // Tiled f32[3,5] in (2,4) tiles takes 32 slots, u8 likewise; owned bytes past them are zeroed, the tiles' own padding not.
        java.util.Set<Long> tiles = new java.util.HashSet<>();
        for (long k = 0; k < 32; k++) {
            tiles.add(k);
        }
        assertZeroesTheGaps(Access.tiled(filled(160), dev.tensorbuf.views.ArrayShape.parse("f32[3,5]{1,0:T(2,4)}")).owning(160),
                tiles, 40);
        assertZeroesTheGaps(Access.tiled(filled(48), dev.tensorbuf.views.ArrayShape.parse("u8[3,5]{1,0:T(2,4)}")).owning(45),
                tiles, 45);
        // An explicit element size of 8 bits is zeroed as the default one; a single element zeroes all after it.
        assertZeroesTheGaps(Access.tiled(filled(48), dev.tensorbuf.views.ArrayShape.parse("u8[3,5]{1,0:T(2,4)E(8)}")).owning(45),
                tiles, 45);
        assertZeroesTheGaps(Access.strided(filled(16), DType.F32, StridedLayout.packed(1, 1)).owning(16), java.util.Set.of(0L), 4);
        // Owning just its slots: nothing to zero.
        assertEquals(List.of(), Planner.ownedPadding(
                Access.tiled(filled(128), dev.tensorbuf.views.ArrayShape.parse("f32[3,5]{1,0:T(2,4)}")).owning(128)));
    }
}
