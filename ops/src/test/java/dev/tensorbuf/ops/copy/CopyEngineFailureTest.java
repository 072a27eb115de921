package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The engine's failure paths, as a review of its concurrency and lifetimes found them. */
class CopyEngineFailureTest {
    /**
     * Review F5: of(Integer.MAX_VALUE) was accepted and every large copy then failed with "Requested
     * array size exceeds VM limit"; parallelism times the pieces per thread overflowed past 2^29.
     */
    @Test
    void parallelismAboveTheBoundIsRefusedWhenTheEngineIsMade() {
        for (int p : new int[] {Integer.MAX_VALUE, 1 << 29, CopyEngine.MAX_PARALLELISM + 1}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.of(p));
            assertTrue(e.getMessage().contains("parallelism " + p + " is above the most an engine may have, 4096"),
                    e.getMessage());
        }
        assertEquals(CopyEngine.MAX_PARALLELISM, CopyEngine.of(CopyEngine.MAX_PARALLELISM).parallelism());
    }

    /** Review F5: every engine's first helper was "tensorbuf-copy-0", so thread dumps could not tell them apart. */
    @Test
    void eachEngineNamesItsHelperThreadsItsOwnWay() {
        try (Arena arena = Arena.ofShared()) {
            Access src = Access.strided(arena.allocate(4 * 4096), DType.F32, StridedLayout.packed(4096));
            Access dst = Access.strided(arena.allocate(4 * 4096), DType.F32, StridedLayout.packed(4096));
            Set<Thread> before = copyThreads();
            AccessCopies.copy(CopyEngine.of(2, false, 0), src, dst);
            Set<Thread> first = copyThreads();
            first.removeAll(before);
            AccessCopies.copy(CopyEngine.of(2, false, 0), src, dst);
            Set<Thread> second = copyThreads();
            second.removeAll(before);
            second.removeAll(first);
            assertEquals(1, first.size(), "the first engine's helper: " + first);
            assertEquals(1, second.size(), "the second engine's helper: " + second);
            String one = first.iterator().next().getName();
            String two = second.iterator().next().getName();
            assertFalse(one.equals(two), one + " and " + two);
            assertTrue(one.matches("tensorbuf-copy-\\d+-0") && two.matches("tensorbuf-copy-\\d+-0"), one + ", " + two);
        }
    }

    private static Set<Thread> copyThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("tensorbuf-copy-"))
                .collect(Collectors.toCollection(HashSet::new));
    }

    /**
     * Review F4: the raw-access materialize overloads left their new buffer open when the copy
     * failed, and the caller never got it to close (the view overloads closed theirs).
     */
    @Test
    void aFailedMaterializeOfARawAccessClosesItsBuffer() {
        try (Arena arena = Arena.ofConfined();
             PooledAllocator pool = PooledAllocator.builder().name("materialize").build()) {
            MemorySegment bytes = arena.allocate(4 * 4);
            bytes.setAtIndex(ValueLayout.JAVA_FLOAT, 3, Float.NaN);
            Access src = Access.strided(bytes, DType.F32, StridedLayout.packed(2, 2));
            IllegalArgumentException strided = assertThrows(IllegalArgumentException.class,
                    () -> CopyEngine.of(1).materialize(src, DType.S32, StridedLayout.packed(2, 2), pool));
            assertTrue(strided.getMessage().contains("NaN"), strided.getMessage());
            assertEquals(0, pool.stats().liveCount(), pool.stats().toString());
            assertThrows(IllegalArgumentException.class,
                    () -> CopyEngine.of(1).materialize(src, (ArrayShape) XlaShape.parse("s32[2,2]{1,0}"), pool));
            assertEquals(0, pool.stats().liveCount(), pool.stats().toString());
        }
    }

    @Test
    void aReadOnlyRawDestinationIsNamedByTypeDimsAndSize() {
        try (Arena arena = Arena.ofConfined()) {
            Access src = Access.strided(arena.allocate(4 * 6), DType.F32, StridedLayout.packed(2, 3));
            Access dst = Access.strided(arena.allocate(2 * 6).asReadOnly(), DType.BF16, StridedLayout.packed(2, 3));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AccessCopies.copy(CopyEngine.of(1), src, dst));
            assertEquals("cannot copy into bf16[2, 3]: its segment (12 bytes) is read-only", e.getMessage());
        }
    }

    /**
     * Review F6: engine copies and materialize of a confined arena's view on another thread threw
     * FFM's bare "Attempted access outside owning thread", naming neither the view nor the side.
     */
    @Test
    void aConfinedViewCopiedOnAnotherThreadNamesTheViewTheSideAndTheThread() throws Exception {
        try (Allocator confined = Allocators.confined(); Allocator shared = Allocators.shared()) {
            TensorView mine = TensorView.strided(confined.allocate(4 * 64), DType.F32, StridedLayout.packed(64));
            TensorView open = TensorView.strided(shared.allocate(4 * 64), DType.F32, StridedLayout.packed(64));
            Access raw = Access.strided(mine.buffer().segment(), DType.F32, StridedLayout.packed(64));
            Access openRaw = Access.strided(open.buffer().segment(), DType.F32, StridedLayout.packed(64));
            CopyEngine engine = CopyEngine.of(1);
            String read = onAnotherThread("reader", () -> engine.copy(mine, open));
            assertTrue(read.startsWith("the copy cannot read its source " + mine + " from thread \"reader\": its memory"
                    + " belongs to a confined arena"), read);
            assertTrue(read.contains("(use Allocators.shared() or a pool to share buffers between threads)"), read);
            String write = onAnotherThread("writer", () -> engine.copy(open, mine));
            assertTrue(write.startsWith("the copy cannot write its destination " + mine + " from thread \"writer\""), write);
            String materialize = onAnotherThread("materializer",
                    () -> engine.materialize(mine, DType.BF16, StridedLayout.packed(64), shared));
            assertTrue(materialize.startsWith("the copy cannot read its source " + mine + " from thread \"materializer\""),
                    materialize);
            Throwable once = onAnotherThreadThrown("once", () -> engine.copy(mine, open));
            assertInstanceOf(WrongThreadException.class, once);
            assertFalse(once.getCause().getMessage().startsWith("the copy cannot"),
                    "named once, over FFM's own exception: " + once.getCause());
            String rawRead = onAnotherThread("raw", () -> AccessCopies.copy(engine, raw, openRaw));
            assertTrue(rawRead.startsWith("the copy cannot read its source (f32[64], 256 bytes) from thread \"raw\""), rawRead);
        }
    }

    /** {@return the message of the WrongThreadException {@code copy} throws on a new thread named {@code name}} */
    private static String onAnotherThread(String name, Runnable copy) throws InterruptedException {
        Throwable thrown = onAnotherThreadThrown(name, copy);
        assertInstanceOf(WrongThreadException.class, thrown);
        return thrown.getMessage();
    }

    /** {@return what {@code copy} throws on a new thread named {@code name}} */
    private static Throwable onAnotherThreadThrown(String name, Runnable copy) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofPlatform().name(name).start(() -> {
            try {
                copy.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.join();
        return thrown.get();
    }

    @Test
    void aBufferClosedBeforeTheCopyIsNamedWithItsSide() {
        try (Allocator shared = Allocators.shared()) {
            TensorView src = TensorView.strided(shared.allocate(16), DType.F32, StridedLayout.packed(4));
            TensorView dst = TensorView.strided(shared.allocate(16), DType.F32, StridedLayout.packed(4));
            dst.buffer().close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> CopyEngine.of(1).copy(src, dst));
            assertTrue(e.getMessage().startsWith("the destination " + dst + " cannot be copied: buffer of 16 bytes"),
                    e.getMessage());
        }
    }

    /**
     * Review F7: a copy from a buffer whose arena had closed called it "alive" in the message
     * saying it lost its memory (a foreign buffer does not know its arena closed; an arena
     * allocator's buffer did not either while the allocator was closing).
     */
    @Test
    void aSourceWhoseArenaClosedIsNotCalledAlive() {
        Arena arena = Arena.ofShared();
        MemoryBuffer foreign = MemoryBuffer.foreign(arena.allocate(4 * 16), MemorySpace.HOST, "native-lib", () -> { });
        arena.close();
        try (Allocator shared = Allocators.shared()) {
            TensorView src = TensorView.strided(foreign, DType.F32, StridedLayout.packed(16));
            TensorView dst = TensorView.strided(shared.allocate(4 * 16), DType.F32, StridedLayout.packed(16));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> CopyEngine.of(1).copy(src, dst));
            assertTrue(e.getMessage().contains("lost its memory during the copy: the arena of its buffer (64 bytes from"
                    + " foreign owner 'native-lib') closed"), e.getMessage());
            assertFalse(e.getMessage().contains("alive"), e.getMessage());
        }
    }

    /**
     * Review F3: a foreign source closed by another thread during a copy was given back when the
     * copy's hold ended, and its deleter threw there: the copy that had completed threw it, and
     * the holds after it (the pooled destination's) never ended, so that block never went back
     * to the pool. Whether the close lands inside the copy is up to the scheduler, so up to 20
     * trials run until one does.
     */
    @Test
    void aDeleterThatThrowsWhenTheCopyLetsGoEndsEveryHoldAndTheCopyStillCompletes() throws Exception {
        int n = 1 << 20;
        try (PooledAllocator pool = PooledAllocator.builder().name("held").largestSizeClass(1L << 30).build()) {
            for (int trial = 0; trial < 20; trial++) {
                Arena arena = Arena.ofShared();
                AtomicInteger deletes = new AtomicInteger();
                MemoryBuffer src = MemoryBuffer.foreign(arena.allocate(4L * n, 64), MemorySpace.HOST, "native-lib", () -> {
                    deletes.incrementAndGet();
                    arena.close();
                    throw new IllegalStateException("native free failed (simulated)");
                });
                MemoryBuffer dst = pool.allocate(2L * n);
                MemorySegment out = dst.segment();
                out.fill((byte) 0x7f);
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                TensorView s = TensorView.strided(src, DType.F32, StridedLayout.packed(n));
                TensorView d = TensorView.strided(dst, DType.BF16, StridedLayout.packed(n));
                Thread copier = Thread.ofPlatform().start(() -> {
                    try {
                        CopyEngine.of(1, false).copy(s, d); // scalar and on one thread: slow enough to close during
                    } catch (Throwable e) {
                        thrown.set(e);
                    }
                });
                // Once the copy writes, it holds both buffers.
                while (out.get(ValueLayout.JAVA_BYTE, 0) == 0x7f && copier.isAlive()) {
                    Thread.onSpinWait();
                }
                boolean deferred;
                try {
                    src.close();
                    deferred = deletes.get() == 0;
                } catch (IllegalStateException ranHere) {
                    deferred = false; // the copy had ended: the deleter ran on this close
                }
                copier.join();
                dst.close();
                if (deferred) {
                    assertNull(thrown.get(), "the copy completed; the deleter's failure is the close's");
                    assertEquals(1, deletes.get());
                    // A buffer closed while held leaves liveCount at once but keeps its bytes live until the hold ends.
                    assertEquals(0, pool.stats().liveBytes(), "every hold ended: " + pool.stats());
                    return;
                }
            }
            Assumptions.abort("no close landed inside the copy in 20 trials");
        }
    }
}
