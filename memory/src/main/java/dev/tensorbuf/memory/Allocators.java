package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.ArenaAllocator;

/**
 * Arena-backed allocators of host memory ({@link MemorySpace#HOST}). Memory is zeroed, aligned
 * to the default alignment (64 bytes unless given) or to any power of two asked for, and freed
 * all at once when the allocator closes; closing a single buffer only ends that handle. Use
 * {@link PooledAllocator} to reuse memory of closed buffers.
 *
 * <p>Threads: a {@link #confined()} allocator and its buffers' segments may be used only by the
 * thread that created it (FFM throws {@link WrongThreadException} otherwise). A {@link #shared()}
 * allocator may allocate and be read from any thread; its close waits for a JVM-wide handshake
 * (microseconds), so make one per phase of work, not one per buffer.
 *
 * {@snippet :
 * try (Allocator allocator = Allocators.confined(128)) {
 *     MemoryBuffer buffer = allocator.allocate(1000);
 *     buffer.isAligned(128);            // true
 *     buffer.byteSize();                // 1000
 *     buffer.owner();                   // new MemoryBuffer.Owner.Arena(false): "confined arena"
 * }
 * Allocators.confined(48);              // IllegalArgumentException: "alignment 48 is not a power of two"
 * }
 */
public final class Allocators {
    private Allocators() {}

    /** {@return an allocator over a new confined arena, 64-byte default alignment} */
    public static Allocator confined() {
        return confined(Allocator.DEFAULT_ALIGNMENT);
    }

    /**
     * {@return an allocator over a new confined arena with the given default alignment}
     *
     * @param defaultAlignment the alignment of {@link Allocator#allocate(long)}
     * @throws IllegalArgumentException if {@code defaultAlignment} is not a power of two
     */
    public static Allocator confined(long defaultAlignment) {
        return new ArenaAllocator(false, defaultAlignment);
    }

    /** {@return an allocator over a new shared arena, 64-byte default alignment} */
    public static Allocator shared() {
        return shared(Allocator.DEFAULT_ALIGNMENT);
    }

    /**
     * {@return an allocator over a new shared arena with the given default alignment}
     *
     * @param defaultAlignment the alignment of {@link Allocator#allocate(long)}
     * @throws IllegalArgumentException if {@code defaultAlignment} is not a power of two
     */
    public static Allocator shared(long defaultAlignment) {
        return new ArenaAllocator(true, defaultAlignment);
    }

    /**
     * {@return an allocator over a new shared arena that serves {@code name}, 64-byte default
     * alignment} Its buffers' {@link MemoryBuffer#owner()} and its messages name it: an allocator built
     * over an arena uses this, so its users read "shared arena of huge-page allocator is closed"
     * rather than of an arena they never made.
     *
     * @param name what the arena serves, e.g. {@code "huge-page allocator"}; not blank
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public static Allocator shared(String name) {
        if (name.isBlank()) {
            throw new IllegalArgumentException("an arena's name must not be blank");
        }
        return new ArenaAllocator(true, Allocator.DEFAULT_ALIGNMENT, name);
    }
}
