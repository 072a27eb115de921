package dev.tensorbuf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ParallelCopyTest {
    @Test
    void everyByteArrivesWhateverTheSizeAndThreadCount() {
        try (Arena arena = Arena.ofShared()) {
            for (long size : new long[] {0, 1, 63, 64, 65, 1000, 4097, 1 << 20}) {
                for (int threads = 1; threads <= 3; threads++) {
                    MemorySegment src = arena.allocate(Math.max(1, size)).asSlice(0, size);
                    MemorySegment dst = arena.allocate(Math.max(1, size)).asSlice(0, size);
                    for (long i = 0; i < size; i++) {
                        src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + threads));
                    }
                    try (ParallelCopy copy = new ParallelCopy(src, dst, threads)) {
                        assertEquals(threads, copy.threads());
                        for (int round = 0; round < 3; round++) {
                            dst.fill((byte) 0);
                            copy.run();
                            assertEquals(-1, src.mismatch(dst), size + " bytes on " + threads + " threads, round " + round);
                        }
                    }
                }
            }
        }
    }

    @Test
    void confinedSegmentsAreRefusedAndAFailedPartEndsTheRunInsteadOfHangingIt() {
        // Review: a helper that could not touch a confined segment died, and run() spun forever.
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment a = confined.allocate(1 << 20);
            MemorySegment b = confined.allocate(1 << 20);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ParallelCopy(a, b, 2));
            assertEquals("a copy on 2 threads needs segments every thread can use, but src is confined to its arena's"
                    + " thread; allocate both from Arena.ofShared() or Arena.global()", e.getMessage());
            try (ParallelCopy one = new ParallelCopy(a, b, 1)) { // the caller alone may use them
                one.run();
            }
        }
        Arena shared = Arena.ofShared();
        MemorySegment a = shared.allocate(1 << 20);
        MemorySegment b = shared.allocate(1 << 20);
        try (ParallelCopy copy = new ParallelCopy(a, b, 2)) {
            copy.run();
            shared.close();
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(IllegalStateException.class, copy::run));
        }
    }

    @Test
    void closeEndsTheHelpers() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment a = arena.allocate(4096);
            MemorySegment b = arena.allocate(4096);
            ParallelCopy copy = new ParallelCopy(a, b, 3);
            copy.run();
            copy.close();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (helpersAlive() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, helpersAlive());
        }
    }

    @Test
    void refusesNoThreadsAndUnequalSizes() {
        MemorySegment a = MemorySegment.ofArray(new byte[8]);
        MemorySegment b = MemorySegment.ofArray(new byte[9]);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ParallelCopy(a, a, 0)).getMessage()
                .contains("0 threads"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new ParallelCopy(a, b, 1)).getMessage()
                .contains("8 and 9 bytes"));
    }

    private static long helpersAlive() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("baseline-copy-")).count();
    }
}
