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
    /** The buffer holding this block, null while cached; guarded by the pool's lock. */
    PooledLifetime holder;

    private Block(Arena arena, MemorySegment segment, int sizeClass) {
        this.arena = arena;
        this.segment = segment;
        this.sizeClass = sizeClass;
    }

    static Block allocate(long byteSize, long alignment, int sizeClass) {
        Arena arena = Arena.ofShared();
        try {
            return new Block(arena, arena.allocate(byteSize, alignment), sizeClass);
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
