package dev.tensorbuf.memory.internal;

import org.agrona.BitUtil;

/**
 * Power-of-two size classes from 64 bytes up to a largest class. A block of a class is aligned to
 * its size, at most {@link #MAX_BLOCK_ALIGNMENT}: larger alignments would waste most of the block.
 */
final class SizeClasses {
    static final long SMALLEST = 64;
    static final long MAX_BLOCK_ALIGNMENT = 4096;
    /** The class of requests that get an exact-sized, never-cached block. */
    static final int EXACT = -1;

    private static final int SMALLEST_SHIFT = Long.numberOfTrailingZeros(SMALLEST);

    private final long largest;

    SizeClasses(long largest) {
        assert BitUtil.isPowerOfTwo(largest) && largest >= SMALLEST : largest;
        this.largest = largest;
    }

    /** {@return how many classes there are} */
    int count() {
        return classOf(largest) + 1;
    }

    /** {@return the class serving {@code byteSize} bytes at {@code alignment}, or {@link #EXACT}} */
    int classFor(long byteSize, long alignment) {
        long need = Math.max(Math.max(byteSize, alignment), SMALLEST);
        if (need > largest || alignment > MAX_BLOCK_ALIGNMENT) {
            return EXACT;
        }
        return classOf(BitUtil.findNextPositivePowerOfTwo(need));
    }

    /** {@return the block size of a class} */
    static long blockSize(int sizeClass) {
        return SMALLEST << sizeClass;
    }

    /** {@return the alignment of a class's blocks} */
    static long blockAlignment(int sizeClass) {
        return Math.min(blockSize(sizeClass), MAX_BLOCK_ALIGNMENT);
    }

    private static int classOf(long powerOfTwo) {
        return Long.numberOfTrailingZeros(powerOfTwo) - SMALLEST_SHIFT;
    }
}
