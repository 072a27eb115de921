package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.Kernel;
import dev.tensorbuf.ops.copy.internal.Loop;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.XlaShape;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.tensorbuf.views.TensorElements;

/** What the planner decides (pure, no bytes move) and the errors it reports. */
class CopyPlanTest {
    private static final Arena ARENA = Arena.ofShared();

    private static Access f32(TensorFormat f, long... d) {
        return Access.strided(ARENA.allocate(4 * StridedLayout.packed(d).elementCount()), DType.F32, StridedLayout.of(f, d));
    }

    private static Access tiled(String text) {
        ArrayShape s = (ArrayShape) XlaShape.parse(text);
        return Access.tiled(ARENA.allocate(s.physicalElementCount() * s.dtype().byteWidth()), s);
    }

    @Test
    void exampleFromJavadoc() {
        CopyPlan p = AccessCopies.plan(f32(TensorFormat.NCHW, 2, 3, 4, 5), f32(TensorFormat.NHWC, 2, 3, 4, 5));
        assertEquals(List.of(new Step.Run(Kernel.INTERLEAVE, 0, 0, List.of(new Loop(2, 60, 60), new Loop(20, 1, 3),
                new Loop(3, 20, 1)), -1)), AccessCopies.steps(p));
    }

    @Test
    void nchwToNhwcPlansOneTransposeWithFusedSpatialDims() {
        CopyPlan p = AccessCopies.plan(f32(TensorFormat.NCHW, 32, 64, 112, 112), f32(TensorFormat.NHWC, 32, 64, 112, 112));
        assertEquals(List.of(new Step.Run(Kernel.TRANSPOSE, 0, 0, List.of(new Loop(32, 802816, 802816),
                new Loop(12544, 1, 64), new Loop(64, 12544, 1)), -1)), AccessCopies.steps(p));
        assertEquals(2L * 4 * 32 * 64 * 112 * 112, p.bytesMoved());
    }

    @Test
    void paddedTilingPlansFullTilesPartialTileAndPadding() {
        CopyPlan p = AccessCopies.plan(tiled("f32[1000,1000]{1,0}"), tiled("f32[1000,1000]{1,0:T(8,128)}"));
        assertEquals(List.of(
                new Step.Run(Kernel.BULK, 0, 0, List.of(new Loop(125, 8000, 8192), new Loop(7, 128, 1024),
                        new Loop(8, 1000, 128), new Loop(128, 1, 1)), -1),
                new Step.Run(Kernel.BULK, 896, 7168, List.of(new Loop(125, 8000, 8192), new Loop(8, 1000, 128),
                        new Loop(104, 1, 1)), -1),
                new Step.Zero(7272, List.of(new Loop(125, 0, 8192), new Loop(8, 0, 128), new Loop(24, 0, 1)))), AccessCopies.steps(p));
        assertEquals(4L * 1000 * 1000 + 4L * 1000 * 1024, p.bytesMoved());
    }

    @Test
    void untilingShortRunsPutsTheLoopWithFewerRowsInside() {
        // 8 destination rows per tile, not 32 source tiles 4 KiB apart, between the 512-byte runs.
        CopyPlan from = AccessCopies.plan(tiled("f32[4096,4096]{1,0:T(8,128)}"), tiled("f32[4096,4096]{1,0}"));
        assertEquals(List.of(new Step.Run(Kernel.BULK, 0, 0, List.of(new Loop(512, 32768, 32768),
                new Loop(32, 1024, 128), new Loop(8, 128, 4096), new Loop(128, 1, 1)), -1)), AccessCopies.steps(from));
        // Tiling keeps destination order: there the source side has the 8 rows.
        CopyPlan to = AccessCopies.plan(tiled("f32[4096,4096]{1,0}"), tiled("f32[4096,4096]{1,0:T(8,128)}"));
        assertEquals(List.of(new Step.Run(Kernel.BULK, 0, 0, List.of(new Loop(512, 32768, 32768),
                new Loop(32, 128, 1024), new Loop(8, 4096, 128), new Loop(128, 1, 1)), -1)), AccessCopies.steps(to));
        // Long runs keep destination order.
        CopyPlan wide = AccessCopies.plan(tiled("f32[64,4096]{1,0:T(8,2048)}"), tiled("f32[64,4096]{1,0}"));
        assertEquals(new Loop(2, 16384, 2048), ((Step.Run) AccessCopies.steps(wide).getFirst()).loops().get(2));
    }

