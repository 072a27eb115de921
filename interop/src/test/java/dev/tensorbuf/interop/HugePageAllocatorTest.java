package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.interop.internal.HugePageAllocator;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Large buffers as their own mappings advised for huge pages; small ones from an arena. */
class HugePageAllocatorTest {
    private static final long BIG = 9L << 20;

    /** The /proc/self/smaps block of the mapping that contains {@code address}, if this kernel has one. */
    private static Optional<List<String>> smapsOf(long address) throws IOException {
        Path smaps = Path.of("/proc/self/smaps");
        if (!Files.isReadable(smaps)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(smaps);
        for (int i = 0; i < lines.size(); i++) {
            String[] head = lines.get(i).split("\\s+", 2)[0].split("-");
            if (head.length == 2 && head[0].matches("[0-9a-f]+") && head[1].matches("[0-9a-f]+")) {
                long from = Long.parseUnsignedLong(head[0], 16);
                long to = Long.parseUnsignedLong(head[1], 16);
                if (Long.compareUnsigned(address, from) >= 0 && Long.compareUnsigned(address, to) < 0) {
                    int end = i + 1;
                    while (end < lines.size() && !lines.get(end).matches("[0-9a-f]+-[0-9a-f]+ .*")) {
                        end++;
                    }
                    return Optional.of(lines.subList(i, end));
                }
            }
        }
        return Optional.empty();
    }

    private static String thpMode() throws IOException {
        Path p = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        return Files.isReadable(p) ? Files.readString(p).trim() : "absent";
    }

    @Test
    void largeBuffersAreZeroedAlignedWritableAndUnmappedOnClose() {
        assumeTrue(HugePageAllocator.available(), "anonymous mappings need Linux");
        try (HugePageAllocator allocator = HugePageAllocator.open()) {
            MemoryBuffer b = allocator.allocate(BIG + 12, 4096);
            assertEquals(BIG + 12, b.byteSize());
            assertTrue(b.isAligned(HugePageAllocator.HUGE_PAGE_BYTES), "0x" + Long.toHexString(b.address()));
            MemorySegment s = b.segment();
            for (long o = 0; o < s.byteSize(); o += 4096) {
                assertEquals(0, s.get(ValueLayout.JAVA_BYTE, o), "byte " + o + " of a fresh buffer");
            }
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, BIG + 4, 0x0123_4567_89ab_cdefL);
            assertEquals(0x0123_4567_89ab_cdefL, s.get(ValueLayout.JAVA_LONG_UNALIGNED, BIG + 4));
            assertThrows(IndexOutOfBoundsException.class, () -> s.get(ValueLayout.JAVA_BYTE, BIG + 12));
            b.close();
            assertFalse(b.isAlive());
            assertThrows(IllegalStateException.class, () -> s.get(ValueLayout.JAVA_BYTE, 0),
                    "a segment kept past close is revoked before the memory is unmapped");
            assertEquals(0, allocator.advisedBytes(), "a closed buffer no longer counts");
        }
    }

    @Test
    void alignmentsAboveTheHugePageAreHonoured() {
        assumeTrue(HugePageAllocator.available(), "anonymous mappings need Linux");
        try (HugePageAllocator allocator = HugePageAllocator.open()) {
            assertTrue(allocator.allocate(BIG, 16L << 20).isAligned(16L << 20));
        }
    }

    @Test
    void theKernelSeesTheAdviceBeforeAnyPageIsTouched() throws IOException {
        assumeTrue(HugePageAllocator.available(), "anonymous mappings need Linux");
        String mode = thpMode();
        assumeTrue(mode.contains("[madvise]") || mode.contains("[always]"),
                "transparent huge pages are '" + mode + "' here: the kernel ignores the advice");
        try (HugePageAllocator allocator = HugePageAllocator.open()) {
            MemoryBuffer b = allocator.allocate(BIG);
            assertEquals(BIG, allocator.advisedBytes());
            Optional<List<String>> vma = smapsOf(b.address());
            assumeTrue(vma.isPresent(), "no /proc/self/smaps entry to check");
            assertTrue(vma.get().stream().anyMatch(l -> l.matches("VmFlags:.* hg( .*|$)")),
                    "the mapping should carry the huge-page advice (hg): " + vma.get());
        }
    }

