package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The scalar transpose on its own loops: the 2x2 steps where the strides are one element (with an
 * odd row and column left over), and the row-at-a-time path for any other strides, which
 * {@link LoopNest} does not produce today, so the engine's tests never reach it.
 */
class ScalarTransposeTest {
    /** Runs the kernel over counts {2, 3, 5} with these byte strides; every slot checked, the gaps untouched. */
    private static void assertMovesEveryElement(long[] srcStride, long[] dstStride) {
        long[] count = {2, 3, 5};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(reach(count, srcStride), 8);
            MemorySegment dst = arena.allocate(reach(count, dstStride), 8);
            for (long b = 0; b < src.byteSize() / 4; b++) {
                src.setAtIndex(ValueLayout.JAVA_INT, b, (int) (1000 + b));
            }
            dst.fill((byte) 0xFF);
            ScalarTranspose.run(new Task(src, dst, 0, 0, count, srcStride, dstStride, 4, 4, -1, 0));
            long written = 0;
            for (long k = 0; k < count[0]; k++) {
                for (long j = 0; j < count[1]; j++) {
                    for (long i = 0; i < count[2]; i++) {
                        long s = k * srcStride[0] + j * srcStride[1] + i * srcStride[2];
                        long d = k * dstStride[0] + j * dstStride[1] + i * dstStride[2];
                        assertEquals(src.get(ValueLayout.JAVA_INT, s), dst.get(ValueLayout.JAVA_INT, d),
                                "[" + k + ", " + j + ", " + i + "]");
                        written++;
                    }
                }
            }
            long untouched = 0;
            for (long b = 0; b < dst.byteSize() / 4; b++) {
                untouched += dst.getAtIndex(ValueLayout.JAVA_INT, b) == -1 ? 1 : 0;
            }
            assertEquals(dst.byteSize() / 4 - written, untouched, "only the elements' slots are written");
        }
    }

    private static long reach(long[] count, long[] stride) {
        long r = 4;
        for (int i = 0; i < count.length; i++) {
            r += (count[i] - 1) * stride[i];
        }
        return r;
    }

    @Test
    void unitStridesGoTwoByTwoWithTheOddRowAndColumnLeft() {
        // Source rows of the destination side by side (stride 4), destination columns side by side (4).
        assertMovesEveryElement(new long[] {60, 4, 12}, new long[] {60, 20, 4});
    }

    @Test
    void otherStridesGoARowAtATime() {
        assertMovesEveryElement(new long[] {120, 8, 24}, new long[] {120, 40, 8});
        assertMovesEveryElement(new long[] {60, 4, 12}, new long[] {120, 40, 8});
        assertMovesEveryElement(new long[] {120, 8, 24}, new long[] {60, 20, 4});
    }
}