    @Test
    void bf16TwoOneSubtilesPlanPairInterleave() {
        CopyPlan p = AccessCopies.plan(tiled("bf16[4096,4096]{1,0}"), tiled("bf16[4096,4096]{1,0:T(8,128)(2,1)}"));
        assertEquals(List.of(new Step.Run(Kernel.PAIR_INTERLEAVE, 0, 0, List.of(new Loop(512, 32768, 32768),
                new Loop(32, 128, 1024), new Loop(4, 8192, 256), new Loop(128, 1, 2), new Loop(2, 4096, 1)), -1)),
                AccessCopies.steps(p));
    }

    @Test
    void generalMapsPlanAGatherWithItsReason() {
        Access packed = tiled("s4[5,7]{1,0:T(2,4)E(4)}");
        CopyPlan p = AccessCopies.plan(tiled("s4[5,7]{1,0}"), packed);
        assertEquals(new Step.Gather("packed E(4) elements"), AccessCopies.steps(p).getLast());
        assertTrue(AccessCopies.steps(p).getFirst() instanceof Step.Zero, "padding of the packed destination is zeroed first");
    }

    @Test
    void mismatchedDimsAreRejected() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> AccessCopies.plan(f32(TensorFormat.NCHW, 1, 2, 3, 4), f32(TensorFormat.NCHW, 1, 2, 4, 3)));
        assertTrue(e.getMessage().contains("cannot copy f32[1, 2, 3, 4] into f32[1, 2, 4, 3]"), e.getMessage());
    }

    @Test
    void overlappingSegmentsAreRejected() {
        MemorySegment m = ARENA.allocate(64);
        Access a = Access.strided(m.asSlice(0, 32), DType.F32, StridedLayout.packed(8));
        Access b = Access.strided(m.asSlice(16, 32), DType.F32, StridedLayout.packed(8));
        var e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.plan(a, b));
        assertTrue(e.getMessage().contains("overlap"), e.getMessage());
    }

    @Test
    void broadcastDestinationIsRejected() {
        Access src = Access.strided(ARENA.allocate(16), DType.F32, StridedLayout.packed(4));
        Access dst = Access.strided(ARENA.allocate(16), DType.F32, StridedLayout.of(new long[] {4}, new long[] {0}));
        var e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.plan(src, dst));
        assertTrue(e.getMessage().contains("destination writes 4 elements to one slot (stride 0)"), e.getMessage());
    }

    @Test
    void elementsOutsideTheSegmentAreRejectedWhenPlanning() {
        Access src = Access.strided(ARENA.allocate(16), DType.F32, StridedLayout.packed(8));
        Access dst = Access.strided(ARENA.allocate(32), DType.F32, StridedLayout.packed(8));
        var e = assertThrows(IndexOutOfBoundsException.class, () -> AccessCopies.plan(src, dst));
        assertTrue(e.getMessage().contains("source elements [0, 7] of f32[8] fall outside its segment of 16 bytes"),
                e.getMessage());
    }

    /**
     * Review: an element offset near 2^63 was reported as "byte offset overflows a long:
     * -9223372036854775808 * 4", the end (hi + 1) wrapped before the multiply. It lies outside
     * the segment like any other, and is named as it is.
     */
    @Test
    void anElementOffsetNearTwoToTheSixtyThreeIsNamedAsItIs() {
        Access dst = Access.strided(ARENA.allocate(16), DType.F32, StridedLayout.packed(1));
        for (long offset : new long[] {Long.MAX_VALUE, (1L << 61) - 1, (1L << 61) - 2}) {
            Access src = Access.strided(ARENA.allocate(16), DType.F32,
                    StridedLayout.of(new long[] {1}, new long[] {1}, offset));
            var e = assertThrows(IndexOutOfBoundsException.class, () -> AccessCopies.plan(src, dst));
            assertEquals("source elements [" + offset + ", " + offset + "] of f32[1] fall outside its segment of 16 bytes",
                    e.getMessage());
        }
        // The last element that fits, and the first that does not, by one byte.
        Access last = Access.strided(ARENA.allocate(16), DType.F32, StridedLayout.of(new long[] {1}, new long[] {1}, 3));
        AccessCopies.plan(last, dst);
        Access past = Access.strided(ARENA.allocate(15), DType.F32, StridedLayout.of(new long[] {1}, new long[] {1}, 3));
        var e = assertThrows(IndexOutOfBoundsException.class, () -> AccessCopies.plan(past, dst));
        assertEquals("source elements [3, 3] of f32[1] fall outside its segment of 15 bytes", e.getMessage());
    }

    @Test
    void readOnlyDestinationIsRejected() {
        Access src = Access.strided(ARENA.allocate(16), DType.F32, StridedLayout.packed(4));
        Access dst = Access.strided(ARENA.allocate(16).asReadOnly(), DType.F32, StridedLayout.packed(4));
        var e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.plan(src, dst));
        assertTrue(e.getMessage().contains("read-only"), e.getMessage());
    }

    @Test
    void channelScalesMustMatchTheChannelDimension() {
        Access src = Access.strided(ARENA.allocate(2 * 3 * 4), DType.U8, StridedLayout.of(TensorFormat.NHWC, 1, 3, 2, 4));
        var e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.plan(src, f32(TensorFormat.NCHW, 1, 3, 2, 4),
                new ChannelAffine(1, List.of(1f, 2f), List.of(0f, 0f))));
        assertTrue(e.getMessage().contains("2 channel scales for dimension 1 of size 3"), e.getMessage());
    }

    @Test
    void valuesTheDestinationCannotHoldThrow() {
        Access src = Access.strided(ARENA.allocate(8), DType.F32, StridedLayout.packed(2));
        src.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, -3.5f);
        Access dst = Access.strided(ARENA.allocate(2), DType.U8, StridedLayout.packed(2));
        var e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, dst));
        assertTrue(e.getMessage().contains("value -3.5 at index [1] of f32[2] out of range [0, 255] for u8"), e.getMessage());
        src.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, Float.NaN);
        // Review: NaN, infinities and values past 64 bits named no range; NaN's says why none holds it.
        var nan = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, dst));
        assertEquals("value NaN at index [1] of f32[2] out of range [0, 255] for u8: NaN has no integer value",
                nan.getMessage());
        src.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, Float.NEGATIVE_INFINITY);
        var inf = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, dst));
        assertEquals("value -Infinity at index [1] of f32[2] out of range [0, 255] for u8", inf.getMessage());
        Access s64 = Access.strided(ARENA.allocate(16), DType.S64, StridedLayout.packed(2));
        src.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, 1e19f);
        var past = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, s64));
        assertEquals("value 1.0E19 at index [1] of f32[2] out of range [-9223372036854775808, 9223372036854775807]"
                + " for s64", past.getMessage());
        src.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, Float.NaN);
        var nanS64 = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, s64));
        assertEquals("value NaN at index [1] of f32[2] out of range [-9223372036854775808, 9223372036854775807] for"
                + " s64: NaN has no integer value", nanS64.getMessage());
        // The value the source holds, as its type prints it, whichever check refuses it.
        src.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, -2.7f);
        Access wide = Access.strided(ARENA.allocate(16), DType.U64, StridedLayout.packed(2));
        var u64 = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, wide));
        assertEquals("value -2.7 at index [1] of f32[2] out of range [0, 18446744073709551615] for u64", u64.getMessage());
        var u8 = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, dst));
        assertEquals("value -2.7 at index [1] of f32[2] out of range [0, 255] for u8", u8.getMessage());
        // Between integers alike: u64 past s64's range, and a negative s64 into u64.
        Access bigU64 = Access.strided(ARENA.allocate(16), DType.U64, StridedLayout.packed(2));
        bigU64.segment().setAtIndex(ValueLayout.JAVA_LONG, 1, -1L);
        var toS64 = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), bigU64, s64));
        assertEquals("value 18446744073709551615 at index [1] of u64[2] out of range [-9223372036854775808,"
                + " 9223372036854775807] for s64",
                toS64.getMessage());
        s64.segment().setAtIndex(ValueLayout.JAVA_LONG, 1, -5L);
        var toU64 = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), s64, wide));
        assertEquals("value -5 at index [1] of s64[2] out of range [0, 18446744073709551615] for u64", toU64.getMessage());
    }

    @Test
    void floatsToU64CoverItsWholeRange() {
        // [2^63, 2^64) is u64 but not s64; NumPy converts 1e19 to 10000000000000000000.
        double[] values = {1e19, 0x1p64 - 2048, 0x1p63, 0x1p63 - 1024, 0.9, -0.9};
        Access src = Access.strided(ARENA.allocate(8L * values.length), DType.F64, StridedLayout.packed(values.length));
        for (int i = 0; i < values.length; i++) {
            src.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, i, values[i]);
        }
        Access dst = Access.strided(ARENA.allocate(8L * values.length), DType.U64, StridedLayout.packed(values.length));
        AccessCopies.copy(CopyEngine.defaults(), src, dst);
        String[] expected = {"10000000000000000000", "18446744073709549568", "9223372036854775808", "9223372036854774784",
            "0", "0"};
        for (int i = 0; i < values.length; i++) {
            assertEquals(expected[i], Long.toUnsignedString(dst.segment().getAtIndex(ValueLayout.JAVA_LONG, i)), "value " + i);
        }
        src.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, 0, 0x1p64);
        var e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, dst));
        assertEquals("value 1.8446744073709552E19 at index [0] of f64[6] out of range [0, 18446744073709551615] for"
                + " u64", e.getMessage());
    }

    @Test
    void materializeAllocatesAndCopiesIntoTiles() {
        try (var allocator = Allocators.shared()) {
            Access src = f32(TensorFormat.NCHW, 1, 1, 3, 5);
            for (int i = 0; i < 15; i++) {
                src.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            }
            ArrayShape tiled = (ArrayShape) XlaShape.parse("f32[1,1,3,5]{3,2,1,0:T(2,4)}");
            AccessCopies.Materialized m = CopyEngine.defaults().materialize(src, tiled, allocator);
            assertEquals(tiled, ((Access.Tiled) m.access().addressing()).shape());
            assertEquals(6f, m.buffer().segment().getAtIndex(ValueLayout.JAVA_FLOAT, tiled.linearIndex(0, 0, 1, 1)));
            assertEquals(6f, m.buffer().segment().getAtIndex(ValueLayout.JAVA_FLOAT, 5), "slot 5 is (1, 1)");
            assertEquals(0f, m.buffer().segment().getAtIndex(ValueLayout.JAVA_FLOAT, 9), "slot 9 is column 5: padding");
            AccessCopies.Materialized bf = CopyEngine.defaults().materialize(src, DType.BF16,
                    StridedLayout.of(TensorFormat.NHWC, 1, 1, 3, 5), allocator);
            assertEquals((short) 0x40c0, bf.buffer().segment().getAtIndex(ValueLayout.JAVA_SHORT, 6), "(h 1, w 1) = 6.0 as bf16");
        }
    }

    /**
     * Review: materialize of an Access left tail padding L(n) as the allocator gave it, a pool's
     * previous owner's bytes; the TensorView overload zeroed it. Both give the same bytes now.
     */
    @Test
    void materializeOfAnAccessZeroesTailPaddingAPoolLeftDirty() {
        ArrayShape shape = ArrayShape.parse("f32[3]{0:T(2)L(16)}"); // 4 slots (16 bytes), ArraySize 64 bytes
        assertEquals(64, shape.arraySize());
        try (var pool = dev.tensorbuf.memory.PooledAllocator.builder().name("dirty").build();
             var shared = Allocators.shared()) {
            var view = dev.tensorbuf.views.TensorView.strided(shared.allocate(12), DType.F32, StridedLayout.packed(3));
            TensorElements.of(view).copyFrom(new float[] {1, 2, 3});
            Access src = Access.strided(view.buffer().segment(), DType.F32, StridedLayout.packed(3));
            byte[] expected = new byte[64];
            MemorySegment.ofArray(expected).asSlice(0, 12).copyFrom(src.segment());
            for (int round = 0; round < 2; round++) {
                try (var dirty = pool.allocate(64)) {
                    dirty.segment().fill((byte) 0xAB);
                }
                long reuses = pool.stats().reuses();
                byte[] got;
                String overload;
                if (round == 0) {
                    overload = "materialize(Access, ArrayShape, Allocator)";
                    try (var m = CopyEngine.of(1).materialize(src, shape, pool).buffer()) {
                        got = m.segment().toArray(ValueLayout.JAVA_BYTE);
                    }
                } else {
                    overload = "materialize(TensorView, ArrayShape, Allocator)";
                    var out = CopyEngine.of(1).materialize(view, shape, pool);
                    got = out.buffer().segment().toArray(ValueLayout.JAVA_BYTE);
                    out.buffer().close();
                }
                assertEquals(reuses + 1, pool.stats().reuses(), overload + " had the dirty block: " + pool.stats());
                assertEquals(java.util.HexFormat.of().formatHex(expected), java.util.HexFormat.of().formatHex(got),
                        overload + ": 3 floats, then zeros (slot 3 tile padding, bytes 16-63 tail padding)");
            }
        }
    }

    @Test
    void aGatheredTiledSourceTooShortIsRefusedBeforeAnyByteMoves() {
        // s4[8]{0:E(4)} packs into 4 bytes; `*` combines dims in the tile: both take the gather.
        for (var textAndBytes : java.util.Map.of("s4[8]{0:E(4)}", 3L, "f32[4,6]{1,0:T(2,*,3)}", 40L).entrySet()) {
            String text = textAndBytes.getKey();
            ArrayShape s = ArrayShape.parse(text);
            Access src = Access.tiled(ARENA.allocate(textAndBytes.getValue()), s);
            MemorySegment d = ARENA.allocate(4L * 24);
            Access dst = Access.strided(d, s.dtype(), StridedLayout.packed(Extents.toArray(s.dims())));
            d.fill((byte) 0x55);
            var e = assertThrows(IndexOutOfBoundsException.class, () -> CopyEngine.defaults().execute(AccessCopies.plan(src, dst)));
            assertTrue(e.getMessage().startsWith("source " + s.dtype() + s.dims()), e.getMessage());
            for (long i = 0; i < d.byteSize(); i++) {
                assertEquals((byte) 0x55, d.get(ValueLayout.JAVA_BYTE, i), text + ": byte " + i + " written");
            }
        }
    }

    @Test
    void aGatheredTiledSourceShortOnlyOfItsLastPaddingStillCopies() {
        // 192 bytes of slots; the last is padding, so 191 bytes hold every element.
        ArrayShape s = ArrayShape.parse("f32[4,6]{1,0:T(2,*,3)}");
        MemorySegment m = ARENA.allocate(191);
        for (int i = 0; i < 24; i++) {
            m.setAtIndex(ValueLayout.JAVA_FLOAT, s.linearIndex(i / 6, i % 6), i);
        }
        MemorySegment d = ARENA.allocate(96);
        AccessCopies.copy(CopyEngine.defaults(), Access.tiled(m, s), Access.strided(d, DType.F32, StridedLayout.packed(4, 6)));
        for (int i = 0; i < 24; i++) {
            assertEquals(i, d.getAtIndex(ValueLayout.JAVA_FLOAT, i));
        }
    }

    @Test
    void anEOfNTheTypeCannotUseIsRefusedWhenTheAccessIsMade() {
        for (String text : List.of("f32[4]{0:E(16)}", "s8[4]{0:E(4)}", "s4[8]{0:E(2)}", "s4[8]{0:E(1)}")) {
            ArrayShape s = ArrayShape.parse(text);
            var e = assertThrows(IllegalArgumentException.class, () -> Access.tiled(ARENA.allocate(64), s));
            assertTrue(e.getMessage().startsWith(text + ": elements of " + s.dtype() + " stored in E("), e.getMessage());
        }
        var e = assertThrows(IllegalArgumentException.class, () -> new Access(ARENA.allocate(64), DType.F32, List.of(4L),
                new Access.Tiled(ArrayShape.parse("s32[4]{0}"))));
        assertEquals("a tiled access of f32[4] needs a shape of that type and those dims, got s32[4]{0}", e.getMessage());
    }

    /** Review: dims [8] over a layout or map of 4 were accepted, and 8 elements written through them. */
    @Test
    void anAddressingSizedOtherThanItsDimsIsRefusedWhenTheAccessIsMade() {
        MemorySegment m = ARENA.allocate(64);
        var strided = assertThrows(IllegalArgumentException.class,
                () -> new Access(m, DType.F32, List.of(8L), new Access.Strided(StridedLayout.packed(4))));
        assertEquals("a strided access of f32[8] needs a layout of those sizes, got sizes [4] strides [1]",
                strided.getMessage());
        var twoD = assertThrows(IllegalArgumentException.class,
                () -> new Access(m, DType.F32, List.of(2L, 8L), new Access.Strided(StridedLayout.packed(2, 2))));
        assertEquals("a strided access of f32[2, 8] needs a layout of those sizes, got sizes [2, 2] strides [2, 1]",
                twoD.getMessage());
        var map = dev.tensorbuf.views.indexing.IndexingMap.parse("(d0) -> (d0 * 2), domain: d0 in [0, 3]");
        var mapped = assertThrows(IllegalArgumentException.class,
                () -> new Access(m, DType.F32, List.of(8L), new Access.Mapped(map)));
        assertEquals("a mapped access of f32[8] needs dimension 0 of its map in [0, 7], got [0, 3] in " + map,
                mapped.getMessage());
        var shifted = dev.tensorbuf.views.indexing.IndexingMap.parse(
                "(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 1], d1 in [1, 4]");
        var offBy = assertThrows(IllegalArgumentException.class,
                () -> new Access(m, DType.F32, List.of(2L, 4L), new Access.Mapped(shifted)));
        assertEquals("a mapped access of f32[2, 4] needs dimension 1 of its map in [0, 3], got [1, 4] in " + shifted,
                offBy.getMessage());
        // Sizes that agree are taken, an empty dimension included.
        assertEquals(List.of(2L, 0L), new Access(m, DType.F32, List.of(2L, 0L),
                new Access.Strided(StridedLayout.packed(2, 0))).dims());
        assertEquals(List.of(4L), new Access(m, DType.F32, List.of(4L), new Access.Mapped(map)).dims());
    }

    @Test
    void anElementMapWithConstraintsIsRefused() {
        // [1, 3] is outside the constraint and maps to 7: the copy would visit it, the bounds check would not.
        var map = dev.tensorbuf.views.indexing.IndexingMap.parse(
                "(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 1], d1 in [0, 3], d0 + d1 in [0, 3]");
        var e = assertThrows(IllegalArgumentException.class, () -> Access.mapped(ARENA.allocate(28), DType.F32, map));
        assertTrue(e.getMessage().startsWith("an element map for a copy may not have constraints"), e.getMessage());
    }
}
