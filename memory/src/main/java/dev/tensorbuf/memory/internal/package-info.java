/**
 * The implementations behind {@code dev.tensorbuf.memory}'s interfaces: the buffers
 * ({@code HostBuffer}, {@code DeviceBuffer}), the lifetimes they share with their slices and
 * read-only views ({@code Lifetime}, with pool and foreign-deleter variants), the arena allocator,
 * the pool's blocks and size classes, allocation sites, and the module's message factories
 * ({@code Errors}).
 *
 * <p>Not exported: the classes are public only so that the API package can reach them. Rules
 * that hold for every class: sizes and offsets are in bytes; a close is settled once, by
 * compare-and-set on the lifetime, and closing again does nothing; use after close throws
 * {@link java.lang.IllegalStateException}, its message built by {@code Errors}.
 */
package dev.tensorbuf.memory.internal;
