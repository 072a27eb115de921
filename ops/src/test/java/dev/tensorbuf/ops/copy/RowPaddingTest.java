package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * A tiled XLA shape whose map is strides ({@code T(1,P)}: rows padded to {@code P}) owns its rows'
 * padding when it is its buffer's whole layout, as every tiled layout does: a copy into it writes
 * the padding as zero, whatever route it takes. Checked byte for byte over the whole destination
 * buffer against XLA's layout written out by hand (element {@code (r, c)} of {@code [R,C]{1,0:T(1,P)}}
 * at slot {@code r * P + c}, every other slot zero), starting from a buffer of garbage. A slice of a
 * wider array has the same strides; its gaps are the array's other columns and stay as they were.
 */
class RowPaddingTest {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort BF16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A dense f32 source of {@code dims} holding 1, 2, 3, ... in row-major order (exact in bf16 too). */
    private static TensorView counting(Allocator arena, long... dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        StringBuilder text = new StringBuilder("f32[");
        for (int i = 0; i < dims.length; i++) {
            text.append(i == 0 ? "" : ",").append(dims[i]);
        }
        TensorView v = TensorView.of(arena.allocate(n * 4), text.append(']').toString());
        long[] k = {1};
        TensorElements.of(v).forEachIndex(i -> TensorElements.of(v).setDouble(k[0]++, i));
        return v;
    }

    private static MemoryBuffer garbage(Allocator arena, long bytes) {
        MemoryBuffer b = arena.allocate(bytes);
        b.segment().fill((byte) 0xA5);
        return b;
    }

    /** {@return the bytes XLA's layout puts in a buffer of {@code bytes}: {@code src}'s values at {@code slot(index)}, zero elsewhere} */
    private static byte[] expected(TensorView src, long bytes, int width, ToLongFunction<long[]> slot) {
        byte[] out = new byte[(int) bytes];
        MemorySegment m = MemorySegment.ofArray(out);
        TensorElements.of(src).forEachIndex(i -> {
            float v = (float) TensorElements.of(src).getDouble(i);
            long at = slot.applyAsLong(i) * width;
            if (width == 4) {
                m.set(F32, at, v);
            } else {
                m.set(BF16, at, (short) (Float.floatToRawIntBits(v) >>> 16));
            }
        });
        return out;
    }

