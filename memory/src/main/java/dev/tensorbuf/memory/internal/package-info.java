/**
 * The implementations behind {@code dev.tensorbuf.memory}'s interfaces: the buffers' making
 * ({@code BufferFactory}; the buffers themselves are package-private in {@code dev.tensorbuf.memory},
 * since {@code MemoryBuffer} is sealed), the lifetimes they share with their slices and
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
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>Errors.java</code></dt>
 * <dd>every message factory of the module</dd>
 * <dt><code>Lifetime.java</code>, <code>Scope.java</code>, <code>PooledLifetime.java</code>,
 *     <code>ForeignLifetime.java</code></dt>
 * <dd>close state shared by a root and its views (CAS close, close site), holds that defer giving
 *     the memory back past a close (<code>MemoryBuffer.hold()</code>), loans (<code>MemoryBuffer.lend()</code>:
 *     a hold counted in the scope under its monitor, where every allocator's close checks
 *     <code>refuseIfLent</code> and marks the scope closed in one step, so a loan racing a close
 *     either refuses the close or is refused), allocator liveness, pool and deleter variants</dd>
 * <dt><code>BufferFactory.java</code></dt>
 * <dd>makes root host and device buffers: <code>MemoryBuffer</code> is sealed, and on the class
 *     path its implementations (<code>AbstractBuffer</code>, <code>HostBuffer</code>,
 *     <code>DeviceBuffer</code>) must share its package, where they are package-private; their
 *     constructors are lent here by <code>AbstractBuffer</code>'s class initializer</dd>
 * <dt><code>ArenaAllocator.java</code></dt>
 * <dd>one FFM arena; a shared one is marked closed before FFM closes it, so allocations racing the
 *     close are refused in the allocator's words; a close while a buffer is lent is refused and
 *     frees nothing</dd>
 * <dt><code>BufferPool.java</code>, <code>Block.java</code>, <code>SizeClasses.java</code></dt>
 * <dd>the pool: free lists under one lock, accounting, limit, eviction; each block its own shared
 *     arena so stale segments fail cleanly. A block being made outside the lock is reserved against
 *     the limit but enters the statistics only with its buffer, so every snapshot is whole; tests
 *     make blocks through a package-private <code>BlockMaker</code> to stop or fail one. Its close
 *     refuses, with the pool untouched, while a buffer is lent</dd>
 * <dt><code>CallSites.java</code></dt>
 * <dd>allocation and close sites via <code>StackWalker</code> (only when leak tracking is on)</dd>
 * </dl>
 */
package dev.tensorbuf.memory.internal;
