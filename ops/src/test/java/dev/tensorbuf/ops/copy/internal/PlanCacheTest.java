package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.indexing.IndexingMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A cached plan is the plan the planner makes, for exactly the copies that would make it. */
class PlanCacheTest {
    private static final MemorySegment NOWHERE = MemorySegment.ofArray(new byte[0]);

    private static Access strided(DType t, StridedLayout l) {
        return new Access(NOWHERE, t, l.sizes(), new Access.Strided(l));
    }

    private static Access tiled(String shape) {
        ArrayShape s = ArrayShape.parse(shape);
        return new Access(NOWHERE, s.dtype(), s.dims(), new Access.Tiled(s));
    }

    /**
     * Random strided layouts: a permutation of packed strides, some dims sliced, an offset, and
     * (for a source) some dims broadcast.
     */
    private static StridedLayout randomLayout(Random rnd, long[] dims, boolean broadcast) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < dims.length; i++) {
            order.add(i);
        }
        Collections.shuffle(order, rnd);
        long[] strides = new long[dims.length];
        long stride = 1;
        for (int i : order) {
            strides[i] = broadcast && rnd.nextInt(5) == 0 ? 0 : stride;
            stride *= dims[i] + rnd.nextInt(2);
        }
        return StridedLayout.of(dims, strides, rnd.nextInt(3));
    }

    @Test
    void aHitReturnsTheStepsTheCopyWouldPlanAndOnlyForAnEqualCopy() {
        PlanCache.clear();
        Random rnd = new Random(5);
        List<String> tiles = List.of("", ":T(8,128)", ":T(2,2)", ":T(4,8)(2,1)", ":T(8,128)L(1024)");
        List<DType> types = List.of(DType.F32, DType.BF16, DType.U8, DType.S32);
        for (int round = 0; round < 300; round++) {
            int rank = 1 + rnd.nextInt(4);
            long[] dims = new long[rank];
            for (int i = 0; i < rank; i++) {
                dims[i] = 1 + rnd.nextInt(rank == 1 ? 300 : 20);
            }
            DType from = types.get(rnd.nextInt(types.size()));
            DType to = types.get(rnd.nextInt(types.size()));
            Access src = strided(from, randomLayout(rnd, dims, true));
            String dimsText = String.join(",", java.util.Arrays.stream(dims).mapToObj(Long::toString).toList());
            String m2m = String.join(",", java.util.stream.IntStream.range(0, rank).map(i -> rank - 1 - i)
                    .mapToObj(Integer::toString).toList());
            Access dst = rnd.nextBoolean() && rank >= 2
                    ? tiled(to.toString().toLowerCase(java.util.Locale.ROOT) + "[" + dimsText + "]{" + m2m
                            + tiles.get(rnd.nextInt(tiles.size())) + "}")
                    : strided(to, randomLayout(rnd, dims, false));
            ChannelAffine affine = rnd.nextInt(4) == 0 && to.kind() == DType.Kind.FLOAT
                    ? affine(rnd.nextInt(rank), dims) : null;
            // Both orders: a tiled source is planned as a tiled destination is.
            for (boolean swap : new boolean[] {false, true}) {
                if (swap && (affine != null || !(dst.addressing() instanceof Access.Tiled))) {
                    continue; // a broadcast source cannot be a destination
                }
                Access a = swap ? dst : src;
                Access b = swap ? strided(from, randomLayout(rnd, dims, false)) : dst;
                List<Step> fresh = Planner.planUncached(a, b, affine);
                List<Step> first = Planner.plan(a, b, affine);
                assertEquals(fresh, first, "first plan of " + a + " -> " + b);
                assertSame(first, Planner.plan(a, b, affine), "a second plan of an equal copy is the cached one");
            }
        }
    }

    private static ChannelAffine affine(int dim, long[] dims) {
        int n = Math.toIntExact(dims[dim]);
        return new ChannelAffine(dim, Collections.nCopies(n, 2f), Collections.nCopies(n, 1f));
    }

    @Test
    void copiesThatDifferInAnythingThePlanReadsGetPlansOfTheirOwn() {
        PlanCache.clear();
        long[] nchw = {2, 3, 4, 5};
        Access src = strided(DType.F32, StridedLayout.of(TensorFormat.NCHW, nchw));
        Access nhwc = strided(DType.F32, StridedLayout.of(TensorFormat.NHWC, nchw));
        List<Step> transpose = Planner.plan(src, nhwc, null);
        List<Step> same = Planner.plan(src, strided(DType.F32, StridedLayout.of(TensorFormat.NCHW, nchw)), null);
        assertNotEquals(transpose, same, "the layout is part of the key");
        List<Step> converting = Planner.plan(src, strided(DType.BF16, StridedLayout.of(TensorFormat.NHWC, nchw)), null);
        assertEquals(Planner.planUncached(src, strided(DType.BF16, StridedLayout.of(TensorFormat.NHWC, nchw)), null),
                converting, "the destination type is part of the key");
        ChannelAffine perChannel = affine(1, nchw);
        List<Step> scaled = Planner.plan(src, nhwc, perChannel);
        assertEquals(Planner.planUncached(src, nhwc, perChannel), scaled);
        assertNotEquals(transpose, scaled, "the channel loop is part of the key");
        List<Step> otherChannel = Planner.plan(src, nhwc, affine(2, nchw));
        assertEquals(Planner.planUncached(src, nhwc, affine(2, nchw)), otherChannel);
        assertNotEquals(scaled, otherChannel, "which dimension is the channel is part of the key");
        assertEquals(Planner.planUncached(src, tiled("f32[2,3,4,5]{3,2,1,0:T(2,4)}"), null),
                Planner.plan(src, tiled("f32[2,3,4,5]{3,2,1,0:T(2,4)}"), null));
        assertEquals(Planner.planUncached(src, tiled("f32[2,3,4,5]{3,2,1,0:T(4,4)}"), null),
                Planner.plan(src, tiled("f32[2,3,4,5]{3,2,1,0:T(4,4)}"), null), "tiles are part of the key");
        assertEquals(7, PlanCache.size(), "one plan per distinct copy");
    }

    @Test
    void aMappedSideIsKeyedByItsMap() {
        PlanCache.clear();
        IndexingMap reversed = IndexingMap.parse("(d0) -> (7 - d0), domain: d0 in [0, 7]");
        Access mapped = new Access(NOWHERE, DType.F32, List.of(8L), new Access.Mapped(reversed));
        Access dense = strided(DType.F32, StridedLayout.packed(8));
        assertEquals(Planner.planUncached(mapped, dense, null), Planner.plan(mapped, dense, null));
        assertEquals(1, PlanCache.size());
        // An equal map made again is a hit; another map is another plan.
        Access again = new Access(NOWHERE, DType.F32, List.of(8L), new Access.Mapped(IndexingMap.parse(reversed.toString())));
        assertSame(Planner.plan(mapped, dense, null), Planner.plan(again, dense, null));
        IndexingMap shifted = IndexingMap.parse("(d0) -> (8 - d0), domain: d0 in [0, 7]");
        Access other = new Access(NOWHERE, DType.F32, List.of(8L), new Access.Mapped(shifted));
        assertEquals(Planner.planUncached(other, dense, null), Planner.plan(other, dense, null));
        assertEquals(2, PlanCache.size());
    }

    @Test
    void aGatherOfAMapIsNotHeldSoTheNextCopyLooksForItsSplit() {
        PlanCache.clear();
        // A map no other test copies: its first copy (8 elements) gathers without looking.
        IndexingMap flat = IndexingMap.parse("(d0) -> ((d0 mod 2) * 4 + d0 floordiv 2 + 9001), domain: d0 in [0, 7]");
        Access mapped = new Access(NOWHERE, DType.F32, List.of(8L), new Access.Mapped(flat));
        Access dense = strided(DType.F32, StridedLayout.packed(8));
        assertTrue(Planner.plan(mapped, dense, null).getLast() instanceof Step.Gather);
        assertEquals(0, PlanCache.size());
        assertTrue(Planner.plan(mapped, dense, null).stream().noneMatch(s -> s instanceof Step.Gather));
        assertEquals(1, PlanCache.size());
    }

    @Test
    void itStartsOverWhenFull() {
        PlanCache.clear();
        for (int n = 1; n <= PlanCache.CAPACITY + 10; n++) {
            Access a = strided(DType.F32, StridedLayout.packed(n));
            Planner.plan(a, a, null);
            assertTrue(PlanCache.size() <= PlanCache.CAPACITY, "held " + PlanCache.size());
        }
        assertEquals(10, PlanCache.size(), "the plans after the last start");
    }

    /** Plans hold no segment: one made over buffers that are gone copies correctly between others. */
    @Test
    void aPlanMadeOverClosedMemoryCopiesOtherBuffers() {
        PlanCache.clear();
        ArrayShape shape = ArrayShape.parse("f32[10,20]{1,0:T(8,128)}");
        StridedLayout rows = StridedLayout.packed(10, 20);
        CopyEngine engine = CopyEngine.of(1);
        try (Arena gone = Arena.ofConfined()) {
            AccessCopies.copy(engine, Access.strided(gone.allocate(800), DType.F32, rows),
                    Access.tiled(gone.allocate(shape.physicalByteSize()), shape));
        }
        assertEquals(1, PlanCache.size());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(800);
            MemorySegment out = arena.allocate(shape.physicalByteSize());
            out.fill((byte) 0x7f);
            for (int i = 0; i < 200; i++) {
                in.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            }
            AccessCopies.copy(engine, Access.strided(in, DType.F32, rows), Access.tiled(out, shape));
            assertEquals(1, PlanCache.size(), "the second copy hit");
            for (int r = 0; r < 16; r++) {
                for (int c = 0; c < 128; c++) {
                    float want = r < 10 && c < 20 ? r * 20 + c : 0f;
                    assertEquals(want, out.getAtIndex(ValueLayout.JAVA_FLOAT, (r / 8) * 1024 + (r % 8) * 128 + c),
                            "slot (" + r + ", " + c + ")");
                }
            }
        }
    }

    /**
     * A hit carries the spans its bounds checks need, worked out once; they are still checked
     * against each call's segments, and a destination that overlaps itself is refused on every
     * call, its plan never held.
     */
    @Test
    void aHitStillChecksEachCallsSegmentsAndAnOverlappingDestinationIsNeverHeld() {
        PlanCache.clear();
        StridedLayout rows = StridedLayout.packed(4, 8);
        ArrayShape tiles = ArrayShape.parse("f32[4,8]{1,0:T(8,128)}");
        try (Arena arena = Arena.ofConfined()) {
            Access src = Access.strided(arena.allocate(128), DType.F32, rows);
            AccessCopies.plan(src, Access.strided(arena.allocate(128), DType.F32, rows));
            AccessCopies.plan(src, Access.tiled(arena.allocate(4096), tiles));
            assertEquals(2, PlanCache.size());
            var shortRows = assertThrows(IndexOutOfBoundsException.class,
                    () -> AccessCopies.plan(src, Access.strided(arena.allocate(124), DType.F32, rows)));
            assertTrue(shortRows.getMessage().contains("destination elements [0, 31] of f32[4, 8] fall outside its segment"
                    + " of 124 bytes"), shortRows.getMessage());
            var shortSource = assertThrows(IndexOutOfBoundsException.class,
                    () -> AccessCopies.plan(Access.strided(arena.allocate(64), DType.F32, rows), Access.tiled(arena.allocate(4096), tiles)));
            assertTrue(shortSource.getMessage().contains("source elements [0, 31] of f32[4, 8] fall outside its segment"
                    + " of 64 bytes"), shortSource.getMessage());
            var shortTiles = assertThrows(IndexOutOfBoundsException.class,
                    () -> AccessCopies.plan(src, Access.tiled(arena.allocate(4092), tiles)));
            assertEquals("f32[4,8]{1,0:T(8,128)} needs 4096 bytes but the destination segment has 4092", shortTiles.getMessage());
            assertEquals(2, PlanCache.size(), "the failing calls hit");

            Access twice = Access.strided(arena.allocate(128), DType.F32,
                    StridedLayout.of(new long[] {4, 8}, new long[] {0, 1}, 0));
            for (int call = 0; call < 2; call++) {
                var overlap = assertThrows(IllegalArgumentException.class, () -> AccessCopies.plan(src, twice));
                assertTrue(overlap.getMessage().contains("writes 4 elements to one slot (stride 0)"), overlap.getMessage());
            }
            assertEquals(2, PlanCache.size(), "no plan held for a destination that overlaps itself");
        }
    }

    /** {@return the decisions of the epilogue pass {@code engine} plans for this copy} */
    private static PointwiseCopy.Shape shapeOf(List<dev.tensorbuf.views.TensorView> operands, dev.tensorbuf.views.TensorView dst,
                                               dev.tensorbuf.ops.copy.CopyEngine.Epilogue e) {
        dev.tensorbuf.ops.copy.CopyPlan plan = dev.tensorbuf.ops.copy.CopyEngine.defaults().explain(operands, dst, e).plan()
                .orElseThrow();
        return ((Step.Epilogue) AccessCopies.steps(plan).getFirst()).pass().shape();
    }

    @Test
    void anEpiloguePassIsPlannedOncePerShapeAndConstantValues() {
        PlanCache.clear();
        try (dev.tensorbuf.memory.Allocator a = dev.tensorbuf.memory.Allocators.shared()) {
            var x = dev.tensorbuf.ops.Ops.transpose(PointwiseCopy.scratch(ArrayShape.of(DType.U8, 2, 8, 8, 3), a), 0, 3, 1, 2);
            var other = dev.tensorbuf.ops.Ops.transpose(PointwiseCopy.scratch(ArrayShape.of(DType.U8, 2, 8, 8, 3), a), 0, 3, 1, 2);
            var dst = PointwiseCopy.scratch(ArrayShape.of(DType.F32, 2, 3, 8, 8), a);
            var half = dev.tensorbuf.ops.copy.CopyEngine.Epilogue.parse("multiply(convert<f32>(%0), 0.5)", DType.U8);
            var third = dev.tensorbuf.ops.copy.CopyEngine.Epilogue.parse("multiply(convert<f32>(%0), 0.25)", DType.U8);
            PointwiseCopy.Shape first = shapeOf(List.of(x), dst, half);
            assertNotNull(first.table(), "one 8-bit operand and a constant: a lookup table");
            assertSame(first, shapeOf(List.of(x), dst, half), "the same copy: the same decisions, not planned again");
            assertSame(first, shapeOf(List.of(other), dst, half), "other data of the same addressing: the same decisions");
            PointwiseCopy.Shape quarter = shapeOf(List.of(x), dst, third);
            assertNotSame(first, quarter, "another constant: another table");
            assertNotEquals(java.util.Arrays.toString((int[]) first.table().table()),
                    java.util.Arrays.toString((int[]) quarter.table().table()));
            // Per-channel constants are keyed by their values too, not by the memory holding them.
            var scale = PointwiseCopy.scratch(ArrayShape.of(DType.F32, 3), a);
            var channels = dev.tensorbuf.ops.Ops.broadcast(scale, new long[] {2, 3, 8, 8}, 1);
            var affine = dev.tensorbuf.ops.copy.CopyEngine.Epilogue.parse("multiply(convert<f32>(%0), %1)", DType.U8, DType.F32);
            PointwiseCopy.Shape zeros = shapeOf(List.of(x, channels), dst, affine);
            assertSame(zeros, shapeOf(List.of(x, channels), dst, affine));
            scale.buffer().segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, 1, 2f);
            assertNotSame(zeros, shapeOf(List.of(x, channels), dst, affine), "a channel's scale changed: planned anew");
        }
    }
}
