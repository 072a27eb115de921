/**
 * Buffers: byte ranges in one memory space, with allocators that own their lifetimes.
 *
 * <p>Key types: {@link dev.tensorbuf.memory.MemorySpace} (XLA's {@code S(n)}, its kind, device
 * and DLPack device type), {@link dev.tensorbuf.memory.Buffer} (host buffers over a
 * {@link java.lang.foreign.MemorySegment}, device buffers as address and size),
 * {@link dev.tensorbuf.memory.Allocators} (confined and shared arenas, any power-of-two
 * alignment), {@link dev.tensorbuf.memory.PooledAllocator} (reuse, byte limit,
 * {@link dev.tensorbuf.memory.PoolStats}, {@link dev.tensorbuf.memory.LeakReport}) and
 * {@link dev.tensorbuf.memory.Buffers} (memory made elsewhere, freed by a deleter).
 *
 * {@snippet :
 * try (PooledAllocator pool = PooledAllocator.builder().name("staging").build();
 *      Buffer buffer = pool.allocate(4096)) {
 *     buffer.segment().setAtIndex(ValueLayout.JAVA_FLOAT, 3, 1.5f);
 *     buffer.slice(12, 4).segment().get(ValueLayout.JAVA_FLOAT, 0); // 1.5f
 * }
 * }
 *
 * <p>Rules for every method here, not repeated on each:
 * <ul>
 * <li>Sizes, offsets and alignments are in bytes; alignments are powers of two, and a value that
 *     is not one throws {@link java.lang.IllegalArgumentException} naming it.
 * <li>{@code null} arguments throw {@link java.lang.NullPointerException}.
 * <li>A closed buffer or allocator throws {@link java.lang.IllegalStateException} from every
 *     method that reaches its memory, saying which buffer and, where recorded, where it was
 *     closed. Plain facts ({@code byteSize()}, {@code memorySpace()}, {@code owner()},
 *     {@code isAlive()}) stay readable. Nothing here can make the JVM touch freed memory.
 * <li>Closing anything twice does nothing (see {@link dev.tensorbuf.memory.Buffer} for why).
 * <li>Values ({@code MemorySpace}, {@code PoolStats}, {@code LeakReport}, {@code BufferOwner})
 *     are immutable and thread-safe. Pools and shared arenas are thread-safe; confined arenas are
 *     used by one thread. Each class states its rule.
 * <li>No restricted FFM method is called in this module; interop code that makes segments from
 *     native addresses hands them in through {@link dev.tensorbuf.memory.Buffers}.
 * </ul>
 */
package dev.tensorbuf.memory;
