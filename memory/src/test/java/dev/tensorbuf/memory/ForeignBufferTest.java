package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ForeignBufferTest {

    @Test
    void exampleFromJavadoc() {
        AtomicInteger freed = new AtomicInteger();
        MemoryBuffer onGpu = MemoryBuffer.foreign(0x7f00_0000_0000L, 1 << 20, MemorySpace.DEVICE, "cuda", freed::incrementAndGet);
        assertEquals(0x7f0000000000L, onGpu.address());
        assertEquals(0x7f0000001000L, onGpu.slice(4096, 4096).address());
        Expect.throwsWith(UnsupportedOperationException.class,
                "buffer in S(0) device memory (HBM) is not host-accessible; copy it to a host buffer first",
                onGpu::segment);
        onGpu.close();
        onGpu.close();
        assertEquals(1, freed.get());
    }

    @Test
    void deviceBufferViewsRefuseHostAccessToo() {
        MemoryBuffer fast = MemoryBuffer.foreign(0, 256, MemorySpace.DEVICE_FAST, "tpu", () -> {});
        assertEquals(MemorySpace.DEVICE_FAST, fast.memorySpace());
        for (MemoryBuffer view : List.of(fast.slice(0, 128), fast.asReadOnly())) {
            Expect.throwsWith(UnsupportedOperationException.class,
                    "buffer in S(1) on-device fast memory (VMEM) is not host-accessible", view::segment);
        }
        assertEquals(new MemoryBuffer.Owner.Foreign("tpu"), fast.owner());
        fast.close();
    }

    @Test
    void deleterRunsExactlyOnceUnderConcurrentCloses() throws Exception {
        for (int round = 0; round < 50; round++) {
            AtomicInteger freed = new AtomicInteger();
            MemoryBuffer buffer = MemoryBuffer.foreign(64, 64, MemorySpace.DEVICE, "race", freed::incrementAndGet);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    buffer.close();
                }));
            }
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(1, freed.get(), "round " + round);
        }
    }

    @Test
    void aThrowingDeleterStillClosesTheBufferOnce() {
        AtomicInteger calls = new AtomicInteger();
        MemoryBuffer buffer = MemoryBuffer.foreign(0, 8, MemorySpace.DEVICE, "bad", () -> {
            calls.incrementAndGet();
            throw new IllegalStateException("driver says no");
        });
        Expect.throwsWith(IllegalStateException.class, "driver says no", buffer::close);
        assertFalse(buffer.isAlive());
        buffer.close();
        assertEquals(1, calls.get());
    }

    @Test
    void hostSegmentsAreWrappedAndFreedByTheirDeleter() {
        Arena arena = Arena.ofShared();
        MemorySegment segment = arena.allocate(32);
        MemoryBuffer pinned = MemoryBuffer.foreign(segment, MemorySpace.PINNED_HOST, "cudaMallocHost", arena::close);
        pinned.segment().set(ValueLayout.JAVA_INT, 0, 5);
        assertEquals(5, segment.get(ValueLayout.JAVA_INT, 0));
        assertSame(MemorySpace.PINNED_HOST, pinned.memorySpace());
        pinned.close();
        Expect.throwsWith(IllegalStateException.class, "buffer of 32 bytes from foreign owner 'cudaMallocHost' was closed",
                pinned::segment);
        // The segment kept past close fails cleanly because the deleter closed its arena first.
        assertThrows(IllegalStateException.class, () -> segment.get(ValueLayout.JAVA_INT, 0));
    }

    @Test
    void factoriesRefuseTheWrongKindOfSpaceOrMemory() {
        Expect.throwsWith(IllegalArgumentException.class,
                "S(5) host memory is host-accessible: wrap its memory as a MemorySegment",
                () -> MemoryBuffer.foreign(0, 8, MemorySpace.HOST, "x", () -> {}));
        try (Arena arena = Arena.ofConfined()) {
            Expect.throwsWith(IllegalArgumentException.class,
                    "S(0) device memory (HBM) is not host-accessible: describe its memory with MemoryBuffer.foreign(address",
                    () -> MemoryBuffer.foreign(arena.allocate(8), MemorySpace.DEVICE, "x", () -> {}));
        }
        Expect.throwsWith(IllegalArgumentException.class, "segment of 16 bytes is on the Java heap",
                () -> MemoryBuffer.foreign(MemorySegment.ofArray(new byte[16]), MemorySpace.HOST, "x", () -> {}));
        Expect.throwsWith(IllegalArgumentException.class, "byteSize -4 must be >= 0",
                () -> MemoryBuffer.foreign(0, -4, MemorySpace.DEVICE, "x", () -> {}));
        assertThrows(NullPointerException.class, () -> MemoryBuffer.foreign(0, 4, MemorySpace.DEVICE, "x", null));
    }

    /** The review's null owner read "NullPointerException: name", a parameter no caller passed. */
    @Test
    void aNullOwnerIsNamedAsTheOwner() {
        Expect.throwsWith(NullPointerException.class, "owner",
                () -> MemoryBuffer.foreign(0x1000, 8, MemorySpace.DEVICE, null, () -> {}));
        Expect.throwsWith(NullPointerException.class, "owner",
                () -> MemoryBuffer.foreign(Arena.ofAuto().allocate(8), MemorySpace.HOST, null, () -> {}));
    }

    /** The review wrapped a segment of a closed arena: a buffer that said "alive" and threw at its first read. */
    @Test
    void aSegmentWhoseArenaClosedIsRefusedWhenWrapped() {
        Arena arena = Arena.ofConfined();
        MemorySegment gone = arena.allocate(64);
        arena.close();
        Expect.throwsWith(IllegalStateException.class,
                "cannot wrap 64 bytes for foreign owner 'x': the segment's arena is already closed",
                () -> MemoryBuffer.foreign(gone, MemorySpace.HOST, "x", () -> {}));
        assertEquals(0, MemoryBuffer.foreign(MemorySegment.NULL, MemorySpace.HOST, "x", () -> {}).byteSize(),
                "NULL lives in the global arena");
    }
}
