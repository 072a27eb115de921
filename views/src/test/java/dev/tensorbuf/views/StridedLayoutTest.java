package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.internal.Extents;

class StridedLayoutTest {
    @Test
    void exampleFromJavadoc() {
        StridedLayout nhwc = StridedLayout.of(TensorFormat.NHWC, 1, 3, 224, 224);
        assertEquals(List.of(150528L, 1L, 672L, 3L), nhwc.strides());
        assertEquals(150527, nhwc.offsetOf(0, 2, 223, 223));
        assertEquals(602112, nhwc.bufferBytes(DType.F32));
        StridedLayout bias = StridedLayout.of(new long[] {1, 3, 224, 224}, new long[] {0, 1, 0, 0});
        assertTrue(bias.isBroadcast());
        assertEquals(12, bias.bufferBytes(DType.F32));
        StridedLayout window = StridedLayout.of(new long[] {2, 3}, new long[] {5, 1});
        assertTrue(window.isPadded());
        assertEquals(8, window.bufferBytes(DType.S8));
    }

    @Test
    void paddedExamplesFromJavadoc() {
        assertTrue(StridedLayout.of(new long[] {2, 3}, new long[] {5, 1}).isPadded());
        assertFalse(StridedLayout.of(new long[] {3, 3}, new long[] {1, 1}).isPadded());
        StridedLayout evens = StridedLayout.of(new long[] {4, 4}, new long[] {2, 2});
        assertTrue(evens.isOverlapping());
        assertTrue(evens.isPadded(), "16 elements over a span of 13, but offsets 1, 3, ..., 11 are unused");
        // A flip and a broadcast: offsets {0, 1, 3, 4} leave 2 unused; a third column fills it.
        assertTrue(StridedLayout.of(new long[] {2, 5, 2}, new long[] {-3, 0, 1}, 3).isPadded());
        assertFalse(StridedLayout.of(new long[] {2, 5, 3}, new long[] {-3, 0, 1}, 3).isPadded());
        assertFalse(StridedLayout.of(new long[] {0, 3}, new long[] {7, 5}).isPadded(), "no elements, no span");
    }

    @Test
    void formatExamplesFromJavadoc() {
        assertEquals(List.of(6L, 1L, 6L, 3L), Extents.boxed(TensorFormat.NHWC.packedStrides(1, 3, 1, 2)));
        assertEquals(List.of(1L, 2L), Extents.boxed(TensorFormat.WH.packedStrides(2, 3)));
        assertEquals(Optional.of(TensorFormat.NHWC),
                TensorFormat.of(StridedLayout.of(new long[] {1, 1, 3, 5}, new long[] {15, 1, 5, 1})));
    }

