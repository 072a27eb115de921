package dev.tensorbuf.memory;

import java.util.Objects;

/**
 * Who frees a buffer's memory when it closes: an arena allocator, a pool, or a foreign deleter
 * (DLPack, a native library). It names the owner in messages.
 *
 * {@snippet :
 * try (PooledAllocator pool = PooledAllocator.builder().name("staging").build();
 *      MemoryBuffer buffer = pool.allocate(4096)) {
 *     buffer.owner();            // new BufferOwner.Pool("staging")
 *     buffer.owner().toString(); // "pool 'staging'"
 * }
 * }
 */
public sealed interface BufferOwner {

    /**
     * An {@link Allocators} arena: the memory is freed when the allocator closes.
     *
     * @param shared whether the arena is shared ({@link Allocators#shared()}) or confined
     * @param name what the arena serves ({@link Allocators#shared(String)}), or {@code ""} for a
     *     plain arena; an allocator built over an arena names itself here, so its messages do not
     *     speak of an arena its caller never made
     */
    record Arena(boolean shared, String name) implements BufferOwner {
        /** Checks that the name is not null. */
        public Arena {
            Objects.requireNonNull(name, "name");
        }

        /** An unnamed arena, as {@link Allocators#shared()} and {@link Allocators#confined()} make. */
        public Arena(boolean shared) {
            this(shared, "");
        }

        /** {@return {@code "shared arena"}, {@code "confined arena"}, or e.g. {@code "shared arena of huge-page allocator"}} */
        @Override
        public String toString() {
            String kind = shared ? "shared arena" : "confined arena";
            return name.isEmpty() ? kind : kind + " of " + name;
        }
    }

    /**
     * A {@link PooledAllocator}: closing the buffer returns its block to the pool.
     *
     * @param name the pool's name
     */
    record Pool(String name) implements BufferOwner {
        /** Checks that the name is not null. */
        public Pool {
            Objects.requireNonNull(name, "name");
        }

        /** {@return e.g. {@code "pool 'staging'"}} */
        @Override
        public String toString() {
            return "pool '" + name + "'";
        }
    }

    /**
     * Memory made elsewhere ({@link Buffers#foreign}): closing the buffer runs its deleter once.
     *
     * @param name what made it, e.g. {@code "dlpack"}
     */
    record Foreign(String name) implements BufferOwner {
        /** Checks that the name is not null. */
        public Foreign {
            Objects.requireNonNull(name, "name");
        }

        /** {@return e.g. {@code "foreign owner 'dlpack'"}} */
        @Override
        public String toString() {
            return "foreign owner '" + name + "'";
        }
    }
}
