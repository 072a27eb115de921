package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Complex types through every copy path (planned kernels, element by element for padded and
 * concatenated views), and 64-bit integers to f32 rounded once, as NumPy rounds them. The
 * expected values are NumPy 2.4's ({@code astype}), quoted in each test.
 */
class ComplexAndWideIntegerCopyTest {
    /** 2^55 + 2^31 + 1: through a double it rounds to 2^55, a tie; rounded once it is 2^55 + 2^32. */
    private static final long AWKWARD = (1L << 55) + (1L << 31) + 1;

    private final Allocator allocator = Allocators.confined();

    @AfterEach
    void close() {
        allocator.close();
    }

    private TensorView view(String shape, long bytes) {
        return TensorView.of(allocator.allocate(bytes), shape);
    }

    private TensorView complex(String shape, long count, int elementBytes) {
        TensorView v = view(shape, count * elementBytes);
        long[] k = {0};
        TensorElements.of(v).forEachIndex(i -> {
            TensorElements.of(v).setComplex(k[0], -0.5 * k[0], i);
            k[0]++;
        });
        return v;
    }

    @Test
    void sixtyFourBitIntegersRoundOnceToF32OnEveryPath() {
        TensorView s64 = view("s64[3]{0}", 24);
        TensorElements.of(s64).copyFrom(new long[] {AWKWARD, -AWKWARD, 3});
        TensorView u64 = view("u64[1]{0}", 8);
        // 2^63 + 2^39 + 1 as u64 bits: np.array([2**63 + 2**39 + 1], np.uint64).astype(np.float32) is 9.223373136366404e+18.
        TensorElements.of(u64).setBits(Long.MIN_VALUE + (1L << 39) + 1, 0);
        for (CopyEngine engine : CopyFixture.ENGINES) {
            TensorView planned = view("f32[3]{0}", 12);
            engine.copy(s64, planned);
            TensorView elements = view("f32[3]{0}", 12);
            engine.copy(Ops.concatenate(0, List.of(s64)), elements);
            for (TensorView f : List.of(planned, elements)) {
                // np.array([2**55 + 2**31 + 1], np.int64).astype(np.float32): 3.602880131393126e+16
                assertEquals(3.602880131393126e16, TensorElements.of(f).getFloat(0), 0.0);
                assertEquals(-3.602880131393126e16, TensorElements.of(f).getFloat(1), 0.0);
                assertEquals(3f, TensorElements.of(f).getFloat(2));
            }
            TensorView uf = view("f32[1]{0}", 4);
            engine.copy(u64, uf);
            assertEquals(9.223373136366404e18, TensorElements.of(uf).getFloat(0), 0.0);
        }
    }

    @Test
    void complexTypesWidenNarrowAndTakeRealValues() {
        TensorView c64 = complex("c64[2,3]{1,0}", 6, 8);
        TensorView c128 = view("c128[2,3]{1,0}", 96);
        CopyEngine.defaults().copy(Ops.transpose(Ops.transpose(c64, 1, 0), 1, 0), c128);
        assertEquals(5.0, TensorElements.of(c128).getReal(1, 2));
        assertEquals(-2.5, TensorElements.of(c128).getImag(1, 2));

        // c128 -> c64 rounds each part to float: 1e300 overflows to inf, as astype(np.complex64) gives.
        TensorView wide = view("c128[2]{0}", 32);
        TensorElements.of(wide).setComplex(1e300, 1.0 / 3, 0);
        TensorElements.of(wide).setComplex(-1e-300, -7, 1);
        TensorView narrow = view("c64[2]{0}", 16);
        CopyEngine.defaults().copy(wide, narrow);
        assertEquals(Double.POSITIVE_INFINITY, TensorElements.of(narrow).getReal(0));
        assertEquals((float) (1.0 / 3), (float) TensorElements.of(narrow).getImag(0));
        assertEquals(-0.0, TensorElements.of(narrow).getReal(1));
        assertEquals(-7.0, TensorElements.of(narrow).getImag(1));

        // Reals become (value, 0); a 64-bit integer rounds once into c64's float part.
        TensorView s64 = view("s64[2]{0}", 16);
        TensorElements.of(s64).copyFrom(new long[] {AWKWARD, -4});
        TensorView fromInt = view("c64[2]{0}", 16);
        CopyEngine.defaults().copy(s64, fromInt);
        assertEquals(3.602880131393126e16, TensorElements.of(fromInt).getReal(0), 0.0);
        assertEquals(0.0, TensorElements.of(fromInt).getImag(0));
        assertEquals(-4.0, TensorElements.of(fromInt).getReal(1));
        TensorView pred = view("pred[2]{0}", 2);
        TensorElements.of(pred).copyFrom(new long[] {1, 0});
        TensorView fromPred = view("c128[2]{0}", 32);
        CopyEngine.defaults().copy(pred, fromPred);
        assertEquals(1.0, TensorElements.of(fromPred).getReal(0));
        assertEquals(0.0, TensorElements.of(fromPred).getReal(1));
    }

    @Test
    void complexToRealIsRefusedBeforeAnythingIsWritten() {
        TensorView c64 = complex("c64[3]{0}", 3, 8);
        TensorView f32 = view("f32[3]{0}", 12);
        TensorElements.of(f32).copyFrom(new float[] {9, 9, 9});
        for (TensorView src : List.of(c64, Ops.concatenate(0, List.of(c64)))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CopyEngine.defaults().copy(src, f32));
            assertTrue(e.getMessage().contains("cannot convert c64 to f32: the imaginary parts would be lost"), e.getMessage());
            assertEquals(9f, TensorElements.of(f32).getFloat(0));
        }
    }

    @Test
    void paddedAndConcatenatedC128ViewsCopyAllSixteenBytes() {
        // c128 elements do not fit the 64-bit element path, so these go by real and imaginary parts.
        TensorView a = complex("c128[2,2]{1,0}", 4, 16);
        TensorView b = complex("c128[1,2]{1,0}", 2, 16);
        TensorView joined = Ops.concatenate(0, List.of(a, b));
        TensorView padded = Ops.pad(joined, new long[] {1, 0}, new long[] {0, 1}, new long[] {0, 0}, 7.0);
        TensorView out = CopyEngine.defaults().materialize(padded, DType.C128, StridedLayout.packed(4, 3), allocator);
        assertEquals(7.0, TensorElements.of(out).getReal(0, 1));
        assertEquals(0.0, TensorElements.of(out).getImag(0, 1), "a real fill pads with (fill, 0)");
        assertEquals(3.0, TensorElements.of(out).getReal(2, 1));
        assertEquals(-1.5, TensorElements.of(out).getImag(2, 1));
        assertEquals(1.0, TensorElements.of(out).getReal(3, 1));
        assertEquals(-0.5, TensorElements.of(out).getImag(3, 1));
        assertEquals(7.0, TensorElements.of(out).getReal(3, 2));
        // Element by element into c64: each part rounded to float.
        TensorView narrow = CopyEngine.defaults().materialize(padded, DType.C64, StridedLayout.packed(4, 3), allocator);
        assertEquals(-1.5, TensorElements.of(narrow).getImag(2, 1));
    }
}
