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
        AffineRemap t = AffineRemap.of(new long[] {3, 2}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0});
        AffineRemap same = AffineRemap.ofTerms(new long[] {3, 2}, new int[] {1, 0}, new long[] {1, 1}, new long[] {0, 0});
        assertEquals(t, same);
        assertEquals(t.hashCode(), same.hashCode());
        assertNotEquals(t, AffineRemap.of(new long[] {3, 2}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 1}));
        assertNotEquals(t, AffineRemap.of(new long[] {3, 3}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0}));
    }

    @Test
    void reshapeRemapsAreEqualByTheirDims() {
        ReshapeRemap r = ReshapeRemap.of(new long[] {2, 3}, new long[] {6});
        assertEquals(r, ReshapeRemap.of(new long[] {2, 3}, new long[] {6}));
        assertEquals(r.hashCode(), ReshapeRemap.of(new long[] {2, 3}, new long[] {6}).hashCode());
        assertNotEquals(r, ReshapeRemap.of(new long[] {3, 2}, new long[] {6}));
    }

    @Test
    void padRemapsAreEqualByDimsAndPaddings() {
        long[] in = {2};
        PadRemap p = PadRemap.of(in, new long[] {1}, new long[] {0}, new long[] {1});
        assertEquals(p, PadRemap.of(in, new long[] {1}, new long[] {0}, new long[] {1}));
        assertEquals(p.hashCode(), PadRemap.of(in, new long[] {1}, new long[] {0}, new long[] {1}).hashCode());
        assertNotEquals(p, PadRemap.of(in, new long[] {1}, new long[] {0}, new long[] {0}));
        assertNotEquals(p, PadRemap.of(in, new long[] {0}, new long[] {1}, new long[] {1}));
    }
}
