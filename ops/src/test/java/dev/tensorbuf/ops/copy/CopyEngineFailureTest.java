package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.memory.Buffers;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.memory.PooledAllocator;
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
            CopyEngine.of(2, false, 0).copy(src, dst);
            Set<Thread> first = copyThreads();
            first.removeAll(before);
            CopyEngine.of(2, false, 0).copy(src, dst);
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
}
