/**
 * Buffers: byte ranges in one memory space, with allocators that own their lifetimes.
 *
 * <p>Key types: {@link dev.tensorbuf.memory.MemorySpace} (XLA's {@code S(n)}, its kind, device
 * and DLPack device type, {@link dev.tensorbuf.memory.MemorySpace.DLDeviceType}),
 * {@link dev.tensorbuf.memory.MemoryBuffer} (host buffers over a
 * {@link java.lang.foreign.MemorySegment}, device buffers as address and size),
 * {@link dev.tensorbuf.memory.Allocators} (confined and shared arenas, any power-of-two
 * alignment), {@link dev.tensorbuf.memory.PooledAllocator} (reuse, byte limit,
 * {@link dev.tensorbuf.memory.PooledAllocator.Stats}, {@link dev.tensorbuf.memory.LeakReport}) and
 * {@code MemoryBuffer.foreign} (memory made elsewhere, freed by a deleter).
 *
 * {@snippet :
 * try (PooledAllocator pool = PooledAllocator.builder().name("staging").build();
 *      MemoryBuffer buffer = pool.allocate(4096)) {
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
 * <li>Closing anything twice does nothing (see {@link dev.tensorbuf.memory.MemoryBuffer} for why).
 * <li>Values ({@code MemorySpace}, {@code PooledAllocator.Stats}, {@code LeakReport}, {@code MemoryBuffer.Owner})
 *     are immutable and thread-safe. Pools and shared arenas are thread-safe; confined arenas are
 *     used by one thread. Each class states its rule.
 * <li>No restricted FFM method is called in this module; interop code that makes segments from
 *     native addresses hands them in through {@link dev.tensorbuf.memory.MemoryBuffer#foreign}.
 * </ul>
 *
 * <p>Sizes and offsets are in bytes. No restricted FFM call is made here: foreign and device memory
 * come in through <code>MemoryBuffer.foreign</code>, called by <code>interop</code>.
 * <code>dev.tensorbuf.memory.internal</code> is exported to <code>interop</code> only, for
 * <code>HugePageAllocator</code>, whose buffers live in a <code>Scope</code> of its own so that its
 * close sees their loans.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>MemorySpace.java</code></dt>
 * <dd>XLA <code>S(n)</code> id, kind (host, pinned host, device, device fast memory, other), device
 *     ordinal, host accessibility, DLPack device type; strict <code>parse("S(1)")</code>. A host
 *     allocation is <code>HOST</code> = S(5); S(0) is XLA's default device memory. The constructor
 *     refuses a space that contradicts itself: a host DLPack type on memory Java may not touch or a
 *     device-only type on memory it may (a consumer trusts the type: the review's device memory
 *     labelled kDLCPU crashed our importer), a kind that contradicts the id, <code>HOST</code> on a
 *     device ordinal other than 0 or a type other than kDLCPU, <code>DEVICE_FAST</code> with a
 *     type. <code>describe()</code> names device memory of a type that may be on either side
 *     (<code>kDLCUDAManaged</code>, <code>kDLOneAPI</code>, <code>kDLExtDev</code>) by its type,
 *     not as HBM; Java keeps away from it all the same, as a kernel may use it meanwhile</dd>
 * <dt><code>MemorySpace.DLDeviceType</code> (nested in <code>MemorySpace.java</code>)</dt>
 * <dd>DLPack device codes (kDLCPU=1 ... kDLMAIA=17, kDLTrn=18), and which side of the bus each
 *     type's memory is on: <code>isHost()</code> (kDLCPU, kDLCUDAHost, kDLROCMHost),
 *     <code>isDeviceOnly()</code> (all but those and the either-side kDLCUDAManaged, kDLOneAPI,
 *     kDLExtDev)</dd>
 * <dt><code>MemoryBuffer.java</code></dt>
 * <dd>a byte range with a lifetime: <code>segment()</code> (host only), slices and read-only views
 *     that die with their root, <code>close()</code> (twice is a no-op),
 *     <code>IllegalStateException</code> after close naming pool and close site;
 *     <code>hold()</code> for Java code keeping a segment, <code>lend()</code> for memory handed
 *     outside Java (a hold that also refuses the allocator's close). Sealed: the buffers are
 *     this module's own (users wrap outside memory with <code>foreign</code>), so a buffer's
 *     lifetime checks and loans hold for every buffer a view or copy meets</dd>
 * <dt><code>AbstractBuffer.java</code>, <code>HostBuffer.java</code>, <code>DeviceBuffer.java</code></dt>
 * <dd>the implementations, package-private here because a sealed type's subclasses share its
 *     package on the class path; <code>internal/BufferFactory</code> makes them for the allocators</dd>
 * <dt><code>MemoryBuffer.Owner</code> (nested in <code>MemoryBuffer.java</code>)</dt>
 * <dd>who frees a buffer: an arena (named by what it serves, e.g. the huge-page allocator's,
 *     through <code>Allocators.shared(name)</code>), a pool, a foreign deleter</dd>
 * <dt><code>Allocator.java</code>, <code>Allocators.java</code></dt>
 * <dd>the allocator contract (default alignment 64), its one out-of-memory wording
 *     (<code>Allocator.cannotReserve</code>, used by allocators of other modules too), and
 *     confined/shared arena allocators</dd>
 * <dt><code>PooledAllocator.java</code></dt>
 * <dd>power-of-two size classes from 64 B, reuse, byte limit (a block counts at least its
 *     alignment, so native memory stays under twice the limit), exact stats, leak report with
 *     allocation sites</dd>
 * <dt><code>PooledAllocator.Stats</code> (nested), <code>LeakReport.java</code>,
 *     <code>AllocationLimitException.java</code></dt>
 * <dd>pool accounting (a buffer closed while held is a free; its block's bytes stay live until the
 *     hold ends), leaks at close (open buffers only), the limit error with requested/live/limit
 *     bytes</dd>
 * <dt><code>MemoryBuffer.foreign</code> (built by <code>internal/ForeignBuffers.java</code>)</dt>
 * <dd>factories for foreign host segments and device memory with a deleter run exactly once;
 *     read-only roots (a read-only segment, or the flag), address ranges checked not to wrap past
 *     2^64; a segment whose arena already closed is refused</dd>
 * </dl>
 */
package dev.tensorbuf.memory;

