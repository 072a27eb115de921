package dev.tensorbuf.memory.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One piece of pool memory in its own shared arena, so the pool can free it alone (when the cache
 * is full) and every segment over it fails cleanly, instead of crashing, once it is freed.
 */
final class Block {
    final Arena arena;
    final MemorySegment segment;
    final int sizeClass;
    /** What the pool counts for this block: its size, or its alignment where that is larger. */
    final long countedBytes;
    /** The buffer holding this block, null while cached; guarded by the pool's lock. */
    PooledLifetime holder;

    private Block(Arena arena, MemorySegment segment, int sizeClass, long countedBytes) {
        this.arena = arena;
        this.segment = segment;
        this.sizeClass = sizeClass;
        this.countedBytes = countedBytes;
    }

    /** {@return the bytes a block of this size and alignment counts against the pool's limit} */
    static long countedBytes(long byteSize, long alignment) {
        // The system pads an aligned block by up to its alignment, so a 64-byte block aligned to
        // 1 MiB takes 1 MiB: counted at its size alone, it would let the limit bound nothing.
        return Math.max(byteSize, alignment);
    }

    static Block allocate(long byteSize, long alignment, int sizeClass) {
        Arena arena = Arena.ofShared();
        try {
            return new Block(arena, arena.allocate(byteSize, alignment), sizeClass, countedBytes(byteSize, alignment));
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    long byteSize() {
        return segment.byteSize();
    }

    void free() {
        arena.close();
    }
}