    @Test
    void aCopyIntoRowsPaddedTo128WritesThePaddingAsZero() {
        try (Allocator arena = Allocators.shared()) {
            TensorView src = counting(arena, 3, 5);
            MemoryBuffer out = garbage(arena, 3 * 128 * 2);
            TensorView dst = TensorView.of(out, "bf16[3,5]{1,0:T(1,128)}");
            CopyEngine engine = CopyEngine.of(1);
            engine.copy(src, dst);
            assertArrayEquals(expected(src, out.byteSize(), 2, i -> i[0] * 128 + i[1]),
                    out.segment().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void minorToMajorAndRankThreeRowsToo() {
        try (Allocator arena = Allocators.shared()) {
            // {0,1}: dim 0 is minor, its 3 values padded to 8; element (r, c) at c * 8 + r.
            TensorView src = counting(arena, 3, 5);
            MemoryBuffer out = garbage(arena, 5 * 8 * 4);
            CopyEngine.of(1).copy(src, TensorView.of(out, "f32[3,5]{0,1:T(1,8)}"));
            assertArrayEquals(expected(src, out.byteSize(), 4, i -> i[1] * 8 + i[0]),
                    out.segment().toArray(ValueLayout.JAVA_BYTE));
            TensorView cube = counting(arena, 2, 3, 5);
            MemoryBuffer out3 = garbage(arena, 2 * 3 * 16 * 4);
            CopyEngine.of(1).copy(cube, TensorView.of(out3, "f32[2,3,5]{2,1,0:T(1,16)}"));
            assertArrayEquals(expected(cube, out3.byteSize(), 4, i -> (i[0] * 3 + i[1]) * 16 + i[2]),
                    out3.segment().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void aCopyInPiecesOrThroughATransposeOwnsThePaddingToo() {
        try (Allocator arena = Allocators.shared()) {
            // The source a concatenation: the copy goes box by box, and no box writes the padding.
            TensorView top = counting(arena, 1, 5);
            TensorView rest = counting(arena, 2, 5);
            TensorView joined = Ops.concatenate(0, List.of(top, rest));
            MemoryBuffer out = garbage(arena, 3 * 128 * 4);
            TensorView dst = TensorView.of(out, "f32[3,5]{1,0:T(1,128)}");
            CopyEngine.of(1).copy(joined, dst);
            TensorView dense = TensorView.of(arena.allocate(3 * 5 * 4), "f32[3,5]");
            CopyEngine.of(1).copy(joined, dense);
            assertArrayEquals(expected(dense, out.byteSize(), 4, i -> i[0] * 128 + i[1]),
                    out.segment().toArray(ValueLayout.JAVA_BYTE));
            // A transpose of the whole layout reads every slot once: it owns the padding as the layout does.
            MemoryBuffer out2 = garbage(arena, 3 * 128 * 4);
            TensorView t = Ops.transpose(TensorView.of(out2, "f32[3,5]{1,0:T(1,128)}"), 1, 0);
            TensorView src = counting(arena, 5, 3);
            CopyEngine.of(1).copy(src, t);
            assertArrayEquals(expected(Ops.transpose(src, 1, 0), out2.byteSize(), 4, i -> i[0] * 128 + i[1]),
                    out2.segment().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    /** Slot of {@code (r, c)} in {@code f32[3,5]{1,0:T(2,2)}}: [3,5] padded to [4,6], 2x2 tiles row-major, 3 tiles a row. */
    private static long tiled22(long r, long c) {
        return ((r / 2) * 3 + c / 2) * 4 + (r % 2) * 2 + c % 2;
    }

    @Test
    void aReverseOfATiledLayoutWritesItsPaddingAsZero() {
        try (Allocator arena = Allocators.shared()) {
            TensorView src = counting(arena, 3, 5);
            CopyEngine engine = CopyEngine.of(1);
            MemoryBuffer out = garbage(arena, 4 * 6 * 4);
            engine.copy(src, Ops.reverse(TensorView.of(out, "f32[3,5]{1,0:T(2,2)}"), 1));
            assertArrayEquals(expected(src, out.byteSize(), 4, i -> tiled22(i[0], 4 - i[1])),
                    out.segment().toArray(ValueLayout.JAVA_BYTE));
            MemoryBuffer both = garbage(arena, 4 * 6 * 4);
            TensorView reversed = Ops.reverse(TensorView.of(both, "f32[3,5]{1,0:T(2,2)}"), 0, 1);
            engine.copy(src, reversed);
            assertArrayEquals(expected(src, both.byteSize(), 4, i -> tiled22(2 - i[0], 4 - i[1])),
                    both.segment().toArray(ValueLayout.JAVA_BYTE));
            // The plan says so: the reversed source (negative strides) into the layout, its padding zero steps.
            String plan = engine.explain(src, reversed).toString();
            org.junit.jupiter.api.Assertions.assertTrue(plan.contains("strides [-5, -1]") && plan.contains("zero: "), plan);
            // A reverse of part of a layout owns no padding: a slice of rows [0, 2) leaves row 2 and the padding.
            MemoryBuffer part = garbage(arena, 4 * 6 * 4);
            TensorView rows = Ops.slice(TensorView.of(part, "f32[3,5]{1,0:T(2,2)}"), new long[] {0, 0}, new long[] {2, 5},
                    new long[] {1, 1});
            TensorView two = counting(arena, 2, 5);
            engine.copy(two, Ops.reverse(rows, 1));
            byte[] got = part.segment().toArray(ValueLayout.JAVA_BYTE);
            byte[] want = expected(two, part.byteSize(), 4, i -> tiled22(i[0], 4 - i[1]));
            boolean[] written = new boolean[24];
            TensorElements.of(two).forEachIndex(i -> written[(int) tiled22(i[0], 4 - i[1])] = true);
            for (int b = 0; b < got.length; b++) {
                assertEquals(written[b / 4] ? want[b] : (byte) 0xA5, got[b], "byte " + b);
            }
        }
    }

    @Test
    void aSliceWithTheSameStridesLeavesTheOtherColumnsAsTheyWere() {
        try (Allocator arena = Allocators.shared()) {
            MemoryBuffer out = garbage(arena, 3 * 128 * 4);
            TensorView wide = TensorView.of(out, "f32[3,128]");
            TensorView slice = Ops.slice(wide, new long[] {0, 0}, new long[] {3, 5}, new long[] {1, 1});
            TensorView src = counting(arena, 3, 5);
            CopyEngine.of(1).copy(src, slice);
            byte[] want = expected(src, out.byteSize(), 4, i -> i[0] * 128 + i[1]);
            byte[] got = out.segment().toArray(ValueLayout.JAVA_BYTE);
            for (int b = 0; b < want.length; b++) {
                boolean element = b % (128 * 4) < 5 * 4;
                assertEquals(element ? want[b] : (byte) 0xA5, got[b], "byte " + b);
            }
        }
    }

    @Test
    void materializeZeroesOnlyWhatTheCopyDoesNotWrite() {
        try (Allocator arena = Allocators.shared()) {
            TensorView src = counting(arena, 3, 5);
            CopyEngine engine = CopyEngine.of(1);
            TensorView made = engine.materialize(src, dev.tensorbuf.views.ArrayShape.parse("bf16[3,5]{1,0:T(1,128)}"),
                    arena);
            assertArrayEquals(expected(src, made.buffer().byteSize(), 2, i -> i[0] * 128 + i[1]),
                    made.buffer().segment().toArray(ValueLayout.JAVA_BYTE));
            // Planned as T(1,128): the copy writes the padding, so the buffer is not zeroed first.
            CopyPlan.Explanation plan = engine.explain(src, TensorView.of(made.buffer(), "bf16[3,5]{1,0:T(1,128)}"));
            assertEquals(CopyPlan.Explanation.Route.PLANNED, plan.route(), plan.toString());
            org.junit.jupiter.api.Assertions.assertTrue(plan.toString().contains("T(1,128)"), plan.toString());
        }
    }
}
