package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** ArrayShape's sizes, strides and index checks at the values where their answers change. */
class TiledLayoutLimitsTest {
    @Test
    void aZeroDimMakesNoElementsWhateverTheOtherDimsMultiplyTo() {
        // Minor-to-major {0,1,2}: the physical dims run 2^32, 2^32, 0, whose product overflows before the 0.
        ArrayShape empty = ArrayShape.parse("f32[0,4294967296,4294967296]{0,1,2}");
        assertEquals(0, empty.elementCount());
        assertEquals(0, empty.physicalElementCount());
        assertEquals(0, empty.physicalByteSize());
        assertEquals(0, empty.arrayDataSize());
    }

    @Test
    void logicalIndexTakesOffsetsFromZeroBelowTheSlotCount() {
        ArrayShape a = ArrayShape.parse("f32[2,3]{1,0}");
        assertEquals(Optional.of(List.of(0L, 0L)), a.logicalIndex(0));
        assertEquals(Optional.of(List.of(1L, 2L)), a.logicalIndex(5));
        var e = assertThrows(IndexOutOfBoundsException.class, () -> a.logicalIndex(6));
        assertEquals("element offset 6 out of bounds [0, 6) of f32[2,3]{1,0}", e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> a.logicalIndex(-1));
        assertEquals("element offset -1 out of bounds [0, 6) of f32[2,3]{1,0}", e.getMessage());
    }

    @Test
    void maxSplitSizeTakesTheDimsOfTheShape() {
        ArrayShape a = ArrayShape.parse("f32[150,5]{1,0:T(1,8)SC(0:30)}");
        assertEquals(120, a.maxSplitSize(0));
        assertEquals(5, a.maxSplitSize(1));
        var e = assertThrows(IndexOutOfBoundsException.class, () -> a.maxSplitSize(2));
        assertEquals("dim 2 out of bounds [0, 2) of " + a, e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> a.maxSplitSize(-1));
        assertEquals("dim -1 out of bounds [0, 2) of " + a, e.getMessage());
    }

    @Test
    void byteStridesNeedWholeBytesPerElement() {
        assertEquals(Optional.of(List.of(4L, 8L)), ArrayShape.parse("f32[2,3]{0,1}").byteStrides());
        ArrayShape nibbles = ArrayShape.parse("s4[2,3]{1,0:E(4)}");
        assertEquals(Optional.empty(), nibbles.byteStrides());
        assertEquals(List.of(3L, 1L), nibbles.unpackedByteStrides());
        assertEquals(3, nibbles.byteSizeOfElements(), "6 nibbles in 3 bytes");
        assertEquals(2, ArrayShape.parse("s4[3]{0:E(4)}").byteSizeOfElements(), "12 bits round up to 2 bytes");
        assertEquals(2, ArrayShape.parse("s4[4]{0:E(4)}").byteSizeOfElements(), "16 bits are 2 bytes");
    }

    @Test
    void wholeByteElementSizesGiveByteStrides() {
        assertEquals(Optional.of(List.of(3L, 1L)), ArrayShape.parse("s8[2,3]{1,0:E(8)}").byteStrides());
        assertEquals(Optional.of(List.of(6L, 2L)), ArrayShape.parse("s16[2,3]{1,0:E(16)}").byteStrides());
    }

    @Test
    void tailPaddingRoundsTheTiledSlotsUpToItsAlignment() {
        // T(2,2) pads f32[3,5] to 4 x 6 = 24 slots: a multiple of 6 stays, 7 rounds up to 28.
        assertEquals(96, ArrayShape.parse("f32[3,5]{1,0:T(2,2)L(6)}").arraySize());
        assertEquals(112, ArrayShape.parse("f32[3,5]{1,0:T(2,2)L(7)}").arraySize());
    }

    @Test
    void indicesStopOneBelowEachSize() {
        ArrayShape a = ArrayShape.parse("f32[2,3]{1,0}");
        assertEquals(5, a.linearIndex(1, 2));
        var e = assertThrows(IndexOutOfBoundsException.class, () -> a.linearIndex(2, 0));
        assertEquals("index 2 out of bounds [0, 2) for dim 0 of f32[2,3]{1,0}", e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> a.linearIndex(0, 3));
        assertEquals("index 3 out of bounds [0, 3) for dim 1 of f32[2,3]{1,0}", e.getMessage());
    }
}
