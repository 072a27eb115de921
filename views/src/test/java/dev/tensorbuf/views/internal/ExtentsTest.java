package dev.tensorbuf.views.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.views.StridedLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExtentsTest {
    @Test
    void exampleFromJavadoc() {
        assertEquals(6, Extents.elementCount("shape", List.of(2L, 3L)));
        assertEquals(0, Extents.elementCount("shape", List.of(0L, 1L << 62, 4L)));
        var e = assertThrows(IllegalArgumentException.class, () -> Extents.elementCount("shape", List.of(1L << 62, 4L)));
        assertEquals("element count of shape [4611686018427387904, 4] overflows a long", e.getMessage());
        assertInstanceOf(ArithmeticException.class, e.getCause());
        org.junit.jupiter.api.Assertions.assertArrayEquals(new long[] {2, 3}, Extents.toArray(List.of(2L, 3L)));
    }

    /** A review found [0, 2^62, 4] empty but [2^62, 4, 0] overflowing: the answer hung on where the 0 sat. */
    @Test
    void aZeroDimEmptiesTheShapeWhereverItSits() {
        long big = 1L << 62;
        assertEquals(0, Extents.elementCount("", 0, big, 4));
        assertEquals(0, Extents.elementCount("", big, 0, 4));
        assertEquals(0, Extents.elementCount("", big, 4, 0));
        assertEquals(1, Extents.elementCount("sizes"));
    }

    @Test
    void negativeDimsAreNamed() {
        var e = assertThrows(IllegalArgumentException.class, () -> Extents.elementCount("sizes", 2, -1, 0));
        assertEquals("size -1 of dim 1 is negative in sizes [2, -1, 0]", e.getMessage());
    }

    @Test
    void stridedLayoutsAndPackedStridesFollowTheRule() {
        assertEquals(0, StridedLayout.packed(1L << 62, 4, 0).elementCount());
        var e = assertThrows(IllegalArgumentException.class, () -> StridedLayout.packed(0, 1L << 62, 4));
        assertEquals("row-major strides of sizes [0, 4611686018427387904, 4] overflow a long", e.getMessage());
    }
}
