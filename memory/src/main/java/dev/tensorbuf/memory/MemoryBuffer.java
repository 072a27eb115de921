package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.ForeignBuffers;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A byte range in one memory space, with a lifetime. Host-accessible buffers wrap a
 * {@link MemorySegment}; device buffers carry only an address, a size and an owner, and refuse
 * host access.
 *
 * <p><b>Lifetime.</b> A buffer made by an allocator or {@link #foreign} is a <em>root</em>: closing
 * it gives its memory back to its {@link #owner()}. {@link #slice} and {@link #asReadOnly} make
 * views that share the root's lifetime: they die with it and cannot be closed themselves. Every
 * method that reaches the memory ({@link #segment()}, {@link #address()}, {@link #isAligned},
 * {@link #slice}, {@link #asReadOnly()}) of a closed buffer or view, or of a buffer whose
 * allocator has closed, throws {@link IllegalStateException} saying which buffer it was and,
 * where recorded, where it was closed; it can never touch freed memory. Plain facts
 * ({@link #byteSize()}, {@link #memorySpace()}, {@link #owner()}, {@link #isAlive()}) stay
 * readable for messages.
 *
 * <p><b>Closing twice</b> does nothing. This is a deliberate design choice, unlike
 * {@link java.lang.foreign.Arena#close()}: a buffer is a handle, and a closed handle can never
 * free memory again, even when a pool has already recycled that memory into a new buffer, so a
 * second close (a {@code try}-with-resources after an error path, or after the pool closed) is
 * harmless and reporting it would only turn clean-up code into failures.
 *
 * <p><b>Raw segments alias recycled memory.</b> The segment returned by {@link #segment()} is
 * not revoked when a <em>pooled</em> buffer closes: its memory stays allocated in the pool and
 * is handed to later allocations, so a segment kept past {@code close()} reads and writes
 * someone else's data. It does become inaccessible (FFM throws {@link IllegalStateException})
 * once the pool frees that memory, so the JVM never crashes. Revoking it earlier would need
 * restricted FFM methods. Keep the {@code MemoryBuffer}, not the segment.
 *
 * <p><b>Threads.</b> Closing is atomic: exactly one {@code close()} of a root frees it, from any
 * thread. Reading the bytes from several threads follows the rules of the underlying segment: a
 * buffer of a confined arena is for its owner thread only. From any other thread
 * {@link #address()}, {@link #isAligned}, {@link #slice}, {@link #asReadOnly()} and
 * {@link #segment()} throw {@link WrongThreadException} naming the buffer and the thread
 * ({@code segment()} by one compare with the thread the buffer was made on, as views call it per
 * element). A segment taken on the owner thread and handed on throws FFM's own exception.
 *
 * <p>The implementations are this module's, and the interface is sealed (its implementations
 * live in this package, package-private, as a seal on the class path needs); get a buffer from an
 * {@link Allocator}, {@link #foreign} or a wrapper such as {@code NativeMemory}. Views and the copy
 * engine rely on every contract stated here and check none of it (that a segment taken under a
 * {@link #hold()} stays backed by this memory until the hold ends, even if the buffer is closed;
 * that a closed buffer refuses a hold; that slices and read-only views share their root's
 * lifetime).
 *
 * {@snippet :
 * try (Allocator arena = Allocators.confined();
 *      MemoryBuffer buffer = arena.allocate(256)) {        // 64-byte aligned, zeroed
 *     MemoryBuffer tail = buffer.slice(192, 64);
 *     tail.segment().set(ValueLayout.JAVA_INT, 0, 7);
 *     buffer.segment().get(ValueLayout.JAVA_INT, 192); // 7
 *     tail.isAligned(64);                               // true
 *     buffer.asReadOnly().segment().isReadOnly();       // true
 *     buffer.memorySpace();                             // MemorySpace.HOST, S(5)
 * }
 * }
 */
public sealed interface MemoryBuffer extends AutoCloseable permits AbstractBuffer {

    /**
     * {@return a root buffer of {@code byteSize} bytes at {@code address} in a space Java cannot
     * touch, over memory made elsewhere (DLPack, CUDA, native libraries)} The deleter frees the
     * memory and is run exactly once, by the buffer's first {@link #close()}; a buffer never
     * closed never runs it.
     * {@snippet :
     * AtomicInteger freed = new AtomicInteger();
     * MemoryBuffer onGpu = MemoryBuffer.foreign(0x7f00_0000_0000L, 1 << 20, MemorySpace.DEVICE, "cuda",
     *         freed::incrementAndGet);
     * onGpu.address();           // 0x7f0000000000L
     * onGpu.slice(4096, 4096).address(); // 0x7f0000001000L
     * onGpu.segment();           // UnsupportedOperationException: "buffer in S(0) device memory (HBM)
     *                            // is not host-accessible; copy it to a host buffer first"
     * onGpu.close();
     * onGpu.close();             // does nothing
     * freed.get();               // 1
     * }
     *
     * @param address the device address (any 64-bit value; it is never dereferenced here)
     * @param byteSize the size in bytes, {@code >= 0}
     * @param space where the memory is; must not be host-accessible
     * @param owner names the owner in messages, e.g. {@code "dlpack"}
     * @param deleter frees the memory; run exactly once, on the first close
     * @throws IllegalArgumentException if {@code byteSize < 0}, the range runs past the end of the
     *     64-bit address space, or {@code space} is host-accessible (wrap a segment with
     *     {@link #foreign(MemorySegment, MemorySpace, String, Runnable)})
     */
    static MemoryBuffer foreign(long address, long byteSize, MemorySpace space, String owner, Runnable deleter) {
        return ForeignBuffers.foreign(address, byteSize, space, owner, deleter);
    }

    /**
     * {@return a root buffer as {@link #foreign(long, long, MemorySpace, String, Runnable)}, read-only
     * when the owner forbids writes} Views of a read-only buffer refuse writes, and copies refuse
     * it as a destination.
     *
     * @param readOnly whether the owner forbids writes (a DLPack producer's {@code READ_ONLY})
     */
    static MemoryBuffer foreign(long address, long byteSize, MemorySpace space, String owner, boolean readOnly,
                                Runnable deleter) {
        return ForeignBuffers.foreign(address, byteSize, space, owner, readOnly, deleter);
    }

    /**
     * {@return a root buffer over a native segment in a host-accessible space; read-only when the
     * segment is}
     *
     * <p>This module calls no restricted FFM method: the interop classes that turn a native address
     * into a {@link MemorySegment} ({@code reinterpret}) do that themselves and hand the segment in.
     * They should scope that segment to an {@link java.lang.foreign.Arena} that the deleter closes
     * <em>before</em> freeing the memory, so that a segment kept past close throws instead of reading
     * freed memory.
     *
     * @param segment the bytes; should be scoped to an arena that the deleter closes first
     * @param space where the memory is; must be host-accessible
     * @param owner names the owner in messages, e.g. {@code "dlpack"}
     * @param deleter frees the memory; run exactly once, on the first close
     * @throws IllegalArgumentException if the segment is not native or {@code space} is not
     *     host-accessible (use {@link #foreign(long, long, MemorySpace, String, Runnable)})
     * @throws IllegalStateException if the segment's arena is already closed: its memory is gone
     */
    static MemoryBuffer foreign(MemorySegment segment, MemorySpace space, String owner, Runnable deleter) {
        return ForeignBuffers.foreign(segment, space, owner, deleter);
    }

    /** {@return the memory space the bytes live in} */
    MemorySpace memorySpace();

    /** {@return the size in bytes (the requested size, not a pool's rounded block size)} */
    long byteSize();

    /** {@return who frees the memory (for a view: its root's owner)} */
    Owner owner();

    /** {@return whether this buffer, its root and its allocator are all still open} */
    boolean isAlive();

    /** {@return whether writes through this buffer are refused} */
    boolean isReadOnly();

    /** {@return whether this buffer owns its memory, i.e. is not a slice or read-only view} */
    boolean isRoot();

    /**
     * {@return the bytes as a segment of exactly {@link #byteSize()} bytes; read-only for
     * read-only buffers}
     *
     * @throws IllegalStateException if the buffer is closed
     * @throws UnsupportedOperationException if the memory space is not host-accessible, e.g.
     *     {@code "buffer in S(0) device memory (HBM) is not host-accessible; copy it to a host
     *     buffer first"}
     * @throws WrongThreadException if the buffer is a confined arena's and this is not its thread
     */
    MemorySegment segment();

    /**
     * {@return the address of the first byte: the native address for host buffers, the device
     * address for device buffers}
     *
     * @throws IllegalStateException if the buffer is closed
     */
    long address();

    /**
     * {@return whether {@link #address()} is a multiple of {@code alignment}}
     *
     * @param alignment a power of two, in bytes
     * @throws IllegalArgumentException if {@code alignment} is not a power of two
     * @throws IllegalStateException if the buffer is closed
     */
    boolean isAligned(long alignment);

    /**
     * {@return a view of {@code length} bytes starting at {@code offset}, sharing this buffer's
     * lifetime and read-only state}
     *
     * @param offset the first byte of the view, from the start of this buffer
     * @param length the size of the view in bytes
     * @throws IndexOutOfBoundsException if {@code offset < 0}, {@code length < 0} or
     *     {@code offset + length > byteSize()}
     * @throws IllegalStateException if the buffer is closed
     */
    MemoryBuffer slice(long offset, long length);

    /**
     * {@return a read-only view of this buffer, sharing its lifetime}
     *
     * @throws IllegalStateException if the buffer is closed
     */
    MemoryBuffer asReadOnly();

    /**
     * {@return a hold on this buffer's memory} While a hold lasts, closing the buffer marks it
     * closed (every accessor throws) but gives its memory back only when the last hold ends: a
     * pool does not hand the block to its next user, a foreign deleter does not run. Code that
     * keeps the raw {@link #segment()} for a while, as a copy on other threads does, holds the
     * buffer so that a close meanwhile cannot make it write into memory someone else owns.
     * Closing the allocator itself still frees the memory (the segment then throws, so Java
     * code fails cleanly); memory handed to code outside Java, which cannot be stopped that way,
     * is {@linkplain #lend() lent} instead.
     * {@snippet :
     * try (MemoryBuffer.Hold hold = buffer.hold()) {
     *     MemorySegment bytes = buffer.segment();
     *     // ... write bytes, while another thread may close the buffer
     * } // a close meanwhile gives the memory back here
     * }
     *
     * @throws IllegalStateException if the buffer is closed
     */
    Hold hold();

    /**
     * {@return a loan of this buffer's memory to code outside Java} A loan is a {@link #hold()}
     * and more: while any loan on a buffer lasts, closing the buffer's allocator is refused with
     * an {@link IllegalStateException} naming the allocator, how many of its buffers are lent and
     * their bytes; the allocator stays open and usable, and a close after the last loan ends
     * frees everything. A hold is enough for Java code, which gets an exception when the
     * allocator frees the memory under it; a native consumer (a DLPack importer, a C library
     * keeping a pointer) gets no exception and would read freed memory, or crash the JVM. An
     * in-place DLPack export lends its buffer until the consumer calls the deleter. Foreign
     * buffers ({@link MemoryBuffer#foreign}) have no allocator to refuse: their loan is a hold, and the
     * deleter waits for it.
     * {@snippet :
     * Allocator arena = Allocators.shared();
     * MemoryBuffer pixels = arena.allocate(1 << 20);
     * MemoryBuffer.Hold loan = pixels.lend();
     * nativeLibrary.keep(pixels.address());   // C keeps the pointer
     * arena.close();  // IllegalStateException: "cannot close shared arena allocator (default
     *                 // alignment 64, open): 1 of its buffers (1048576 bytes) is lent outside
     *                 // Java (...); nothing was freed and it stays open: end the loans ..."
     * nativeLibrary.release();                // C is done with it
     * loan.close();
     * arena.close();  // frees everything
     * }
     *
     * @throws IllegalStateException if the buffer is closed, or its allocator is (a loan racing
     *     the allocator's close either comes first, and the close is refused, or is refused)
     */
    Hold lend();

    /**
     * A hold or a loan on a buffer's memory, ended by {@link #close()} (once; later calls do
     * nothing).
     */
    interface Hold extends AutoCloseable {
        /**
         * Ends the hold. When it is the last hold on a buffer closed while it lasted, the memory
         * goes back here, on this thread: to the pool, or to the foreign deleter.
         *
         * @throws RuntimeException whatever that deleter throws; the hold has ended anyway, and
         *     the deleter is not run again
         */
        @Override
        void close();
    }

    /**
     * Gives the memory back to its owner: to the pool, to the arena (freed when the arena
     * closes), or to the foreign deleter (run exactly once). Closing an already closed buffer
     * does nothing (see the class comment for why).
     *
     * @throws UnsupportedOperationException if this is a view ({@link #isRoot()} is false): close
     *     the root instead
     * @throws RuntimeException whatever a foreign deleter throws; the buffer is closed anyway and
     *     the deleter is not run again. While a {@link #hold()} lasts the deleter does not run
     *     here: it runs when the last hold ends, and its exception comes out of that
     *     {@link Hold#close()}
     */
    @Override
    void close();

    /**
     * Who frees a buffer's memory when it closes: an arena allocator, a pool, or a foreign deleter
     * (DLPack, a native library). It names the owner in messages.
     *
     * {@snippet :
     * try (PooledAllocator pool = PooledAllocator.builder().name("staging").build();
     *      MemoryBuffer buffer = pool.allocate(4096)) {
     *     buffer.owner();            // new Owner.Pool("staging")
     *     buffer.owner().toString(); // "pool 'staging'"
     * }
     * }
     */
    public sealed interface Owner {

        /**
         * An {@link Allocators} arena: the memory is freed when the allocator closes.
         *
         * @param shared whether the arena is shared ({@link Allocators#shared()}) or confined
         * @param name what the arena serves ({@link Allocators#shared(String)}), or {@code ""} for a
         *     plain arena; an allocator built over an arena names itself here, so its messages do not
         *     speak of an arena its caller never made
         */
        record Arena(boolean shared, String name) implements Owner {
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
        record Pool(String name) implements Owner {
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
         * Memory made elsewhere ({@link MemoryBuffer#foreign}): closing the buffer runs its deleter once.
         *
         * @param name what made it, e.g. {@code "dlpack"}
         */
        record Foreign(String name) implements Owner {
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
}