    @Test
    void smallBuffersComeFromTheArenaAndCloseWithTheAllocator() {
        HugePageAllocator allocator = HugePageAllocator.open();
        MemoryBuffer small = allocator.allocate(1000);
        MemoryBuffer large = allocator.allocate(BIG);
        assertTrue(small.isAligned(64));
        // The review saw small buffers name a "shared arena" their caller never made.
        assertEquals("shared arena of huge-page allocator", small.owner().toString());
        allocator.close();
        allocator.close();
        assertFalse(allocator.isOpen());
        assertFalse(large.isAlive(), "closing the allocator closes its large buffers");
        assertEquals("buffer of 1000 bytes from shared arena of huge-page allocator was closed when its shared arena"
                        + " of huge-page allocator closed",
                assertThrows(IllegalStateException.class, () -> small.segment()).getMessage());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> allocator.allocate(8));
        assertEquals("huge-page allocator (closed, 0 large buffer(s) open) cannot allocate", e.getMessage());
    }

    /**
     * MemoryBuffer.hold promises that closing the allocator still frees the memory; the review found a
     * held large buffer left mapped, and its kept segment still reading, after the close.
     */
    @Test
    void closingTheAllocatorFreesAHeldLargeBuffer() {
        assumeTrue(HugePageAllocator.available(), "anonymous mappings need Linux");
        HugePageAllocator allocator = HugePageAllocator.open();
        MemoryBuffer held = allocator.allocate(BIG);
        MemoryBuffer.Hold hold = held.hold();
        MemorySegment kept = held.segment();
        MemoryBuffer closedHeld = allocator.allocate(BIG);
        MemoryBuffer.Hold closedHold = closedHeld.hold();
        MemorySegment closedKept = closedHeld.segment();
        closedHeld.close();
        assertEquals(0, closedKept.get(ValueLayout.JAVA_BYTE, 0), "a hold keeps a closed buffer's memory");
        allocator.close();
        assertFalse(held.isAlive());
        assertThrows(IllegalStateException.class, () -> kept.get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, () -> closedKept.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals("huge-page allocator (closed, 0 large buffer(s) open)", allocator.toString());
        hold.close(); // the deferred frees find the memory freed already, and do nothing
        closedHold.close();
    }

    /** The review saw "shared arena is closed", an allocator its caller never made. */
    @Test
    void aSmallAllocationRacingCloseNamesThisAllocator() throws InterruptedException {
        for (int trial = 0; trial < 200; trial++) {
            HugePageAllocator h = HugePageAllocator.open();
            AtomicReference<IllegalStateException> refusal = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            Thread a = Thread.ofPlatform().start(() -> {
                started.countDown();
                try {
                    while (true) {
                        h.allocate(1000);
                    }
                } catch (IllegalStateException closed) {
                    refusal.set(closed);
                }
            });
            started.await();
            h.close();
            a.join();
            String message = refusal.get().getMessage();
            assertTrue(message.startsWith("huge-page allocator (closed, "), "trial " + trial + ": " + message);
        }
    }

    @Test
    void badRequestsAreNamed() {
        try (HugePageAllocator allocator = HugePageAllocator.open()) {
            assertEquals("byteSize -1 must be >= 0",
                    assertThrows(IllegalArgumentException.class, () -> allocator.allocate(-1)).getMessage());
            assertEquals("alignment 48 is not a power of two",
                    assertThrows(IllegalArgumentException.class, () -> allocator.allocate(BIG, 48)).getMessage());
            OutOfMemoryError oom = assertThrows(OutOfMemoryError.class, () -> allocator.allocate(Long.MAX_VALUE - 10));
            assertTrue(oom.getMessage().startsWith("cannot reserve 9223372036854775797 bytes aligned to 64 for huge-page"
                    + " allocator"), oom.getMessage());
            assertEquals(0, allocator.advisedBytes());
        }
    }

    /** Every allocator words its out-of-memory error alike; the review found this one without the alignment's cost. */
    @Test
    void aHugeAlignmentSaysWhatItCosts() {
        try (HugePageAllocator allocator = HugePageAllocator.open()) {
            OutOfMemoryError large = assertThrows(OutOfMemoryError.class,
                    () -> allocator.allocate(HugePageAllocator.THRESHOLD_BYTES, 1L << 62));
            assertEquals(Allocator.cannotReserve(HugePageAllocator.THRESHOLD_BYTES, 1L << 62, allocator).getMessage(),
                    large.getMessage());
            assertTrue(large.getMessage().contains("(an alignment that may take up to 4611686018431582207 bytes to meet)"
                    + " for huge-page allocator"), large.getMessage());
            OutOfMemoryError small = assertThrows(OutOfMemoryError.class, () -> allocator.allocate(8, 1L << 62));
            assertEquals("cannot reserve 8 bytes aligned to 4611686018427387904 (an alignment that may take up to"
                    + " 4611686018427387911 bytes to meet) for huge-page allocator (open, 0 large buffer(s) open): the"
                    + " system has no such native memory", small.getMessage());
        }
    }

    /** An allocation racing close either fails or is closed by it: none outlives the allocator (a review found 189 of 300). */
    @Test
    void noBufferOutlivesACloseItRaced() throws InterruptedException {
        assumeTrue(HugePageAllocator.available(), "anonymous mappings need Linux");
        for (int trial = 0; trial < 100; trial++) {
            HugePageAllocator h = HugePageAllocator.open();
            java.util.List<MemoryBuffer> got = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread a = Thread.ofPlatform().start(() -> {
                try {
                    while (true) {
                        got.add(h.allocate(HugePageAllocator.THRESHOLD_BYTES));
                    }
                } catch (IllegalStateException closed) {
                    // the allocator closed: expected
                }
            });
            Thread.sleep(0, 200_000);
            h.close();
            a.join();
            for (MemoryBuffer b : got) {
                assertFalse(b.isAlive(), "trial " + trial + ": a buffer of a closed allocator is still open");
            }
        }
    }
}
