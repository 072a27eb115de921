package dev.tensorbuf.bench;

import dev.tensorbuf.interop.NativeMemory;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

/**
 * Where the benchmark cases and their copy baseline get their memory: a
 * {@link NativeMemory#hugePageAllocator()}, as NumPy's arrays (which it advises for huge pages from 4 MiB) and
 * PyTorch's with {@code THP_MEM_ALLOC_ENABLE=1} get theirs, so both sides of the peer comparison
 * run on the same kind of pages. {@code -Dtensorbuf.bench.hugePages=false} takes a plain shared
 * arena instead. Closing frees everything.
 * {@snippet :
 * try (BenchMemory memory = BenchMemory.open();
 *      CopyCase.Prepared p = CopyCase.byName("slice_step2_f32_32x64x112x112").prepare(memory, CopyEngine.of(2))) {
 *     p.run();
 * }
 * }
 */
public final class BenchMemory implements SegmentAllocator, AutoCloseable {
    /** Whether cases get huge-page memory (system property {@code tensorbuf.bench.hugePages}, default true). */
    public static final boolean HUGE_PAGES = !"false".equals(System.getProperty("tensorbuf.bench.hugePages"));

    private final Allocator allocator;

    private BenchMemory(Allocator allocator) {
        this.allocator = allocator;
    }

    /** {@return memory from a huge-page allocator, or from a shared arena when {@link #HUGE_PAGES} is off} */
    public static BenchMemory open() {
        return new BenchMemory(HUGE_PAGES ? NativeMemory.hugePageAllocator() : Allocators.shared());
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        return allocator.allocate(byteSize, byteAlignment).segment();
    }

    @Override
    public void close() {
        allocator.close();
    }
}
