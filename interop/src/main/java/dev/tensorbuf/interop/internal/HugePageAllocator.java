package dev.tensorbuf.interop.internal;

import dev.tensorbuf.memory.internal.BufferFactory;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.memory.internal.ArenaAllocator;
import dev.tensorbuf.memory.internal.ForeignLifetime;
import dev.tensorbuf.memory.internal.Scope;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Host buffers whose large allocations ask Linux for transparent huge pages, as NumPy does for
 * its arrays. A buffer of at least {@link #THRESHOLD_BYTES} is a mapping of its own, aligned to
 * {@link #HUGE_PAGE_BYTES} and advised {@code MADV_HUGEPAGE} before any page is touched, so the
 * kernel can back it with 2 MiB pages where it has them (with
 * {@code /sys/kernel/mm/transparent_hugepage/enabled} at {@code madvise} or {@code always}).
 * Smaller buffers, and every buffer where this is not Linux, come from a shared arena that names
 * this allocator as its owner ({@code "shared arena of huge-page allocator"}).
 *
 * <p>Why: kernels that write with ordinary stores (transposes, tilings, fills) spend part of
 * their time on 4 KiB page walks. On the reference machine 512-bit stores wrote 100 MB at
 * 24.7-26.5 GB/s with huge pages against 20.8-22.3 without (bench/RESULTS.md). The copy stub's
 * streaming stores gained nothing.
 *
 * <p>Every buffer is zeroed (fresh mappings are). Closing a large buffer unmaps its memory at
 * once (or when the last {@link MemoryBuffer#hold()} on it ends); closing the allocator closes the
 * buffers still open and frees all memory, held buffers' included, unless a buffer is lent
 * ({@link MemoryBuffer#lend()}, e.g. an in-place DLPack export): then the close is refused and frees
 * nothing. Thread-safe.
 * The JVM needs {@code --enable-native-access} (see {@link dev.tensorbuf.interop.NativeMemory}).
 * {@snippet :
 * try (HugePageAllocator allocator = HugePageAllocator.open()) {
 *     MemoryBuffer image = allocator.allocate(32L * 64 * 112 * 112 * 4); // 103 MB, zeroed
 *     image.isAligned(HugePageAllocator.HUGE_PAGE_BYTES);           // true
 *     allocator.advisedBytes();   // 102760448 where the kernel took the advice
 *     image.close();              // unmapped here
 * }
 * }
 */
public final class HugePageAllocator implements Allocator {
    /** Smallest buffer that gets a mapping of its own: NumPy's threshold for the same advice. */
    public static final long THRESHOLD_BYTES = 4L << 20;
    /** The huge page size on x86-64 and on arm64 with 4 KiB base pages. */
    public static final long HUGE_PAGE_BYTES = 2L << 20;
    private static final long PAGE_BYTES = 4096;
    private static final String OWNER = "huge-page allocator";

    /**
     * The scope of every buffer, small and large: loans on either are counted here, so that one
     * check under its monitor refuses a close while any is lent, before anything is freed.
     */
    private final Scope scope = new Scope();
    private final Allocator small;
    /** The large buffers whose memory is still mapped, by mapping address. */
    private final Map<Long, Mapping> large = new ConcurrentHashMap<>();
    private final Object closing = new Object();
    private volatile boolean open = true;

    /**
     * One large buffer's mapping, freed once: by the buffer's close (or the end of the last hold
     * on it), or by the allocator's close, whichever comes first. Both may come, as a held buffer
     * closes with the allocator and its hold ends later; the second must not unmap an address the
     * kernel may have handed to someone else since.
     */
    private final class Mapping {
        final long base;
        final long length;
        final Arena scope;
        final boolean advised;
        MemoryBuffer buffer;
        /** Guarded by {@code this}. */
        private boolean freed;

        Mapping(long base, long length, Arena scope, boolean advised) {
            this.base = base;
            this.length = length;
            this.scope = scope;
            this.advised = advised;
        }

        /**
         * @throws IllegalStateException if a native call still holds the segment: nothing is
         *     freed, and a later call may try again
         */
        synchronized void free() {
            if (freed) {
                return;
            }
            scope.close(); // first: a kept segment must throw, not read unmapped memory
            freed = true;
            AnonymousMapping.unmap(base, length);
            large.remove(base);
        }
    }

    private HugePageAllocator() {
        // As Allocators.shared(OWNER) makes it, in this allocator's scope.
        small = new ArenaAllocator(true, DEFAULT_ALIGNMENT, OWNER, scope);
    }

    /** {@return a new allocator; buffers of at least {@link #THRESHOLD_BYTES} get huge pages where Linux grants them} */
    public static HugePageAllocator open() {
        return new HugePageAllocator();
    }

    /** {@return whether large buffers are mappings of their own here (Linux), rather than arena memory} */
    public static boolean available() {
        return AnonymousMapping.available();
    }

    @Override
    public MemorySpace memorySpace() {
        return MemorySpace.HOST;
    }

    @Override
    public long defaultAlignment() {
        return DEFAULT_ALIGNMENT;
    }

    /** {@return the bytes of the open large buffers whose huge-page advice the kernel took} */
    public long advisedBytes() {
        return large.values().stream().filter(m -> m.advised).mapToLong(m -> m.buffer.byteSize()).sum();
    }

    @Override
    public MemoryBuffer allocate(long byteSize, long alignment) {
        if (byteSize < 0) {
            throw new IllegalArgumentException("byteSize " + byteSize + " must be >= 0");
        }
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment " + alignment + " is not a power of two");
        }
        if (!open) {
            throw new IllegalStateException(this + " cannot allocate");
        }
        if (byteSize < THRESHOLD_BYTES || !AnonymousMapping.available()) {
            return allocateSmall(byteSize, alignment);
        }
        long align = Math.max(alignment, HUGE_PAGE_BYTES);
        long used;
        long length;
        try {
            used = Math.addExact(byteSize, PAGE_BYTES - 1) & -PAGE_BYTES;
            // Room to move the start up to the alignment.
            length = Math.addExact(used, align - PAGE_BYTES);
        } catch (ArithmeticException e) {
            throw cannotReserve(byteSize, alignment);
        }
        long base = AnonymousMapping.map(length);
        if (base == -1) {
            throw cannotReserve(byteSize, alignment);
        }
        long start = (base + align - 1) & -align;
        boolean tookAdvice = AnonymousMapping.adviseHugePages(start, used);
        Arena segmentScope = Arena.ofShared();
        Mapping mapping = new Mapping(base, length, segmentScope, tookAdvice);
        MemoryBuffer buffer;
        try {
            MemorySegment bytes = RestrictedNative.segment(start, byteSize, segmentScope);
            // MemoryBuffer.foreign's buffer, but in this allocator's scope, where its loans count.
            buffer = BufferFactory.host(new ForeignLifetime(OWNER, byteSize, scope, mapping::free), MemorySpace.HOST, bytes);
        } catch (RuntimeException | Error e) {
            segmentScope.close();
            AnonymousMapping.unmap(base, length);
            throw e;
        }
        mapping.buffer = buffer;
        // Registered and checked under close's lock: a close between the check above and here
        // would otherwise walk past this buffer and leave it mapped after returning.
        synchronized (closing) {
            if (open) {
                large.put(base, mapping);
                return buffer;
            }
        }
        buffer.close();
        throw new IllegalStateException(this + " cannot allocate: it closed during the allocation");
    }

    /** From the arena, in this allocator's words when it fails: the caller never made a shared arena. */
    private MemoryBuffer allocateSmall(long byteSize, long alignment) {
        try {
            return small.allocate(byteSize, alignment);
        } catch (IllegalStateException e) {
            if (!open) {
                throw new IllegalStateException(this + " cannot allocate: it closed during the allocation", e);
            }
            throw e;
        } catch (OutOfMemoryError e) {
            OutOfMemoryError named = cannotReserve(byteSize, alignment);
            named.initCause(e);
            throw named;
        }
    }

    private OutOfMemoryError cannotReserve(long byteSize, long alignment) {
        return Allocator.cannotReserve(byteSize, alignment, this);
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /**
     * Closes the large buffers still open and unmaps every large buffer's memory, held ones
     * ({@link MemoryBuffer#hold()}) included: a segment kept under a hold then throws, as a buffer of a
     * closed arena allocator does. Frees the small ones.
     *
     * @throws IllegalStateException if a buffer, large or small, is lent ({@link MemoryBuffer#lend()}):
     *     nothing is freed and the allocator stays open; or if a buffer cannot be freed because a
     *     native call still holds its segment: the others are freed, and that one stays mapped (a
     *     leak, never a crash)
     */
    @Override
    public void close() {
        synchronized (closing) {
            if (!open) {
                return;
            }
            // Loans are taken under the scope's monitor: checked and closed in one step, a loan
            // either came first (and nothing is freed) or finds every buffer closed.
            synchronized (scope) {
                scope.refuseIfLent(this.toString());
                open = false; // first: a small allocation that meets the closed scope then says it is ours
                scope.close();
            }
            List<RuntimeException> failures = new ArrayList<>();
            for (Mapping m : List.copyOf(large.values())) {
                try {
                    m.buffer.close(); // frees it, unless a hold defers that to the hold's end
                    m.free();         // so free it here, held or not
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }
            small.close();
            if (!failures.isEmpty()) {
                IllegalStateException e = new IllegalStateException(this + ": " + failures.size()
                        + " buffer(s) could not close", failures.getFirst());
                failures.stream().skip(1).forEach(e::addSuppressed);
                throw e;
            }
        }
    }

    @Override
    public String toString() {
        return OWNER + " (" + (open ? "open" : "closed") + ", " + large.size() + " large buffer(s) open)";
    }
}
