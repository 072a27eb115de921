package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A conversion's refusal names the element: review, "convert's range error names the value but
 * not its element". The kernels work in byte offsets, chunks and threads; the engine searches the
 * source again on failure and names the first refused element in logical order.
 */
class RefusedElementTest {
    @ArenaPerTest
    private Allocator allocator;

    private TensorView f32(String shape, float... values) {
        TensorView v = TensorView.of(allocator.allocate(4L * values.length), shape);
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private TensorView of(String shape, long bytes) {
        return TensorView.of(allocator.allocate(bytes), shape);
    }

    @Test
    void copyOfViewsNamesTheRefusedElementByItsIndex() {
        TensorView src = f32("f32[2,3]{1,0}", 0, 1, 2, 3, 4, 300);
        var e = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.defaults().copy(src, of("u8[2,3]{1,0}", 6)));
        assertEquals("value 300.0 at index [1, 2] of f32[2,3]{1,0} strides [3, 1] out of range [0, 255] for u8", e.getMessage());
        assertEquals("value 300.0 out of range [0, 255] for u8", e.getCause().getMessage(), "the copy's own refusal");

        TensorView nan = f32("f32[2,3]{1,0}", 0, Float.NaN, 2, 3, 4, 5);
        e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.defaults().copy(nan, of("s32[2,3]{1,0}", 24)));
        assertEquals("value NaN at index [0, 1] of f32[2,3]{1,0} strides [3, 1] out of range [-2147483648, 2147483647] for s32: NaN"
                + " has no integer value", e.getMessage());

        // Between integers: the setter's own range check refuses, and is named alike.
        TensorView ints = TensorView.of(allocator.allocate(16), "s32[4]{0}");
        TensorElements.of(ints).copyFrom(new long[] {1, 2, -7, 3});
        e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.defaults().copy(ints, of("u8[4]{0}", 4)));
        assertEquals("value -7 at index [2] of s32[4]{0} strides [1] out of range [0, 255] for u8", e.getMessage());
    }

    @Test
    void theFirstRefusedElementInLogicalOrderIsNamedNotTheFirstInMemory() {
        // Memory [[0, 300, 0], [-1, 0, 0]]; its transpose reads -1 at [0, 1] before 300 at [1, 0].
        TensorView memory = f32("f32[2,3]{1,0}", 0, 300, 0, -1, 0, 0);
        TensorView transposed = Ops.transpose(memory, 1, 0);
        var e = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.defaults().copy(transposed, of("u8[3,2]{1,0}", 6)));
        assertEquals("value -1.0 at index [0, 1] of " + transposed + " out of range [0, 255] for u8", e.getMessage());
    }

    @Test
    void aParallelCopyNamesTheSameFirstElementWhicheverThreadMetARefusalFirst() {
        int rows = 512;
        int cols = 1024;
        float[] values = new float[rows * cols];
        values[400 * cols + 7] = 1e6f;    // the second half's thread may meet this one first
        values[3 * cols + 1000] = -40000.5f;  // the first in logical order
        values[500 * cols + 9] = Float.NaN;
        TensorView src = f32("f32[" + rows + "," + cols + "]{1,0}", values);
        CopyEngine parallel = CopyEngine.of(2, true, 0);
        for (int round = 0; round < 20; round++) {
            TensorView dst = of("s16[" + rows + "," + cols + "]{1,0}", 2L * rows * cols);
            var e = assertThrows(IllegalArgumentException.class, () -> parallel.copy(src, dst));
            assertEquals("value -40000.5 at index [3, 1000] of " + src + " out of range [-32768, 32767] for s16",
                    e.getMessage(), "round " + round);
            assertTrue(e.getCause() instanceof IllegalArgumentException, "the refusal the copy met is the cause");
            dst.buffer().close();
        }
    }

    @Test
    void viewsCopiedElementByElementNameTheIndexToo() {
        // A concatenation spans two buffers: no kernel, ValueMover one element at a time.
        TensorView a = f32("f32[2]{0}", 1, 2);
        TensorView b = f32("f32[3]{0}", 3, -4, 5);
        TensorView both = Ops.concatenate(0, List.of(a, b));
        var e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.defaults().copy(both, of("u16[5]{0}", 10)));
        assertEquals("value -4.0 at index [3] of " + both + " out of range [0, 65535] for u16", e.getMessage());
    }

    @Test
    void aCopyThroughATemporaryNamesTheCallersSource() {
        // The u8 destination shares the f32 source's bytes: the source goes to a temporary first.
        MemoryBuffer shared = allocator.allocate(16);
        TensorView src = TensorView.of(shared, "f32[4]{0}");
        TensorElements.of(src).copyFrom(new float[] {1, 2, 256, 3});
        TensorView dst = TensorView.of(shared, "u8[4]{0}");
        var e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.defaults().copy(src, dst));
        assertEquals("value 256.0 at index [2] of f32[4]{0} strides [1] out of range [0, 255] for u8", e.getMessage());
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
    }

    @Test
    void copiesOfAccessSidesNameTheSourceByTypeAndDims() {
        Access src = Access.strided(allocator.allocate(48).segment(), DType.F64, StridedLayout.of(new long[] {2, 3},
                new long[] {1, 2}));
        src.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, 5, 1e10); // element [1, 2]
        src.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, 4, -1e10); // element [0, 2]
        Access dst = Access.strided(allocator.allocate(24).segment(), DType.S32, StridedLayout.packed(2, 3));
        var e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.defaults(), src, dst));
        assertEquals("value -1.0E10 at index [0, 2] of f64[2,3] out of range [-2147483648, 2147483647] for s32",
                e.getMessage());
    }

    @Test
    void otherRefusalsOfACopyAreLeftAsTheyWere() {
        TensorView src = f32("f32[2,3]{1,0}", 0, 1, 2, 3, 4, 300);
        var e = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.defaults().copy(src, of("u8[3,2]{1,0}", 6)));
        assertTrue(e.getMessage().startsWith("cannot copy " + src + " into u8[3,2]{1,0} strides [2, 1]: dims"), e.getMessage());
    }
}