    @Test
    void everyFormatRoundTripsThroughItsStrides() {
        long[][] sizesByRank = {{}, {}, {2, 3}, {2, 3, 4}, {2, 3, 4, 5}, {2, 3, 4, 5, 6}};
        for (TensorFormat f : TensorFormat.values()) {
            StridedLayout layout = f.layout(sizesByRank[f.rank()]);
            assertTrue(layout.isPacked(), f + " is packed");
            assertTrue(TensorFormat.matching(layout).contains(f), f + " matches its own strides");
        }
        assertEquals(List.of(TensorFormat.CHW, TensorFormat.DHW), TensorFormat.matching(StridedLayout.packed(2, 3, 4)));
        assertEquals(List.of(1L, 8L, 2L), Extents.boxed(TensorFormat.HWC.packedStrides(2, 3, 4)));
        assertEquals(List.of(1L, 2L, 6L), Extents.boxed(TensorFormat.WHD.packedStrides(2, 3, 4)));
        assertEquals(List.of(TensorFormat.NCHW, TensorFormat.NHWC), TensorFormat.matching(StridedLayout.packed(1, 1, 1, 1)));
        assertEquals(Optional.empty(), StridedLayout.of(new long[] {2, 3}, new long[] {5, 1}).format());
        assertEquals(TensorFormat.NDHWC, TensorFormat.fromName("ndhwc"));
        var e = assertThrows(IllegalArgumentException.class, () -> TensorFormat.fromName("NWHC"));
        assertTrue(e.getMessage().startsWith("unknown tensor format 'NWHC'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TensorFormat.NCHW.layout(3, 5));
        assertEquals("NCHW needs 4 sizes (NCHW), got 2: [3, 5]", e.getMessage());
    }

    @Test
    void toIndexingMapExampleFromJavadoc() {
        assertEquals("(d0, d1) -> (d0 * 5 + d1 + 7), domain: d0 in [0, 1], d1 in [0, 2]",
                StridedLayout.of(new long[] {2, 3}, new long[] {5, 1}, 7).toIndexingMap().toString());
        assertEquals("(d0, d1, d2, d3) -> (d0 * 6 + d1 + d2 * 6 + d3 * 3), domain: d0 in [0, 0], d1 in [0, 2], d2 in [0, 0], d3 in [0, 1]",
                StridedLayout.of(TensorFormat.NHWC, 1, 3, 1, 2).toIndexingMap().toString());
        assertEquals("() -> (4)", StridedLayout.of(new long[0], new long[0], 4).toIndexingMap().toString());
    }

    /** The map agrees with offsetOf at every point of its domain. */
    @Test
    void indexingMapEvaluatesToOffsetOfEverywhere() {
        long seed = TestSeed.of("indexingMapEvaluatesToOffsetOfEverywhere");
        Random random = new Random(seed);
        for (int trial = 0; trial < 500; trial++) {
            int rank = random.nextInt(4);
            long[] sizes = new long[rank];
            long[] strides = new long[rank];
            long offset = 0;
            for (int d = 0; d < rank; d++) {
                sizes[d] = 1 + random.nextInt(4);
                strides[d] = random.nextInt(21) - 10;
                offset += Math.max(0, -(sizes[d] - 1) * strides[d]);
            }
            StridedLayout layout = StridedLayout.of(sizes, strides, offset);
            var map = layout.toIndexingMap();
            long[] index = new long[rank];
            boolean any = true;
            while (any) {
                assertEquals(layout.offsetOf(index), map.evaluate(index)[0], "seed " + seed + ": " + layout);
                int d = rank - 1;
                while (d >= 0 && ++index[d] == sizes[d]) {
                    index[d] = 0;
                    d--;
                }
                any = d >= 0;
            }
        }
    }

    @Test
    void rankZeroIsOneElementAtTheOffset() {
        StridedLayout scalar = StridedLayout.of(new long[0], new long[0], 5);
        assertEquals(1, scalar.elementCount());
        assertEquals(5, scalar.offsetOf());
        assertTrue(scalar.isPacked());
        assertEquals(24, scalar.bufferBytes(DType.F32)); // 6 floats from the buffer start
        assertEquals(4, scalar.withOffset(0).bufferBytes(DType.F32));
        assertFalse(scalar.isDirectMLExpressible());
    }

    @Test
    void negativeStridesNeedAnOffsetAndAreNotDirectML() {
        StridedLayout flipped = StridedLayout.of(new long[] {2, 3}, new long[] {3, -1}, 2);
        assertEquals(2, flipped.offsetOf(0, 0));
        assertEquals(3, flipped.offsetOf(1, 2));
        assertTrue(flipped.isPacked());
        assertTrue(flipped.hasNegativeStrides());
        assertFalse(flipped.isDirectMLExpressible());
        assertEquals(8, flipped.bufferBytes(DType.U8));
        assertEquals(6, flipped.minBytes(DType.U8));
        var e = assertThrows(IllegalArgumentException.class, () -> StridedLayout.of(new long[] {3}, new long[] {-1}));
        assertEquals("negative strides [-1] reach element offset -2 for sizes [3] from offset 0: the offset must be at least 2",
                e.getMessage());
        var lowest = assertThrows(IllegalArgumentException.class,
                () -> StridedLayout.of(new long[] {2, 2}, new long[] {Long.MIN_VALUE, 1}));
        // 2^63 elements back: no long offset is that large, so the message must not ask for one.
        assertTrue(lowest.getMessage().endsWith(": they reach back 9223372036854775808 elements, more than any offset (at most"
                + " 9223372036854775807) makes up"), lowest.getMessage());
        var fromTheTop = assertThrows(IllegalArgumentException.class,
                () -> StridedLayout.of(new long[] {2}, new long[] {Long.MIN_VALUE}, Long.MAX_VALUE));
        assertEquals("negative strides [-9223372036854775808] reach element offset -1 for sizes [2] from offset"
                + " 9223372036854775807: they reach back 9223372036854775808 elements, more than any offset (at most"
                + " 9223372036854775807) makes up", fromTheTop.getMessage());
    }

    @Test
    void sizesThatOverflowALongAreRefusedNotWrapped() {
        // Every offset fits in a long, but the byte count rounded up to 4, and the span, do not.
        StridedLayout longest = StridedLayout.of(new long[] {Long.MAX_VALUE}, new long[] {1});
        assertEquals(Long.MAX_VALUE, longest.minBytes(DType.U8));
        var rounded = assertThrows(IllegalArgumentException.class, () -> longest.bufferBytes(DType.U8));
        assertEquals("9223372036854775807 bytes (u8) rounded up to a multiple of 4 overflow a long", rounded.getMessage());
        StridedLayout apart = StridedLayout.of(new long[] {2}, new long[] {Long.MAX_VALUE});
        var span = assertThrows(IllegalArgumentException.class, apart::spanElements);
        assertEquals("the span from offset 0 to 9223372036854775807 overflows a long in elements", span.getMessage());
        assertFalse(apart.isPacked());
        assertTrue(apart.isPadded());
        assertEquals(Long.MAX_VALUE - 1, StridedLayout.of(new long[] {2}, new long[] {Long.MAX_VALUE - 2}).spanElements());
    }

    @Test
    void subByteBufferSizesCountBits() {
        assertEquals(4, StridedLayout.packed(1, 1, 1, 5).bufferBytes(DType.S4));
        assertEquals(3, StridedLayout.packed(1, 1, 1, 5).minBytes(DType.S4));
        assertEquals(0, StridedLayout.packed(2, 0).bufferBytes(DType.F32));
    }

    @Test
    void offsetOfNamesIndexDimAndSizes() {
        StridedLayout l = StridedLayout.packed(2, 4);
        var e = assertThrows(IndexOutOfBoundsException.class, () -> l.offsetOf(1, 7));
        assertEquals("index 7 out of bounds [0, 4) for dim 1 of sizes [2, 4] (index [1, 7])", e.getMessage());
        var r = assertThrows(IllegalArgumentException.class, () -> l.offsetOf(1));
        assertEquals("index [1] has rank 1 but sizes [2, 4] has rank 2", r.getMessage());
    }

    @Test
    void malformedLayoutsNameTheNumbers() {
        var e = assertThrows(IllegalArgumentException.class, () -> StridedLayout.of(new long[] {2, -1}, new long[] {1, 1}));
        assertEquals("size -1 of dim 1 is negative in sizes [2, -1]", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> StridedLayout.of(new long[] {2, 3}, new long[] {1}));
        assertEquals("rank mismatch: 2 sizes [2, 3] but 1 strides [1]", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> StridedLayout.of(new long[] {1L << 62, 4}, new long[] {0, 0}));
        assertEquals("element count of sizes [4611686018427387904, 4] overflows a long", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> StridedLayout.of(new long[] {3}, new long[] {Long.MAX_VALUE / 2 + 1}));
        assertTrue(e.getMessage().startsWith("element offsets overflow a long at dim 0: offset 0 + (size 3 - 1) * stride 4611686018427387904"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> StridedLayout.of(new long[] {2}, new long[] {Long.MAX_VALUE - 10}, 11));
        assertTrue(e.getMessage().contains("offset 11 + (size 2 - 1) * stride 9223372036854775797"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> StridedLayout.of(new long[] {2}, new long[] {Long.MAX_VALUE / 2}).bufferBytes(DType.F64));
        assertEquals("(max offset 4611686018427387903 + 1) elements of 64 bits (f64) overflow a long in bytes", e.getMessage());
        // 2^60 f32 elements are 2^62 bytes: 2^65 bits would overflow, the bytes do not (a review found this refused).
        assertEquals(1L << 62, StridedLayout.packed(1L << 60).minBytes(DType.F32));
        assertEquals(3, StridedLayout.packed(5).minBytes(DType.S4));
        e = assertThrows(IllegalArgumentException.class, () -> StridedLayout.packed(1L << 32, 1L << 32));
        assertEquals("element count of sizes [4294967296, 4294967296] overflows a long", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> StridedLayout.of(new long[] {2}, new long[] {1}, -1));
        assertEquals("offset -1 is negative", e.getMessage());
    }

    @Test
    void overlapNeedsNoBroadcast() {
        assertTrue(StridedLayout.of(new long[] {3, 3}, new long[] {1, 1}).isOverlapping());
        assertFalse(StridedLayout.of(new long[] {3, 3}, new long[] {1, 1}).isBroadcast());
        // Coprime strides far apart: the smallest cancelling pair needs 1000000009 steps.
        assertFalse(StridedLayout.of(new long[] {1000, 1000}, new long[] {1_000_000_007, 1_000_000_009}).isOverlapping());
        assertTrue(StridedLayout.of(new long[] {3, 4, 5}, new long[] {6, 10, 15}).isOverlapping()); // 5*6 = 3*10
        // A span too large for the bitset: 3 * 10^12 - 2 * (1.5 * 10^12) = 0.
        assertTrue(StridedLayout.of(new long[] {4, 3, 2}, new long[] {1_000_000_000_000L, 1_500_000_000_000L, 7})
                .isOverlapping());
        assertFalse(StridedLayout.of(new long[] {2, 3, 2}, new long[] {1_000_000_000_000L, 1_500_000_000_001L, 7})
                .isOverlapping());
    }

    /** Classification equals a brute-force enumeration on random small layouts (zero and negative strides). */
    @Test
    void classificationMatchesBruteForce() {
        long seed = TestSeed.of("classificationMatchesBruteForce");
        Random random = new Random(seed);
        for (int trial = 0; trial < 20_000; trial++) {
            int rank = random.nextInt(5);
            long[] sizes = new long[rank];
            long[] strides = new long[rank];
            for (int d = 0; d < rank; d++) {
                sizes[d] = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(4);
                strides[d] = random.nextInt(13) - 6;
                if (random.nextInt(4) == 0) {
                    strides[d] *= 1 + random.nextInt(8);
                }
            }
            long minOffset = 0;
            for (int d = 0; d < rank; d++) {
                minOffset += Math.min(0, (sizes[d] - 1) * strides[d]);
            }
            long offset = -minOffset + random.nextInt(3);
            StridedLayout layout = StridedLayout.of(sizes, strides, offset);
            String what = "seed " + seed + " trial " + trial + ": " + layout;

            Set<Long> seen = new HashSet<>();
            long count = 0;
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            long[] index = new long[rank];
            boolean any = layout.elementCount() > 0;
            while (any) {
                long at = layout.offsetOf(index);
                seen.add(at);
                count++;
                lo = Math.min(lo, at);
                hi = Math.max(hi, at);
                int d = rank - 1;
                while (d >= 0 && ++index[d] == sizes[d]) {
                    index[d] = 0;
                    d--;
                }
                any = d >= 0;
            }
            long span = count == 0 ? 0 : hi - lo + 1;
            boolean overlapping = seen.size() < count;
            boolean broadcast = false;
            long distinct = 1;
            for (int d = 0; d < rank; d++) {
                broadcast |= sizes[d] > 1 && strides[d] == 0;
                distinct *= strides[d] == 0 && sizes[d] > 1 ? 1 : sizes[d];
            }
            assertEquals(count, layout.elementCount(), what);
            assertEquals(span, layout.spanElements(), what);
            if (count > 0) {
                assertEquals(lo, layout.minOffset(), what);
                assertEquals(hi, layout.maxOffset(), what);
                assertEquals(Math.ceilDiv((hi + 1) * 16, 8), layout.minBytes(DType.F16), what);
            }
            assertEquals(overlapping, layout.isOverlapping(), what);
            assertEquals(span == count && !overlapping, layout.isPacked(), what);
            assertEquals(broadcast, layout.isBroadcast(), what);
            assertEquals(seen.size() < span, layout.isPadded(), what + ": padded means an unused offset in the span");
            if (seen.size() == distinct) {
                // Overlapping at most by broadcasting: DirectML's count-based definition agrees.
                assertEquals(span > distinct, layout.isPadded(), what);
            }
        }
    }

    /** Larger random layouts: still exact, the bitset and search paths against enumeration. */
    @Test
    void overlapMatchesBruteForceOnWiderLayouts() {
        long seed = TestSeed.of("overlapMatchesBruteForceOnWiderLayouts");
        Random random = new Random(seed);
        for (int trial = 0; trial < 3_000; trial++) {
            int rank = 3 + random.nextInt(3);
            long[] sizes = new long[rank];
            long[] strides = new long[rank];
            long scale = random.nextBoolean() ? 1 : 1L << 28;
            for (int d = 0; d < rank; d++) {
                sizes[d] = 2 + random.nextInt(5);
                strides[d] = (1 + random.nextInt(40)) * scale + (scale > 1 ? random.nextInt(3) : 0);
            }
            StridedLayout layout = StridedLayout.of(sizes, strides);
            Set<Long> seen = new HashSet<>();
            long[] index = new long[rank];
            boolean any = true;
            while (any) {
                seen.add(layout.offsetOf(index));
                int d = rank - 1;
                while (d >= 0 && ++index[d] == sizes[d]) {
                    index[d] = 0;
                    d--;
                }
                any = d >= 0;
            }
            assertEquals(seen.size() < layout.elementCount(), layout.isOverlapping(),
                    "seed " + seed + " trial " + trial + ": " + layout);
            assertEquals(seen.size() < layout.spanElements(), layout.isPadded(),
                    "seed " + seed + " trial " + trial + ": " + layout);
        }
    }
}
