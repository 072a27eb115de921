/**
 * The implementations behind {@code dev.tensorbuf.memory}'s interfaces: the buffers
 * ({@code HostBuffer}, {@code DeviceBuffer}), the lifetimes they share with their slices and
 * read-only views ({@code Lifetime}, with pool and foreign-deleter variants), the arena allocator,
 * the pool's blocks and size classes, allocation sites, and the module's message factories
 * ({@code Errors}).
 *
 * <p>Not API: the classes are public so that the API package can reach them, and exported to
 * {@code dev.tensorbuf.interop} only, whose huge-page allocator makes buffers with a
 * {@code ForeignLifetime} in a {@code Scope} and an {@code ArenaAllocator} of its own, so that its
 * close sees their loans. Rules
 * that hold for every class: sizes and offsets are in bytes; a close is settled once, by
 * compare-and-set on the lifetime, and closing again does nothing; use after close throws
 * {@link java.lang.IllegalStateException}, its message built by {@code Errors}.
 */
package dev.tensorbuf.memory.internal;
