package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import org.junit.jupiter.api.Test;

/**
 * Tile padding belongs to a view whose map is its buffer's whole layout, and to nothing else: a
 * slice of a tiled array's leading rows reads exactly like a smaller whole layout (rows [0, 5) of
 * f32[6,5]{1,0:T(2,2)} are f32[5,5]{1,0:T(2,2)}, whose padding row is the array's row 5), and a
 * copy into it must leave the array's other rows as they are.
 */
class TilePaddingOwnershipTest {
    @ArenaPerTest
    private Allocator allocator;
    private final CopyEngine engine = CopyEngine.of(1, true);

    @Test
    void aSliceOfLeadingRowsThatReadsLikeASmallerWholeLayoutKeepsTheRowsAfterIt() {
        for (String[] c : new String[][] {{"f32[6,5]{1,0:T(2,2)}", "5"}, {"f32[16,128]{1,0:T(8,128)}", "12"},
                {"bf16[16,256]{1,0:T(8,128)(2,1)}", "9"}}) {
            ArrayShape shape = ArrayShape.parse(c[0]);
            long rows = Long.parseLong(c[1]);
            long cols = shape.dims().get(1);
            MemoryBuffer buffer = allocator.allocate(shape.physicalByteSize());
            TensorView whole = TensorView.of(buffer, shape);
            TensorElements.of(whole).forEachIndex(i -> TensorElements.of(whole).setDouble((i[0] * 31 + i[1]) % 251 + 2, i)); // exact in bf16
            TensorView top = Ops.slice(whole, new long[] {0, 0}, new long[] {rows, cols}, new long[] {1, 1});
            TensorView ones = TensorView.of(allocator.allocate(rows * cols * 4), "f32[" + rows + "," + cols + "]");
            TensorElements.of(ones).forEachIndex(i -> TensorElements.of(ones).setDouble(1, i));
            engine.copy(ones, top);
            TensorElements.of(whole).forEachIndex(i -> assertEquals(i[0] < rows ? 1.0 : (i[0] * 31 + i[1]) % 251 + 2, TensorElements.of(whole).getDouble(i), 0.0,
                    c[0] + " rows [0, " + rows + ") written, element " + i[0] + "," + i[1]));
            assertFalse(((ViewMap.Single) top.map()).wholeLayout(), c[0]);
        }
    }

    @Test
    void aTransposeOrWholeSliceOfAWholeLayoutStillOwnsItsPadding() {
        ArrayShape shape = ArrayShape.parse("f32[3,5]{1,0:T(2,2)}");
        for (boolean slice : new boolean[] {false, true}) {
            MemoryBuffer buffer = allocator.allocate(shape.physicalByteSize());
            buffer.segment().fill((byte) 0x77);
            TensorView whole = TensorView.of(buffer, shape);
            TensorView view = slice ? Ops.slice(whole, new long[] {0, 0}, new long[] {3, 5}, new long[] {1, 1})
                    : Ops.transpose(Ops.transpose(whole, 1, 0), 1, 0);
            assertTrue(((ViewMap.Single) view.map()).wholeLayout(), "slice " + slice);
            TensorView src = TensorView.of(allocator.allocate(15 * 4), "f32[3,5]");
            TensorElements.of(src).forEachIndex(i -> TensorElements.of(src).setDouble(i[0] * 5 + i[1] + 1, i));
            engine.copy(src, view);
            int zeros = 0;
            for (long slot = 0; slot < shape.physicalByteSize() / 4; slot++) {
                float v = buffer.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, slot);
                zeros += v == 0f ? 1 : 0;
                assertTrue(v == 0f || v >= 1f && v <= 15f, "slot " + slot + " holds " + v + " (slice " + slice + ")");
            }
            assertEquals(24 - 15, zeros, "the 9 padding slots of 24 zeroed (slice " + slice + ")");
        }
    }
}
