package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.Loop;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static dev.tensorbuf.ops.copy.CopyFixture.strided;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mapped sides that are strided over split dimensions: the planner cuts both sides to one mixed
 * radix per dimension and plans loops, or gathers and says why. Each copy is compared byte for
 * byte with the element loop ({@link CopyFixture#check}).
 */
class SplitDigitsPlanTest {
    private final Random rnd = new Random(CopyFixture.SEED);

    /** {@code [12]} read as {@code [3, 4]} transposed: element {@code 4a + b} is at {@code 3b + a}. */
    private static final String FOUR_BY_THREE = "(d0) -> ((d0 mod 4) * 3 + d0 floordiv 4), domain: d0 in [0, 11]";

    private static Access mapped(Arena arena, String map, long slots) {
        return Access.mapped(arena.allocate(slots * 4), DType.F32, IndexingMap.parse(map));
    }

    /**
     * {@return the steps of the second plan of this copy} A small map's first copy gathers
     * without looking for a split ({@code firstSmallCopyGathersAndTheSecondLooks}).
     */
    private static List<Step> steps(Access src, Access dst, ChannelAffine affine) {
        AccessCopies.plan(src, dst, affine);
        return AccessCopies.steps(AccessCopies.plan(src, dst, affine));
    }

    @Test
    void firstSmallCopyGathersAndTheSecondLooks() {
        try (Arena arena = Arena.ofShared()) {
            // A map no other test uses, so that this is its first copy in the JVM.
            Access src = mapped(arena, "(d0) -> ((d0 mod 7) * 5 + d0 floordiv 7 + 3), domain: d0 in [0, 34]", 38);
            Access dst = strided(arena, DType.F32, StridedLayout.packed(35));
            assertEquals(List.of(new Step.Gather("a general element map")), AccessCopies.steps(AccessCopies.plan(src, dst)));
            assertTrue(AccessCopies.steps(AccessCopies.plan(src, dst)).stream().noneMatch(s -> s instanceof Step.Gather));
            CopyFixture.check(src, dst, null, rnd, "[5,7] transposed, flat");
        }
    }

    @Test
    void aMappedSourceMeetingADenseDestinationRunsOneLoopNest() {
        try (Arena arena = Arena.ofShared()) {
            Access src = mapped(arena, FOUR_BY_THREE, 12);
            Access dst = strided(arena, DType.F32, StridedLayout.packed(12));
            List<Step> steps = steps(src, dst, null);
            assertEquals(1, steps.size(), steps.toString());
            Step.Run run = (Step.Run) steps.getFirst();
            // The destination's one digit cut where the source's are: 3 x 4, strides (1, 3) and (4, 1).
            assertEquals(List.of(new Loop(3, 1, 4), new Loop(4, 3, 1)),
                    run.loops().stream().sorted((a, b) -> Long.compare(b.dstStride(), a.dstStride())).toList());
            CopyFixture.check(src, dst, null, rnd, "[3,4] transposed, flat");
        }
    }

    @Test
    void twoMappedSidesWhoseRadicesNestShareOneLoopNest() {
        try (Arena arena = Arena.ofShared()) {
            // Cuts {1, 4, 12} and {1, 2, 12}: together 1 | 2 | 4 | 12.
            Access src = mapped(arena, FOUR_BY_THREE, 12);
            Access dst = mapped(arena, "(d0) -> ((d0 mod 2) * 6 + d0 floordiv 2), domain: d0 in [0, 11]", 12);
            assertTrue(steps(src, dst, null).stream().noneMatch(s -> s instanceof Step.Gather), steps(src, dst, null).toString());
            CopyFixture.check(src, dst, null, rnd, "two mapped sides");
        }
    }

    @Test
    void radicesThatDoNotNestAreGatheredWithTheReason() {
        try (Arena arena = Arena.ofShared()) {
            // Cuts {1, 4, 12} and {1, 6, 12}: 4 does not divide 6.
            Access src = mapped(arena, FOUR_BY_THREE, 12);
            Access dst = mapped(arena, "(d0) -> ((d0 mod 6) * 2 + d0 floordiv 6), domain: d0 in [0, 11]", 12);
            assertEquals(List.of(new Step.Gather("the two sides split dimension 0 in radices that do not nest")),
                    steps(src, dst, null));
            CopyFixture.check(src, dst, null, rnd, "radices that do not nest");
        }
    }

    @Test
    void aChannelDimensionSplitByAMapIsGathered() {
        try (Arena arena = Arena.ofShared()) {
            Access src = Access.mapped(arena.allocate(24), DType.U8,
                    IndexingMap.parse("(d0, d1) -> (d0 * 12 + (d1 mod 4) * 3 + d1 floordiv 4), domain: d0 in [0, 1], d1 in [0, 11]"));
            Access dst = strided(arena, DType.F32, StridedLayout.packed(2, 12));
            ChannelAffine affine = new ChannelAffine(1, Collections.nCopies(12, 0.5f), Collections.nCopies(12, 1f));
            assertEquals(List.of(new Step.Gather("the channel dimension 1 is split by a general element map")),
                    steps(src, dst, affine));
            CopyFixture.check(src, dst, affine, rnd, "channel split");
            // Split elsewhere, the channel stays one digit and the copy runs loops.
            Access other = Access.mapped(arena.allocate(24), DType.U8,
                    IndexingMap.parse("(d0, d1) -> ((d0 mod 4) * 6 + (d0 floordiv 4) * 2 + d1), domain: d0 in [0, 11], d1 in [0, 1]"));
            Access out = strided(arena, DType.F32, StridedLayout.packed(12, 2));
            ChannelAffine perColumn = new ChannelAffine(1, List.of(2f, 3f), List.of(-1f, 1f));
            assertTrue(steps(other, out, perColumn).stream().noneMatch(s -> s instanceof Step.Gather));
            CopyFixture.check(other, out, perColumn, rnd, "channel kept whole");
        }
    }

    @Test
    void aSplitSourceMeetsATiledDestinationWhoseTilesHoldWholeDigits() {
        try (Arena arena = Arena.ofShared()) {
            // [8, 30, 16] transposed to [30, 8, 16] and reshaped to [30, 128]: d1 = 16 a + b.
            String map = "(d0, d1) -> ((d1 floordiv 16) * 480 + d0 * 16 + d1 mod 16), domain: d0 in [0, 29], d1 in [0, 127]";
            Access src = mapped(arena, map, 3840);
            // T(8,16) cuts d1 at 16 as the map does (and pads d0 from 30 to 32): loops, padding zeroed.
            Access aligned = CopyFixture.tiled(arena, "f32[30,128]{1,0:T(8,16)}");
            List<Step> steps = steps(src, aligned, null);
            assertTrue(steps.stream().noneMatch(s -> s instanceof Step.Gather), steps.toString());
            CopyFixture.check(src, aligned, null, rnd, "split source into T(8,16)");
            // And back: the tiled side as the source, the split side as the destination.
            Access back = mapped(arena, map, 3840);
            assertTrue(steps(aligned, back, null).stream().noneMatch(s -> s instanceof Step.Gather));
            CopyFixture.check(aligned, back, null, rnd, "T(8,16) into a split destination");
            // T(8,128) holds a row of 128 in one digit, which the map cuts at 16: gathered, with the reason.
            Access across = CopyFixture.tiled(arena, "f32[30,128]{1,0:T(8,128)}");
            assertEquals(new Step.Gather("a general element map cuts dimension 1 inside a tile"),
                    steps(src, across, null).getLast());
            CopyFixture.check(src, across, null, rnd, "split source into T(8,128)");
        }
    }

    @Test
    void aDimensionOfSizeOneThatATilePadsHasNoSplitDigitAndStaysAtZero() {
        try (Arena arena = Arena.ofShared()) {
            String map = "(d0, d1, d2) -> ((d2 floordiv 16) * 480 + d1 * 16 + d2 mod 16 + d0 * 7), "
                    + "domain: d0 in [0, 0], d1 in [0, 29], d2 in [0, 127]";
            Access src = mapped(arena, map, 3840);
            // T(2,8,16) pads d0 from 1 to 2: a digit of d0 the split side has none of.
            Access tiled = CopyFixture.tiled(arena, "f32[1,30,128]{2,1,0:T(2,8,16)}");
            assertTrue(steps(src, tiled, null).stream().noneMatch(s -> s instanceof Step.Gather));
            CopyFixture.check(src, tiled, null, rnd, "size-1 dim padded by the tile");
        }
    }

    @Test
    void aMappedDestinationStridedOverSplitDimsIsStillRefusedWhenItOverlapsItself() {
        try (Arena arena = Arena.ofShared()) {
            // d0 = 4a + b goes to a + b: digits of strides 1 and 1, which collide (index 1 and 4 both land on 1).
            Access dst = mapped(arena, "(d0) -> (d0 mod 4 + d0 floordiv 4), domain: d0 in [0, 11]", 12);
            Access src = strided(arena, DType.F32, StridedLayout.packed(12));
            for (int copy = 0; copy < 2; copy++) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.plan(src, dst));
                assertTrue(e.getMessage().contains("index [1] and index [4] to one slot"), e.getMessage());
            }
        }
    }

    @Test
    void aBigMappedCopyLooksForItsSplitAtOnce() {
        try (Arena arena = Arena.ofShared()) {
            long n = 128 * 129;
            Access src = mapped(arena, "(d0) -> ((d0 mod 128) * 129 + d0 floordiv 128), domain: d0 in [0, " + (n - 1) + "]", n);
            Access dst = strided(arena, DType.F32, StridedLayout.packed(n));
            assertTrue(AccessCopies.steps(AccessCopies.plan(src, dst)).stream().noneMatch(s -> s instanceof Step.Gather));
            CopyFixture.check(src, dst, null, rnd, "[129,128] transposed, flat");
        }
    }
}
