package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/** A review found these immutable values equal only to themselves: two identical pads were unequal. */
class ValueEqualityTest {
    @Test
    void elementAccessesAreEqualByTypeAndStorageBits() {
        assertEquals(ElementAccess.of(DType.F32), ElementAccess.of(DType.F32));
        assertEquals(ElementAccess.of(DType.F32).hashCode(), ElementAccess.of(DType.F32).hashCode());
        assertEquals(ElementAccess.of(DType.F32), ElementAccess.packed(DType.F32));
        assertEquals(ElementAccess.packed(DType.S4), ElementAccess.of(ArrayShape.parse("s4[8]{0:E(4)}")));
        assertNotEquals(ElementAccess.of(DType.S4), ElementAccess.packed(DType.S4));
        assertNotEquals(ElementAccess.of(DType.S32), ElementAccess.of(DType.F32));
    }

    @Test
    void affineRemapsAreEqualByBoxCoefficientsAndOffsets() {
        Remap.Affine t = Remap.Affine.of(new long[] {3, 2}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0});
        Remap.Affine same = Remap.Affine.ofTerms(new long[] {3, 2}, new int[] {1, 0}, new long[] {1, 1}, new long[] {0, 0});
        assertEquals(t, same);
        assertEquals(t.hashCode(), same.hashCode());
        assertNotEquals(t, Remap.Affine.of(new long[] {3, 2}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 1}));
        assertNotEquals(t, Remap.Affine.of(new long[] {3, 3}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0}));
    }

    @Test
    void reshapeRemapsAreEqualByTheirDims() {
        Remap.Reshape r = Remap.Reshape.of(new long[] {2, 3}, new long[] {6});
        assertEquals(r, Remap.Reshape.of(new long[] {2, 3}, new long[] {6}));
        assertEquals(r.hashCode(), Remap.Reshape.of(new long[] {2, 3}, new long[] {6}).hashCode());
        assertNotEquals(r, Remap.Reshape.of(new long[] {3, 2}, new long[] {6}));
    }

    @Test
    void padRemapsAreEqualByDimsAndPaddings() {
        long[] in = {2};
        Remap.Pad p = Remap.Pad.of(in, new long[] {1}, new long[] {0}, new long[] {1});
        assertEquals(p, Remap.Pad.of(in, new long[] {1}, new long[] {0}, new long[] {1}));
        assertEquals(p.hashCode(), Remap.Pad.of(in, new long[] {1}, new long[] {0}, new long[] {1}).hashCode());
        assertNotEquals(p, Remap.Pad.of(in, new long[] {1}, new long[] {0}, new long[] {0}));
        assertNotEquals(p, Remap.Pad.of(in, new long[] {0}, new long[] {1}, new long[] {1}));
    }
}
